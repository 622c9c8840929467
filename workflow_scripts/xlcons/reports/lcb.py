"""The Language Confusion Benchmark's tables: LPR and WPR per (model, task), averaged as its scorer does.

Input: LANGUAGE_CONFUSION rows scored by the benchmark's rule
(:func:`xlcons.evaluators.lcb_rule.score_language_confusion_lcb`) with the task and
source of each response (:data:`CELL_KEYS`). The benchmark's scorer averages in three steps,
and so does :func:`task_table`:

1. per (task, source, language) cell: LPR = share of the responses with a judged line that
   have no confused line; WPR = share of those that also have no English word, for the
   languages not written in Latin script only; **an empty cell is 1.0** (the scorer divides
   by at least one);
2. per (task, language): the mean of its sources' cells;
3. per task: the mean over languages (a language without WPR is left out of WPR's mean).

LCPR is the task's LPR and WPR combined by xlcons's one LCPR convention
(:func:`xlcons.evaluators.language_confusion.language_confusion_pass_rate`; the benchmark's
scorer prints LPR and WPR only).
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from pathlib import Path

import polars as pl
import pyarrow as pa

from xlcons.data_sources import DATA_SOURCES
from xlcons.data_sources.catalog import LCB_RELEASED
from xlcons.data_sources.names import released_source_name
from xlcons.datasets.lcb import OUTPUT_COLUMNS, item_id
from xlcons.evaluators.language_confusion import language_confusion_pass_rate
from xlcons.languages import LanguageRegistry

CELL_KEYS = ("model", "task", "source", "lang")
LATIN_SCRIPT = "Latn"


class LCBOutputsError(ValueError):
    """A released completions file is not in the benchmark's format."""


def read_outputs(path: Path | str) -> pa.Table:
    """A released completions CSV (columns id, model, completion, task, source, language) as RESPONSES-like rows.

    ``item_id`` is ``<task>/<source>/<id>``, as the data sets of xlcons.datasets.lcb name the
    prompts, ``dataset`` ``lcb-<task>``; the task and source are kept as columns for :func:`task_table`.
    """
    path = Path(path)
    csv.field_size_limit(1 << 30)
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle, strict=True)
            missing = [column for column in OUTPUT_COLUMNS if column not in (reader.fieldnames or [])]
            if missing:
                raise LCBOutputsError(
                    f"{path}: missing column(s) {', '.join(missing)}; expected {', '.join(OUTPUT_COLUMNS)}"
                )
            rows = list(reader)
    except (csv.Error, UnicodeDecodeError) as error:
        raise LCBOutputsError(f"{path}: not a readable CSV file ({error})") from error
    for number, row in enumerate(rows, start=2):
        for column in OUTPUT_COLUMNS:
            if row[column] is None:
                raise LCBOutputsError(f"{path}, line {number}: no value in column {column!r}")
    return pa.table(
        {
            "dataset": [f"lcb-{row['task']}" for row in rows],
            "model": [row["model"] for row in rows],
            "item_id": [item_id(row["task"], row["source"], row["id"]) for row in rows],
            "lang": [row["language"] for row in rows],
            "response": [row["completion"] for row in rows],
            "task": [row["task"] for row in rows],
            "source": [row["source"] for row in rows],
        }
    )


def fetch_released(models: Iterable[str], dest: Path | str, mirror: str | None = None) -> list[Path]:
    """The released completions of `models` (names of :data:`xlcons.data_sources.catalog.LCB_RELEASED`, or
    ``all``), fetched as the workflow fetches them (`released: lcb-<model>`: size, sha256 and columns
    checked) into ``dest/<model>/<model>.csv``, from the pinned commit or a mirror with its layout."""
    from xlcons.fetch.dataset import fetch_dataset

    names = list(LCB_RELEASED) if list(models) == ["all"] else list(models)
    unknown = [name for name in names if name not in LCB_RELEASED]
    if unknown:
        raise LCBOutputsError(
            f"no released completions of {', '.join(unknown)}; the benchmark has {', '.join(LCB_RELEASED)}"
        )
    paths = []
    for name in names:
        folder = Path(dest) / name
        fetch_dataset(DATA_SOURCES[released_source_name(f"lcb-{name}")], folder, mirror=mirror)
        paths.append(folder / f"{name}.csv")
    return paths


def cell_rates(scores: pl.DataFrame, registry: LanguageRegistry | None = None) -> pl.DataFrame:
    """Step 1: LPR and WPR per (model, task, source, lang), 1.0 for an empty cell, WPR null in Latin script."""
    registry = registry or LanguageRegistry.load()
    latin = [lang for lang in scores["lang"].unique().to_list() if registry[lang].script == LATIN_SCRIPT]
    return (
        scores.group_by(list(CELL_KEYS), maintain_order=True)
        .agg(
            n_responses=pl.len(),
            n_line_judged=pl.col("line_pass").is_not_null().sum(),
            n_word_checked=pl.col("word_pass").is_not_null().sum(),
            lpr=pl.col("line_pass").cast(pl.Float64).mean().fill_null(1.0),
            wpr=pl.col("word_pass").cast(pl.Float64).mean().fill_null(1.0),
        )
        .with_columns(wpr=pl.when(pl.col("lang").is_in(latin)).then(None).otherwise(pl.col("wpr")))
        .sort(list(CELL_KEYS))
    )


def task_table(scores: pl.DataFrame, registry: LanguageRegistry | None = None) -> pl.DataFrame:
    """Steps 2 and 3: LPR, WPR and LCPR per (model, task), with the number of languages behind each."""
    cells = cell_rates(scores, registry)
    per_language = cells.group_by(["model", "task", "lang"]).agg(pl.col("lpr").mean(), pl.col("wpr").mean())
    table = (
        per_language.group_by(["model", "task"])
        .agg(
            n_languages=pl.len(),
            lpr=pl.col("lpr").mean(),
            wpr=pl.col("wpr").mean(),
        )
        .sort(["model", "task"])
    )
    lpr = table["lpr"].cast(pl.Float64).fill_null(float("nan")).to_numpy()
    wpr = table["wpr"].cast(pl.Float64).fill_null(float("nan")).to_numpy()
    return table.with_columns(lcpr=pl.Series(language_confusion_pass_rate(lpr, wpr), dtype=pl.Float64))


def score_outputs(
    paths: Sequence[Path | str], lid_model: Path | str, words: Path | str, registry: LanguageRegistry | None = None
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Released completions files in; (per-response scores with task and source, per-(model, task) table) out."""
    from xlcons.evaluators import lcb_rule
    from xlcons.lid import LanguageIdentifier

    registry = registry or LanguageRegistry.load()
    identifier = LanguageIdentifier(lid_model, "lid176", registry)
    vocabulary = lcb_rule.english_vocabulary(words)
    tokenizer = lcb_rule.LineTokenizer()  # one memo of tokens over all the files
    frames = []
    for path in paths:
        outputs = read_outputs(path)
        scored = pl.from_arrow(
            lcb_rule.score_language_confusion_lcb(outputs, identifier, vocabulary, registry, tokenizer)
        )
        frames.append(
            scored.with_columns(
                task=pl.Series(outputs["task"].to_pylist()), source=pl.Series(outputs["source"].to_pylist())
            )
        )
    scores = pl.concat(frames) if frames else pl.DataFrame()
    return scores, task_table(scores, registry)


def format_table(table: pl.DataFrame, reference: dict[tuple[str, str], tuple[float, float]] | None = None) -> str:
    """A Markdown table of LPR/WPR/LCPR per (model, task), with reference values and differences where given."""
    header = "| model | task | LPR | WPR | LCPR |"
    rule = "|---|---|---|---|---|"
    if reference:
        header += " reference LPR | reference WPR | largest difference |"
        rule += "---|---|---|"
    lines = [header, rule]
    for row in table.iter_rows(named=True):
        line = f"| {row['model']} | {row['task']} | {row['lpr']:.4f} | {row['wpr']:.4f} | {row['lcpr']:.4f} |"
        if reference:
            ref = reference.get((row["model"], row["task"]))
            if ref:
                gap = max(abs(row["lpr"] - ref[0]), abs(row["wpr"] - ref[1]))
                line += f" {ref[0]:.4f} | {ref[1]:.4f} | {gap:.4f} |"
            else:
                line += " | | |"
        lines.append(line)
    return "\n".join(lines)


# The data sets of the benchmark's two tasks (xlcons.datasets), and the table the workflow writes.
TASK_DATASETS = {"lcb-monolingual": "monolingual", "lcb-crosslingual": "crosslingual"}
TASK_TABLE = "lcb_tasks"


def scores_of_files(paths: Sequence[Path | str]) -> pl.DataFrame:
    """LANGUAGE_CONFUSION files of the benchmark's data sets, with the task and source their item ids name."""
    from xlcons.evaluators.language_confusion import LANGUAGE_CONFUSION
    from xlcons.tables import read_table

    frames = [pl.from_arrow(read_table(path, LANGUAGE_CONFUSION)) for path in paths]
    frame = pl.concat(frames) if frames else pl.from_arrow(LANGUAGE_CONFUSION.empty_table())
    parts = frame["item_id"].str.split("/")
    return frame.with_columns(task=parts.list.get(0, null_on_oob=True), source=parts.list.get(1, null_on_oob=True))


def write_task_table(paths: Sequence[Path | str], out_dir: Path | str, formats: Sequence[str]) -> list[Path]:
    """The per-(model, task) table of the benchmark's data sets, in every table format."""
    from xlcons.reports.formats import write_table_files

    table = task_table(scores_of_files(paths)).select("model", "task", "n_languages", "lpr", "wpr", "lcpr")
    return write_table_files(
        table.rename({"lpr": "LPR", "wpr": "WPR", "lcpr": "LCPR"}), Path(out_dir) / TASK_TABLE, formats, decimals=4
    )


def report_outputs(
    out_dir: Path | str, models: Sequence[str], table_formats: Sequence[str], figure_formats: Sequence[str] = ()
) -> list[Path]:
    """The files rule lcb_tasks writes: the task table in every table format."""
    from xlcons.reports.formats import TABLE_SUFFIXES

    return [Path(out_dir) / f"{TASK_TABLE}{TABLE_SUFFIXES[kind]}" for kind in table_formats]


def rule_lcb_tasks(smk) -> None:
    """Rule lcb_tasks: the benchmark's per-(model, task) LPR, WPR and LCPR from the language-confusion files."""
    write_task_table(smk.input.per_item, Path(smk.output.tables[0]).parent, smk.params.table_formats)


def main(argv: Iterable[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m xlcons.reports.lcb",
        description="Score the Language Confusion Benchmark's released completions (outputs/<model>.csv) by its rule: "
        "LPR, WPR and LCPR per (model, task).",
    )
    parser.add_argument("outputs", nargs="*", help="completions CSV files (model, completion, task, source, language)")
    parser.add_argument(
        "--released",
        nargs="+",
        metavar="MODEL",
        help="fetch and score the benchmark's released completions "
        f"of these models ({', '.join(LCB_RELEASED)}, or all)",
    )
    parser.add_argument("--into", default="resources/data/lcb-released", help="where --released puts the files")
    parser.add_argument(
        "--mirror", help="a mirror of the benchmark's repository layout to fetch from instead of GitHub"
    )
    parser.add_argument("--lid-model", required=True, help="lid.176.bin (or lid.176.ftz)")
    parser.add_argument("--words", required=True, help="the benchmark's English word list (`words`)")
    parser.add_argument("--per-response", help="also write the per-response scores here (Parquet)")
    args = parser.parse_args(list(argv) if argv is not None else None)
    paths = list(args.outputs) + (fetch_released(args.released, args.into, args.mirror) if args.released else [])
    if not paths:
        parser.error("give completions files or --released")
    scores, table = score_outputs(paths, args.lid_model, args.words)
    if args.per_response:
        from xlcons.atomic import atomic_path

        with atomic_path(args.per_response) as tmp:
            scores.write_parquet(tmp)
    print(format_table(table))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
