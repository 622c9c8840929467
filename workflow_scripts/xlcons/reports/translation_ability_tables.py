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
from xlcons.reports.bootstrap import N_PERMUTATIONS, cell_rng
from xlcons.reports.correlations import Correlation, correlate, mantel
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


def correlation_row(results: dict[str, Correlation], n: int) -> dict[str, float | int | str | None]:
    """One `translation_vs_consistency` row's numbers: per coefficient its value, interval and
    p-value, the number of points and the notes (each once)."""
    out: dict[str, float | int | str | None] = {"n": n}
    notes = []
    for name, result in results.items():
        out |= {
            name: result.value,
            f"{name}_ci_low": result.ci_low,
            f"{name}_ci_high": result.ci_high,
            f"{name}_p": result.p_value,
        }
        if result.note and result.note not in notes:
            notes.append(result.note)
    return out | {"note": "; ".join(notes) or None}


def correlation(x: Sequence[float], y: Sequence[float]) -> dict[str, float | int | str | None]:
    """Spearman's rho and Pearson's r of paired independent values, each with its p-value and
    Fisher-z 95% interval (xlcons.reports.correlations.correlate: no correlation below 3 points
    or with a constant side, no interval below 5 points or at +-1; `note` says which)."""
    return correlation_row(correlate(x, y), len(x))


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


def language_matrices(mine: pl.DataFrame, metric: str) -> tuple[list[str], np.ndarray, np.ndarray]:
    """One model's cells as language × language matrices (languages sorted, NaN where no value):
    chrF per direction (row: source, column: target) and the pair's `metric`, symmetric."""
    languages = sorted(set(mine["source"].to_list()) | set(mine["target"].to_list()))
    at = {lang: index for index, lang in enumerate(languages)}
    chrf = np.full((len(languages), len(languages)), np.nan)
    consistency = chrf.copy()
    for source, target, value, pair in mine.select("source", "target", "chrF", metric).iter_rows():
        chrf[at[source], at[target]] = value
        consistency[at[source], at[target]] = consistency[at[target], at[source]] = pair
    return languages, chrf, consistency


def pairwise_correlations(
    cells: pl.DataFrame, metric: str, *, n_permutations: int = N_PERMUTATIONS, seed: int = 0
) -> list[dict]:
    """Rows of scopes `directions` and `pairs` for one metric, one of each per model: the
    coefficients over the cells, with Mantel p-values (xlcons.reports.correlations.mantel: the
    languages of the consistency matrix permuted, generator ``cell_rng(seed, "mantel", scope,
    model, metric)``) and no interval, since the cells share languages. `directions`: each
    direction's chrF against its pair's value; `pairs`: each unordered pair's mean chrF (of
    the directions it has) against its value."""
    rows = []
    known = cells.filter(pl.col(metric).is_not_null() & pl.col("chrF").is_not_null())
    for model in sorted(set(known["model"].to_list())):
        _, chrf, consistency = language_matrices(known.filter(pl.col("model") == model), metric)
        both = np.stack([chrf, chrf.T])
        with np.errstate(invalid="ignore"):  # 0 / 0: NaN where neither direction has a value
            mean_chrf = np.nansum(both, axis=0) / np.isfinite(both).sum(axis=0)
        for scope, x, symmetric in (("directions", chrf, False), ("pairs", mean_chrf, True)):
            rng = cell_rng(seed, "mantel", scope, model, metric)
            results = mantel(x, consistency, symmetric=symmetric, n_permutations=n_permutations, rng=rng)
            cells_used = np.isfinite(x) & np.isfinite(consistency)
            n = int(np.triu(cells_used, 1).sum() if symmetric else cells_used.sum())
            rows.append({"scope": scope, "model": model, "consistency": metric, **correlation_row(results, n)})
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
