"""The translation-ability report's tables (Xing et al. 2024 §5): chrF per direction, model and language,
chrF beside the consistency of each language pair, and their correlations.

What each table holds, and how a direction is matched with its language pair, is described in
xlcons.reports.translation_ability, which writes them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from xlcons.evaluators.knowledge.tables import main_variant
from xlcons.evaluators.translation_ability import language_means
from xlcons.reports.correlations import correlate
from xlcons.reports.knowledge import OVERALL, UNDEFINED_PAIRS_AS_ZERO

CONSISTENCY_METRICS = ("xSC", "xAC")
_CORRELATION_SCHEMA = {
    "scope": pl.String,
    "model": pl.String,
    "consistency": pl.String,
    "n": pl.Int32,
    "spearman": pl.Float64,
    "spearman_ci_low": pl.Float64,
    "spearman_ci_high": pl.Float64,
    "spearman_p": pl.Float64,
    "pearson": pl.Float64,
    "pearson_ci_low": pl.Float64,
    "pearson_ci_high": pl.Float64,
    "pearson_p": pl.Float64,
    "note": pl.String,
}


def correlation(
    x: Sequence[float], y: Sequence[float], groups: Sequence[str] | None = None
) -> dict[str, float | int | str | None]:
    """Spearman's rho and Pearson's r of paired values, each with its p-value and Fisher-z 95%
    interval (xlcons.reports.correlations.correlate: no correlation below 3 points or with a
    constant side, no interval below 5 points or at +-1; `note` says which). `groups` labels
    points that are not independent (the two directions of a language pair, which share
    their C value): the p-value and interval then count the groups, not the points."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    out: dict[str, float | int | str | None] = {"n": len(x)}
    notes = []
    for name, result in correlate(x, y, groups=groups).items():
        out |= {
            name: result.value,
            f"{name}_ci_low": result.ci_low,
            f"{name}_ci_high": result.ci_high,
            f"{name}_p": result.p_value,
        }
        if result.note and result.note not in notes:
            notes.append(result.note)
    return out | {"note": "; ".join(notes) or None}


def _share(part: str, whole: str) -> pl.Expr:
    """`part` / `whole`, null where `whole` is 0."""
    return pl.when(pl.col(whole) > 0).then(pl.col(part) / pl.col(whole))


def directions_table(directions: pl.DataFrame) -> pl.DataFrame:
    return directions.select(
        "model",
        "source",
        "target",
        pl.col("chrf").alias("chrF"),
        pl.col("chrf_pp").alias("chrF++"),
        pl.col("n_items").alias("sentences"),
        pl.col("n_failed").alias("failed"),
        pl.col("n_refused").alias("refused"),
        _share("n_changed", "n_items").alias("changed"),
    ).sort(["model", "source", "target"])


def models_table(directions: pl.DataFrame) -> pl.DataFrame:
    """Per model: mean chrF (chrF++) over its directions, its sentences, empty answers, failed
    requests, refusals (not scored), and the share of its scored answers that the extraction changed."""
    return (
        directions.group_by("model")
        .agg(
            pl.len().alias("directions"),
            pl.col("chrf").mean().alias("chrF"),
            pl.col("chrf_pp").mean().alias("chrF++"),
            pl.col("n_items").sum().alias("sentences"),
            pl.col("n_empty").sum().alias("empty"),
            pl.col("n_failed").sum().alias("failed"),
            pl.col("n_refused").sum().alias("refused"),
            pl.col("n_changed").sum().alias("n_changed"),
        )
        .with_columns(_share("n_changed", "sentences").alias("changed"))
        .drop("n_changed")
        .sort("model")
    )


def languages_table(directions: pl.DataFrame) -> pl.DataFrame:
    return language_means(directions).select(
        "model",
        "lang",
        "chrF as source",
        "chrF as target",
        "chrF",
        "chrF++ as source",
        "chrF++ as target",
        "chrF++",
    )


def overall_pairs(pairs: pl.DataFrame, metrics: Sequence[str]) -> pl.DataFrame:
    """The pair rows of these metrics over all domains, each model's main prompt variant."""
    return (
        main_variant(pairs).filter((pl.col("domain") == OVERALL) & pl.col("metric").is_in(list(metrics)))
        if pairs.height
        else pairs
    )


def _as_in_metric() -> pl.Expr:
    """A pair's value as the metric averages it: an undefined pair is 0 for xAC (and xTC), and
    left out (null, which a mean skips) for xSC."""
    return (
        pl.when(pl.col("metric").is_in(list(UNDEFINED_PAIRS_AS_ZERO)))
        .then(pl.col("value").fill_null(0.0))
        .otherwise(pl.col("value"))
    )


def consistency_by_language(pairs: pl.DataFrame) -> pl.DataFrame:
    """Per (model, metric, language): the mean of its pair values with every other language
    (undefined pairs as in the metric: 0 for xAC, left out for xSC), from each model's main
    prompt variant."""
    frame = overall_pairs(pairs, CONSISTENCY_METRICS)
    return (
        frame.group_by(["model", "metric", "lang_i"])
        .agg(_as_in_metric().mean().alias("consistency"))
        .rename({"lang_i": "lang"})
    )


def pair_values(pairs: pl.DataFrame) -> pl.DataFrame:
    """Per (model, metric, unordered pair `lang_a` < `lang_b`): the pair's C value (the mean of
    its two orders; an undefined xAC counts 0, an undefined xSC stays undefined)."""
    frame = overall_pairs(pairs, CONSISTENCY_METRICS)
    return (
        frame.with_columns(
            _as_in_metric().alias("value"),
            pl.min_horizontal("lang_i", "lang_j").alias("lang_a"),
            pl.max_horizontal("lang_i", "lang_j").alias("lang_b"),
        )
        .group_by(["model", "metric", "lang_a", "lang_b"])
        .agg(pl.col("value").mean())
    )


def pair_cells(directions: pl.DataFrame, pairs: pl.DataFrame) -> pl.DataFrame:
    """The `translation_pairs` rows: per (model, source, target), the direction's chrF beside
    the xSC and xAC of the pair {source, target} (null where not scored)."""
    cells = directions.select("model", "source", "target", pl.col("chrf").alias("chrF")).with_columns(
        pl.min_horizontal("source", "target").alias("lang_a"), pl.max_horizontal("source", "target").alias("lang_b")
    )
    values = pair_values(pairs)
    for metric in CONSISTENCY_METRICS:
        mine = values.filter(pl.col("metric") == metric).select(
            "model", "lang_a", "lang_b", pl.col("value").alias(metric)
        )
        cells = cells.join(mine, on=["model", "lang_a", "lang_b"], how="left")
    known = pl.any_horizontal([pl.col(metric).is_not_null() for metric in CONSISTENCY_METRICS])
    return cells.filter(known).drop("lang_a", "lang_b").sort(["model", "source", "target"])


def pairwise_correlations(cells: pl.DataFrame, metric: str) -> list[dict]:
    """Rows of scopes `directions` and `pairs` for one metric, one of each per model."""
    rows = []
    known = cells.filter(pl.col(metric).is_not_null() & pl.col("chrF").is_not_null())
    for model in sorted(set(known["model"].to_list())):
        mine = known.filter(pl.col("model") == model).with_columns(
            pl.concat_str(
                pl.min_horizontal("source", "target"), pl.max_horizontal("source", "target"), separator="-"
            ).alias("pair")
        )
        rows.append(
            {
                "scope": "directions",
                "model": model,
                "consistency": metric,
                **correlation(mine["chrF"].to_list(), mine[metric].to_list(), groups=mine["pair"].to_list()),
            }
        )
        by_pair = mine.group_by("pair").agg(pl.col("chrF").mean(), pl.col(metric).first()).sort("pair")
        rows.append(
            {
                "scope": "pairs",
                "model": model,
                "consistency": metric,
                **correlation(by_pair["chrF"].to_list(), by_pair[metric].to_list()),
            }
        )
    return rows


def correlations(directions: pl.DataFrame, pairs: pl.DataFrame) -> pl.DataFrame:
    """The `translation_vs_consistency` rows (see the module's docstring)."""
    per_language = language_means(directions).select("model", "lang", "chrF")
    consistency = consistency_by_language(pairs)
    rows = []
    for metric in CONSISTENCY_METRICS:
        joined = per_language.join(consistency.filter(pl.col("metric") == metric), on=["model", "lang"], how="inner")
        for model in sorted(set(joined["model"].to_list())):
            mine = joined.filter(pl.col("model") == model).sort("lang")
            rows.append(
                {
                    "scope": "languages",
                    "model": model,
                    "consistency": metric,
                    **correlation(mine["chrF"].to_list(), mine["consistency"].to_list()),
                }
            )
        if joined.height:
            by_model = (
                directions.group_by("model")
                .agg(pl.col("chrf").mean().alias("chrF"))
                .join(pairs.pipe(_overall, metric), on="model", how="inner")
                .sort("model")
            )
            rows.append(
                {
                    "scope": "models",
                    "model": "all",
                    "consistency": metric,
                    **correlation(by_model["chrF"].to_list(), by_model["consistency"].to_list()),
                }
            )
    cells = pair_cells(directions, pairs)
    for metric in CONSISTENCY_METRICS:
        rows += pairwise_correlations(cells, metric)
    return pl.DataFrame(rows, schema=_CORRELATION_SCHEMA)


def _overall(pairs: pl.DataFrame, metric: str) -> pl.DataFrame:
    """Each model's overall xSC / xAC: the mean over its language pairs, undefined pairs as in
    the metric (so it equals the model's xSC / xAC)."""
    frame = overall_pairs(pairs, [metric])
    return frame.group_by("model").agg(_as_in_metric().mean().alias("consistency"))
