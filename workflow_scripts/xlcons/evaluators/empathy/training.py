"""Training and evaluating one mechanism's classifier on the EPITOME split.

:func:`train_classifier` fits a classifier of the given kind on the mechanism's train pairs
(or train + dev, the paper's final models), saves it into `out_dir` and writes
``evaluation.json`` there: accuracy, macro-F1 and positive-class F1 on the test pairs
(and on dev when dev was not trained on), the pair counts, and the paper's figures. The file
holds nothing that varies from run to run (two trainings with the same options write the same
bytes); the training time goes to the log, and the rule's benchmark file has the job's.

Command line (one mechanism)::

    python -m xlcons.evaluators.empathy.training --kind tfidf --mechanism ER \\
        --data ../shared/data/epitome --out resources/empathy/tfidf/ER
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xlcons.datasets.epitome import (
    DEFAULT_SPLIT_FILE,
    FILES,
    MECHANISMS,
    Example,
    mechanism_examples,
)
from xlcons.evaluators.empathy.base import ClassifierError, PairClassifier, classifier_class

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

EVALUATION_NAME = "evaluation.json"
TRAIN_ON = ("train", "train+dev")
# Gupta et al. 2025's test scores of its ModernBERT-large classifiers (%): F1 and accuracy.
PAPER_TEST_SCORES = {
    "ER": {"f1": 86.1, "accuracy": 87.2},
    "IP": {"f1": 87.3, "accuracy": 87.4},
    "EX": {"f1": 92.0, "accuracy": 95.8},
}


def scores(gold: Sequence[int], predicted: Sequence[int] | np.ndarray) -> dict[str, Any]:
    """Accuracy, macro-F1 and positive-class F1 (fractions), with the gold and predicted positive rates."""
    from sklearn.metrics import accuracy_score, f1_score

    gold, predicted = [int(value) for value in gold], [int(value) for value in predicted]
    if not gold:
        return {"n": 0, "accuracy": None, "macro_f1": None, "positive_f1": None}
    return {
        "n": len(gold),
        "accuracy": float(accuracy_score(gold, predicted)),
        "macro_f1": float(f1_score(gold, predicted, average="macro", labels=[0, 1], zero_division=0)),
        "positive_f1": float(f1_score(gold, predicted, pos_label=1, zero_division=0)),
        "gold_positive_rate": sum(gold) / len(gold),
        "predicted_positive_rate": sum(predicted) / len(predicted),
    }


def evaluate(classifier: PairClassifier, examples: Sequence[Example]) -> dict[str, Any]:
    predicted = classifier.predict([e.seeker_post for e in examples], [e.response_post for e in examples])
    return scores([e.label for e in examples], predicted)


def _columns(examples: Sequence[Example]) -> tuple[list[str], list[str], list[int]]:
    return [e.seeker_post for e in examples], [e.response_post for e in examples], [e.label for e in examples]


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def train_classifier(
    kind: str,
    mechanism: str,
    data_folder: Path | str,
    split_file: Path | str | None,
    out_dir: Path | str,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Train, save into `out_dir`, evaluate on test; returns (and writes) the evaluation.

    `options`: ``train_on`` (``"train+dev"``, the default and the paper's final models, or
    ``"train"``), ``limit_train`` (use only the first N training pairs: smoke tests), and
    the classifier's own options (see ``tfidf.DEFAULTS``, ``encoder.DEFAULTS``). An
    encoder with ``select_on_dev`` must train on ``"train"`` only.
    """
    if mechanism not in MECHANISMS:
        raise ClassifierError(f"unknown mechanism {mechanism!r}; expected one of {', '.join(MECHANISMS)}")
    options = dict(options or {})
    train_on = options.pop("train_on", "train+dev")
    limit_train = options.pop("limit_train", None)
    if train_on not in TRAIN_ON:
        raise ClassifierError(f"train_on must be one of {TRAIN_ON}, not {train_on!r}")
    if options.get("select_on_dev") and train_on != "train":
        raise ClassifierError("select_on_dev picks an epoch on the dev pairs; train_on must then be 'train'")
    classifier = classifier_class(kind)(mechanism, options)
    split_path = Path(split_file) if split_file is not None else DEFAULT_SPLIT_FILE
    grouped = mechanism_examples(data_folder, mechanism, split_path)
    training = grouped["train"] + (grouped["dev"] if train_on == "train+dev" else [])
    if limit_train:
        training = training[: int(limit_train)]
    started = time.perf_counter()
    classifier.fit(*_columns(training), dev=_columns(grouped["dev"]))
    log.info("%s %s: trained on %d pairs in %.2f s", kind, mechanism, len(training), time.perf_counter() - started)
    out_dir = Path(out_dir)
    classifier.save(out_dir)
    evaluation: dict[str, Any] = {
        "kind": kind,
        "mechanism": mechanism,
        "data_file": FILES[mechanism],
        "split_file": split_path.name,
        "split_sha256": _sha256(split_path),
        "train_on": train_on,
        "n_train": len(grouped["train"]),
        "n_dev": len(grouped["dev"]),
        "n_test": len(grouped["test"]),
        "n_trained_on": len(training),
        "n_posts": {name: len({e.sp_id for e in examples}) for name, examples in grouped.items()},
        "options": classifier.options,
        "test": evaluate(classifier, grouped["test"]),
        "dev": evaluate(classifier, grouped["dev"]) if train_on == "train" else None,
        "paper_test": PAPER_TEST_SCORES[mechanism],
        "note": "scores are fractions; paper_test is in % and does not say whether its F1 is macro or positive-class",
    }
    (out_dir / EVALUATION_NAME).write_text(json.dumps(evaluation, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return evaluation


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Train one EPITOME mechanism classifier and evaluate it on test.")
    parser.add_argument("--kind", choices=["tfidf", "encoder"], required=True)
    parser.add_argument("--mechanism", choices=list(MECHANISMS), required=True)
    parser.add_argument("--data", required=True, help="folder of the EPITOME CSVs")
    parser.add_argument("--split", default=None, help=f"split file (default {DEFAULT_SPLIT_FILE})")
    parser.add_argument("--out", required=True)
    parser.add_argument("--options", default="{}", help="JSON object of options (train_on, classifier options)")
    args = parser.parse_args(argv)
    evaluation = train_classifier(args.kind, args.mechanism, args.data, args.split, args.out, json.loads(args.options))
    test = evaluation["test"]
    print(
        f"{args.mechanism} {args.kind}: test accuracy {test['accuracy']:.3f}, macro-F1 {test['macro_f1']:.3f}, "
        f"positive F1 {test['positive_f1']:.3f} (paper F1/acc "
        f"{evaluation['paper_test']['f1']}/{evaluation['paper_test']['accuracy']})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())


def rule_train_empathy_classifier(smk) -> None:
    """Rule train_empathy_classifier: one mechanism's classifier, and its evaluation beside the model."""
    params, output = smk.params, smk.output
    train_classifier(params.kind, smk.wildcards.mechanism, params.data, None, output.model, params.options)
    shutil.copyfile(Path(output.model) / "evaluation.json", output.evaluation)
