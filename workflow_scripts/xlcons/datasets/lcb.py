"""The Language Confusion Benchmark's prompts (Marchisio et al. 2024) as two data sets.

The release (``test_sets.zip`` at the benchmark's pinned commit) holds one CSV per
(task, source, language): ``test_sets/<task>/<source folder>/<language>.csv`` with a
``prompt`` column, the ``source`` it comes from and the ``language`` the answer must be in.

``lcb-monolingual``
    Prompts written in the language the answer must be in (Aya, Dolly, Okapi and the
    benchmark's native prompts; 15 languages, English included).
``lcb-crosslingual``
    Prompts written in English that ask for an answer in another language ("Reply in
    German. …"; Okapi, ShareGPT and the complex prompts; 14 languages).

A row's ``lang`` is the language the answer must be in, so that language fidelity and
language confusion check that language and the results come per answer language, as the
benchmark reports them; ``source_lang`` is the language the prompt is written in (``en``
for the cross-lingual task); ``category`` is the benchmark's source. Item ids are
``<task>/<source>/<row>`` (``monolingual/okapi/0``), the row counted from 0 in its file:
the ids the benchmark's released completions carry (``id``, per task, source and
language), so those completions answer these prompts (:func:`released_responses`). The
items of two languages are different prompts: the sets are not parallel.
"""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from xlcons.data_sources.catalog import LCB_OUTPUT_COLUMNS
from xlcons.datasets.item_ids import LCB_ARCHIVE
from xlcons.schemas import PROMPTS

ARCHIVE = LCB_ARCHIVE
TASKS = ("monolingual", "crosslingual")
# The benchmark's completions files (outputs/<model>.csv): one row per answer.
OUTPUT_COLUMNS = LCB_OUTPUT_COLUMNS


class LCBError(ValueError):
    """The release or the selection is not what the config asks for; the message says which."""


def item_id(task: str, source: str, row: int | str) -> str:
    return f"{task}/{source}/{row}"


def archive_path(folder: Path | str) -> Path:
    folder = Path(folder)
    return folder / ARCHIVE if folder.is_dir() else folder


def read_task(folder: Path | str, task: str) -> dict[str, list[dict]]:
    """Every prompt of `task` in the release, by language: {lang: [{item_id, source, prompt, line}]}, in file order."""
    path = archive_path(folder)
    if not path.is_file():
        raise LCBError(
            f"Language Confusion Benchmark prompts not found: {path} (fetch them, or set datasets.lcb-{task}.path)"
        )
    prompts: dict[str, list[dict]] = {}
    try:
        with zipfile.ZipFile(path) as archive:
            names = sorted(
                name for name in archive.namelist() if name.startswith(f"test_sets/{task}/") and name.endswith(".csv")
            )
            for name in names:
                text = archive.read(name).decode("utf-8")
                reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
                if not {"prompt", "source", "language"} <= set(reader.fieldnames or ()):
                    raise LCBError(
                        f"{path}: {name} lacks the columns prompt, source, language (has {reader.fieldnames})"
                    )
                for row_number, row in enumerate(reader):
                    if not (row["prompt"] or "").strip():
                        raise LCBError(f"{path}: {name}, row {row_number + 1}: blank prompt")
                    prompts.setdefault(row["language"], []).append(
                        {
                            "item_id": item_id(task, row["source"], row_number),
                            "source": row["source"],
                            "prompt": row["prompt"],
                        }
                    )
    except (zipfile.BadZipFile, csv.Error, UnicodeDecodeError) as error:
        raise LCBError(f"{path}: not the benchmark's test_sets.zip ({error})") from error
    if not prompts:
        raise LCBError(f"{path}: holds no test_sets/{task}/*/*.csv")
    return prompts


def select(rows: list[dict], items: Mapping[str, Any], dataset: str) -> list[dict]:
    """The rows of one language kept by `items`: `domains` are sources, `limit` the first N of
    each source, `ids` exactly those."""
    if items.get("domains"):
        rows = [row for row in rows if row["source"] in items["domains"]]
    if items.get("limit"):
        counts: dict[str, int] = {}
        kept = []
        for row in rows:
            counts[row["source"]] = counts.get(row["source"], 0) + 1
            if counts[row["source"]] <= items["limit"]:
                kept.append(row)
        rows = kept
    if items.get("ids"):
        wanted = set(items["ids"])
        rows = [row for row in rows if row["item_id"] in wanted]
    return rows


def load_task(
    task: str, dataset: str, folder: Path | str, languages: Sequence[str], items: Mapping[str, Any]
) -> pa.Table:
    """PROMPTS rows of one task in `languages` (in that order)."""
    prompts = read_task(folder, task)
    missing = [lang for lang in languages if lang not in prompts]
    if missing:
        raise LCBError(
            f"datasets.{dataset}.languages: the benchmark's {task} task "
            f"has no prompts in {missing} (it has {sorted(prompts)})"
        )
    known_sources = sorted({row["source"] for rows in prompts.values() for row in rows})
    unknown = [source for source in items.get("domains") or [] if source not in known_sources]
    if unknown:
        raise LCBError(
            f"datasets.{dataset}.items.domains: {unknown} are not "
            f"sources of the {task} task ({', '.join(known_sources)})"
        )
    if items.get("ids"):
        known = {row["item_id"] for rows in prompts.values() for row in rows}
        absent = [value for value in items["ids"] if value not in known]
        if absent:
            raise LCBError(f"datasets.{dataset}.items.ids: no prompt {absent[:5]} (ids look like {task}/okapi/0)")
    rows = [(lang, row) for lang in languages for row in select(prompts[lang], items, dataset)]
    return pa.Table.from_pydict(
        {
            "dataset": [dataset] * len(rows),
            "item_id": [row["item_id"] for _, row in rows],
            "lang": [lang for lang, _ in rows],
            "prompt": [row["prompt"] for _, row in rows],
            "category": [row["source"] for _, row in rows],
            "references": [None] * len(rows),
            "source_lang": [lang if task == "monolingual" else "en" for lang, _ in rows],
            "question_en": [None] * len(rows),
        },
        schema=PROMPTS,
    )


def is_released_completions(columns: Sequence[str]) -> bool:
    """Whether a table has the columns of the benchmark's completions files (and not xlcons's own)."""
    return set(OUTPUT_COLUMNS) <= set(columns) and "response" not in columns


def recorded_table(table: pa.Table) -> pa.Table | None:
    """The benchmark's completions as recorded responses, None for a table of any other columns:
    the release format entry of :data:`xlcons.datasets.releases.RELEASE_FORMATS`."""
    return released_responses(table) if is_released_completions(table.column_names) else None


def released_responses(table: pa.Table) -> pa.Table:
    """The benchmark's completions (outputs/<model>.csv) as recorded responses: item_id, language, response."""
    ids = [
        item_id(task, source, row)
        for task, source, row in zip(table["task"].to_pylist(), table["source"].to_pylist(), table["id"].to_pylist())
    ]
    return pa.table({"item_id": ids, "language": table["language"], "response": table["completion"]})
