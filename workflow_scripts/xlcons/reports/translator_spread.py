"""The spread of the translation-reading scores between translators (the `translators` option).

Per (data set, evaluator, model, language, metric), the value under each translator and how
far the choice of translator alone moves it (:func:`spread_table`); per pair of models, how far
it moves their difference (:func:`difference_spread_table`). Written by the translation-quality
report (xlcons.reports.translation_quality).
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from xlcons.reports.qe_scores import translating_evaluators

_SPREAD_COLUMNS = {"lowest": pl.Float64, "highest": pl.Float64, "range": pl.Float64, "n translators": pl.UInt32}


def _translated_rows(results: pl.DataFrame, translators: Sequence[str]) -> pl.DataFrame:
    """The results rows of the evaluators that read translations, under `translators`, without
    the QE-passing variants (`@qe_pass`)."""
    return results.filter(
        pl.col("evaluator").is_in(translating_evaluators())
        & ~pl.col("metric").str.contains("@qe_pass")
        & pl.col("translator").is_in(list(translators))
    )


def _spread(rows: pl.DataFrame, keys: list[str], value: str, translators: Sequence[str]) -> pl.DataFrame:
    """`value` of `rows` under each translator (a column each, in their order), the lowest and
    highest, their `range` (needs two) and `n translators` (those with a value)."""
    wide = rows.pivot(on="translator", index=keys, values=value, aggregate_function="first")
    for name in translators:
        if name not in wide.columns:
            wide = wide.with_columns(pl.lit(None, pl.Float64).alias(name))
    values = [pl.col(name) for name in translators]
    n = pl.sum_horizontal([column.is_not_null().cast(pl.UInt32) for column in values])
    wide = wide.with_columns(
        pl.min_horizontal(values).alias("lowest"), pl.max_horizontal(values).alias("highest"), n.alias("n translators")
    )
    return wide.with_columns(
        pl.when(pl.col("n translators") >= 2).then(pl.col("highest") - pl.col("lowest")).alias("range")
    )


def spread_table(results: pl.DataFrame, translators: Sequence[str]) -> pl.DataFrame:
    """Per (data set, evaluator, model, language, metric) of an evaluator that reads
    translations: the value under each of `translators` (a column each, in their order), the
    lowest and highest, and their `range` (highest - lowest), how far the choice of translator
    alone moves the score's level. `n translators` counts those with a value; the range needs
    two. The QE-passing variants (`@qe_pass`) are left out. Whether it moves a difference
    between two models is :func:`difference_spread_table`."""
    keys = ["dataset", "evaluator", "model", "lang", "metric"]
    rows = _translated_rows(results, translators)
    columns = {key: pl.String for key in keys} | {name: pl.Float64 for name in translators} | _SPREAD_COLUMNS
    if rows.is_empty():
        return pl.DataFrame(schema=columns)
    return _spread(rows, keys, "value", translators).select(list(columns)).cast(columns).sort(keys)


def difference_spread_table(
    results: pl.DataFrame, translators: Sequence[str], pairs: Sequence[Sequence[str]] | None = None
) -> pl.DataFrame:
    """Per (data set, evaluator, language, metric) and pair of models (`pairs`; None: every
    pair, `model_a` before `model_b` by name): the difference value_a - value_b under each of
    `translators` (a column each, null where either model has no value), the lowest and
    highest, their `range` and `n translators`, as :func:`spread_table` gives for the scores
    themselves; and `same sign`, whether the difference has one strict sign under every
    translator with a value (null below two). A translator that moves both models alike
    moves no difference: this range, not the scores' own, says how much a comparison of the
    two models rests on the choice of translator."""
    keys = ["dataset", "evaluator", "lang", "metric", "model_a", "model_b"]
    columns = (
        {key: pl.String for key in keys}
        | {name: pl.Float64 for name in translators}
        | _SPREAD_COLUMNS
        | {"same sign": pl.Boolean}
    )
    rows = _translated_rows(results, translators).select(
        "dataset", "evaluator", "translator", "model", "lang", "metric", "value"
    )
    cell = ["dataset", "evaluator", "translator", "lang", "metric"]
    joined = rows.rename({"model": "model_a", "value": "value_a"}).join(
        rows.rename({"model": "model_b", "value": "value_b"}), on=cell
    )
    if pairs is None:
        joined = joined.filter(pl.col("model_a") < pl.col("model_b"))
    else:
        wanted = pl.DataFrame(
            [tuple(pair) for pair in pairs], schema={"model_a": pl.String, "model_b": pl.String}, orient="row"
        )
        joined = joined.join(wanted, on=["model_a", "model_b"], how="semi")
    if joined.is_empty():
        return pl.DataFrame(schema=columns)
    joined = joined.with_columns((pl.col("value_a") - pl.col("value_b")).alias("difference"))
    wide = _spread(joined, keys, "difference", translators)
    agree = (pl.col("lowest") > 0) | (pl.col("highest") < 0)
    wide = wide.with_columns(pl.when(pl.col("n translators") >= 2).then(agree).alias("same sign"))
    return wide.select(list(columns)).cast(columns).sort(keys)
