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

The package holds:

- this module: what the rest of the workflow calls: `read_user_rows`, `check_user_dataset`
  (config validation), `select_ids` and `load` (the prompts job's loader);
- `xlcons.datasets.user.source`: the config facts (file types, set types, column keys) and
  where a set's data comes from (a file or a Hub split), with the raw table read from it;
- `xlcons.datasets.user.reading`: reading each format (CSV/TSV via `delimited`, JSONL, TXT,
  Parquet, a Hub split) into that raw table, bad UTF-8 reported by line;
- `xlcons.datasets.user.delimited`: CSV and TSV with strict quoting, and what to write
  instead where a quote is wrong;
- `xlcons.datasets.user.values`: one record's values checked and converted to PROMPTS fields;
- `xlcons.datasets.user.validation`: a whole file checked (columns, records, duplicates) into
  `UserRows`;
- `xlcons.datasets.user.problems`: how problems are collected, ordered, capped and raised.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from xlcons.datasets.user.problems import MAX_LISTED, UserDatasetError, capped, listed
from xlcons.datasets.user.source import ENGLISH, configured_source
from xlcons.datasets.user.validation import UserRows, validate
from xlcons.languages import LanguageRegistry


def read_user_rows(
    name: str, spec: Mapping[str, Any], registry: LanguageRegistry, base_dir: Path | str = "."
) -> UserRows:
    """Read and validate the whole source of `datasets.<name>`; raises UserDatasetError."""
    source, problems = configured_source(name, spec, base_dir)
    if source is None:
        raise UserDatasetError(problems)
    user_rows, problems = validate(name, spec, source, registry)
    if problems:
        raise UserDatasetError(capped(problems))
    return user_rows


def _selection_problems(name: str, spec: Mapping[str, Any], user_rows: UserRows) -> list[str]:
    problems = []
    if spec.get("type", "parallel") == "parallel" and spec.get("languages", "all") != "all":
        absent = [lang for lang in spec["languages"] if lang not in user_rows.languages]
        if absent:
            problems.append(
                f"datasets.{name}.languages: the file has no prompts in "
                f"{listed(absent)}; it has {listed(user_rows.languages)}"
            )
    items = spec.get("items") or {}
    if items.get("ids"):
        known = set(user_rows.ids)
        unknown = [str(item) for item in items["ids"] if str(item) not in known]
        if unknown:
            problems.append(f"datasets.{name}.items.ids: not ids of the file: {listed(unknown)}")
    if items.get("domains"):
        if not (spec.get("columns") or {}).get("category"):
            problems.append(
                f"datasets.{name}.items.domains: needs a category column (set datasets.{name}.columns.category)"
            )
        else:
            categories = sorted({category for category in user_rows.categories().values() if category is not None})
            unknown = [domain for domain in items["domains"] if domain not in categories]
            if unknown:
                problems.append(
                    f"datasets.{name}.items.domains: no items in {listed(unknown)}; "
                    f"the file's categories are {listed(categories) or 'none'}"
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
    source, problems = configured_source(name, spec, base_dir)
    if source is None:
        return problems, []
    user_rows, problems = validate(name, spec, source, registry)
    if problems:
        return capped(problems), []
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
            raise UserDatasetError([f"datasets.{name}.items.ids: not ids of the file: {listed(unknown)}"])
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
                f"{listed(absent)}; it has {listed(user_rows.languages)}"
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

    spec: dict[str, Any] = {
        "type": type,
        "path": path,
        "hf_dataset": hf_dataset,
        "split": split,
        "columns": dict(columns or {}),
    }
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
