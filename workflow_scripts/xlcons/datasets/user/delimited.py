"""CSV and TSV, read with strict quoting: a record's fields by the header, every quote that
Python's csv refuses explained with the field and how to write it, and the rows a stray quote
would fold into one field named, so that no row is lost silently."""

from __future__ import annotations

import csv
import io
import re

from xlcons.datasets.user.problems import MAX_LISTED, Problems
from xlcons.datasets.user.source import QuotedSpan, RawTable
from xlcons.languages import LanguageRegistry

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
# csv's own limit on a field is 128 KiB (131072 characters), less than a long answer or a
# document-sized prompt; this one, the largest a C long holds everywhere, is no limit in practice.
FIELD_SIZE_LIMIT = 2**31 - 1


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


def read_delimited(text: str, delimiter: str, kind: str, problems: Problems) -> RawTable:
    csv.field_size_limit(FIELD_SIZE_LIMIT)
    # The lines as csv reads them (a line ends at LF, CR LF or CR), so its line_num maps onto them.
    physical = io.StringIO(text, newline="").readlines()
    columns: list[str] | None = None
    records: list[tuple[str, dict]] = []
    spans: list[QuotedSpan] = []
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
                    if start - 1 > opens:  # a quoted field ran over several lines: keep them for rows_inside_quotes
                        column = next(
                            (name for name, cell in zip(columns, cells) if "\n" in cell or "\r" in cell), columns[-1]
                        )
                        inside = [(number, physical[number - 1].rstrip("\r\n")) for number in range(opens + 1, start)]
                        spans.append(QuotedSpan(column, opens, start - 1, inside))
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
                return RawTable([], [], delimited=True)
            first = opens  # the rest of the file is read as if the line the field opens on were not there
    return RawTable(columns or [], records, delimited=True, quoted_spans=spans, delimiter=delimiter)


def rows_inside_quotes(raw: RawTable, columns: dict[str, str], registry: LanguageRegistry, problems: Problems) -> None:
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


def _check_header(columns: list[str], where: str, problems: Problems) -> None:
    repeated = sorted({column for column in columns if columns.count(column) > 1})
    if repeated:
        problems.at(f"{where} (header)", None, f"repeated column names {repeated}")
