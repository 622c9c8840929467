"""The aggregation job: every evaluator's per-item files in, one long results table out.

Runs as a local rule after the evaluators; it reads only their per-item outputs, so
adding a model or a language recomputes the tables, never an evaluator. Writes

Which file is which comes from the evaluator registry: the rule names its inputs after
the evaluators' registered outputs, and each entry names their schema and adapter.

- ``item_scores.parquet``: every per-item score, in the evaluator-independent ITEM_SCORES form;
- ``results.parquet`` / ``results.csv``: one row per (data set, evaluator, translator, model,
  language, metric) with its 95% bootstrap interval and exclusion counts (RESULTS), plus the
  corpus-level knowledge scores;
- ``groups/``: Gupta et al. 2025's averages by script group, family group and In/Out of each
  model's training languages, per (data set, evaluator, metric);
- ``comparisons.parquet`` / ``.csv``: paired tests of the configured model pairs.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import cast

import polars as pl

from xlcons.atomic import atomic_path
from xlcons.evaluators.registry import MEASURABILITY_INPUT, QE_INPUT, RESPONSES_INPUT, RESULTS_SOURCES, resolve
from xlcons.item_scores import failed_requests, mark_failed
from xlcons.reports.comparison import compare_pairs
from xlcons.reports.groups import group_averages, write_group_tables
from xlcons.reports.qe_scores import QE_RATES, passing_scores, qe_item_scores, sensitivity_metrics
from xlcons.reports.results import (
    results_table,
    sort_item_scores,
    sort_results,
    unexplained_values,
    with_translator,
    write_results,
)
from xlcons.reports.summary import ExplorerLink, write_summary
from xlcons.schemas import (
    COMPARISONS,
    ITEM_SCORES,
    MEASURABILITY,
    NO_TRANSLATOR,
    RESPONSES,
    TRANSLATION_QE,
    TRANSLATIONS,
)
from xlcons.tables import read_table, write_table
from xlcons.translation.quality_backends import QE_PATHS_INPUT

log = logging.getLogger(__name__)


def collect_failures(paths: Sequence[Path | str], refusals: str = "count") -> pl.DataFrame:
    """(dataset, model, item_id, lang) of every failed request in these RESPONSES tables (with
    `refusals` ``exclude``, every refused or empty answer too)."""
    columns = ["dataset", "model", "item_id", "lang", "finish_reason"]
    frames = [failed_requests(read_table(path, RESPONSES, columns=columns), refusals) for path in paths]
    return pl.concat(frames) if frames else failed_requests(RESPONSES.empty_table())


def collect_scores(
    inputs: Mapping[str, Sequence[Path | str]], translators: Mapping[str, str] | None = None, refusals: str = "count"
) -> tuple[pl.DataFrame, list[pl.DataFrame]]:
    """ITEM_SCORES rows of every per-item file, and the RESULTS rows of every corpus-level file,
    by registered output (xlcons.evaluators.registry.RESULTS_SOURCES: schema and adapter).
    Items whose score rests on a failed request (`RESPONSES_INPUT`) get status ``error``.
    `translators` names the translator behind a file (xlcons.plan.Plan.file_translators);
    the rows of the others have none. With `refusals` ``exclude`` (the config's `refusals`), the
    items resting on a refused or empty answer are excluded as ``refused`` / ``empty`` likewise."""
    failed = collect_failures(inputs.get(RESPONSES_INPUT, ()), refusals)
    if failed.height:
        log.info("results: %d failed requests; the scores resting on them are excluded as `error`", failed.height)
    items: list[pl.DataFrame] = []
    corpus: list[pl.DataFrame] = []
    for output, paths in inputs.items():
        if output in (RESPONSES_INPUT, QE_INPUT, QE_PATHS_INPUT, MEASURABILITY_INPUT):
            continue
        info, source = RESULTS_SOURCES[output]
        for path in paths:
            rows = resolve(source.adapter)(read_table(path, resolve(source.schema)))
            if not source.corpus:
                rows = _through_translator(mark_failed(rows, failed, info.answers), path, translators)
            (corpus if source.corpus else items).append(rows)
    items = [frame for frame in items if frame.height]
    scores = pl.concat(items) if items else pl.from_arrow(ITEM_SCORES.empty_table())
    return scores, [frame for frame in corpus if frame.height]


def _through_translator(rows: pl.DataFrame, path: Path | str, translators: Mapping[str, str] | None) -> pl.DataFrame:
    """`rows` of the file at `path` with the translator it came through (`translators`), or none."""
    return rows.with_columns(pl.lit((translators or {}).get(str(path), NO_TRANSLATOR)).alias("translator"))


def collect_qe(paths: Sequence[Path | str], translators: Mapping[str, str] | None = None) -> pl.DataFrame:
    """Every TRANSLATION_QE table, one frame, with the `translator` each came through."""
    frames = [_through_translator(pl.from_arrow(read_table(path, TRANSLATION_QE)), path, translators) for path in paths]
    return pl.concat(frames) if frames else with_translator(pl.from_arrow(TRANSLATION_QE.empty_table()))


def collect_translation_paths(
    paths: Sequence[Path | str], translators: Mapping[str, str] | None = None
) -> pl.DataFrame:
    """The translation path of every answer in these TRANSLATIONS tables, with the `translator` each came through."""
    columns = ["dataset", "model", "item_id", "lang", "translation_path"]
    frames = [
        _through_translator(pl.from_arrow(read_table(path, TRANSLATIONS, columns=columns)), path, translators)
        for path in paths
    ]
    return pl.concat(frames) if frames else pl.DataFrame(schema={name: pl.String for name in [*columns, "translator"]})


def collect_measurability(paths: Sequence[Path | str]) -> pl.DataFrame:
    """Every faithful-text check's table (MEASURABILITY) as one, by evaluator, data set and language."""
    frames = [pl.from_arrow(read_table(path, MEASURABILITY)) for path in paths]
    frame = pl.concat(frames) if frames else pl.from_arrow(MEASURABILITY.empty_table())
    return frame.sort("evaluator", "dataset", "lang")


def derived_metrics(outputs: Sequence[str]) -> list:
    """The derived metrics (DerivedMetric) of the evaluators these outputs belong to, each once."""
    references = dict.fromkeys(
        ref for output in outputs if output in RESULTS_SOURCES for ref in RESULTS_SOURCES[output][0].derived
    )
    return [resolve(ref) for ref in references]


def rate_metrics(outputs: Sequence[str]) -> frozenset[str]:
    """The metrics of these outputs' evaluators whose values are rates of binary outcomes
    (EvaluatorInfo.rates), and the QE flags when QE is among them: their rows get a Wilson interval."""
    rates = {name for output in outputs if output in RESULTS_SOURCES for name in RESULTS_SOURCES[output][0].rates}
    return frozenset(rates | (set(QE_RATES) if QE_INPUT in outputs else set()))


def run_results_job(
    inputs: Mapping[str, Sequence[Path | str]],
    out_dir: Path | str,
    *,
    n_resamples: int,
    seed: int,
    training_languages: Mapping[str, Sequence[str] | None],
    table_formats: Sequence[str],
    comparisons: Sequence[Sequence[str]] = (),
    qe_threshold: float | Mapping[str, float] | None = None,
    translators: Mapping[str, str] | None = None,
    summary: Sequence[Path | str] | None = None,
    random_weights: Mapping[str, str] | None = None,
    explorer: ExplorerLink | None = None,
    refusals: str = "count",
    measurability: Path | str | None = None,
) -> list[Path]:
    """The tables under `out_dir` (docs/results.md); with `summary` (its .md and .csv paths,
    and the HTML report's first page), the run's summary of the results table
    (xlcons.reports.summary), which says first when the run used `random_weights` models; with
    `measurability`, the faithful-text checks' verdicts (MEASURABILITY_INPUT) as one CSV table there."""
    out = Path(out_dir)
    checks = collect_measurability(inputs.get(MEASURABILITY_INPUT, ()))
    scores, corpus = collect_scores(inputs, translators, refusals)
    derived = derived_metrics(list(inputs))
    scored = scores  # what the results table averages: with the passing-item copies under QE
    if inputs.get(QE_INPUT):
        paths = collect_translation_paths(inputs.get(QE_PATHS_INPUT, ()), translators)
        qe_rows = qe_item_scores(collect_qe(inputs[QE_INPUT], translators), qe_threshold, paths)
        scores = pl.concat([scores, qe_rows])
        scored = pl.concat([scores, passing_scores(scores, qe_rows)])
        derived = [*derived, *sensitivity_metrics(scored, derived)]
        fails = qe_rows.filter(pl.col("metric") == "qe_fail")
        log.info(
            "results: QE of %d translated items (%d fail), %d untranslatable, threshold %s",
            fails.filter(pl.col("status") == "ok").height,
            fails.filter(pl.col("value") == 1.0).height,
            fails.filter(pl.col("status") != "ok").height,
            qe_threshold,
        )
    scores = sort_item_scores(scores)
    written = [write_table(scores.to_arrow(), out / "item_scores.parquet", ITEM_SCORES)]
    rates = rate_metrics(list(inputs))
    results = results_table(scored, derived=derived, n_resamples=n_resamples, seed=seed, rates=rates)
    if corpus:
        results = sort_results(pl.concat([results, *corpus]))
    unexplained = unexplained_values(results)
    if unexplained.height:
        log.warning(
            "results: %d rows have no value and say not why (no excluded_reasons, no note), e.g. %s",
            unexplained.height,
            unexplained.row(0, named=True),
        )
    written += write_results(results, out / "results")
    if summary is not None:
        written += write_summary(
            results, *summary, random_weights=random_weights, explorer=explorer, measurability=checks
        )
    if measurability is not None:
        with atomic_path(Path(measurability)) as temporary:
            checks.write_csv(temporary)
        written.append(Path(measurability))
    log.info("results: %d item scores -> %d rows (%d resamples)", scores.height, results.height, n_resamples)
    per_language = results.filter(pl.col("kind") != "corpus")
    groups = group_averages(per_language, training_languages=dict(training_languages))
    written += write_group_tables(groups, out / "groups", table_formats)
    # Each of two names (the config schema's minItems/maxItems); none configured: an empty table.
    pairs = cast("list[tuple[str, str]]", [tuple(pair) for pair in comparisons])
    compared = compare_pairs(scores, pairs, derived=derived, n_resamples=n_resamples, seed=seed)
    written.append(write_table(compared.to_arrow(), out / "comparisons.parquet", COMPARISONS))
    with atomic_path(out / "comparisons.csv") as temporary:
        compared.write_csv(temporary)
    written.append(out / "comparisons.csv")
    return written


__all__ = ["collect_failures", "collect_scores", "derived_metrics", "rate_metrics", "run_results_job"]
