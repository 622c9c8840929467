"""Prompt sets a user declares in the config: a file (or a Hugging Face data set), no code.

A user's file is the one input of the workflow nobody has reviewed, so it is read whole
and checked before anything is scheduled: every problem is reported with the config key,
the file, the line (or row) and the column, so it can be fixed in an editor without a
traceback. Problems are collected rather than raised at the first, because a file
exported from a spreadsheet usually has the same slip on many rows.

Two kinds of set:

- ``parallel``: the file holds every language (like MultiQ); rows are keyed by (id, lang).
  An id may be missing in some languages; that is reported as a note, not an error. A row
  whose prompt asks for an answer in another language (``columns.target_lang``) is keyed
  and scored by that language, its own kept as ``source_lang``.
- ``translated``: English prompts only (a table, or a ``.txt`` file with one prompt per
  non-blank line), which the workflow translates into the configured languages.

Item selection (``items.ids`` / ``domains`` / ``limit``) is computed on the whole file, so
loading one language at a time selects the same items every time.

Stdlib only at import time: the Snakefile imports the datasets package to build the DAG.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xlcons.languages import LanguageRegistry, UnknownLanguageError

FILE_SUFFIXES = (".csv", ".tsv", ".jsonl", ".parquet", ".txt")
TYPES = ("parallel", "translated")
DEFAULT_COLUMNS = {"id": "id", "lang": "lang", "prompt": "prompt"}
OPTIONAL_COLUMN_KEYS = ("reference", "category", "question_en", "target_lang")
# A .txt file has no header; its two columns get these names in messages.
TXT_COLUMNS = {"id": "(line number)", "prompt": "(line)"}
ENGLISH = "en"
MAX_PROBLEMS = 20
MAX_LISTED = 10


class UserDatasetError(ValueError):
    """A user prompt set that cannot be loaded; the message lists every problem, one per line."""

    def __init__(self, problems: Sequence[str]):
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


@dataclass
class UserRows:
    """A validated user file: its rows in file order, the languages they are in, and ids
    that some languages lack (allowed, but worth telling the user)."""

    rows: list[dict]
    languages: list[str]
    partial_ids: dict[str, list[str]] = field(default_factory=dict)

    @property
    def ids(self) -> list[str]:
        return list(dict.fromkeys(row["item_id"] for row in self.rows))

    def categories(self) -> dict[str, str | None]:
        """An item's category is the first one any of its rows gives (languages may leave it empty)."""
        found: dict[str, str | None] = {}
        for row in self.rows:
            if found.get(row["item_id"]) is None:
                found[row["item_id"]] = row["category"]
        return found


# -- where the data comes from


@dataclass(frozen=True)
class _Source:
    label: str  # how messages name it: the configured path, or the hub id and split
    path: Path | None = None
    hf_dataset: str | None = None
    split: str = "test"

    @property
    def suffix(self) -> str:
        return self.path.suffix.lower() if self.path is not None else ".parquet"


def _source(name: str, spec: Mapping[str, Any], base_dir: Path | str) -> tuple[_Source | None, list[str]]:
    if spec.get("type", "parallel") not in TYPES:
        return None, [f"datasets.{name}.type: {spec.get('type')!r} is not one of {', '.join(TYPES)}"]
    path, hub = spec.get("path"), spec.get("hf_dataset")
    if path and hub:
        return None, [f"datasets.{name}: give path or hf_dataset, not both"]
    if not path and not hub:
        return None, [f"datasets.{name}: give path (a .csv, .tsv, .jsonl, .parquet or .txt file) or hf_dataset"]
    if hub:
        split = spec.get("split") or "test"
        return _Source(f"hf_dataset {hub!r} (split {split!r})", hf_dataset=hub, split=split), []
    resolved = Path(path) if Path(path).is_absolute() else Path(base_dir) / path
    source = _Source(str(path), path=resolved)
    if source.suffix not in FILE_SUFFIXES:
        return None, [
            f"datasets.{name}.path: {path}: unsupported file type "
            f"{source.suffix or '(none)'!r}; use one of {', '.join(FILE_SUFFIXES)}"
        ]
    if source.suffix == ".txt" and spec.get("type", "parallel") != "translated":
        return None, [
            f"datasets.{name}.path: {path}: a .txt file holds English prompts only, so it needs "
            "type translated; a parallel set needs a table with id, lang and prompt columns"
        ]
    if not resolved.is_file():
        return None, [f"datasets.{name}.path: file {path} does not exist"]
    return source, []


class _Problems:
    """Problems of one source, each a self-contained line naming the config key and file.

    They are found in several passes (bytes, records, fields, duplicates) but listed in
    file order, as someone fixing them in an editor goes through the file."""

    def __init__(self, name: str, label: str):
        self.name, self.label = name, label
        self._found: list[tuple[int, str]] = []

    def __bool__(self) -> bool:
        return bool(self._found)

    def at(self, where: str, column: str | None, message: str) -> None:
        column_part = f", column {column!r}" if column else ""
        position = int(where.split()[1])  # "line 4", "row 2", "line 1 (header)"
        self._found.append((position, f"datasets.{self.name}: {self.label}, {where}{column_part}: {message}"))

    def of_file(self, message: str) -> None:
        self._found.append((0, f"datasets.{self.name}: {self.label}: {message}"))

    def in_file_order(self) -> list[str]:
        return [text for _, text in sorted(self._found, key=lambda found: found[0])]


@dataclass
class _QuotedSpan:
    """A quoted CSV/TSV field that runs over several lines, and those lines as the file has them."""

    column: str
    opens: int  # the line of its opening quote
    closes: int  # the line of its closing quote
    lines: list[tuple[int, str]]  # (number, text) of the lines after the first it runs over


@dataclass
class _RawTable:
    columns: list[str]
    records: list[tuple[str, dict]]  # (where, the record's values by file column name)
    delimited: bool  # values are the text of CSV/TSV/TXT cells, not typed JSON/Arrow values
    quoted_spans: list[_QuotedSpan] = field(default_factory=list)  # CSV/TSV only
    delimiter: str | None = None


# -- reading each format


def _decode(data: bytes, problems: _Problems) -> str:
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
                f"not UTF-8: byte 0x{data[offset]:02x} at byte {column + 1} of the "
                f"line (byte offset {offset} in the file); save the file as UTF-8",
            )
            position = position + error.end
    return data.decode("utf-8", errors="replace").removeprefix("\ufeff")


# Quoting in CSV and TSV (docs/own-prompts.md#quotes-in-csv-and-tsv), as spreadsheets export
# and Python's csv module reads in strict mode: a field is quoted only as a whole: it starts
# with '"' and ends with the next lone '"', which the delimiter or the end of the line must
# follow; inside, the delimiter and line breaks are text and '""' is one quote. A quote
# anywhere else in a field is text. csv in strict mode refuses the rest (a quote never
# closed, text after a closing quote), where its lenient default would fold the following
# rows into the field or drop the quotes; `_quote_problem` then says which field and how to
# write it.
_QUOTED = re.compile(r'"([^"]*(?:""[^"]*)*)"')
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_SHOWN = 40  # characters of a field quoted in a message


def _shortened(text: str) -> str:
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def _as_quoted_field(text: str) -> str:
    """How to write `text` (quotes and all) as one field: in quotes, its own quotes doubled."""
    return '"' + _shortened(text).replace('"', '""') + '"'


def _quote_problem(record: str, delimiter: str) -> tuple[int, int, str] | None:
    """Why csv refused the record that starts `record` (the file from that record's first
    line on): (the field's index, the number of line breaks before its opening quote, what is
    wrong and how to write it); None when no quoted field is at fault."""
    unquoted = re.compile(f"[^{re.escape(delimiter)}\r\n]*")
    position, index = 0, 0
    while True:
        if record.startswith('"', position):
            found = _QUOTED.match(record, position)
            as_text = unquoted.match(record, position).group()  # up to the delimiter, quotes as text
            breaks_before = len(_LINE_BREAK.findall(record, 0, position))
            if found is None:
                return (
                    index,
                    breaks_before,
                    (
                        "the quote that opens this field is never closed, so every line "
                        "after it would be read into it; if the quote is text, quote the "
                        f"whole field and double the quote: {_as_quoted_field(as_text)}"
                    ),
                )
            end = found.end()
            if (
                end < len(record) and unquoted.match(record, end).end() != end
            ):  # neither a delimiter nor a line end follows
                rule = "the field starts with a quote, so it must end with its closing quote"
                closes_on = breaks_before + len(_LINE_BREAK.findall(record, position, end))
                if closes_on == breaks_before:
                    return (
                        index,
                        breaks_before,
                        (
                            f"{rule}, but text follows it: {_shortened(as_text)!r}; to keep the quotes as text, "
                            f"quote the whole field and double the quotes inside: {_as_quoted_field(as_text)}"
                        ),
                    )
                return (
                    index,
                    breaks_before,
                    (
                        f"{rule}, but it closes only {closes_on - breaks_before} line(s) "
                        "further down, and text follows it there; if the quote is text, quote "
                        f"the whole field and double the quote: {_as_quoted_field(as_text)}; "
                        "if the field runs over several lines, end it with its closing quote"
                    ),
                )
            position = end
        else:
            position = unquoted.match(record, position).end()
        if not record.startswith(delimiter, position):
            return None
        position += len(delimiter)
        index += 1


def _read_delimited(text: str, delimiter: str, kind: str, problems: _Problems) -> _RawTable:
    # The lines as csv reads them (a line ends at LF, CR LF or CR), so its line_num maps onto them.
    physical = io.StringIO(text, newline="").readlines()
    columns: list[str] | None = None
    records: list[tuple[str, dict]] = []
    spans: list[_QuotedSpan] = []
    first = 0  # the lines before this one are read
    while True:
        reader = csv.reader(physical[first:], delimiter=delimiter, strict=True)
        start = first + 1  # the line the next record starts on
        try:
            for cells in reader:
                opens, start = start, first + reader.line_num + 1
                where = f"line {opens}"
                if not any(cell.strip() for cell in cells):
                    continue
                if columns is None:
                    columns = [cell.strip() for cell in cells]
                    _check_header(columns, where, problems)
                elif len(cells) != len(columns):
                    problems.at(
                        where,
                        None,
                        f"expected {len(columns)} {kind} fields ({', '.join(columns)}), "
                        f"found {len(cells)}; a field holding the delimiter or a line "
                        'break must be quoted as a whole ("...", a quote inside doubled)',
                    )
                else:
                    records.append((where, dict(zip(columns, cells))))
                    if start - 1 > opens:  # a quoted field ran over several lines: keep them for _rows_inside_quotes
                        column = next(
                            (name for name, cell in zip(columns, cells) if "\n" in cell or "\r" in cell), columns[-1]
                        )
                        inside = [(number, physical[number - 1].rstrip("\r\n")) for number in range(opens + 1, start)]
                        spans.append(_QuotedSpan(column, opens, start - 1, inside))
            break
        except csv.Error as error:
            found = _quote_problem("".join(physical[start - 1 :]), delimiter)
            if found is None:
                problems.at(f"line {start}", None, f"unreadable {kind}: {error}")
                opens = start
            else:
                index, breaks_before, message = found
                opens = start + breaks_before
                column = columns[index] if columns is not None and index < len(columns) else None
                problems.at(
                    f"line {opens}" + (" (header)" if columns is None else ""),
                    column,
                    ("" if column is not None else f"field {index + 1}: ") + message,
                )
            if columns is None:  # without a header no row can be read
                return _RawTable([], [], delimited=True)
            first = opens  # the rest of the file is read as if the line the field opens on were not there
    return _RawTable(columns or [], records, delimited=True, quoted_spans=spans, delimiter=delimiter)


def _rows_inside_quotes(
    raw: _RawTable, columns: dict[str, str], registry: LanguageRegistry, problems: _Problems
) -> None:
    """A stray quote that meets a later quote at the end of a field gives a well-formed record
    holding the lines between; those lines are rows the file shows but the reader would lose.
    A line inside a quoted field that reads as a row of its own (the file's number of fields,
    an id, a language code in the lang column) is reported, so rows are never lost silently."""
    id_column, lang_column = columns.get("id"), columns.get("lang")
    if not raw.quoted_spans or id_column not in raw.columns or lang_column not in raw.columns:
        return
    id_index, lang_index = raw.columns.index(id_column), raw.columns.index(lang_column)
    for span in raw.quoted_spans:
        like_rows = []
        for number, line in span.lines:
            cells = [cell.strip() for cell in line.split(raw.delimiter)]
            if (
                len(cells) == len(raw.columns)
                and cells[id_index]
                and not any(c.isspace() for c in cells[id_index])
                and cells[lang_index] in registry
            ):
                like_rows.append(f"line {number}: {cells[id_index]} {cells[lang_index]}")
        if like_rows:
            problems.at(
                f"line {span.opens}",
                span.column,
                f"the quoted field that opens here runs to line {span.closes} and holds lines that read as rows of "
                f"their own ({'; '.join(like_rows[:MAX_LISTED])}{'; …' if len(like_rows) > MAX_LISTED else ''}); "
                f"if the quote on line {span.opens} is text, quote the whole field and double the quote; if the "
                "field really holds these lines, save the set as JSONL, which needs no quoting",
            )


def _check_header(columns: list[str], where: str, problems: _Problems) -> None:
    repeated = sorted({column for column in columns if columns.count(column) > 1})
    if repeated:
        problems.at(f"{where} (header)", None, f"repeated column names {repeated}")


def _read_jsonl(text: str, problems: _Problems) -> _RawTable:
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
                f"is {_describe(value)}, not a JSON object; each line must be "
                'one object such as {"id": ..., "lang": ..., "prompt": ...}',
            )
            continue
        columns.update(dict.fromkeys(value))
        records.append((where, value))
    return _RawTable(list(columns), records, delimited=False)


def _read_txt(text: str) -> _RawTable:
    records = []
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            records.append(
                (f"line {number}", {TXT_COLUMNS["id"]: str(len(records) + 1), TXT_COLUMNS["prompt"]: line.strip()})
            )
    return _RawTable(list(TXT_COLUMNS.values()), records, delimited=True)


def _read_parquet(path: Path, problems: _Problems) -> _RawTable:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError) as error:
        problems.of_file(f"not a readable Parquet file: {error}")
        return _RawTable([], [], delimited=False)
    return _rows_table(table.column_names, table.to_pylist())


def _read_hub(source: _Source, problems: _Problems) -> _RawTable:
    try:
        from datasets import load_dataset
    except ImportError:
        problems.of_file("loading a Hugging Face data set needs the `datasets` package: pip install datasets")
        return _RawTable([], [], delimited=False)
    try:
        dataset = load_dataset(source.hf_dataset, split=source.split)
    except Exception as error:  # noqa: BLE001 - the hub raises many kinds; the user needs the text
        problems.of_file(f"could not be loaded: {type(error).__name__}: {error}")
        return _RawTable([], [], delimited=False)
    records = [dict(record) for record in dataset]
    columns = list(getattr(dataset, "column_names", None) or dict.fromkeys(key for record in records for key in record))
    return _rows_table(columns, records)


def _rows_table(columns: list[str], records: Iterable[dict]) -> _RawTable:
    return _RawTable(
        columns, [(f"row {number}", record) for number, record in enumerate(records, start=1)], delimited=False
    )


def _read_raw(source: _Source, problems: _Problems) -> _RawTable:
    if source.path is None:
        return _read_hub(source, problems)
    if source.suffix == ".parquet":
        return _read_parquet(source.path, problems)
    text = _decode(source.path.read_bytes(), problems)
    if source.suffix == ".jsonl":
        return _read_jsonl(text, problems)
    if source.suffix == ".txt":
        return _read_txt(text)
    delimiter, kind = ("\t", "TSV") if source.suffix == ".tsv" else (",", "CSV")
    return _read_delimited(text, delimiter, kind, problems)


# -- checking values


class _BadValue(ValueError):
    pass


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return f"a boolean ({json.dumps(value)})"
    if isinstance(value, (int, float)):
        return f"a number ({value!r})"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, (bytes, bytearray)):
        return "bytes"
    return f"a {type(value).__name__}"


def _item_id(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if value is None:
        raise _BadValue("no id")
    if not isinstance(value, str):
        raise _BadValue(f"the id is {_describe(value)}; ids must be text or whole numbers")
    if not value.strip():
        raise _BadValue("the id is blank")
    return value.strip()


def _prompt(value: Any) -> str:
    if value is None:
        raise _BadValue("no prompt")
    if not isinstance(value, str):
        raise _BadValue(f"the prompt is {_describe(value)}, not text")
    if not value.strip():
        raise _BadValue("the prompt is blank")
    return value


def _lang(value: Any, registry: LanguageRegistry) -> str:
    if value is not None and not isinstance(value, str):
        raise _BadValue(f"the language code is {_describe(value)}, not text")
    if value is None or not value.strip():
        raise _BadValue("no language code")
    try:
        return registry[value.strip()].code
    except UnknownLanguageError as error:
        raise _BadValue(str(error)) from None


def _target_lang(value: Any, registry: LanguageRegistry) -> str | None:
    """The language the answer must be in, when the row names one (empty: the prompt's own)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return _lang(value, registry)


def _optional_text(value: Any) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        raise _BadValue(f"the value is {_describe(value)}, not text")
    return value


def _references(value: Any, delimited: bool) -> list[str] | None:
    """Answers: a cell holding a JSON array is a list, any other text one answer."""
    if delimited and isinstance(value, str) and value.strip().startswith("["):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as error:
            raise _BadValue(
                f'starts with \'[\' but is not a JSON array ({error.msg}); write a list of answers as ["a", "b"]'
            ) from None
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, str):
        return [value]
    if not isinstance(value, (list, tuple)):
        raise _BadValue(f"the reference is {_describe(value)}; give a text or a list of texts")
    for answer in value:
        if not isinstance(answer, str):
            raise _BadValue(f"the list of references holds {_describe(answer)}; every answer must be text")
    return list(value) or None


# -- validating a whole file


def _columns(spec: Mapping[str, Any], source: _Source) -> dict[str, str]:
    """Config key -> file column, for the keys in use."""
    if source.suffix == ".txt":
        return dict(TXT_COLUMNS)
    configured = {**DEFAULT_COLUMNS, **(spec.get("columns") or {})}
    return {key: str(column) for key, column in configured.items() if column not in (None, "")}


def _missing_columns(
    name: str, source: _Source, columns: dict[str, str], found: list[str], translated: bool
) -> list[str]:
    shown = ", ".join(found) if found else "none (the file is empty)"
    heading = "its header" if source.suffix in (".csv", ".tsv") else "its columns"
    problems = []
    for key, column in columns.items():
        if column in found or (key == "lang" and translated):
            continue
        problems.append(f"datasets.{name}.columns.{key}: {source.label} has no column {column!r}; {heading}: {shown}")
    return problems


def _check_record(
    values: dict, columns: dict[str, str], delimited: bool, translated: bool, registry: LanguageRegistry
) -> tuple[dict, list[tuple[str, str]]]:
    """The PROMPTS fields of one record, and its problems as (file column, message)."""
    row: dict[str, Any] = {}
    problems: list[tuple[str, str]] = []

    def take(key: str, convert) -> None:
        column = columns.get(key)
        if column is None or (key in OPTIONAL_COLUMN_KEYS and column not in values):
            row[key] = None
            return
        try:
            row[key] = convert(values.get(column))
        except _BadValue as error:
            row[key] = None
            problems.append((column, str(error)))

    take("id", _item_id)
    take("prompt", _prompt)
    if translated:
        lang_column = columns.get("lang")
        code = values.get(lang_column) if lang_column in values else ENGLISH
        if isinstance(code, str) and code.strip() == ENGLISH:
            row["lang"] = ENGLISH
        else:
            row["lang"] = None
            problems.append(
                (
                    lang_column,
                    f"language {code!r}: a translated set holds English prompts only (lang "
                    f"{ENGLISH!r}); use type parallel for a file with several languages",
                )
            )
    else:
        take("lang", lambda value: _lang(value, registry))
    take("category", _optional_text)
    take("question_en", _optional_text)
    take("target_lang", lambda value: _target_lang(value, registry))
    if translated and row.get("target_lang"):
        problems.append(
            (
                columns["target_lang"],
                "a translated set's prompts are translated into every language "
                "and answered in it; target_lang is for parallel sets",
            )
        )
    take("reference", lambda value: _references(value, delimited))
    return row, problems


def _partial_ids(rows: list[dict], languages: list[str]) -> dict[str, list[str]]:
    present: dict[str, set[str]] = {}
    for row in rows:
        present.setdefault(row["item_id"], set()).add(row["lang"])
    return {
        item: [lang for lang in languages if lang not in langs]
        for item, langs in present.items()
        if len(langs) < len(languages)
    }


def _capped(problems: list[str]) -> list[str]:
    if len(problems) <= MAX_PROBLEMS:
        return problems
    return problems[:MAX_PROBLEMS] + [f"… and {len(problems) - MAX_PROBLEMS} more problems"]


def _listed(values: Sequence[str]) -> str:
    shown = ", ".join(map(str, values[:MAX_LISTED]))
    return shown + (f" and {len(values) - MAX_LISTED} more" if len(values) > MAX_LISTED else "")


def _validate(
    name: str, spec: Mapping[str, Any], source: _Source, registry: LanguageRegistry
) -> tuple[UserRows, list[str]]:
    problems = _Problems(name, source.label)
    raw = _read_raw(source, problems)
    translated = spec.get("type", "parallel") == "translated"
    columns = _columns(spec, source)
    if not raw.columns:
        if not problems:
            problems.of_file("holds no prompts")
        return UserRows([], []), problems.in_file_order()
    missing = _missing_columns(name, source, columns, raw.columns, translated)
    if missing:
        return UserRows([], []), problems.in_file_order() + missing
    _rows_inside_quotes(raw, columns, registry, problems)

    rows: list[dict] = []
    first_seen: dict[tuple[str, str], str] = {}
    for where, values in raw.records:
        fields, record_problems = _check_record(values, columns, raw.delimited, translated, registry)
        for column, message in record_problems:
            problems.at(where, column, message)
        if record_problems:
            continue
        # A row is scored in the language its answer must be in: its target_lang, else its own.
        answer_lang = fields["target_lang"] or fields["lang"]
        key = (fields["id"], answer_lang)
        if key in first_seen:
            how = f"answered in {key[1]!r}" if fields["target_lang"] else f"in language {key[1]!r}"
            problems.at(
                where,
                columns["id"],
                f"duplicate id {key[0]!r} {how} (first at {first_seen[key]}); ids must be unique "
                "within a language (a row's language is its target_lang where it has one)",
            )
            continue
        first_seen[key] = where
        rows.append(
            {
                "item_id": fields["id"],
                "lang": answer_lang,
                "source_lang": fields["lang"],
                "prompt": fields["prompt"],
                "category": fields["category"],
                "references": fields["reference"],
                "question_en": fields["question_en"],
            }
        )
    if not raw.records and not problems:
        problems.of_file("holds no prompts")
    languages = list(dict.fromkeys(row["lang"] for row in rows))
    return UserRows(rows, languages, _partial_ids(rows, languages)), problems.in_file_order()


# -- public API


def read_user_rows(
    name: str, spec: Mapping[str, Any], registry: LanguageRegistry, base_dir: Path | str = "."
) -> UserRows:
    """Read and validate the whole source of `datasets.<name>`; raises UserDatasetError."""
    source, problems = _source(name, spec, base_dir)
    if source is None:
        raise UserDatasetError(problems)
    user_rows, problems = _validate(name, spec, source, registry)
    if problems:
        raise UserDatasetError(_capped(problems))
    return user_rows


def _selection_problems(name: str, spec: Mapping[str, Any], user_rows: UserRows) -> list[str]:
    problems = []
    if spec.get("type", "parallel") == "parallel" and spec.get("languages", "all") != "all":
        absent = [lang for lang in spec["languages"] if lang not in user_rows.languages]
        if absent:
            problems.append(
                f"datasets.{name}.languages: the file has no prompts in "
                f"{_listed(absent)}; it has {_listed(user_rows.languages)}"
            )
    items = spec.get("items") or {}
    if items.get("ids"):
        known = set(user_rows.ids)
        unknown = [str(item) for item in items["ids"] if str(item) not in known]
        if unknown:
            problems.append(f"datasets.{name}.items.ids: not ids of the file: {_listed(unknown)}")
    if items.get("domains"):
        if not (spec.get("columns") or {}).get("category"):
            problems.append(
                f"datasets.{name}.items.domains: needs a category column (set datasets.{name}.columns.category)"
            )
        else:
            known = sorted({category for category in user_rows.categories().values() if category is not None})
            unknown = [domain for domain in items["domains"] if domain not in known]
            if unknown:
                problems.append(
                    f"datasets.{name}.items.domains: no items in {_listed(unknown)}; "
                    f"the file's categories are {_listed(known) or 'none'}"
                )
    return problems


def _partial_note(name: str, partial_ids: Mapping[str, list[str]]) -> str:
    listed = [f"{item}: {', '.join(langs)}" for item, langs in partial_ids.items()]
    shown = "; ".join(listed[:MAX_LISTED]) + (
        f"; and {len(listed) - MAX_LISTED} more" if len(listed) > MAX_LISTED else ""
    )
    count = len(listed)
    return f"datasets.{name}: {count} {'id is' if count == 1 else 'ids are'} missing in some languages ({shown})"


def check_user_dataset(
    name: str, spec: Mapping[str, Any], registry: LanguageRegistry, base_dir: Path | str = "."
) -> tuple[list[str], list[str]]:
    """(problems, notes) for `datasets.<name>`, for config validation before scheduling."""
    source, problems = _source(name, spec, base_dir)
    if source is None:
        return problems, []
    user_rows, problems = _validate(name, spec, source, registry)
    if problems:
        return _capped(problems), []
    notes = [_partial_note(name, user_rows.partial_ids)] if user_rows.partial_ids else []
    return _selection_problems(name, spec, user_rows), notes


def select_ids(name: str, user_rows: UserRows, items: Mapping[str, Any] | None) -> list[str]:
    """Ids in file order (or exactly `ids`, in their order), filtered by domain, cut to `limit`."""
    items = items or {}
    categories = user_rows.categories()
    order = user_rows.ids
    if items.get("ids"):
        order = [str(item) for item in items["ids"]]
        unknown = [item for item in order if item not in categories]
        if unknown:
            raise UserDatasetError([f"datasets.{name}.items.ids: not ids of the file: {_listed(unknown)}"])
    if items.get("domains"):
        order = [item for item in order if categories[item] in items["domains"]]
    if items.get("limit"):
        order = order[: items["limit"]]
    return order


def _languages_to_load(name: str, languages: Sequence[str] | str, user_rows: UserRows, translated: bool) -> list[str]:
    if languages == "all":
        return list(user_rows.languages)
    languages = list(languages)
    if translated and any(lang != ENGLISH for lang in languages):
        raise UserDatasetError(
            [
                f"datasets.{name}: a translated set has English prompts only; load "
                f"it in ['en'] (the workflow translates them), not {languages}"
            ]
        )
    absent = [lang for lang in languages if lang not in user_rows.languages]
    if absent:
        raise UserDatasetError(
            [
                f"datasets.{name}.languages: the file has no prompts in "
                f"{_listed(absent)}; it has {_listed(user_rows.languages)}"
            ]
        )
    return languages


def load(
    path: Path | str | None,
    languages: Sequence[str] | str,
    items: Mapping[str, Any] | None,
    *,
    name: str,
    type: str,
    columns: Mapping[str, Any] | None,
    hf_dataset: str | None = None,
    split: str = "test",
    base_dir: Path | str = ".",
):
    """Prompts of the selected items in `languages` (in that order, then file order), PROMPTS schema."""
    import pyarrow as pa

    from xlcons.schemas import PROMPTS

    spec = {"type": type, "path": path, "hf_dataset": hf_dataset, "split": split, "columns": dict(columns or {})}
    if items and items.get("domains") and not spec["columns"].get("category"):
        raise UserDatasetError(
            [f"datasets.{name}.items.domains: needs a category column (set datasets.{name}.columns.category)"]
        )
    user_rows = read_user_rows(name, spec, LanguageRegistry.load(), base_dir)
    translated = type == "translated"
    wanted = _languages_to_load(name, languages, user_rows, translated)
    ids = select_ids(name, user_rows, items)
    by_key = {(row["lang"], row["item_id"]): row for row in user_rows.rows}
    # An id the file lacks in a language is left out there (check_user_dataset notes it).
    ordered = [by_key[(lang, item)] for lang in wanted for item in ids if (lang, item) in by_key]
    return pa.Table.from_pydict(
        {
            "dataset": [name] * len(ordered),
            "item_id": [row["item_id"] for row in ordered],
            "lang": [row["lang"] for row in ordered],
            "prompt": [row["prompt"] for row in ordered],
            "category": [row["category"] for row in ordered],
            "references": [row["references"] for row in ordered],
            "source_lang": [ENGLISH if translated else row["source_lang"] for row in ordered],
            "question_en": [row["question_en"] for row in ordered],
        },
        schema=PROMPTS,
    )
