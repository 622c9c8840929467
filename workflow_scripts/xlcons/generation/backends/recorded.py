"""Responses a user already has (an API run, a released data set), served as a model.

A CSV, JSON-lines or Parquet file with columns `item_id` (or `id`, as in a prompt file),
`language` (or `lang`) and `response`; optional `finish_reason` and `error`. Downstream
stages cannot tell it from a generated model. The file is read and checked whole before any
job is scheduled (`recorded_problems`, from the config check), with the reader of the user
prompt files (xlcons.datasets.user.reading): every problem named by file, line (or row) and
column, bad UTF-8 by line, fields of any size. Every requested (item, language) must be in
the file: a gap is an error naming what is missing, not a silent "No answer".
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from xlcons.datasets.releases import folder_formats, read_release_folder, release_records
from xlcons.datasets.user.problems import Problems, capped
from xlcons.datasets.user.reading import read_raw
from xlcons.datasets.user.source import RawTable, Source
from xlcons.datasets.user.values import describe
from xlcons.generation.base import Backend, GenerationError, ModelSpec, Request, Result, register

SUFFIXES = (".csv", ".jsonl", ".json", ".parquet")
# (field, the columns that may hold it, first found wins): `id` and `lang` as in a prompt file
COLUMNS = {"item_id": ("item_id", "id"), "language": ("language", "lang"), "response": ("response",)}
OPTIONAL_COLUMNS = ("finish_reason", "error")


def _released(path: Path) -> RawTable | None:
    """A release folder's records (MAKQA's result_<domain>.json), by row; None for any other path."""
    table = read_release_folder(path) if path.is_dir() else None
    if table is None:
        return None
    return RawTable(table.column_names, [(f"row {n}", row) for n, row in enumerate(table.to_pylist(), 1)], False)


def _as_records(raw: RawTable) -> RawTable:
    """A released format's columns (the LCB's outputs/<model>.csv) as records, each keeping its
    line; any other table unchanged."""
    if not raw.records or "response" in raw.columns:
        return raw
    table = pa.Table.from_pylist([values for _, values in raw.records])
    converted = release_records(table)
    if converted is table:
        return raw
    return RawTable(
        converted.column_names, list(zip([where for where, _ in raw.records], converted.to_pylist())), False
    )


def _read(path: Path, label: str, problems: Problems) -> RawTable | None:
    raw = _released(path)
    if raw is not None:
        return raw
    if path.is_dir():
        files = list(path.glob("*.csv"))
        if len(files) != 1:
            problems.of_file(f"a folder of recorded responses holds one CSV file, or a release: {folder_formats()}")
            return None
        path, label = files[0], f"{label}/{files[0].name}"  # a fetched LCB release: lcb-released-<model>/<model>.csv
        problems.label = label
    if path.suffix.lower() not in SUFFIXES:
        problems.of_file(
            f"recorded responses must be .csv, .jsonl or .parquet, or a folder of a release ({folder_formats()})"
        )
        return None
    return _as_records(read_raw(Source(label, path=path), problems))


def _text(value: Any, what: str, *, required: bool) -> str | None:
    """A value as text: a number as written (an answer 42 is "42", in a column of floats too); an
    optional one may be empty."""
    if required and (value is None or (isinstance(value, str) and not value.strip())):
        raise ValueError(f"no {what}")
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"the {what} is {describe(value)}, not text")
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)  # 42.0: "42"


def _checked(raw: RawTable, problems: Problems) -> dict[tuple[str, str], dict]:
    """(item_id, language) -> record, every bad value and repeated pair reported by line and column."""
    columns = {field: next((c for c in names if c in raw.columns), None) for field, names in COLUMNS.items()}
    missing = [" or ".join(repr(name) for name in COLUMNS[field]) for field, column in columns.items() if not column]
    if missing:
        problems.of_file(
            f"no column {', no column '.join(missing)} (its columns: {', '.join(raw.columns) or 'none'}); "
            "recorded responses need item_id (or id), language (or lang) and response"
        )
        return {}
    records: dict[tuple[str, str], dict] = {}
    first_seen: dict[tuple[str, str], str] = {}
    for where, values in raw.records:
        row: dict[str, Any] = {}
        for field, column in [*columns.items(), *((name, name) for name in OPTIONAL_COLUMNS)]:
            try:
                row[field] = _text(
                    values.get(column), field.replace("_", " "), required=field in ("item_id", "language")
                )
            except ValueError as error:
                problems.at(where, column, str(error))
                row = {}
                break
        if not row:
            continue
        row["item_id"], row["language"] = row["item_id"].strip(), row["language"].strip()
        key = (row["item_id"], row["language"])
        if key in first_seen:
            problems.at(
                where,
                columns["item_id"],
                f"item {key[0]!r} in language {key[1]!r} appears twice (first at {first_seen[key]}); "
                "a recorded-responses file holds one response per item and language",
            )
            continue
        first_seen[key] = where
        records[key] = row
    if not raw.records and not problems:
        problems.of_file("holds no responses")
    return records


def _check(path: Path | str, label: str | None, key: str | None) -> tuple[dict[tuple[str, str], dict], list[str]]:
    path = Path(path)
    problems = Problems("", label or str(path), key or "backend file")
    raw = _read(path, problems.label, problems)
    records = {} if raw is None or not raw.columns and problems else _checked(raw, problems)
    return records, capped(problems.in_file_order())


def recorded_problems(path: Path | str, label: str, key: str) -> list[str]:
    """Every problem of a recorded-responses file, each naming `key` (the config key that gives
    it), the file as `label`, the line (or row) and the column; for the config check."""
    return _check(path, label, key)[1]


def read_recorded(path: Path | str) -> dict[tuple[str, str], dict]:
    """(item_id, language) -> record of a recorded-responses file, a folder holding one such CSV
    file, or a release in a format of xlcons.datasets.releases (a folder of released MAKQA
    outputs, the Language Confusion Benchmark's completions); a GenerationError lists every problem."""
    records, problems = _check(path, None, None)
    if problems:
        raise GenerationError("\n".join(problems))
    return records


def unused_records(records: Mapping[tuple[str, str], dict], wanted: Iterable[tuple[str, str]]) -> list[str]:
    """What a recorded-responses file holds beyond a job's (item, language) prompts, as lines for
    the log: rows in languages the data set does not run in, rows for items not among its prompts."""
    wanted = set(wanted)
    languages = {lang for _, lang in wanted}
    items = {item for item, _ in wanted}
    extra = [key for key in records if key not in wanted]
    other_languages = sorted({lang for _, lang in extra if lang not in languages})
    other_items = sorted({item for item, lang in extra if lang in languages and item not in items})
    notes = []
    if other_languages:
        n = sum(1 for _, lang in extra if lang not in languages)
        notes.append(
            f"{n} rows in languages this data set does not run in ({', '.join(other_languages[:10])}"
            f"{', ...' if len(other_languages) > 10 else ''}; add them to datasets.<name>.languages to score them)"
        )
    if other_items:
        notes.append(
            f"rows for {len(other_items)} items that are not among this run's prompts (first: {other_items[:5]}; "
            f"a typo in an id, another version of the prompt set, or left out by items.limit / items.ids)"
        )
    return notes


@register
class RecordedBackend(Backend):
    name = "file"
    chunk_size = 100_000  # nothing to lose on a kill: the file is the answer

    def __init__(self, spec: ModelSpec):
        super().__init__(spec)
        self.records = read_recorded(spec.location)

    def generate(self, requests: Sequence[Request]) -> Iterator[Result]:
        absent = [(r.item_id, r.lang) for r in requests if (r.item_id, r.lang) not in self.records]
        if absent:
            languages = sorted({lang for _, lang in absent})
            raise GenerationError(
                f"model '{self.spec.name}': {self.spec.location} has no response for {len(absent)} requested items "
                f"(languages {languages}; first: {absent[:5]}); restrict datasets.*.items / languages or add them"
            )
        for request in requests:
            row = self.records[(request.item_id, request.lang)]
            response = row["response"] or ""
            yield Result(request.key, response, row.get("finish_reason") or "stop", None, None, row.get("error"))
