"""Translation ability against cross-lingual consistency (paper 001 §5, Figures 2 and 3).

Inputs: the TRANSLATION_DIRECTIONS tables of every model (chrF per direction), and, when
the run also scores MAKQA for knowledge consistency, the KNOWLEDGE_PAIRS tables of the same
models (each model's main prompt variant, all domains). Outputs, in `tables/<data set>/`:

* `translation_directions`: chrF and chrF++ per (model, source, target);
* `translation_languages`: per (model, language), mean chrF (and chrF++) of the directions
  out of it, into it, and both;
* `translation_vs_consistency` (with MAKQA): the Spearman and Pearson correlation, each with
  a percentile bootstrap 95% interval, between a language's translation chrF (both roles)
  and its mean xSC / xAC against the other languages (mean of C_ij over j), across the
  languages of each model (scope `languages`); and between each model's mean chrF over all
  directions and its overall xSC / xAC (mean over language pairs), across models (scope
  `models`). Resamples are of the languages (of the models); a resample whose values are
  all equal has no correlation and is left out. Fewer than 3 points: no correlation.
* `figure2_translation_<model>`: the xSC heatmap (language pairs; when MAKQA is scored)
  beside the chrF heatmap (source × target), as the paper's Figure 2;
* `figure3_translation_vs_consistency` (with MAKQA): each language of each model as a point,
  its mean xAC (and xSC) against its mean chrF, as the paper's Figure 3.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa

from xlcons.evaluators.translation_ability import TRANSLATION_DIRECTIONS, language_means
from xlcons.reports.formats import TABLE_SUFFIXES, save_figure, write_table_files
from xlcons.reports.knowledge import OVERALL, _main_variant
from xlcons.reports.results import correlation_intervals
from xlcons.schemas import KNOWLEDGE_PAIRS
from xlcons.tables import read_table

DIRECTIONS, LANGUAGES, CORRELATIONS = "translation_directions", "translation_languages", "translation_vs_consistency"
HEATMAPS, SCATTER = "figure2_translation", "figure3_translation_vs_consistency"
CONSISTENCY_METRICS = ("xSC", "xAC")
FIGURE_FORMATS = ("png", "pdf")
MIN_POINTS = 3
_CORRELATION_SCHEMA = {
    "scope": pl.String, "model": pl.String, "consistency": pl.String, "n": pl.Int32,
    "spearman": pl.Float64, "spearman_ci_low": pl.Float64, "spearman_ci_high": pl.Float64,
    "pearson": pl.Float64, "pearson_ci_low": pl.Float64, "pearson_ci_high": pl.Float64,
}


def correlation(x: Sequence[float], y: Sequence[float], n_resamples: int = 1000, seed: int = 0) -> dict[str, float | int | None]:
    """Spearman's rho and Pearson's r of paired values, with percentile bootstrap 95% intervals."""
    from scipy.stats import pearsonr, spearmanr

    x, y = np.asarray(x, float), np.asarray(y, float)
    out: dict[str, float | int | None] = {"n": len(x), **{key: None for key in list(_CORRELATION_SCHEMA)[4:]}}
    if len(x) < MIN_POINTS or np.ptp(x) == 0 or np.ptp(y) == 0:
        return out
    out["spearman"] = float(spearmanr(x, y).statistic)
    out["pearson"] = float(pearsonr(x, y).statistic)
    if n_resamples:
        picks = np.random.default_rng(seed).integers(0, len(x), size=(n_resamples, len(x)))
        for name, (low, high) in correlation_intervals(x, y, picks).items():
            out[f"{name}_ci_low"], out[f"{name}_ci_high"] = low, high
    return out


def directions_table(directions: pl.DataFrame) -> pl.DataFrame:
    return directions.select(
        "model", "source", "target", pl.col("chrf").alias("chrF"), pl.col("chrf_pp").alias("chrF++"),
        pl.col("n_items").alias("sentences"), pl.col("n_failed").alias("failed"),
    ).sort(["model", "source", "target"])


def languages_table(directions: pl.DataFrame) -> pl.DataFrame:
    return language_means(directions).select(
        "model", "lang", "chrF as source", "chrF as target", "chrF", "chrF++ as source", "chrF++ as target", "chrF++",
    )


def _overall_pairs(pairs: pl.DataFrame, metrics: Sequence[str]) -> pl.DataFrame:
    """The pair rows of these metrics over all domains, each model's main prompt variant."""
    return _main_variant(pairs).filter((pl.col("domain") == OVERALL) & pl.col("metric").is_in(list(metrics))) if pairs.height else pairs


def consistency_by_language(pairs: pl.DataFrame) -> pl.DataFrame:
    """Per (model, metric, language): the mean of its pair values with every other language
    (undefined pairs count as 0, as in the metric), from each model's main prompt variant."""
    frame = _overall_pairs(pairs, CONSISTENCY_METRICS)
    return frame.group_by(["model", "metric", "lang_i"]).agg(pl.col("value").fill_null(0.0).mean().alias("consistency")).rename({"lang_i": "lang"})


def correlations(directions: pl.DataFrame, pairs: pl.DataFrame, n_resamples: int = 1000, seed: int = 0) -> pl.DataFrame:
    """The `translation_vs_consistency` rows (see the module's docstring)."""
    per_language = language_means(directions).select("model", "lang", "chrF")
    consistency = consistency_by_language(pairs)
    rows = []
    for metric in CONSISTENCY_METRICS:
        joined = per_language.join(consistency.filter(pl.col("metric") == metric), on=["model", "lang"], how="inner")
        for model in sorted(set(joined["model"].to_list())):
            mine = joined.filter(pl.col("model") == model).sort("lang")
            rows.append({"scope": "languages", "model": model, "consistency": metric,
                         **correlation(mine["chrF"].to_list(), mine["consistency"].to_list(), n_resamples, seed)})
        if joined.height:
            by_model = (directions.group_by("model").agg(pl.col("chrf").mean().alias("chrF"))
                        .join(pairs.pipe(_overall, metric), on="model", how="inner").sort("model"))
            rows.append({"scope": "models", "model": "all", "consistency": metric,
                         **correlation(by_model["chrF"].to_list(), by_model["consistency"].to_list(), n_resamples, seed)})
    return pl.DataFrame(rows, schema=_CORRELATION_SCHEMA)


def _overall(pairs: pl.DataFrame, metric: str) -> pl.DataFrame:
    """Each model's overall xSC / xAC: the mean over its language pairs."""
    frame = _overall_pairs(pairs, [metric])
    return frame.group_by("model").agg(pl.col("value").fill_null(0.0).mean().alias("consistency"))


def _matrix(frame: pl.DataFrame, row: str, column: str, value: str, languages: list[str]) -> np.ndarray:
    matrix = np.full((len(languages), len(languages)), np.nan)
    for record in frame.iter_rows(named=True):
        if record[value] is not None and record[row] in languages and record[column] in languages:
            matrix[languages.index(record[row]), languages.index(record[column])] = record[value]
    return matrix


def plot_heatmaps(directions: pl.DataFrame, pairs: pl.DataFrame, model: str, base: Path, formats: Iterable[str]) -> list[Path]:
    """Paper Figure 2: the model's xSC by language pair (when scored) beside its chrF by direction."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import seaborn as sns

    mine = directions.filter(pl.col("model") == model)
    languages = list(dict.fromkeys(mine["source"].to_list() + mine["target"].to_list()))
    xsc = _overall_pairs(pairs, ["xSC"]).filter(pl.col("model") == model)
    panels = ([("xSC", _matrix(xsc, "lang_i", "lang_j", "value", languages), 1.0, "language j", "language i")] if xsc.height else [])
    panels.append(("chrF", _matrix(mine, "source", "target", "chrf", languages), 100.0, "target", "source"))
    figure, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels), 5.5), squeeze=False)
    for axis, (label, matrix, top, x_label, y_label) in zip(axes[0], panels):
        sns.heatmap(matrix, ax=axis, xticklabels=languages, yticklabels=languages, vmin=0, vmax=top, cmap="viridis",
                    annot=len(languages) <= 12, fmt=".2f" if top == 1.0 else ".1f", annot_kws={"size": 7}, cbar_kws={"label": label})
        axis.set_title(f"{model}: {label}" + (" by language pair" if label == "xSC" else " by translation direction"))
        axis.set_xlabel(x_label)
        axis.set_ylabel(y_label)
    written = save_figure(figure, base, formats)
    plt.close(figure)
    return written


def plot_scatter(directions: pl.DataFrame, pairs: pl.DataFrame, base: Path, formats: Iterable[str]) -> list[Path]:
    """Paper Figure 3: per language and model, mean consistency against mean translation chrF."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import seaborn as sns

    points = language_means(directions).select("model", "lang", "chrF").join(consistency_by_language(pairs), on=["model", "lang"], how="inner")
    metrics = [m for m in ("xAC", "xSC") if points.filter(pl.col("metric") == m).height]
    figure, axes = plt.subplots(1, max(1, len(metrics)), figsize=(6.5 * max(1, len(metrics)), 5.0), squeeze=False)
    for axis, metric in zip(axes[0], metrics):
        part = points.filter(pl.col("metric") == metric).sort(["model", "lang"])
        sns.scatterplot(x=part["consistency"].to_numpy(), y=part["chrF"].to_numpy(), hue=part["model"].to_list(), ax=axis, s=40)
        for record in part.iter_rows(named=True):
            axis.annotate(record["lang"], (record["consistency"], record["chrF"]), fontsize=7, xytext=(3, 3), textcoords="offset points")
        axis.set_xlabel(f"mean {metric} with the other languages")
        axis.set_ylabel("mean translation chrF (as source and target)")
        axis.set_title(f"Translation ability against {metric}, per language")
    if not metrics:
        axes[0][0].set_axis_off()
        axes[0][0].set_title("no language scored for both translation and consistency")
    written = save_figure(figure, base, formats)
    plt.close(figure)
    return written


def report_outputs(out_dir: Path | str, models: Sequence[str], table_formats: Sequence[str], figure_formats: Sequence[str] = FIGURE_FORMATS,
                   *, consistency: bool = False) -> list[Path]:
    out = Path(out_dir)
    tables = (DIRECTIONS, LANGUAGES, CORRELATIONS) if consistency else (DIRECTIONS, LANGUAGES)
    paths = [out / f"{name}{TABLE_SUFFIXES[kind]}" for name in tables for kind in table_formats]
    paths += [out / f"{HEATMAPS}_{model}.{kind}" for model in models for kind in figure_formats]
    if consistency:
        paths += [out / f"{SCATTER}.{kind}" for kind in figure_formats]
    return paths


def _read_all(paths: Sequence[Path | str], schema: pa.Schema) -> pl.DataFrame:
    tables = [read_table(path, schema) for path in paths]
    return pl.from_arrow(pa.concat_tables(tables) if tables else schema.empty_table())


def run_report(direction_files: Sequence[Path | str], pair_files: Sequence[Path | str], out_dir: Path | str, *,
               table_formats: Sequence[str] = ("csv", "markdown"), figure_formats: Sequence[str] = FIGURE_FORMATS,
               n_resamples: int = 1000, seed: int = 0) -> list[Path]:
    """The rule's job: every model's directions (and knowledge pairs) in, the tables and figures out."""
    directions, pairs = _read_all(direction_files, TRANSLATION_DIRECTIONS), _read_all(pair_files, KNOWLEDGE_PAIRS)
    out = Path(out_dir)
    written = []
    tables = [(DIRECTIONS, directions_table(directions)), (LANGUAGES, languages_table(directions))]
    if pair_files:
        tables.append((CORRELATIONS, correlations(directions, pairs, n_resamples, seed)))
    for name, frame in tables:
        written += write_table_files(frame, out / name, table_formats, decimals=3)
    for model in sorted(set(directions["model"].to_list())):
        written += plot_heatmaps(directions, pairs, model, out / f"{HEATMAPS}_{model}", figure_formats)
    if pair_files:
        written += plot_scatter(directions, pairs, out / f"{SCATTER}", figure_formats)
    return written
