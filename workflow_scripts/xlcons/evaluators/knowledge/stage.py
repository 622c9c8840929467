"""The knowledge-consistency job: one model's MAKQA answers in, xSC/xAC/xTC/xC tables out."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pyarrow as pa

from xlcons.embeddings import sentence_transformer_embedder
from xlcons.evaluators.knowledge.metrics import score_knowledge
from xlcons.evaluators.knowledge.tables import KNOWLEDGE_ITEMS, KNOWLEDGE_PAIRS, KNOWLEDGE_SCORES
from xlcons.schemas import PROMPTS, RESPONSES
from xlcons.tables import read_table, write_table


def run_knowledge_scores(
    prompt_files: Sequence[Path | str],
    response_files: Sequence[Path | str],
    scores_path: Path | str,
    pairs_path: Path | str,
    items_path: Path | str,
    *,
    embedder: str | None,
    ranking: str,
    oracle: bool,
    oracle_answers: str,
) -> None:
    """Without an embedder, xSC and xC are written as missing (null), never as zero."""
    prompts = pa.concat_tables([read_table(path, PROMPTS) for path in prompt_files])
    responses = pa.concat_tables([read_table(path, RESPONSES) for path in response_files])
    embed = sentence_transformer_embedder(embedder) if embedder else None
    result = score_knowledge(
        responses, prompts, embed=embed, ranking=ranking, oracle=oracle, oracle_answers=oracle_answers
    )
    write_table(result.scores, scores_path, KNOWLEDGE_SCORES)
    write_table(result.pairs, pairs_path, KNOWLEDGE_PAIRS)
    write_table(result.items, items_path, KNOWLEDGE_ITEMS)


def rule_knowledge_scores(smk) -> None:
    """Rule knowledge_scores: xSC, xAC, xTC and xC of one model's answers to one data set."""
    params, output = smk.params, smk.output
    run_knowledge_scores(
        smk.input.prompts,
        smk.input.responses,
        output.scores,
        output.pairs,
        output.per_item,
        embedder=params.embedder,
        ranking=params.ranking,
        oracle=params.oracle,
        oracle_answers=params.oracle_answers,
    )
