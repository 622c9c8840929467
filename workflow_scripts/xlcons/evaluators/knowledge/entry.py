"""The registry entry of knowledge consistency (`knowledge`): run by xlcons.evaluators.knowledge.stage,
its tables and the adapter of its corpus scores in xlcons.evaluators.knowledge.tables.

Standard library only: the registry imports it while the Snakefile builds the DAG.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xlcons.evaluators.info import EvaluatorInfo, ItemDetails, PairFigure, ResultsSource, config_section


def embedder(section: Mapping[str, Any]) -> tuple[str, ...]:
    """The sentence embedder of xSC, unless it is off (null)."""
    return ("embedder",) if section.get("embedder") is not None else ()


# Xing et al. 2024: xSC on any parallel set; xAC and xTC where there are gold answers.
KNOWLEDGE_ENTRY = EvaluatorInfo(
    "knowledge",
    "knowledge",
    "evaluate_knowledge.smk",
    ("knowledge_scores", "knowledge_pairs", "knowledge_items"),
    "knowledge_scores",
    models=embedder,
    results=(
        ResultsSource(
            "knowledge_scores",
            "xlcons.evaluators.knowledge.tables:KNOWLEDGE_SCORES",
            "xlcons.evaluators.knowledge.tables:to_results",
            corpus=True,
        ),
    ),
    details=(ItemDetails("knowledge_items", "xlcons.evaluators.knowledge.tables:KNOWLEDGE_ITEMS"),),
    options=config_section(
        "Knowledge consistency on MAKQA (xSC, xAC, xTC, xC).",
        ["makqa"],
        "Data sets scored for knowledge consistency. Any set of parallel items gets xSC; "
        "one with gold answers (MAKQA, or a user set with a `reference` column) also xAC, "
        "and xTC for a `timeliness` category. Add `multiq` for the xSC of MultiQ's answers.",
        {
            "embedder": {
                "description": "The sentence embedder of xSC (LaBSE by default; any "
                "sentence-transformers model). Null leaves xSC (and xC) missing, never zero.",
                "anyOf": [{"$ref": "#/$defs/model_source"}, {"type": "null"}],
                "default": {"hf_id": "sentence-transformers/LaBSE"},
            },
            "oracle": {
                "description": "Also score the gold answers as if they were a model (the paper's Oracle row of xSC).",
                "type": "boolean",
                "default": True,
            },
            "oracle_answers": {
                "description": "What the Oracle embeds per question: `joined` (all "
                "gold answers, comma-joined) or `first` (the first gold answer).",
                "enum": ["joined", "first"],
                "default": "joined",
            },
            "timeliness_ranking": {
                "description": "How xTC ranks the timeliness candidates: `recency` (rank 1 = most recent, the paper's "
                "text) or `list_position` (rank 1 = first listed, the released code and published numbers).",
                "enum": ["recency", "list_position"],
                "default": "recency",
            },
        },
    ),
    jobs={"knowledge_scores": "xlcons.evaluators.knowledge.stage:rule_knowledge_scores"},
    position=60,
    # xSC, not xC: xC needs timeliness questions with gold answers, which most sets have not.
    headline="xSC",
    # Corpus scores over language pairs: drawn as each model's language × language matrices.
    figure_metrics=("xSC", "xAC"),
    pair_figure=PairFigure(
        "knowledge_pairs",
        "xlcons.evaluators.knowledge.tables:KNOWLEDGE_PAIRS",
        "xlcons.evaluators.knowledge.tables:pair_cells",
    ),
)

ENTRIES = (KNOWLEDGE_ENTRY,)
