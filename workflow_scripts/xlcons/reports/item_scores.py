"""Adapters: each evaluator's own per-item table to the common ITEM_SCORES rows.

The metric names and the rules below are what the results table and the group tables
show; they follow the papers:

MultiQ (paper 004), evaluator ``fidelity``
    ``fidelity_same`` and ``fidelity_english``: 1 when the response is in the prompted
    language (respectively in English), 0 otherwise; a response the fidelity evaluator
    excluded (unsupported language, "No answer", nothing to identify) is excluded here,
    with its reason, so the shares are over the identified responses as in the paper.
MultiQ, evaluator ``judge``
    ``accuracy``: 1 for ``yes``, 0 for ``no``, ``unparseable`` and ``no_answer``: the
    paper counts everything that is not a clear yes as incorrect, over all responses.
    A failed request is excluded instead, with its verdict as the reason: ``error`` (the
    model's) and ``judge_error`` (the judge's).
Information consistency (paper 000), evaluator ``information`` (``translationese`` for
    the round trips): ``precision``, ``recall`` and ``f1`` per item as the evaluator
    scored them; an item it excluded (no answer on both sides, no facts, failed
    extraction) is excluded here with the same reason. The paper's score ``F`` is derived
    from the means (:data:`xlcons.reports.results.INFORMATION_F`).
Empathy consistency (paper 000), evaluator ``empathy``
    ``consistency`` (1 when the English and the translated profile are equal) and ``ER``,
    ``IP``, ``EX`` (1 when that mechanism agrees); excluded items keep their reason.
Failed requests and prompts too long, every evaluator
    an item whose score rests on a generation request that failed (finish reason
    ``error``, kept as "No answer" under ``generation.max_failed_share``) has status
    ``error`` and no value, whatever the evaluator made of the "No answer": a failed
    request is not the model's answer, so it counts neither as wrong (as a refusal does)
    nor as scored. So has one resting on a prompt longer than the model's context (finish
    reason ``prompt_too_long``: never generated), with status ``prompt_too_long``. Which
    answers a score rests on is the evaluator's registry entry (``answers``: the item's
    language, the English reference, or both); see :func:`mark_failed`.
Knowledge consistency (paper 001)
    xSC/xAC/xTC/xC are correlations and means over language pairs, not item means; they
    enter the results table as ``corpus`` rows (value and counts, no interval) through
    :func:`knowledge_results`.
"""

from __future__ import annotations

import polars as pl
import pyarrow as pa

from xlcons.item_scores import excluded_unless, long_table
from xlcons.schemas import ITEM_SCORES, ITEM_STATUS_OK, JUDGE_FAILURES, NO_TRANSLATOR, RESULTS


def from_fidelity(table: pa.Table) -> pl.DataFrame:
    frame = pl.from_arrow(table)
    fidelity = pl.col("fidelity")
    status = excluded_unless(fidelity != "excluded")
    return long_table(frame, "fidelity", {"fidelity_same": fidelity == "same", "fidelity_english": fidelity == "english"}, status)


def from_judgments(table: pa.Table) -> pl.DataFrame:
    frame = pl.from_arrow(table)
    failed = pl.col("verdict").is_in(list(JUDGE_FAILURES))
    return long_table(frame, "judge", {"accuracy": pl.col("verdict") == "yes"}, pl.when(failed).then(pl.col("verdict")).otherwise(pl.lit(ITEM_STATUS_OK)))


def from_information(table: pa.Table) -> pl.DataFrame:
    """Both comparisons of INFORMATION_ITEMS: ``translation`` rows as ``information``, ``round_trip`` as ``translationese``."""
    frame = pl.from_arrow(table)
    parts = []
    for comparison, evaluator in (("translation", "information"), ("round_trip", "translationese")):
        rows = frame.filter(pl.col("comparison") == comparison)
        if rows.height:
            metrics = {name: pl.col(name) for name in ("precision", "recall", "f1")}
            parts.append(long_table(rows, evaluator, metrics, excluded_unless(pl.col("excluded_reason").is_null())))
    return pl.concat(parts) if parts else pl.from_arrow(ITEM_SCORES.empty_table())


def from_empathy(table: pa.Table) -> pl.DataFrame:
    frame = pl.from_arrow(table)
    metrics = {"consistency": pl.col("equal"), "ER": pl.col("er_agree"), "IP": pl.col("ip_agree"), "EX": pl.col("ex_agree")}
    return long_table(frame, "empathy", metrics, excluded_unless(pl.col("status") == ITEM_STATUS_OK))


def knowledge_results(scores: pa.Table) -> pl.DataFrame:
    """RESULTS rows (kind ``corpus``, language ``all``) for the overall knowledge scores of each variant.

    The metric is named ``<metric>`` when the run has one prompt variant, ``<metric>@<variant>``
    when it compares several (paper 001's Table 5), so one (data set, model) holds them all.
    """
    frame = pl.from_arrow(scores).filter(pl.col("domain") == "all")
    if frame.is_empty():
        return pl.from_arrow(RESULTS.empty_table())
    single = frame["variant"].n_unique() == 1
    rows = frame.select(
        "dataset",
        pl.lit("knowledge").alias("evaluator"),
        pl.lit(NO_TRANSLATOR).alias("translator"),
        "model",
        pl.lit("all").alias("lang"),
        (pl.col("metric") if single else pl.col("metric") + "@" + pl.col("variant")).alias("metric"),
        pl.lit("corpus").alias("kind"),
        "value",
        pl.lit(None, pl.Float64).alias("ci_low"),
        pl.lit(None, pl.Float64).alias("ci_high"),
        pl.col("n_items").fill_null(0),
        pl.col("n_excluded").fill_null(0),
        pl.lit(None, pl.String).alias("excluded_reasons"),
        pl.lit(0).alias("n_resamples"),
        pl.lit(0.95).alias("ci_level"),
    )
    return pl.from_arrow(pa.Table.from_pylist(rows.to_dicts(), schema=RESULTS))
