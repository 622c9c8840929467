"""Responses a user already has (an API run, a released data set), served as a model.

A CSV, JSON-lines or Parquet file with columns `item_id`, `language` (or `lang`) and
`response`; optional `finish_reason` and `error`. Downstream stages cannot tell it from
a generated model. Every requested (item, language) must be in the file: a gap is an
error naming what is missing, not a silent "No answer".
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.json as pajson
import pyarrow.parquet as pq

from xlcons.datasets.releases import folder_formats, read_release_folder, release_records
from xlcons.generation.base import Backend, GenerationError, ModelSpec, Request, Result, register

TEXT_COLUMNS = ("item_id", "language", "lang", "response", "finish_reason", "error")


def _read_csv(path: Path) -> pa.Table:
    """Every text column as text, whatever it looks like (ids like 007, answers like 42); a quoted
    answer may span several lines."""
    return pacsv.read_csv(
        path,
        parse_options=pacsv.ParseOptions(newlines_in_values=True),
        convert_options=pacsv.ConvertOptions(column_types={name: pa.string() for name in TEXT_COLUMNS}),
    )


READERS = {".csv": _read_csv, ".jsonl": pajson.read_json, ".json": pajson.read_json, ".parquet": pq.read_table}


def _as_text(table: pa.Table, path: Path) -> pa.Table:
    """The text columns cast to strings (a JSON or Parquet column of numbers, say); a column that
    cannot be read as UTF-8 text is an error naming it."""
    for name in TEXT_COLUMNS:
        if name in table.column_names and table.schema.field(name).type != pa.string():
            try:
                table = table.set_column(table.column_names.index(name), name, table.column(name).cast(pa.string()))
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as error:
                raise GenerationError(f"{path}: column '{name}' cannot be read as UTF-8 text: {error}") from None
    return table


def read_recorded(path: Path | str) -> dict[tuple[str, str], dict]:
    """(item_id, language) -> record of a recorded-responses file, a folder holding one such CSV
    file, or a release in a format of xlcons.datasets.releases (a folder of released MAKQA
    outputs, the Language Confusion Benchmark's completions)."""
    path = Path(path)
    table = read_release_folder(path) if path.is_dir() else None
    if path.is_dir() and table is None:
        files = list(path.glob("*.csv"))
        if len(files) != 1:
            raise GenerationError(
                f"{path}: a folder of recorded responses holds one CSV file, or a release: {folder_formats()}"
            )
        path = files[0]  # a fetched LCB release: resources/data/lcb-released-<model>/<model>.csv
    if table is None:
        reader = READERS.get(path.suffix.lower())
        if reader is None:
            raise GenerationError(
                f"{path}: recorded responses must be .csv, .jsonl or "
                f".parquet, or a folder of a release ({folder_formats()})"
            )
        try:
            table = _as_text(reader(path), path)
        except (pa.ArrowInvalid, OSError) as error:  # not UTF-8, malformed lines, not Parquet
            raise GenerationError(f"{path}: cannot read the recorded responses: {error}") from None
    table = release_records(table)  # a released format's columns (the LCB's outputs/<model>.csv) as records
    if "lang" in table.column_names and "language" not in table.column_names:
        table = table.rename_columns(["language" if name == "lang" else name for name in table.column_names])
    missing = [name for name in ("item_id", "language", "response") if name not in table.column_names]
    if missing:
        raise GenerationError(f"{path}: recorded responses lack the columns {missing} (has {table.column_names})")
    records = {}
    for row in table.to_pylist():
        key = (str(row["item_id"]), str(row["language"]))
        if key in records:
            raise GenerationError(f"{path}: item {key[0]!r} in language {key[1]!r} appears twice")
        records[key] = row
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
