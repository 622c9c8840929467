"""Translation ability against cross-lingual consistency (Xing et al. 2024 §5, Figures 2 and 3).

Inputs: the TRANSLATION_DIRECTIONS tables of every model (chrF per direction), and, when
the run also scores MAKQA for knowledge consistency, the KNOWLEDGE_PAIRS tables of the same
models (each model's main prompt variant, all domains). Outputs, in `tables/<data set>/`:

* `translation_directions`: chrF and chrF++ per (model, source, target), its failed requests
  and refusals (`refused`, not scored), and the share of its answers whose scored text is not
  the whole answer (`changed`);
* `translation_models`: per model, mean chrF (and chrF++) over its directions, the sentences,
  empty answers, failed requests and refusals, and `changed`, the share of its scored answers whose
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
  pair's mean chrF (of its two directions) and its C_ij (scope `pairs`, 66 cells). The
  cells of these two scopes share languages (and in `directions` the two directions of a
  pair share one C value), so they are not independent points: their p-values are Mantel
  tests that permute the languages (xlcons.reports.correlations.mantel) and they get no
  interval.
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

This module is the report job (:func:`report_outputs`, :func:`run_report`); the tables are
computed in xlcons.reports.translation_ability_tables and the figures drawn in
xlcons.reports.translation_ability_figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import polars as pl
import pyarrow as pa

from xlcons.evaluators.knowledge.tables import KNOWLEDGE_PAIRS
from xlcons.evaluators.translation_ability import TRANSLATION_DIRECTIONS
from xlcons.reports.formats import TABLE_SUFFIXES, write_table_files
from xlcons.reports.translation_ability_figures import plot_heatmaps, plot_pair_scatter, plot_scatter
from xlcons.reports.translation_ability_tables import (
    correlations,
    directions_table,
    languages_table,
    models_table,
    pair_cells,
)
from xlcons.tables import read_table

DIRECTIONS, LANGUAGES, CORRELATIONS = "translation_directions", "translation_languages", "translation_vs_consistency"
MODELS, PAIRS = "translation_models", "translation_pairs"
HEATMAPS, SCATTER, PAIR_SCATTER = (
    "figure2_translation",
    "figure3_translation_vs_consistency",
    "figure2_pairs_vs_consistency",
)
FIGURE_FORMATS = ("png", "pdf")


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
