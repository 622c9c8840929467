"""Translate-then-Evaluate report (Gupta et al. 2025): averaged consistency, self-consistency, classifiers, heatmaps.

Input is a RESULTS table (xlcons.reports.results) holding, per (model, lang):

- dataset ``information``, evaluator ``information``: ``precision``, ``recall``, ``f1`` (item
  means) and the derived ``F`` (harmonic mean of mean precision and mean recall: the paper's
  information-consistency score);
- dataset ``information``, evaluator ``translationese``: the same metrics for the round trips
  en→l→en, ``lang`` being the pivot language l;
- dataset ``empathy``, evaluator ``empathy``: ``consistency`` (all three mechanisms agree: the
  paper's empathy score) and ``ER``, ``IP``, ``EX`` (agreement of one mechanism);

and, optionally, the EPITOME classifiers' evaluations (the dicts ``train_classifier`` writes
to ``evaluation.json``).

English is the reference every other language is compared with, so its rows (if any) are
left out everywhere. `languages` (e.g. Gupta et al. 2025's 30) restricts every table and figure to
those codes. Languages are ordered by script group (Latin, Indic, Perso-Arabic, Other, then
languages outside every group), and within a group by code.

Files (names in :func:`report_outputs`; the set depends only on the formats and on whether
the translationese and classifier parts are asked for, never on the data):

``averaged_consistency``
    Gupta et al. 2025's main table. One row per model; for information (F) and for empathy
    (consistency): the unweighted mean over languages (``Avg``), the published average and
    ``difference`` = ours − published where the model is one of the paper's twelve (matched by
    this project's config name or the paper's own label, case-insensitively), the averages
    over the script groups and over the paper's family groups, ``In`` / ``Out`` of the model's
    documented training languages ("–" where those are unknown) and the number of languages
    averaged. A language outside a grouping (e.g. ``sw`` has no family group) is averaged in
    that grouping's ``ungrouped`` column and named in ``ungrouped languages``; these columns
    appear only when some language is ungrouped. The averages are those of
    :func:`xlcons.reports.groups.group_averages`; the long form is ``group_averages.csv``.
``averaged_metrics``
    per model, the mean over languages of every metric: information precision, recall, per-item
    F1 and F; empathy consistency and the ER / IP / EX agreements.
``per_language``
    one row per (model, language): information F and empathy consistency with their bootstrap
    interval, number of scored items and of excluded items. The CSV has every number at full
    precision in its own column; Markdown and LaTeX show ``value [ci_low, ci_high]`` with two
    decimals.
``self_consistency`` (translationese)
    one row per model, one column per pivot language (and ``Avg``, the mean over the row's
    languages): F between the English responses and their round trips. For Llama-3.1-8B two
    more rows give the published values and the differences (ours − published; their ``Avg``
    is the mean of the per-language differences); the paper's pivot languages then get a
    column even where this run has no value.
``classifiers``
    per mechanism (and classifier kind): test accuracy, macro-F1 and positive-class F1 in %, the
    number of test pairs, the paper's F1 and accuracy, and the differences (the paper does not
    say which F1 it reports, so both of ours are compared with it). Without evaluations the rows
    hold the paper's figures only.
``heatmap_information_F``, ``heatmap_empathy_consistency``
    model × language heatmaps, languages separated and labelled by script group (languages
    outside the registry last, under "no group"), colour scale
    fixed at [0, 1] for every model, values printed in the cells where there is room, grey where
    a model has no value.

This module is the report job (:func:`report_outputs`, :func:`write_report`); the tables are
computed in xlcons.reports.translate_then_evaluate_tables, the paper's figures are in
xlcons.reports.translate_then_evaluate_published and the heatmaps are drawn by
xlcons.reports.heatmaps.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TypedDict

import polars as pl
import pyarrow as pa

from xlcons.languages import LanguageRegistry
from xlcons.reports.formats import TABLE_SUFFIXES, write_table_files
from xlcons.reports.heatmaps import FIGURE_FORMATS, plot_metric_heatmap
from xlcons.reports.metric_cells import as_frame
from xlcons.reports.results import primary_rows
from xlcons.reports.translate_then_evaluate_tables import (
    SECTIONS,
    TRANSLATIONESE,
    averaged_table,
    classifier_table,
    group_frame,
    metrics_table,
    per_language_display,
    per_language_table,
    self_consistency_table,
)
from xlcons.schemas import RESULTS


class _Selection(TypedDict):
    """The rows every table and heatmap of the report shows (`write_report`'s `languages`, `models`)."""

    languages: Sequence[str] | None
    models: Sequence[str] | None


AVERAGED = "averaged_consistency"
GROUPS_LONG = "group_averages"
METRICS = "averaged_metrics"
PER_LANGUAGE = "per_language"
SELF_CONSISTENCY = "self_consistency"
CLASSIFIERS = "classifiers"
HEATMAPS = {"information": "heatmap_information_F", "empathy": "heatmap_empathy_consistency"}
HEATMAP_LABELS = {
    "information": (
        "Information consistency (F)",
        "Information consistency F (English response vs. translated response)",
    ),
    "empathy": ("Empathy consistency", "Empathy consistency (all three EPITOME mechanisms agree)"),
}


# -- Figures ----------------------------------------------------------------------------


def plot_heatmap(
    results: pa.Table | pl.DataFrame,
    section: str,
    base: Path | str,
    formats: Iterable[str] = FIGURE_FORMATS,
    *,
    languages: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    registry: LanguageRegistry | None = None,
) -> list[Path]:
    """Model × language heatmap of `section` (``information`` F or ``empathy`` consistency),
    languages grouped by script."""
    return plot_metric_heatmap(
        results,
        SECTIONS[section],
        HEATMAP_LABELS[section],
        base,
        formats,
        languages=languages,
        models=models,
        registry=registry,
    )


# -- The report job ---------------------------------------------------------------------


def _table_paths(out: Path, name: str, table_formats: Sequence[str]) -> list[Path]:
    return [out / f"{name}{TABLE_SUFFIXES[kind]}" for kind in table_formats]


def report_outputs(
    out_dir: Path | str,
    models: Sequence[str] = (),
    table_formats: Sequence[str] = ("csv", "markdown"),
    figure_formats: Sequence[str] = FIGURE_FORMATS,
    *,
    translationese: bool,
    classifiers: bool,
) -> list[Path]:
    """Every file :func:`write_report` writes, in its order. Every table has all models as rows,
    so `models` changes no name."""
    del models  # one file per table / figure, whatever the models
    out = Path(out_dir)
    paths = _table_paths(out, AVERAGED, table_formats)
    paths.append(out / f"{GROUPS_LONG}.csv")
    paths += _table_paths(out, METRICS, table_formats)
    paths += _table_paths(out, PER_LANGUAGE, table_formats)
    if translationese:
        paths += _table_paths(out, SELF_CONSISTENCY, table_formats)
    if classifiers:
        paths += _table_paths(out, CLASSIFIERS, table_formats)
    for name in HEATMAPS.values():
        paths += [out / f"{name}.{kind}" for kind in figure_formats]
    return paths


def write_report(
    results: pa.Table | pl.DataFrame,
    out_dir: Path | str,
    *,
    training_languages: Mapping[str, Sequence[str] | None] | None = None,
    classifier_evaluations: Sequence[Mapping] | None = None,
    table_formats: Sequence[str] = ("csv", "markdown"),
    figure_formats: Sequence[str] = FIGURE_FORMATS,
    languages: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    translationese: bool | None = None,
    translator: str | None = None,
) -> list[Path]:
    """Write the report into `out_dir`; returns the paths written (== :func:`report_outputs`).

    `translator`: the primary translator, whose scores the paper's tables show when the run
    has several (the spread between them is the translation-quality report's); None: all rows.

    `training_languages`: model -> its documented training language codes (None / absent:
    unknown, In / Out "–"). `classifier_evaluations`: the classifiers' evaluation dicts; None
    writes no classifier table, an empty list one with the paper's figures only. `models`:
    the rows and their order (default: the models in the order they first appear; a model
    given here without results gets empty cells). `translationese`: write the
    self-consistency table (default: when the results have translationese rows; the rule
    should pass it, as it passes it to :func:`report_outputs`).
    """
    unknown = sorted(set(table_formats) - set(TABLE_SUFFIXES)) + sorted(set(figure_formats) - set(FIGURE_FORMATS))
    if unknown:
        raise ValueError(
            f"unknown output formats {unknown}; tables: {sorted(TABLE_SUFFIXES)}, figures: {list(FIGURE_FORMATS)}"
        )
    frame = primary_rows(as_frame(results), translator)
    if frame.is_empty():
        frame = pl.from_arrow(RESULTS.empty_table())
    if translationese is None:
        translationese = frame.filter(pl.col("evaluator") == TRANSLATIONESE[1]).height > 0
    registry = LanguageRegistry.load()
    out = Path(out_dir)
    options: _Selection = {"languages": languages, "models": models}
    written: list[Path] = []

    groups = group_frame(frame, training_languages=training_languages, languages=languages, registry=registry)
    written += write_table_files(
        averaged_table(frame, groups=groups, registry=registry, **options), out / AVERAGED, table_formats, decimals=2
    )
    written += write_table_files(groups, out / GROUPS_LONG, ["csv"])
    written += write_table_files(metrics_table(frame, **options), out / METRICS, table_formats, decimals=2)

    numbers = per_language_table(frame, registry=registry, **options)
    display = per_language_display(numbers)
    for kind in table_formats:
        written += write_table_files(numbers if kind == "csv" else display, out / PER_LANGUAGE, [kind], decimals=2)

    if translationese:
        written += write_table_files(
            self_consistency_table(frame, registry=registry, **options),
            out / SELF_CONSISTENCY,
            table_formats,
            decimals=2,
        )
    if classifier_evaluations is not None:
        written += write_table_files(
            classifier_table(classifier_evaluations), out / CLASSIFIERS, table_formats, decimals=1
        )
    for section, name in HEATMAPS.items():
        written += plot_heatmap(frame, section, out / name, figure_formats, registry=registry, **options)
    return written
