"""The registry entries of information consistency (`information`) and of its translationese
check (`translationese`, the same section): run by xlcons.evaluators.information.stage, their
per-item table and adapter in xlcons.evaluators.information.tables.

Standard library only: the registry imports it while the Snakefile builds the DAG.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xlcons.evaluators.info import (
    ENGLISH_ANSWERS,
    SHARDS_OPTION,
    TRANSLATIONS,
    EvaluatorInfo,
    ItemDetails,
    ResultsSource,
    config_section,
    llm,
)
from xlcons.item_scores import ENGLISH_ANSWER, OWN_ANSWER


def round_trips(section: Mapping[str, Any]) -> bool:
    """The translationese check runs when the section names round-trip languages."""
    return bool(section["round_trip_languages"])


# Gupta et al. 2025: atomic facts of the English answer and of each translated answer, checked both ways.
INFORMATION_ENTRY = EvaluatorInfo(
    "information",
    "information",
    "evaluate_information.smk",
    ("information_items", "information_facts", "information_scores"),
    "information_scores",
    reads=TRANSLATIONS,
    needs=frozenset({ENGLISH_ANSWERS}),
    models=llm,
    results=(
        ResultsSource(
            "information_items",
            "xlcons.evaluators.information.tables:INFORMATION_ITEMS",
            "xlcons.evaluators.information.tables:to_item_scores",
        ),
    ),
    details=(ItemDetails("information_facts", "xlcons.evaluators.information.tables:INFORMATION_FACTS"),),
    derived=("xlcons.evaluators.information.derived:INFORMATION_F",),
    answers=(OWN_ANSWER, ENGLISH_ANSWER),
    options=config_section(
        "Information consistency (atomic fact extraction and verification by an LLM).",
        ["information"],
        "Data sets scored for information consistency; each needs English "
        "among its languages. Their answers are translated to English.",
        {
            "llm": {
                "description": "The fact extraction and verification model (Gupta et al. 2025 used Qwen-2.5-14B).",
                "$ref": "#/$defs/llm",
                "default": {"hf_id": "Qwen/Qwen2.5-14B-Instruct", "backend": "vllm"},
            },
            "extraction_max_new_tokens": {
                "description": "Token cap of one fact-extraction answer (the facts of "
                "one sentence). The LLM's own decoding.max_new_tokens wins when set.",
                "type": "integer",
                "minimum": 1,
                "default": 256,
            },
            "verification_max_new_tokens": {
                "description": "Token cap of one verification answer (Supported / Not supported).",
                "type": "integer",
                "minimum": 1,
                "default": 32,
            },
            "max_facts_per_sentence": {
                "description": "Facts kept per sentence at most (a looping extractor cannot flood the verifier).",
                "type": "integer",
                "minimum": 1,
                "default": 24,
            },
            "round_trip_languages": {
                "description": "Translationese check (Gupta et al. 2025's self-consistency "
                "table): each model's English answers go en → l → en through the translator "
                "for these languages and are scored against the originals. Empty: no check.",
                "type": "array",
                "items": {"type": "string"},
                "uniqueItems": True,
                "default": [],
            },
            "shards": {
                **SHARDS_OPTION,
                "description": f"{SHARDS_OPTION['description']} The translationese check runs as one job.",
            },
        },
    ),
    jobs={
        "information_consistency": "xlcons.evaluators.information.stage:rule_information_consistency",
        "information_consistency_merge": "xlcons.evaluators.information.stage:rule_information_consistency_merge",
    },
    calls_models=True,
    estimate="xlcons.estimate.stages:information",
    sharded=True,
    position=40,
    headline="F",
    figure_metrics=("F", "precision", "recall"),
)

# Gupta et al. 2025's translationese check: the English answers en -> l -> en, scored like the above.
TRANSLATIONESE_ENTRY = EvaluatorInfo(
    "translationese",
    "information",
    "evaluate_information.smk",
    ("translationese_items", "translationese_facts", "translationese_scores"),
    "translationese_scores",
    needs=frozenset({ENGLISH_ANSWERS}),
    models=llm,
    results=(
        ResultsSource(
            "translationese_items",
            "xlcons.evaluators.information.tables:INFORMATION_ITEMS",
            "xlcons.evaluators.information.tables:to_item_scores",
        ),
    ),
    details=(ItemDetails("translationese_facts", "xlcons.evaluators.information.tables:INFORMATION_FACTS"),),
    active=round_trips,
    answers=(ENGLISH_ANSWER,),  # the English answer and its own round trip,
    jobs={"translationese_check": "xlcons.evaluators.information.stage:rule_translationese_check"},
    calls_models=True,
    estimate="xlcons.estimate.stages:information",
    through_primary_translator=True,
    position=40,
    headline="F",
    figure_metrics=("F", "precision", "recall"),  # by round-trip (pivot) language
)

ENTRIES = (INFORMATION_ENTRY, TRANSLATIONESE_ENTRY)
