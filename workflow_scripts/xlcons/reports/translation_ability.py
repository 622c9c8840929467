"""Translation ability against cross-lingual consistency (Xing et al. 2024 §5, Figures 2 and 3).

Inputs: the TRANSLATION_DIRECTIONS tables of every model (chrF per direction), and, when
the run also scores MAKQA for knowledge consistency, the KNOWLEDGE_PAIRS tables of the same
models (each model's main prompt variant, all domains). Outputs, in `tables/<data set>/`:

* `translation_directions`: chrF and chrF++ per (model, source, target), and the share of
  its answers whose scored text is not the whole answer (`changed`);
* `translation_models`: per model, mean chrF (and chrF++) over its directions, the sentences,
  empty answers and failed requests, and `changed`, the share of its scored answers whose
  scored text is not the whole stripped answer (what the answer extraction removed from);
* `translation_languages`: per (model, language), mean chrF (and chrF++) of the directions
  out of it, into it, and both;
* `translation_pairs` (with MAKQA): per (model, source, target), the direction's chrF beside
  the xSC and xAC of the language pair {source, target} (Figure 2, cell by cell);
* `translation_vs_consistency` (with MAKQA): the Spearman and Pearson correlation, each with
  its p-value and 95% interval (see `correlation`), between a language's translation chrF (both roles)
  and its mean xSC / xAC against the other languages (mean of C_ij over j), across the
  languages of each model (scope `languages`); between each model's mean chrF over all
  directions and its overall xSC / xAC (mean over language pairs), across models (scope
  `models`); between each direction's chrF and its pair's C_ij, across the directions of
  each model (scope `directions`, 132 cells for 12 languages); and between each unordered
  pair's mean chrF (of its two directions) and its C_ij (scope `pairs`, 66 cells). In
  scope `directions` the two directions of a pair share one C value, so they are not two
  independent points: its p-value and interval count the pairs (66), not the cells.
* `figure2_translation_<model>`: the xSC heatmap (language pairs; when MAKQA is scored)
  beside the chrF heatmap (source × target), as the paper's Figure 2;
* `figure2_pairs_vs_consistency` (with MAKQA): each direction of each model as a point, its
  chrF against its pair's xSC (and xAC), what Figure 2 sets side by side;
* `figure3_translation_vs_consistency` (with MAKQA): each language of each model as a point,
  its mean xAC (and xSC) against its mean chrF, as the paper's Figure 3.

A direction (s, t) is matched with the pair value C_st. Both metrics are symmetric (C_st =
C_ts; KNOWLEDGE_PAIRS holds both orders), so both directions of a pair meet the same value;
should the two orders differ, their mean is taken. An undefined xAC pair counts as 0 (as in
the metric); an undefined xSC pair (no question answered in both) is left out, as the metric
leaves it out of its mean.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa

from xlcons.evaluators.knowledge.tables import KNOWLEDGE_PAIRS
from xlcons.evaluators.translation_ability import TRANSLATION_DIRECTIONS, language_means
from xlcons.reports.formats import TABLE_SUFFIXES, save_figure, write_table_files
from xlcons.reports.knowledge import OVERALL, UNDEFINED_PAIRS_AS_ZERO, _main_variant
from xlcons.reports.results import correlate
from xlcons.tables import read_table

DIRECTIONS, LANGUAGES, CORRELATIONS = "translation_directions", "translation_languages", "translation_vs_consistency"
MODELS, PAIRS = "translation_models", "translation_pairs"
HEATMAPS, SCATTER, PAIR_SCATTER = (
    "figure2_translation",
    "figure3_translation_vs_consistency",
    "figure2_pairs_vs_consistency",
)
CONSISTENCY_METRICS = ("xSC", "xAC")
FIGURE_FORMATS = ("png", "pdf")
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
    interval (xlcons.reports.results.correlate: no correlation below 3 points or with a
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
        _share("n_changed", "n_items").alias("changed"),
    ).sort(["model", "source", "target"])


def models_table(directions: pl.DataFrame) -> pl.DataFrame:
    """Per model: mean chrF (chrF++) over its directions, its sentences, empty answers, failed
    requests, and the share of its scored answers that the extraction changed."""
    return (
        directions.group_by("model")
        .agg(
            pl.len().alias("directions"),
            pl.col("chrf").mean().alias("chrF"),
            pl.col("chrf_pp").mean().alias("chrF++"),
            pl.col("n_items").sum().alias("sentences"),
            pl.col("n_empty").sum().alias("empty"),
            pl.col("n_failed").sum().alias("failed"),
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


def _overall_pairs(pairs: pl.DataFrame, metrics: Sequence[str]) -> pl.DataFrame:
    """The pair rows of these metrics over all domains, each model's main prompt variant."""
    return (
        _main_variant(pairs).filter((pl.col("domain") == OVERALL) & pl.col("metric").is_in(list(metrics)))
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
    frame = _overall_pairs(pairs, CONSISTENCY_METRICS)
    return (
        frame.group_by(["model", "metric", "lang_i"])
        .agg(_as_in_metric().mean().alias("consistency"))
        .rename({"lang_i": "lang"})
    )


def pair_values(pairs: pl.DataFrame) -> pl.DataFrame:
    """Per (model, metric, unordered pair `lang_a` < `lang_b`): the pair's C value (the mean of
    its two orders; an undefined xAC counts 0, an undefined xSC stays undefined)."""
    frame = _overall_pairs(pairs, CONSISTENCY_METRICS)
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
    frame = _overall_pairs(pairs, [metric])
    return frame.group_by("model").agg(_as_in_metric().mean().alias("consistency"))


def _matrix(frame: pl.DataFrame, row: str, column: str, value: str, languages: list[str]) -> np.ndarray:
    matrix = np.full((len(languages), len(languages)), np.nan)
    for record in frame.iter_rows(named=True):
        if record[value] is not None and record[row] in languages and record[column] in languages:
            matrix[languages.index(record[row]), languages.index(record[column])] = record[value]
    return matrix


def plot_heatmaps(
    directions: pl.DataFrame, pairs: pl.DataFrame, model: str, base: Path, formats: Iterable[str]
) -> list[Path]:
    """Paper Figure 2: the model's xSC by language pair (when scored) beside its chrF by direction."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import seaborn as sns

    mine = directions.filter(pl.col("model") == model)
    languages = list(dict.fromkeys(mine["source"].to_list() + mine["target"].to_list()))
    xsc = _overall_pairs(pairs, ["xSC"]).filter(pl.col("model") == model)
    panels = (
        [("xSC", _matrix(xsc, "lang_i", "lang_j", "value", languages), 1.0, "language j", "language i")]
        if xsc.height
        else []
    )
    panels.append(("chrF", _matrix(mine, "source", "target", "chrf", languages), 100.0, "target", "source"))
    figure, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels), 5.5), squeeze=False)
    for axis, (label, matrix, top, x_label, y_label) in zip(axes[0], panels):
        sns.heatmap(
            matrix,
            ax=axis,
            xticklabels=languages,
            yticklabels=languages,
            vmin=0,
            vmax=top,
            cmap="viridis",
            annot=len(languages) <= 12,
            fmt=".2f" if top == 1.0 else ".1f",
            annot_kws={"size": 7},
            cbar_kws={"label": label},
        )
        axis.set_title(f"{model}: {label}" + (" by language pair" if label == "xSC" else " by translation direction"))
        axis.set_xlabel(x_label)
        axis.set_ylabel(y_label)
    written = save_figure(figure, base, formats)
    plt.close(figure)
    return written


def _metric_panels(metrics: list[str], draw, empty_title: str, base: Path, formats: Iterable[str]) -> list[Path]:
    """One scatter panel per consistency metric, `draw(axis, metric)` filling each; a note when there is none."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, max(1, len(metrics)), figsize=(6.5 * max(1, len(metrics)), 5.0), squeeze=False)
    for axis, metric in zip(axes[0], metrics):
        draw(axis, metric)
    if not metrics:
        axes[0][0].set_axis_off()
        axes[0][0].set_title(empty_title)
    written = save_figure(figure, base, formats)
    plt.close(figure)
    return written


def plot_pair_scatter(cells: pl.DataFrame, base: Path, formats: Iterable[str]) -> list[Path]:
    """Figure 2 cell by cell: per direction and model, its chrF against its pair's xSC (xAC)."""
    import seaborn as sns

    metrics = [m for m in ("xSC", "xAC") if m in cells.columns and cells[m].is_not_null().any()]

    def draw(axis, metric: str) -> None:
        part = cells.filter(pl.col(metric).is_not_null() & pl.col("chrF").is_not_null()).sort(
            ["model", "source", "target"]
        )
        sns.scatterplot(
            x=part[metric].to_numpy(), y=part["chrF"].to_numpy(), hue=part["model"].to_list(), ax=axis, s=18
        )
        axis.set_xlabel(f"{metric} of the language pair")
        axis.set_ylabel("chrF of the translation direction")
        axis.set_title(f"Translation chrF against {metric}, per direction")

    return _metric_panels(metrics, draw, "no direction scored for both translation and consistency", base, formats)


def plot_scatter(directions: pl.DataFrame, pairs: pl.DataFrame, base: Path, formats: Iterable[str]) -> list[Path]:
    """Paper Figure 3: per language and model, mean consistency against mean translation chrF."""
    import seaborn as sns

    points = (
        language_means(directions)
        .select("model", "lang", "chrF")
        .join(consistency_by_language(pairs), on=["model", "lang"], how="inner")
    )
    metrics = [m for m in ("xAC", "xSC") if points.filter(pl.col("metric") == m).height]

    def draw(axis, metric: str) -> None:
        part = points.filter(pl.col("metric") == metric).sort(["model", "lang"])
        sns.scatterplot(
            x=part["consistency"].to_numpy(), y=part["chrF"].to_numpy(), hue=part["model"].to_list(), ax=axis, s=40
        )
        for record in part.iter_rows(named=True):
            axis.annotate(
                record["lang"],
                (record["consistency"], record["chrF"]),
                fontsize=7,
                xytext=(3, 3),
                textcoords="offset points",
            )
        axis.set_xlabel(f"mean {metric} with the other languages")
        axis.set_ylabel("mean translation chrF (as source and target)")
        axis.set_title(f"Translation ability against {metric}, per language")

    return _metric_panels(metrics, draw, "no language scored for both translation and consistency", base, formats)


def report_outputs(
    out_dir: Path | str,
    models: Sequence[str],
    table_formats: Sequence[str],
    figure_formats: Sequence[str] = FIGURE_FORMATS,
    *,
    consistency: bool = False,
) -> list[Path]:
    out = Path(out_dir)
    tables = (DIRECTIONS, MODELS, LANGUAGES, PAIRS, CORRELATIONS) if consistency else (DIRECTIONS, MODELS, LANGUAGES)
    paths = [out / f"{name}{TABLE_SUFFIXES[kind]}" for name in tables for kind in table_formats]
    paths += [out / f"{HEATMAPS}_{model}.{kind}" for model in models for kind in figure_formats]
    if consistency:
        paths += [out / f"{name}.{kind}" for name in (PAIR_SCATTER, SCATTER) for kind in figure_formats]
    return paths


def _read_all(paths: Sequence[Path | str], schema: pa.Schema) -> pl.DataFrame:
    tables = [read_table(path, schema) for path in paths]
    return pl.from_arrow(pa.concat_tables(tables) if tables else schema.empty_table())


def run_report(
    direction_files: Sequence[Path | str],
    pair_files: Sequence[Path | str],
    out_dir: Path | str,
    *,
    table_formats: Sequence[str] = ("csv", "markdown"),
    figure_formats: Sequence[str] = FIGURE_FORMATS,
) -> list[Path]:
    """The rule's job: every model's directions (and knowledge pairs) in, the tables and figures out."""
    directions, pairs = _read_all(direction_files, TRANSLATION_DIRECTIONS), _read_all(pair_files, KNOWLEDGE_PAIRS)
    out = Path(out_dir)
    written = []
    tables = [
        (DIRECTIONS, directions_table(directions)),
        (MODELS, models_table(directions)),
        (LANGUAGES, languages_table(directions)),
    ]
    if pair_files:
        cells = pair_cells(directions, pairs)
        tables += [(PAIRS, cells), (CORRELATIONS, correlations(directions, pairs))]
    for name, frame in tables:
        written += write_table_files(frame, out / name, table_formats, decimals=3)
    for model in sorted(set(directions["model"].to_list())):
        written += plot_heatmaps(directions, pairs, model, out / f"{HEATMAPS}_{model}", figure_formats)
    if pair_files:
        written += plot_pair_scatter(cells, out / f"{PAIR_SCATTER}", figure_formats)
        written += plot_scatter(directions, pairs, out / f"{SCATTER}", figure_formats)
    return written
