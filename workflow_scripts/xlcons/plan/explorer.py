"""The item explorer (xlcons.reports.explorer): whether the run writes it, and what it reads.

It reads what the results stage read, and what lies beside it: the per-item tables of every
evaluator as the evaluator registry lists them (each entry's per-item `results` sources and
its `details`), the item scores and the results table, the prompts and answers of every
scored (data set, model), the primary translator's translations with their sentences and
quality estimates where the run has them, and the other translators' (`translators`)
translations of the sets an evaluator reads translated (their text beside their scores,
which are in the item scores under their translator's name).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xlcons.evaluators.registry import QE_INPUT, RESPONSES_INPUT
from xlcons.plan.data import DataPlan
from xlcons.plan.evaluation import EvaluationPlan
from xlcons.plan.layout import Layout
from xlcons.plan.quality import QualityPlan
from xlcons.plan.scoring import EvaluatorPlan
from xlcons.plan.translation import TranslationPlan

# The explorer rule's named inputs beside the evaluators' outputs (which keep their registered names).
RESULTS_TABLE = "results"
ITEM_SCORES_TABLE = "item_scores"
PROMPT_TABLES = "prompts"
RESPONSE_TABLES = RESPONSES_INPUT
TRANSLATION_TABLES = "translations"
OTHER_TRANSLATION_TABLES = "other_translations"
SENTENCE_TABLES = "translation_sentences"
QE_TABLES = QE_INPUT
FIXED_INPUTS = (
    RESULTS_TABLE,
    ITEM_SCORES_TABLE,
    PROMPT_TABLES,
    RESPONSE_TABLES,
    TRANSLATION_TABLES,
    OTHER_TRANSLATION_TABLES,
    SENTENCE_TABLES,
    QE_TABLES,
)


class ExplorerPlan:
    def __init__(
        self,
        config: Mapping[str, Any],
        data: DataPlan,
        layout: Layout,
        evaluators: EvaluatorPlan,
        evaluation: EvaluationPlan,
        quality: QualityPlan,
        translation: TranslationPlan,
    ):
        self.config, self.data, self.layout, self.evaluators = config, data, layout, evaluators
        self.evaluation, self.quality, self.translation = evaluation, quality, translation

    def explorer_enabled(self) -> bool:
        """The run writes the explorer: `output.explorer` is on and some evaluator runs (there is
        a results table to explore)."""
        return bool(self.config["output"]["explorer"]) and bool(self.evaluators.evaluators())

    def explorer_in_report(self) -> bool:
        """The explorer goes into `snakemake --report` too (`output.explorer_report`): as a folder,
        which only a report.zip holds."""
        return self.explorer_enabled() and bool(self.config["output"]["explorer_report"])

    def explorer_dir(self) -> str:
        return f"{self.layout.results}/explorer"

    def explorer_inputs(self) -> dict[str, list[str]]:
        """Every file the explorer reads, by name: the fixed tables (FIXED_INPUTS) and each
        evaluator's per-item outputs under their registered names (primary translator only)."""
        if not self.explorer_enabled():
            return {}
        tables = f"{self.layout.results}/tables"
        inputs: dict[str, list[str]] = {
            RESULTS_TABLE: [f"{tables}/results.parquet"],
            ITEM_SCORES_TABLE: [f"{tables}/item_scores.parquet"],
        }
        pairs: dict[tuple[str, str], None] = {}
        for info in self.evaluators.evaluators():
            outputs = [s.output for s in info.results if not s.corpus] + [d.output for d in info.details]
            jobs = [(d, m) for d, m, via in self.evaluation.evaluation_jobs(info.name) if via == ""]
            for output in outputs:
                files = [self.layout.evaluation_file(d, m, output) for d, m in jobs]
                if files:
                    inputs[output] = files
            if outputs:
                pairs |= dict.fromkeys(jobs)
        datasets = list(dict.fromkeys(d for d, _ in pairs))
        inputs[PROMPT_TABLES] = [self.layout.prompt_table(d) for d in datasets]
        inputs[RESPONSE_TABLES] = [self.layout.response_table(d, m) for d, m in pairs]
        translated = set(self.data.translation_datasets())
        inputs[TRANSLATION_TABLES] = [
            path for d, m in pairs if d in translated for path in self.layout.translation_files(d, m)
        ]
        inputs[OTHER_TRANSLATION_TABLES] = [
            path
            for d, m in pairs
            if d in translated
            for via in self.translation.translator_vias(d)
            if via
            for path in self.layout.translation_files(d, m, via=via)
        ]
        inputs[SENTENCE_TABLES] = [
            path for d, m in pairs if d in translated for path in self.layout.translation_files(d, m, "sentences")
        ]
        with_qe = set(self.quality.qe_datasets())
        inputs[QE_TABLES] = [path for d, m in pairs if d in with_qe for path in self.layout.qe_files(d, m)]
        return inputs
