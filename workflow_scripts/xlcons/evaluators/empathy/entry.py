"""The registry entry of empathy consistency (`empathy`): run by xlcons.evaluators.empathy.training
(the classifiers) and .profiles (the scores), its per-item table and adapter in
xlcons.evaluators.empathy.tables.

Standard library only: the registry imports it while the Snakefile builds the DAG.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xlcons.config_sections import closed_section
from xlcons.datasets import SEEKER_POST
from xlcons.evaluators.info import ENGLISH_ANSWERS, TRANSLATIONS, EvaluatorInfo, ResultsSource, config_section
from xlcons.item_scores import ENGLISH_ANSWER, OWN_ANSWER


def encoder(section: Mapping[str, Any]) -> tuple[str, ...]:
    """The encoder to fine-tune, when the classifier is one."""
    return ("encoder",) if section["classifier"] == "encoder" else ()


def _schedule(learning_rate: float, epochs: int) -> dict[str, Any]:
    """One EPITOME mechanism's fine-tuning schedule, with that mechanism's own defaults (a partial
    override such as `EX: {epochs: 3}` keeps the paper's learning rate of EX)."""
    return closed_section(
        f"The mechanism's fine-tuning schedule (Gupta et al. 2025: learning rate {learning_rate}, {epochs} epochs).",
        {
            "learning_rate": {
                "description": "Peak learning rate.",
                "type": "number",
                "exclusiveMinimum": 0,
                "default": learning_rate,
            },
            "epochs": {"description": "Training epochs.", "type": "integer", "minimum": 1, "default": epochs},
        },
    )


# Gupta et al. 2025: EPITOME empathy profiles of the English and the translated answers.
EMPATHY_ENTRY = EvaluatorInfo(
    "empathy",
    "empathy",
    "evaluate_empathy.smk",
    ("empathy_items", "empathy_scores"),
    "empathy_scores",
    reads=TRANSLATIONS,
    needs=frozenset({ENGLISH_ANSWERS, SEEKER_POST}),
    models=encoder,
    results=(
        ResultsSource(
            "empathy_items",
            "xlcons.evaluators.empathy.tables:EMPATHY_ITEMS",
            "xlcons.evaluators.empathy.tables:to_item_scores",
        ),
    ),
    answers=(OWN_ANSWER, ENGLISH_ANSWER),
    options=config_section(
        "Empathy consistency (EPITOME classifiers for ER, IP, EX).",
        ["empathy"],
        "Data sets scored for empathy consistency; each needs EPITOME seeker posts as prompts (the "
        "built-in `empathy` set) and English among its languages. Their answers are translated to English.",
        {
            "classifier": {
                "description": "`tfidf` (TF-IDF + logistic regression, trains on a CPU in "
                "seconds) or `encoder` (a fine-tuned transformer encoder, trained on a GPU).",
                "enum": ["tfidf", "encoder"],
                "default": "tfidf",
            },
            "encoder": {
                "description": "The encoder to fine-tune when classifier is "
                "`encoder` (Gupta et al. 2025 used ModernBERT-large).",
                "$ref": "#/$defs/model_source",
                "default": {"hf_id": "answerdotai/ModernBERT-large"},
            },
            "seed": {
                "description": "Seed of the encoder's training (the train/dev/test "
                "split is the committed seed-42 file, the same for every user).",
                "type": "integer",
                "default": 42,
            },
            "train_on": {
                "description": "`train+dev` (the paper's final models) or `train` (keeps "
                "dev for selection; required by encoder_training.select_on_dev).",
                "enum": ["train+dev", "train"],
                "default": "train+dev",
            },
            "tfidf": {
                "description": "TF-IDF + logistic regression settings.",
                "type": "object",
                "default": {},
                "additionalProperties": False,
                "properties": {
                    "C": {
                        "description": "Inverse regularisation strength of "
                        "the logistic regression (chosen once on dev).",
                        "type": "number",
                        "exclusiveMinimum": 0,
                        "default": 4.0,
                    },
                    "class_weight": {
                        "description": "`balanced` reweights the classes by their frequency; null trains unweighted.",
                        "enum": ["balanced", None],
                        "default": None,
                    },
                },
            },
            "encoder_training": {
                "description": "Fine-tuning settings of the encoder shared by the three mechanisms.",
                "type": "object",
                "default": {},
                "additionalProperties": False,
                "properties": {
                    "batch_size": {
                        "description": "Training batch size per device.",
                        "type": "integer",
                        "minimum": 1,
                        "default": 16,
                    },
                    "max_length": {
                        "description": "Token cap of a (seeker post, response) pair.",
                        "type": "integer",
                        "minimum": 8,
                        "default": 512,
                    },
                    "warmup_ratio": {
                        "description": "Share of the steps with linear warm-up.",
                        "type": "number",
                        "minimum": 0,
                        "maximum": 1,
                        "default": 0.1,
                    },
                    "weight_decay": {
                        "description": "AdamW weight decay.",
                        "type": "number",
                        "minimum": 0,
                        "default": 0.01,
                    },
                    "select_on_dev": {
                        "description": "Evaluate on dev after every epoch and keep "
                        "the best epoch (tuning; needs train_on `train`).",
                        "type": "boolean",
                        "default": False,
                    },
                    "max_steps": {
                        "description": "Stop after this many optimiser steps (smoke runs); null trains every epoch.",
                        "type": ["integer", "null"],
                        "minimum": 1,
                        "default": None,
                    },
                },
            },
            "hyperparameters": {
                "description": "Learning rate and epochs per mechanism (Gupta et al. 2025's by default).",
                "type": "object",
                "default": {},
                "additionalProperties": False,
                "properties": {
                    "ER": _schedule(2.5e-5, 10),
                    "IP": _schedule(2.5e-5, 10),
                    "EX": _schedule(5.5e-5, 5),
                },
            },
        },
    ),
    jobs={
        "train_empathy_classifier": "xlcons.evaluators.empathy.training:rule_train_empathy_classifier",
        "empathy_consistency": "xlcons.evaluators.empathy.profiles:rule_empathy_consistency",
    },
    position=50,
    headline="consistency",
    rates=("consistency", "ER", "IP", "EX"),
    figure_metrics=("consistency", "ER", "IP", "EX"),
)

ENTRIES = (EMPATHY_ENTRY,)
