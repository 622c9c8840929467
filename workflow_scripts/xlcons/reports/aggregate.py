"""The aggregation job: every evaluator's per-item files in, one long results table out.

Runs as a local rule after the evaluators; it reads only their per-item outputs, so
adding a model or a language recomputes the tables, never an evaluator. Writes

- ``item_scores.parquet``: every per-item score, in the evaluator-independent ITEM_SCORES form;
- ``results.parquet`` / ``results.csv``: one row per (data set, evaluator, model, language,
  metric) with its 95% bootstrap interval and exclusion counts (RESULTS), plus the
  corpus-level knowledge scores;
- ``groups/``: paper 000's averages by script group, family group and In/Out of each
  model's training languages, per (data set, evaluator, metric);
- ``comparisons.parquet`` / ``.csv``: paired tests of the configured model pairs.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path

import polars as pl

from xlcons.reports import item_scores as adapters
from xlcons.reports.comparison import compare_pairs
from xlcons.reports.groups import group_averages, write_group_tables
from xlcons.reports.results import INFORMATION_F, results_table, write_results
from xlcons.schemas import (
    COMPARISONS,
    EMPATHY_ITEMS,
    FIDELITY,
    INFORMATION_ITEMS,
    ITEM_SCORES,
    JUDGMENTS,
    KNOWLEDGE_SCORES,
)
from xlcons.tables import read_table, write_table

log = logging.getLogger(__name__)

# Which adapter reads which evaluator output (the rule names its inputs after these keys).
SOURCES = {
    "fidelity": (FIDELITY, adapters.from_fidelity),
    "judgments": (JUDGMENTS, adapters.from_judgments),
    "information": (INFORMATION_ITEMS, adapters.from_information),
    "empathy": (EMPATHY_ITEMS, adapters.from_empathy),
}


def collect_item_scores(inputs: Mapping[str, Sequence[Path | str]]) -> pl.DataFrame:
    """ITEM_SCORES rows of every per-item evaluator file, by the kind of file (SOURCES' keys)."""
    frames = []
    for kind, paths in inputs.items():
        schema, adapter = SOURCES[kind]
        frames += [adapter(read_table(path, schema)) for path in paths]
    frames = [frame for frame in frames if frame.height]
    return pl.concat(frames) if frames else pl.from_arrow(ITEM_SCORES.empty_table())


def run_results_job(
    inputs: Mapping[str, Sequence[Path | str]],
    knowledge_scores: Sequence[Path | str],
    out_dir: Path | str,
    *,
    n_resamples: int,
    seed: int,
    training_languages: Mapping[str, Sequence[str] | None],
    table_formats: Sequence[str],
    comparisons: Sequence[Sequence[str]] = (),
) -> list[Path]:
    out = Path(out_dir)
    scores = collect_item_scores(inputs)
    written = [write_table(scores.to_arrow(), out / "item_scores.parquet", ITEM_SCORES)]
    results = results_table(scores, derived=[INFORMATION_F], n_resamples=n_resamples, seed=seed)
    corpus = [adapters.knowledge_results(read_table(path, KNOWLEDGE_SCORES)) for path in knowledge_scores]
    if corpus:
        results = pl.concat([results, *corpus])
    written += write_results(results, out / "results")
    log.info("results: %d item scores -> %d rows (%d resamples)", scores.height, results.height, n_resamples)
    per_language = results.filter(pl.col("kind") != "corpus")
    groups = group_averages(per_language, training_languages=dict(training_languages))
    written += write_group_tables(groups, out / "groups", table_formats)
    pairs = [tuple(pair) for pair in comparisons]  # none configured: an empty table
    compared = compare_pairs(scores, pairs, derived=[INFORMATION_F], n_resamples=n_resamples, seed=seed)
    written.append(write_table(compared.to_arrow(), out / "comparisons.parquet", COMPARISONS))
    compared.write_csv(out / "comparisons.csv")
    written.append(out / "comparisons.csv")
    return written


__all__ = ["SOURCES", "collect_item_scores", "run_results_job"]
