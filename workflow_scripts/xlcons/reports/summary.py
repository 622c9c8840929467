"""The run's summary: ``results/summary.md`` and ``results/summary.csv``, written by the rule results,
and ``results/summary.rst``, the same tables as the HTML report's first page (with links to
the summary files, the results table and the item explorer). When the run loaded offline
models with random weights, the first line of both pages says so and names them.

Per data set, one line per (evaluator, translator, model) of the results table: the evaluator's
headline metric (declared by its registry entry, ``EvaluatorInfo.headline``; the first declared
one, by the entries' order, that the evaluator's rows hold, matched exactly, so the QE copies
``F@qe_pass`` are not a headline), its unweighted mean over the languages other than English
(as the group tables' ``Avg``; English alone where it is the only language; a corpus score's
``all``), the highest and the lowest of those languages with their 95% intervals (Wilson's
for a rate, else the bootstrap's; xlcons.reports.results) (ties: the first and the last by
code), and the items excluded from the metric in every language (English included) with
their reasons.
Rows without a value are listed with their note (or their reasons). An evaluator whose rows
hold no declared headline (``translation_qe``) is named, not summarised. Rows are sorted by
data set, evaluator, translator, model: the same results table gives the same bytes.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from xlcons.atomic import atomic_path
from xlcons.measurability import NOT_MEASURABLE

REFERENCE = "en"  # left out of the mean, the best and the worst (as the group averages)
CORPUS_LANG = "all"  # the language of a corpus score over every language (knowledge)
CELL = ["dataset", "evaluator", "translator", "model"]
SUMMARY_COLUMNS = {
    "dataset": pl.String,
    "evaluator": pl.String,
    "translator": pl.String,
    "metric": pl.String,
    "model": pl.String,
    "n_languages": pl.Int32,
    "mean": pl.Float64,
    "best_lang": pl.String,
    "best_value": pl.Float64,
    "best_ci_low": pl.Float64,
    "best_ci_high": pl.Float64,
    "worst_lang": pl.String,
    "worst_value": pl.Float64,
    "worst_ci_low": pl.Float64,
    "worst_ci_high": pl.Float64,
    "n_items": pl.Int32,
    "n_excluded": pl.Int32,
    "excluded_reasons": pl.String,
    "without_value": pl.String,
}
MAX_NOTES = 6  # per data set in summary.md; summary.csv has them all
MAX_LANGUAGES = 12  # not-measurable languages named per (evaluator, data set) in summary.md


def declared_headlines() -> tuple[str, ...]:
    """The evaluators' headline metrics, in the registry's order (each once)."""
    from xlcons.evaluators.registry import EVALUATORS

    return tuple(dict.fromkeys(info.headline for info in EVALUATORS.values() if info.headline))


def merge_reasons(reasons: Iterable[str | None]) -> str | None:
    """`reason:count; …` strings summed into one, most frequent first (as the results table)."""
    counts: dict[str, int] = {}
    for text in reasons:
        for part in (text or "").split(";"):
            reason, _, count = part.strip().rpartition(":")
            if reason:
                counts[reason] = counts.get(reason, 0) + int(count)
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return "; ".join(f"{reason}:{count}" for reason, count in ordered) or None


def _why(row: dict) -> str:
    return (row["note"] or "").strip() or (row["excluded_reasons"] or "").strip()


def summary_table(results: pl.DataFrame, headlines: Sequence[str] | None = None) -> pl.DataFrame:
    """One row per (data set, evaluator, translator, model) with a headline metric (module docstring)."""
    declared = declared_headlines() if headlines is None else tuple(headlines)
    rows: list[dict] = []
    for key, cell in sorted(results.group_by(CELL), key=lambda group: tuple(map(str, group[0]))):
        metrics = set(cell["metric"].to_list())
        metric = next((name for name in declared if name in metrics), None)
        if metric is None:
            continue
        every = cell.filter(pl.col("metric") == metric).sort("lang").to_dicts()
        compared = [row for row in every if row["lang"] != REFERENCE] or every
        valued = [row for row in compared if row["value"] is not None]
        best = min(valued, key=lambda row: (-row["value"], row["lang"]), default=None)
        # Ties: the highest is the first language by code, the lowest the last (two languages of
        # one value show as two, not as one language twice).
        worst = max(valued, key=lambda row: (-row["value"], row["lang"]), default=None)
        rows.append(
            {
                **dict(zip(CELL, key, strict=True)),
                "metric": metric,
                "n_languages": len(valued),
                "mean": sum(row["value"] for row in valued) / len(valued) if valued else None,
                **{
                    f"{side}_{name}": (row or {}).get(field)
                    for side, row in (("best", best), ("worst", worst))
                    for name, field in (
                        ("lang", "lang"),
                        ("value", "value"),
                        ("ci_low", "ci_low"),
                        ("ci_high", "ci_high"),
                    )
                },
                "n_items": sum(row["n_items"] for row in every),
                "n_excluded": sum(row["n_excluded"] for row in every),
                "excluded_reasons": merge_reasons(row["excluded_reasons"] for row in every),
                "without_value": " | ".join(f"{row['lang']}: {_why(row)}" for row in every if row["value"] is None)
                or None,
            }
        )
    return pl.DataFrame(rows, schema=SUMMARY_COLUMNS)


def _number(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _language(row: dict, side: str) -> str:
    lang = row[f"{side}_lang"]
    if lang is None:
        return "–"
    if lang == CORPUS_LANG:  # one score over the whole set: its mean is all there is
        return ""
    low, high = row[f"{side}_ci_low"], row[f"{side}_ci_high"]
    interval = f" [{_number(low)}, {_number(high)}]" if low is not None and high is not None else ""
    return f"{lang} {_number(row[f'{side}_value'])}{interval}"


HEADER = ["evaluator", "metric", "model", "mean (languages)", "highest", "lowest", "excluded"]
INTRO = (
    "Per data set, each evaluator's headline metric (declared by its registry entry) for each model: "
    "the mean over the languages other than English, the highest and the lowest language with its 95% "
    "interval (Wilson's for a rate, else a bootstrap over items), and the items excluded in every language, "
    "with why."
)


def random_weights_note(models: Mapping[str, str] | None) -> str | None:
    """The line that says the run loaded offline models with random weights (config key ->
    offline model, `Plan.random_weight_models`); None when it loaded none."""
    if not models:
        return None
    listed = ", ".join(f"{key} ({name})" for key, name in models.items())
    return (
        f"This run used offline models with random weights: {listed}. Their answers and translations are "
        "noise, so these numbers test the workflow and say nothing about any model (a random model can "
        "come out ahead); swap in real models for results (docs/configuration.md)."
    )


def _sections(summary: pl.DataFrame, results: pl.DataFrame) -> Iterator[tuple[str, list[list[str]], list[str]]]:
    """Per data set of the results table: its name, the table's rows (HEADER's cells) and the
    lines under it (the values left empty, with why, and the evaluators not summarised)."""
    for dataset in sorted(set(results["dataset"].to_list())):
        rows = summary.filter(pl.col("dataset") == dataset).to_dicts()
        cells = []
        for row in rows:
            evaluator = row["evaluator"] + (f" ({row['translator']})" if row["translator"] else "")
            excluded = f"{row['n_excluded']} ({row['excluded_reasons']})" if row["n_excluded"] else "none"
            single = row["n_languages"] == 1 and row["best_lang"] == row["worst_lang"]
            languages = "all" if row["best_lang"] == CORPUS_LANG else row["n_languages"]
            cells.append(
                [
                    evaluator,
                    row["metric"],
                    row["model"],
                    f"{_number(row['mean'])} ({languages})",
                    _language(row, "best"),
                    "" if single else _language(row, "worst"),
                    excluded,
                ]
            )
        lines = []
        notes = [
            f"- {row['evaluator']} {row['metric']}, {row['model']}: {part}"
            for row in rows
            if row["without_value"]
            for part in row["without_value"].split(" | ")
        ]
        if notes:
            lines += ["Without a value:", *notes[:MAX_NOTES]]
            if len(notes) > MAX_NOTES:
                lines.append(f"- … and {len(notes) - MAX_NOTES} more (`results/summary.csv`, `without_value`)")
        covered = {row["evaluator"] for row in rows}
        others = sorted(set(results.filter(pl.col("dataset") == dataset)["evaluator"].to_list()) - covered)
        if others:
            lines.append(f"Not summarised (no headline metric declared): {', '.join(others)}.")
        yield dataset, cells, lines


def summary_markdown(
    summary: pl.DataFrame, results: pl.DataFrame, random_weights: Mapping[str, str] | None = None
) -> str:
    """summary.md: a section per data set of the results table (module docstring), under the
    line that says when the run used random-weight offline models."""
    lines = ["# Summary", ""]
    if note := random_weights_note(random_weights):
        lines += [f"**{note}**", ""]
    lines.append(f"{INTRO} Every value: `results/tables/results.csv`.")
    for dataset, rows, under in _sections(summary, results):
        lines += ["", f"## {dataset}", ""]
        if rows:
            lines += ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
            lines += ["| " + " | ".join(cells) + " |" for cells in rows]
        for index, line in enumerate(under):
            # a blank line before each block (the list of values left empty, the closing sentence)
            if index == 0 or not line.startswith("- "):
                lines.append("")
            lines.append(line)
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class ExplorerLink:
    """Where the run's item explorer is, and whether the report holds it (`output.explorer_report`)."""

    folder: Path
    in_report: bool = False


def _rst(text: object) -> str:
    """`text` for reStructuredText inline content: markup characters escaped, and no `{` left
    unescaped for the Jinja pass that Snakemake's report makes over its description first."""
    return re.sub(r"([\\`*_|{}\[\]<>:#%])", r"\\\1", str(text))


def summary_report_page(
    summary: pl.DataFrame,
    results: pl.DataFrame,
    random_weights: Mapping[str, str] | None = None,
    explorer: ExplorerLink | None = None,
) -> str:
    """The HTML report's first page (the workflow's `report:` description, reStructuredText):
    the line on random-weight models, links to the summary files, the results table and the
    item explorer, then the summary's tables. Its references (``summary.md``_ and the like) are
    the report's own links to its results, which Snakemake appends to the page."""
    lines = ["The run at a glance", "===================", ""]
    if note := random_weights_note(random_weights):
        lines += [f"**{_rst(note)}**", ""]
    lines += [
        "Start here: this page is the run's summary (`summary.md`_ and `summary.csv`_, under `At a glance`_); "
        "every value, with its interval and counts: `results.csv`_ (Results).",
        "",
    ]
    if explorer is not None:
        if explorer.in_report:
            lines += [f"The item explorer, every item behind each value: `{explorer.folder.name}`_.", ""]
        else:
            index = explorer.folder / "index.html"
            lines += [
                f"The item explorer, every item behind each value: `{_rst(index)} <{index.resolve().as_uri()}>`__ "
                "(a folder beside the results; docs/explorer.md).",
                "",
            ]
    lines += [_rst(INTRO), ""]
    for dataset, rows, under in _sections(summary, results):
        title = _rst(dataset)
        lines += [title, "-" * len(title), ""]
        if rows:
            lines += [".. list-table::", "   :header-rows: 1", ""]
            for cells in [HEADER, *rows]:
                lines += [
                    f"   {'*' if i == 0 else ' '} - {_rst(cell) if cell else '..'}" for i, cell in enumerate(cells)
                ]
            lines.append("")
        for line in under:
            lines += [f"- {_rst(line[2:])}" if line.startswith("- ") else _rst(line), ""]
    return "\n".join(lines) + "\n"


def measurability_lines(measurability: pl.DataFrame) -> list[str]:
    """summary.md's section on measurability: per (evaluator, data set) of the faithful-text
    checks (MEASURABILITY rows), how many languages it cannot measure, by reason."""
    if measurability.is_empty():
        return []
    lines = [
        "",
        "## Measurability",
        "",
        "Languages an evaluator cannot measure with the configured models: their faithful text (the "
        "data set's own prompts, scored as answers) falls below the threshold, or the evaluator has no "
        "model for them. Their results rows have no value (`n_excluded`, reason `not_measurable:<why>`). "
        "Every language's figure: `results/tables/measurability.csv`.",
        "",
    ]
    counts = (
        measurability.group_by("evaluator", "dataset", maintain_order=True)
        .agg(
            n=pl.len(),
            n_out=(pl.col("verdict") == NOT_MEASURABLE).sum(),
            reasons=pl.col("reason").filter(pl.col("verdict") == NOT_MEASURABLE),
            langs=pl.col("lang").filter(pl.col("verdict") == NOT_MEASURABLE),
        )
        .sort("evaluator", "dataset")
    )
    for row in counts.iter_rows(named=True):
        line = f"- {row['evaluator']} on {row['dataset']}: {row['n_out']} of {row['n']} languages not measurable"
        if row["n_out"]:
            by_reason = Counter(row["reasons"])
            line += " (" + ", ".join(f"{why}: {n}" for why, n in sorted(by_reason.items())) + ")"
            shown = row["langs"][:MAX_LANGUAGES]
            line += ": " + ", ".join(shown) + (" …" if row["n_out"] > len(shown) else "")
        lines.append(line)
    return lines


def write_summary(
    results: pl.DataFrame,
    markdown: Path | str,
    csv: Path | str,
    report_page: Path | str | None = None,
    *,
    random_weights: Mapping[str, str] | None = None,
    explorer: ExplorerLink | None = None,
    measurability: pl.DataFrame | None = None,
) -> list[Path]:
    """summary.md and summary.csv of the results table (with `measurability`, the faithful-text
    checks' counts in summary.md), and with `report_page` the HTML report's first page
    (`summary_report_page`), each written atomically."""
    summary = summary_table(results)
    text = summary_markdown(summary, results, random_weights)
    if measurability is not None and (section := measurability_lines(measurability)):
        text += "\n".join(section) + "\n"
    pages = {Path(markdown): text}
    if report_page is not None:
        pages[Path(report_page)] = summary_report_page(summary, results, random_weights, explorer)
    for path, text in pages.items():
        with atomic_path(path) as temporary:
            temporary.write_text(text, encoding="utf-8")
    with atomic_path(Path(csv)) as temporary:
        summary.write_csv(temporary)
    return [*pages, Path(csv)]


__all__ = [
    "ExplorerLink",
    "declared_headlines",
    "measurability_lines",
    "merge_reasons",
    "random_weights_note",
    "summary_markdown",
    "summary_report_page",
    "summary_table",
    "write_summary",
]
