"""What empathy consistency decides for the plan, from its config section (`evaluators.empathy`):
which classifiers are trained where, with which options and on what hardware.

xlcons.plan finds `Planner` here by name (see xlcons.plan.scoring); the rules
(rules/evaluate_empathy.smk, rules/report.smk) reach it through `PLAN.planner("empathy")`.
Light (the standard library, EPITOME's mechanisms): it runs while the Snakefile builds the DAG.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xlcons.datasets.epitome import MECHANISMS  # EPITOME's: one classifier each

ENCODER_KEY = "evaluators.empathy.encoder"  # the encoder the classifiers are fine-tuned from
FINE_TUNED = "encoder"  # the classifier kind trained on a GPU; `tfidf` trains on a CPU in seconds


class Planner:
    encoder_key = ENCODER_KEY
    mechanisms = MECHANISMS

    def __init__(self, section: Mapping[str, Any]):
        self.section = section

    @property
    def classifier(self) -> str:
        """The kind of classifier: `tfidf` or `encoder`."""
        return self.section["classifier"]

    def fine_tunes(self) -> bool:
        """The classifiers are fine-tuned encoders (a GPU job), not TF-IDF models."""
        return self.classifier == FINE_TUNED

    def classifier_dir(self, resources: str, mechanism: str) -> str:
        """Where a trained classifier goes: built by the workflow, so under resources/."""
        return f"{resources}/classifiers/empathy-{self.classifier}/{mechanism}"

    def classifier_evaluation(self, results: str, mechanism: str) -> str:
        """A trained classifier's scores on the held-out split."""
        return f"{results}/evaluations/empathy/classifiers/{mechanism}.json"

    def gpus(self) -> int:
        """GPUs of a training job (and of a scoring job, which runs the classifiers)."""
        return 1 if self.fine_tunes() else 0

    def training_mem_mb(self, attempt: int) -> int:
        """Memory of a training job, growing with the retry attempt."""
        return (32000 if self.fine_tunes() else 4000) * attempt

    def training_runtime(self, attempt: int) -> int:
        """Minutes of a training job, growing with the retry attempt."""
        return (240 if self.fine_tunes() else 15) * attempt

    def training_options(self, mechanism: str, encoder_path: str | None) -> dict[str, Any]:
        """The classifier's options: the TF-IDF section, or the encoder's path, training settings
        and the mechanism's learning rate and epochs."""
        options = {"train_on": self.section["train_on"]}
        if not self.fine_tunes():
            return {**options, **self.section["tfidf"]}
        return {
            **options,
            **self.section["encoder_training"],
            **self.section["hyperparameters"][mechanism],
            "model": encoder_path,
            "seed": self.section["seed"],
        }
