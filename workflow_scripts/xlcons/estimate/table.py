"""The estimate as a table: aligned plain text for people, CSV and JSON for programs."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from pathlib import Path

from xlcons.atomic import atomic_path
from xlcons.estimate.rows import COLUMNS, EstimateRow

# The printed table leaves out the translator column where no row has one.
_NUMBERS = ("jobs", "requests", "cached_requests", "prompt_tokens", "max_completion_tokens", "cost_usd")


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:,.4f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def render_text(rows: Sequence[EstimateRow]) -> str:
    """Columns aligned, numbers to the right; notes (data not here yet) under the table."""
    records = [row.as_dict() for row in rows]
    columns = [
        name
        for name in COLUMNS
        if name not in ("translator", "cost_usd") or any(record[name] not in ("", None) for record in records)
    ]
    cells = [[_cell(record[name]) for name in columns] for record in records]
    widths = [max(len(name), *(len(line[index]) for line in cells)) for index, name in enumerate(columns)]

    def line(values: Sequence[str]) -> str:
        return "  ".join(
            value.rjust(width) if name in _NUMBERS else value.ljust(width)
            for name, value, width in zip(columns, values, widths)
        ).rstrip()

    lines = [line(columns), line(["-" * width for width in widths])]
    for record, values in zip(records, cells):
        if record["stage"] == "total" and (not lines[-1].startswith("total")):
            lines.append(line(["-" * width for width in widths]))
        lines.append(line(values))
    notes = [row.note for row in rows if row.note]
    return "\n".join(lines + [f"note: {note}" for note in dict.fromkeys(notes)]) + "\n"


def render_csv(rows: Sequence[EstimateRow]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows({name: ("" if value is None else value) for name, value in row.as_dict().items()} for row in rows)
    return buffer.getvalue()


def write_csv(rows: Sequence[EstimateRow], path: Path | str) -> Path:
    with atomic_path(path) as temporary:
        temporary.write_text(render_csv(rows), encoding="utf-8")
    return Path(path)


def render_json(rows: Sequence[EstimateRow]) -> str:
    return json.dumps([row.as_dict() for row in rows], indent=1) + "\n"
