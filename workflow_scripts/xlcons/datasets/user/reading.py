"""Reading a user set's file, whatever its format (CSV, TSV, JSONL, TXT, Parquet), into one raw
table of records (a Hugging Face split: xlcons.datasets.user.hub); a text file's bytes must be UTF-8, and each bad
byte is reported by line. Recorded responses (backend `file`) are read here too."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from xlcons.datasets.user.delimited import read_delimited
from xlcons.datasets.user.problems import Problems
from xlcons.datasets.user.source import TXT_COLUMNS, RawTable, Source
from xlcons.datasets.user.values import describe


def _as_cp1252(byte: int) -> str:
    """What a byte that is not UTF-8 most likely is: a letter of Windows-1252, the encoding a
    spreadsheet on Windows saves CSV in ("é" for 0xe9); nothing when it is not one."""
    try:
        char = bytes([byte]).decode("cp1252")
    except UnicodeDecodeError:
        return ""
    return f"; {char!r} in Windows-1252, the encoding of a spreadsheet's plain CSV on Windows: choose CSV UTF-8"


def _decode(data: bytes, problems: Problems) -> str:
    """Strict UTF-8 with every bad byte reported by line; the rest is still read (with
    replacement characters) so that its other problems are reported in the same run."""
    position = 0
    while True:
        try:
            data[position:].decode("utf-8")
            break
        except UnicodeDecodeError as error:
            offset = position + error.start
            line = data.count(b"\n", 0, offset) + 1
            column = offset - (data.rfind(b"\n", 0, offset) + 1)
            problems.at(
                f"line {line}",
                None,
                f"not UTF-8: byte 0x{data[offset]:02x} at byte {column + 1} of the line (byte offset "
                f"{offset} in the file{_as_cp1252(data[offset])}); save the file as UTF-8",
            )
            position = position + error.end
    return data.decode("utf-8", errors="replace").removeprefix("\ufeff")


def _read_jsonl(text: str, problems: Problems) -> RawTable:
    columns: dict[str, None] = {}
    records: list[tuple[str, dict]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            problems.at(
                where,
                None,
                f"not valid JSON ({error.msg} at character {error.colno}); each line must be one JSON object",
            )
            continue
        if not isinstance(value, dict):
            problems.at(
                where,
                None,
                f"is {describe(value)}, not a JSON object; each line must be "
                'one object such as {"id": ..., "lang": ..., "prompt": ...}',
            )
            continue
        columns.update(dict.fromkeys(value))
        records.append((where, value))
    return RawTable(list(columns), records, delimited=False)


def _read_txt(text: str) -> RawTable:
    records: list[tuple[str, dict]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            records.append(
                (f"line {number}", {TXT_COLUMNS["id"]: str(len(records) + 1), TXT_COLUMNS["prompt"]: line.strip()})
            )
    return RawTable(list(TXT_COLUMNS.values()), records, delimited=True)


def _read_parquet(path: Path, problems: Problems) -> RawTable:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError) as error:
        problems.of_file(f"not a readable Parquet file: {error}")
        return RawTable([], [], delimited=False)
    return rows_table(table.column_names, table.to_pylist())


def rows_table(columns: list[str], records: Iterable[dict]) -> RawTable:
    return RawTable(
        columns, [(f"row {number}", record) for number, record in enumerate(records, start=1)], delimited=False
    )


def read_raw(source: Source, problems: Problems) -> RawTable:
    """A file source's raw table (a Hugging Face split is read by xlcons.datasets.user.hub, kept
    apart so that what reads files alone, the recorded responses, needs no `datasets` package)."""
    if source.path is None:
        raise ValueError(f"{source.label}: not a file; a Hugging Face split is read by read_hub")
    if source.suffix == ".parquet":
        return _read_parquet(source.path, problems)
    text = _decode(source.path.read_bytes(), problems)
    if source.suffix in (".jsonl", ".json"):  # .json: JSON lines too (recorded responses accept the name)
        return _read_jsonl(text, problems)
    if source.suffix == ".txt":
        return _read_txt(text)
    delimiter, kind = ("\t", "TSV") if source.suffix == ".tsv" else (",", "CSV")
    return read_delimited(text, delimiter, kind, problems)
