"""The evaluator report: a figure and a table of one evaluator on one data set it scored, for every
evaluator and every data set, built-in or the user's (rule evaluator_report).

What is drawn is the evaluator's registry entry's to say (`EvaluatorInfo.figure_metrics`), never
the data set's name, so a user's set gets the figures of the paper sets:

- an evaluator scored per language: ``heatmaps``, one models × languages panel per figure metric,
  stacked, languages grouped by script, each panel on its metric's declared colour range
  (xlcons.reports.figure_style), the models in the config's order; of an evaluator that reads
  translations, the primary translator's rows (the others are in the table);
- an evaluator scored over language pairs (`EvaluatorInfo.pair_figure`, knowledge): ``heatmaps``,
  one language × language panel per model (rows) and figure metric (columns), the diagonal white;
- ``table``: every metric of its rows in the results table (the QE copies ``@qe_pass`` left to the
  translation-quality report), one row per (translator, model, language), in the config's model
  order and by script group: the CSV with numbers (value, interval, items), the Markdown and
  LaTeX with ``value [low, high]`` and the items, and for every empty value why.

Cells without a value are grey and hatched, and the panel's title says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import polars as pl

from xlcons.evaluators.info import EvaluatorInfo
from xlcons.evaluators.registry import EVALUATORS, resolve
from xlcons.languages import LanguageRegistry
from xlcons.reports.figure_style import METRIC_RANGES, MISSING_NOTE, draw_heatmap, fit_title
from xlcons.reports.formats import TABLE_SUFFIXES, save_figure, write_table_files
from xlcons.reports.heatmaps import draw_metric_panel, metric_matrix, panel_size
from xlcons.reports.metric_cells import language_order
from xlcons.reports.qe_scores import PASS
from xlcons.schemas import NO_TRANSLATOR, RESULTS
from xlcons.tables import read_table

FIGURE = "heatmaps"
TABLE = "table"
CORPUS_LANG = "all"  # the language of a corpus score over every language (knowledge)
PAIR_PANEL = (5.5, 4.8)  # inches of one language × language panel
ANNOTATE_MAX_PAIR_LANGUAGES = 12


def report_outputs(out_dir: Path | str, table_formats: Sequence[str], figure_formats: Sequence[str]) -> list[Path]:
    """The files of one evaluator report under `out_dir` (the same for every evaluator and data set)."""
    out = Path(out_dir)
    return [out / f"{FIGURE}.{kind}" for kind in figure_formats] + [
        out / f"{TABLE}{TABLE_SUFFIXES[kind]}" for kind in table_formats
    ]


def evaluator_rows(results: pl.DataFrame, info: EvaluatorInfo, dataset: str) -> pl.DataFrame:
    """The evaluator's rows of one data set, without the QE copies of its metrics."""
    return results.filter(
        (pl.col("dataset") == dataset)
        & (pl.col("evaluator") == info.rows_evaluator)
        & ~pl.col("metric").str.contains(PASS, literal=True)
    )


def _title(info: EvaluatorInfo, dataset: str, metric: str, translator: str | None) -> str:
    through = f", translated by {translator}" if translator else ""
    return f"{dataset}: {info.name} {metric}{through}"


def plot_language_figure(
    rows: pl.DataFrame,
    info: EvaluatorInfo,
    dataset: str,
    base: Path | str,
    formats: Iterable[str],
    *,
    models: Sequence[str] | None = None,
    translator: str | None = None,
    registry: LanguageRegistry | None = None,
) -> list[Path]:
    """One models × languages panel per figure metric, stacked (module docstring). `rows` are the
    evaluator's rows of the data set; of several translators, `translator`'s are drawn."""
    from matplotlib.figure import Figure

    registry = registry or LanguageRegistry.load()
    shown = rows.filter(pl.col("translator").is_in([NO_TRANSLATOR, translator or NO_TRANSLATOR]))
    through = translator if shown.filter(pl.col("translator") != NO_TRANSLATOR).height else None
    panels = []
    for metric in info.figure_metrics:
        key = (dataset, info.rows_evaluator, metric)
        panels.append((metric, *metric_matrix(shown, key, models=models, registry=registry, english=True)))
    sizes = [panel_size(matrix.shape[1], len(names)) for _, matrix, names, _ in panels]
    width = max(size[0] for size in sizes)
    figure = Figure(figsize=(width, sum(size[1] for size in sizes) + 0.4 * len(sizes)), layout="constrained")
    axes = figure.subplots(len(panels), 1, squeeze=False)[:, 0]
    for axis, (metric, matrix, names, groups) in zip(axes, panels):
        draw_metric_panel(axis, matrix, metric, names, groups, metric, _title(info, dataset, metric, through))
    return save_figure(figure, Path(base), formats)


def plot_pair_figure(
    cells: pl.DataFrame,
    info: EvaluatorInfo,
    dataset: str,
    base: Path | str,
    formats: Iterable[str],
    *,
    models: Sequence[str] | None = None,
    registry: LanguageRegistry | None = None,
) -> list[Path]:
    """One language × language panel per model (rows) and figure metric with cells (columns; xAC
    needs gold answers): `cells` has model, metric, lang_i, lang_j, value (EvaluatorInfo.pair_figure's cells)."""
    from matplotlib.figure import Figure

    names = list(dict.fromkeys(models)) if models is not None else list(dict.fromkeys(cells["model"].to_list()))
    metrics = [metric for metric in info.figure_metrics if metric in set(cells["metric"].to_list())]
    languages = language_order(cells["lang_i"].to_list() + cells["lang_j"].to_list(), registry)
    figure = Figure(figsize=(PAIR_PANEL[0] * len(metrics), PAIR_PANEL[1] * max(1, len(names))), layout="constrained")
    if not names or not metrics or not languages:
        empty = figure.subplots()
        empty.set_axis_off()
        empty.text(0.5, 0.5, "no results", ha="center", va="center", transform=empty.transAxes)
        fit_title(empty, f"{dataset}: {info.name}, no language-pair scores")
        return save_figure(figure, Path(base), formats)
    axes = figure.subplots(len(names), len(metrics), squeeze=False)
    index = {code: position for position, code in enumerate(languages)}
    off_diagonal: np.ndarray = ~np.eye(len(languages), dtype=bool)
    for row, model in enumerate(names):
        for column, metric in enumerate(metrics):
            part = cells.filter((pl.col("model") == model) & (pl.col("metric") == metric))
            matrix = np.full((len(languages), len(languages)), np.nan)
            for cell in part.iter_rows(named=True):
                if cell["value"] is not None and np.isfinite(cell["value"]):
                    matrix[index[cell["lang_i"]], index[cell["lang_j"]]] = cell["value"]
            axis = axes[row, column]
            draw_heatmap(
                axis,
                matrix,
                metric,
                xticklabels=languages,
                yticklabels=languages,
                xlabel="Language j",
                ylabel="Language i",
                cbar_label=metric,
                diagonal=True,
                annotate=len(languages) <= ANNOTATE_MAX_PAIR_LANGUAGES,
            )
            missing = f"; {MISSING_NOTE}" if np.isnan(matrix[off_diagonal]).any() else ""
            fit_title(axis, f"{dataset}, {model}: {metric} by language pair{missing}")
    return save_figure(figure, Path(base), formats)


def _decimals(metric: str) -> int:
    """Three places on a scale up to 1, one on a larger or open one (chrF, tokens)."""
    low_high = METRIC_RANGES.get(metric)
    return 3 if low_high is not None and low_high[1] <= 1 else 1


def _interval(value: float | None, low: float | None, high: float | None, decimals: int) -> str | None:
    if value is None:
        return None
    text = f"{value:.{decimals}f}"
    return text if low is None or high is None else f"{text} [{low:.{decimals}f}, {high:.{decimals}f}]"


def evaluator_table(
    rows: pl.DataFrame,
    info: EvaluatorInfo,
    *,
    models: Sequence[str] | None = None,
    translator: str | None = None,
    registry: LanguageRegistry | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(numbers, display) of the evaluator's rows (module docstring): the figure metrics first, in
    their order, then the others by name; the translator column only where a translator is named."""
    found = set(rows["metric"].to_list())
    metrics = [m for m in info.figure_metrics if m in found] + sorted(found - set(info.figure_metrics))
    translators = sorted(set(rows["translator"].to_list()), key=lambda name: (name != translator, name))
    named = any(translators)
    order = list(dict.fromkeys([*(models or ()), *sorted(set(rows["model"].to_list()))]))
    codes = [code for code in dict.fromkeys(rows["lang"].to_list()) if code != CORPUS_LANG]
    languages = language_order(codes, registry) + ([CORPUS_LANG] if CORPUS_LANG in rows["lang"].to_list() else [])
    lookup = {(r["translator"], r["model"], r["lang"], r["metric"]): r for r in rows.iter_rows(named=True)}
    numbers, display = [], []
    for via in translators:
        for model in order:
            for lang in languages:
                cells = {metric: lookup.get((via, model, lang, metric)) for metric in metrics}
                if not any(cells.values()):
                    continue
                key = {"translator": via} if named else {}
                number: dict = {**key, "model": model, "lang": lang}
                shown: dict = {**key, "model": model, "lang": lang}
                why = []
                for metric, cell in cells.items():
                    cell = cell or {}
                    value, low, high = cell.get("value"), cell.get("ci_low"), cell.get("ci_high")
                    number |= {
                        metric: value,
                        f"{metric}_ci_low": low,
                        f"{metric}_ci_high": high,
                        f"{metric}_n_items": cell.get("n_items"),
                    }
                    decimals = _decimals(metric)
                    shown |= {metric: _interval(value, low, high, decimals), f"{metric} n": cell.get("n_items")}
                    if cell and value is None:  # a note names its metric; excluded reasons do not
                        note = (cell.get("note") or "").strip()
                        why.append(note or f"{metric}: {(cell.get('excluded_reasons') or '').strip()}")
                number["without_value"] = " | ".join(why) or None
                shown["without value"] = " | ".join(why) or None
                numbers.append(number)
                display.append(shown)
    key_columns = (["translator"] if named else []) + ["model", "lang"]
    number_schema: dict[str, type[pl.DataType]] = dict.fromkeys(key_columns, pl.String)
    display_schema: dict[str, type[pl.DataType]] = dict.fromkeys(key_columns, pl.String)
    for metric in metrics:
        number_schema |= dict.fromkeys((metric, f"{metric}_ci_low", f"{metric}_ci_high"), pl.Float64)
        number_schema[f"{metric}_n_items"] = pl.Int64
        display_schema |= {metric: pl.String, f"{metric} n": pl.Int64}
    number_schema["without_value"] = pl.String
    display_schema["without value"] = pl.String
    return (
        pl.DataFrame(numbers, schema=number_schema, orient="row"),
        pl.DataFrame(display, schema=display_schema, orient="row"),
    )


def run_evaluator_report(
    results_path: Path | str,
    evaluator: str,
    dataset: str,
    out_dir: Path | str,
    *,
    table_formats: Sequence[str],
    figure_formats: Sequence[str],
    models: Sequence[str] | None = None,
    translator: str | None = None,
    pair_files: Sequence[Path | str] = (),
) -> list[Path]:
    """The rule's job: the figure and the table of `evaluator` on `dataset` under `out_dir`
    (report_outputs); `pair_files` are the evaluator's per-pair outputs of the data set."""
    info = EVALUATORS[evaluator]
    out = Path(out_dir)
    registry = LanguageRegistry.load()
    rows = evaluator_rows(pl.from_arrow(read_table(results_path, RESULTS)), info, dataset)
    if info.pair_figure is not None:
        source = info.pair_figure
        frames = [resolve(source.cells)(read_table(path, resolve(source.schema))) for path in pair_files]
        cells = (
            pl.concat(frames)
            if frames
            else pl.DataFrame(
                schema={**dict.fromkeys(["model", "metric", "lang_i", "lang_j"], pl.String), "value": pl.Float64}
            )
        )
        written = plot_pair_figure(cells, info, dataset, out / FIGURE, figure_formats, models=models, registry=registry)
    else:
        written = plot_language_figure(
            rows, info, dataset, out / FIGURE, figure_formats, models=models, translator=translator, registry=registry
        )
    numbers, display = evaluator_table(rows, info, models=models, translator=translator, registry=registry)
    if "csv" in table_formats:
        written += write_table_files(numbers, out / TABLE, ["csv"])
    written += write_table_files(display, out / TABLE, [kind for kind in table_formats if kind != "csv"])
    return written


__all__ = [
    "evaluator_rows",
    "evaluator_table",
    "plot_language_figure",
    "plot_pair_figure",
    "report_outputs",
    "run_evaluator_report",
]
