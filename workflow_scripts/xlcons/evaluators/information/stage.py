"""The information-consistency jobs and rules: tables in, per-item, per-fact and per-language scores out.

`rule_information_consistency` compares one model's English responses with the translations
of its answers in the other languages; `rule_translationese_check` compares its English
responses with their round trips en -> l -> en. Both read the input tables
(:mod:`~xlcons.evaluators.information.pairs` makes the pairs), score them with the evaluator
LLM (:mod:`~xlcons.evaluators.information.fact_checking`: extraction, verification, one
cache per job), write INFORMATION_ITEMS and INFORMATION_FACTS, and aggregate the items per
language into INFORMATION_SCORES (`scores.language_scores`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from xlcons.evaluators.information.fact_checking import score_pairs
from xlcons.evaluators.information.pairs import pairs_from_round_trips, pairs_from_translations
from xlcons.evaluators.information.scores import language_scores
from xlcons.evaluators.information.tables import INFORMATION_FACTS, INFORMATION_ITEMS, INFORMATION_SCORES
from xlcons.generation.base import Backend, ModelSpec, load_backend
from xlcons.schemas import RESPONSES, ROUND_TRIPS, TRANSLATIONS
from xlcons.shards import ShardError, job_shard, merge_rows, shard_rows
from xlcons.tables import read_table, write_table


def _paths(paths: Path | str | Sequence[Path | str]) -> list[Path | str]:
    return [paths] if isinstance(paths, (str, Path)) else list(paths)


def _read_all(paths: Path | str | Sequence[Path | str], schema: pa.Schema) -> pa.Table:
    tables = [read_table(path, schema) for path in _paths(paths)]
    return pa.concat_tables(tables) if tables else schema.empty_table()


def run_information(
    llm_spec: ModelSpec,
    english_responses: pa.Table,
    translations: pa.Table,
    cache_path: Path | str,
    backend_factory: Callable[[ModelSpec], Backend] = load_backend,
    responses: pa.Table | None = None,
    **options: Any,
) -> tuple[pa.Table, pa.Table]:
    """(items, facts) comparing each translation with the English response of its item; an item
    whose answer (in `responses`, every language's RESPONSES rows, or the English one) is a failed
    request is excluded with its finish reason."""
    pairs = pairs_from_translations(english_responses, translations, responses)
    return score_pairs(llm_spec, pairs, cache_path, backend_factory, **options)


def run_round_trip_information(
    llm_spec: ModelSpec,
    round_trips: pa.Table,
    cache_path: Path | str,
    backend_factory: Callable[[ModelSpec], Backend] = load_backend,
    **options: Any,
) -> tuple[pa.Table, pa.Table]:
    """(items, facts) comparing each original English response with its en→l→en round trip."""
    return score_pairs(llm_spec, pairs_from_round_trips(round_trips), cache_path, backend_factory, **options)


def run_information_job(
    llm_spec: ModelSpec,
    english_responses_file: Path | str,
    translations_file: Path | str | Sequence[Path | str],
    out_items: Path | str,
    out_facts: Path | str,
    cache_path: Path | str,
    backend_factory: Callable[[ModelSpec], Backend] = load_backend,
    shard: tuple[int, int] | None = None,
    responses_file: Path | str | Sequence[Path | str] | None = None,
    **options: Any,
) -> tuple[Path, Path]:
    """The rule's job: one model's English RESPONSES file and TRANSLATIONS file(s) in; items and facts Parquet out.

    Several translation files (languages) may be given: their rows go to the same outputs,
    and the English facts are extracted once for all of them. A shard job (`shard`: (k, N),
    xlcons.shards) scores the items of shard k only; `merge_information_shards` joins the N.
    `responses_file`: the model's answers in every language (one table), whose failed requests
    exclude their items.
    """
    english = read_table(english_responses_file, RESPONSES)
    translations = _read_all(translations_file, TRANSLATIONS)
    if shard is not None:
        translations = shard_rows(translations, *shard)
    responses = _read_all(responses_file, RESPONSES) if responses_file is not None else None
    items, facts = run_information(
        llm_spec, english, translations, cache_path, backend_factory, responses=responses, **options
    )
    return write_table(items, out_items, INFORMATION_ITEMS), write_table(facts, out_facts, INFORMATION_FACTS)


def run_round_trip_information_job(
    llm_spec: ModelSpec,
    round_trips_file: Path | str | Sequence[Path | str],
    out_items: Path | str,
    out_facts: Path | str,
    cache_path: Path | str,
    backend_factory: Callable[[ModelSpec], Backend] = load_backend,
    **options: Any,
) -> tuple[Path, Path]:
    """The translationese check's job: ROUND_TRIPS file(s) in; items and facts Parquet out (comparison `round_trip`)."""
    items, facts = run_round_trip_information(
        llm_spec, _read_all(round_trips_file, ROUND_TRIPS), cache_path, backend_factory, **options
    )
    return write_table(items, out_items, INFORMATION_ITEMS), write_table(facts, out_facts, INFORMATION_FACTS)


def run_language_scores_job(items_files: Path | str | Sequence[Path | str], out_path: Path | str) -> Path:
    """INFORMATION_ITEMS file(s) in, one INFORMATION_SCORES file out (see `scores.language_scores`)."""
    return write_table(language_scores(_read_all(items_files, INFORMATION_ITEMS)), out_path, INFORMATION_SCORES)


def merge_information_shards(
    translations_file: Path | str | Sequence[Path | str],
    item_files: Sequence[Path | str],
    fact_files: Sequence[Path | str],
    out_items: Path | str,
    out_facts: Path | str,
) -> tuple[Path, Path]:
    """The items and facts of a sharded information job: the shards' tables in the order of the
    translations (the pairs' order), as the unsharded job writes them."""
    translations = _read_all(translations_file, TRANSLATIONS)
    items = merge_rows([read_table(path, INFORMATION_ITEMS) for path in item_files], translations, INFORMATION_ITEMS)
    if items.num_rows != translations.num_rows:
        raise ShardError(
            f"the {len(item_files)} shard tables hold {items.num_rows} items for {translations.num_rows} translations: "
            "they were written from other translations; run the shard jobs again"
        )
    facts = merge_rows([read_table(path, INFORMATION_FACTS) for path in fact_files], translations, INFORMATION_FACTS)
    return write_table(items, out_items, INFORMATION_ITEMS), write_table(facts, out_facts, INFORMATION_FACTS)


def _information_llm(smk) -> ModelSpec:
    return ModelSpec.from_config("information", smk.params.llm, smk.params.llm["location"])


def rule_information_consistency(smk) -> None:
    """Rule information_consistency: one model's translated answers, facts checked both ways
    against its English ones."""
    params, inputs, output = smk.params, smk.input, smk.output
    run_information_job(
        _information_llm(smk),
        inputs.english,
        inputs.translations,
        output.per_item,
        output.facts,
        params.cache,
        shard=job_shard(smk),
        responses_file=inputs.responses,
        refusals=params.refusals,
        **params.options,
    )
    run_language_scores_job(output.per_item, output.scores)  # a shard's: the merge scores all items again


def rule_information_consistency_merge(smk) -> None:
    """Rule information_consistency_merge: the shard jobs' items and facts as one table each, and the
    scores of the items: the unsharded job's outputs."""
    inputs, output = smk.input, smk.output
    merge_information_shards(inputs.translations, inputs.item_shards, inputs.fact_shards, output.per_item, output.facts)
    run_language_scores_job(output.per_item, output.scores)


def rule_translationese_check(smk) -> None:
    """Rule translationese_check: one model's English answers against their round trips en -> l -> en."""
    params, inputs, output = smk.params, smk.input, smk.output
    run_round_trip_information_job(
        _information_llm(smk), inputs.round_trips, output.per_item, output.facts, params.cache, **params.options
    )
    run_language_scores_job(output.per_item, output.scores)


__all__ = [
    "run_information",
    "run_information_job",
    "run_language_scores_job",
    "run_round_trip_information",
    "run_round_trip_information_job",
    "merge_information_shards",
    "rule_information_consistency",
    "rule_information_consistency_merge",
    "rule_translationese_check",
]
