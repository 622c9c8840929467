"""MultiQ (Holtermann et al. 2024): 200 questions, machine-translated into 137 languages.

The release is one CSV (id, language, prompt, domain) with every question in every
language; `language` uses Google Translate's codes, which are the registry's codes.
Items keep the release's order (gpt-1 … gpt-100, lmsys-1 … lmsys-100), so a `limit`
selects the same questions on every machine. The LMSYS half has no subject; its domain
`none` becomes an empty category.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from xlcons.datasets.item_ids import MULTIQ_FILE
from xlcons.schemas import PROMPTS

CSV_NAME = MULTIQ_FILE
COLUMNS = ("id", "language", "prompt", "domain")


class MultiQError(ValueError):
    """The release or the selection is not what the config asks for; the message says which."""


def release_path(folder: Path | str) -> Path:
    return Path(folder) / CSV_NAME if Path(folder).is_dir() else Path(folder)


def read_release(folder: Path | str) -> pa.Table:
    path = release_path(folder)
    if not path.is_file():
        raise MultiQError(f"MultiQ release not found: {path} (fetch it, or set datasets.multiq.path)")
    options = pacsv.ConvertOptions(column_types={name: pa.string() for name in COLUMNS}, include_columns=list(COLUMNS))
    try:
        return pacsv.read_csv(path, convert_options=options)
    except (pa.ArrowInvalid, KeyError) as error:
        raise MultiQError(f"{path}: not the MultiQ release (columns {', '.join(COLUMNS)} expected): {error}") from None


def select_items(table: pa.Table, items: Mapping[str, Any]) -> list[str]:
    """Item ids in release order, filtered by domain, then cut to `limit`; or exactly `ids`."""
    english = table.filter(pc.equal(table["language"], "en"))
    order = english["id"].to_pylist()
    domains = dict(zip(order, english["domain"].to_pylist()))
    if items.get("ids"):
        unknown = [item for item in items["ids"] if item not in domains]
        if unknown:
            raise MultiQError(
                f"datasets.multiq.items.ids: not MultiQ ids: {unknown[:10]} (ids look like gpt-1, lmsys-7)"
            )
        order = list(items["ids"])
    if items.get("domains"):
        known = sorted(set(domains.values()))
        unknown = [domain for domain in items["domains"] if domain not in known]
        if unknown:
            raise MultiQError(f"datasets.multiq.items.domains: unknown domains {unknown}; MultiQ has {known}")
        order = [item for item in order if domains[item] in items["domains"]]
    if items.get("limit"):
        order = order[: items["limit"]]
    return order


def _checked_rows(path: Path, rows: list[dict]) -> dict[tuple[str, str], dict]:
    """The selected rows by (language, id); a duplicate or a blank prompt is an error naming its line."""
    by_key: dict[tuple[str, str], dict] = {}
    for row in rows:
        key = (row["language"], row["id"])
        if key in by_key:
            raise MultiQError(
                f"{path}, line {row['line']}: a second row for item {row['id']} in {row['language']} "
                f"(the first is on line {by_key[key]['line']})"
            )
        if not (row["prompt"] or "").strip():
            raise MultiQError(
                f"{path}, line {row['line']}, column prompt: the prompt "
                f"of item {row['id']} in {row['language']} is blank"
            )
        by_key[key] = row
    return by_key


def load(folder: Path | str, languages: Sequence[str], items: Mapping[str, Any]) -> pa.Table:
    """Prompts for the selected items in `languages` (in that order), PROMPTS schema."""
    table = read_release(folder)
    available = set(table["language"].to_pylist())
    missing = [lang for lang in languages if lang not in available]
    if missing:
        raise MultiQError(f"datasets.multiq.languages: MultiQ has no prompts in {missing}")
    ids = select_items(table, items)
    table = table.append_column(
        "line", pa.array(range(2, table.num_rows + 2))
    )  # the CSV's line numbers (after the header)
    table = table.filter(
        pc.and_(pc.is_in(table["language"], pa.array(list(languages))), pc.is_in(table["id"], pa.array(ids)))
    )
    rows = _checked_rows(release_path(folder), table.to_pylist())
    absent = [(item, lang) for lang in languages for item in ids if (lang, item) not in rows]
    if absent:
        listed = ", ".join(f"{item} in {lang}" for item, lang in absent[:10]) + (
            f" and {len(absent) - 10} more" if len(absent) > 10 else ""
        )
        raise MultiQError(f"{release_path(folder)}: no row for {listed}")
    ordered = [rows[(lang, item)] for lang in languages for item in ids]
    return pa.Table.from_pydict(
        {
            "dataset": ["multiq"] * len(ordered),
            "item_id": [row["id"] for row in ordered],
            "lang": [row["language"] for row in ordered],
            "prompt": [row["prompt"] for row in ordered],
            "category": [None if row["domain"] in (None, "none") else row["domain"] for row in ordered],
            "references": [None] * len(ordered),
            "source_lang": [row["language"] for row in ordered],
            "question_en": [None] * len(ordered),
        },
        schema=PROMPTS,
    )
