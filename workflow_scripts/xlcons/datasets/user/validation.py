"""Validating a whole user file: its columns, every record, ids unique per answer language, and
the rows it holds (``UserRows``), with every problem found in one pass."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from xlcons.datasets.user.delimited import rows_inside_quotes
from xlcons.datasets.user.hub import read_source
from xlcons.datasets.user.problems import Problems
from xlcons.datasets.user.source import DEFAULT_COLUMNS, TXT_COLUMNS, Source
from xlcons.datasets.user.values import check_record
from xlcons.languages import LanguageRegistry


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


def _columns(spec: Mapping[str, Any], source: Source) -> dict[str, str]:
    """Config key -> file column, for the keys in use."""
    if source.suffix == ".txt":
        return dict(TXT_COLUMNS)
    configured = {**DEFAULT_COLUMNS, **(spec.get("columns") or {})}
    return {key: str(column) for key, column in configured.items() if column not in (None, "")}


def _missing_columns(
    name: str, source: Source, columns: dict[str, str], found: list[str], translated: bool
) -> list[str]:
    shown = ", ".join(found) if found else "none (the file is empty)"
    heading = "its header" if source.suffix in (".csv", ".tsv") else "its columns"
    problems = []
    for key, column in columns.items():
        if column in found or (key == "lang" and translated):
            continue
        problems.append(f"datasets.{name}.columns.{key}: {source.label} has no column {column!r}; {heading}: {shown}")
    return problems


def _partial_ids(rows: list[dict], languages: list[str]) -> dict[str, list[str]]:
    present: dict[str, set[str]] = {}
    for row in rows:
        present.setdefault(row["item_id"], set()).add(row["lang"])
    return {
        item: [lang for lang in languages if lang not in langs]
        for item, langs in present.items()
        if len(langs) < len(languages)
    }


def validate(
    name: str, spec: Mapping[str, Any], source: Source, registry: LanguageRegistry
) -> tuple[UserRows, list[str]]:
    problems = Problems(name, source.label)
    raw = read_source(source, problems)
    translated = spec.get("type", "parallel") == "translated"
    columns = _columns(spec, source)
    if not raw.columns:
        if not problems:
            problems.of_file("holds no prompts")
        return UserRows([], []), problems.in_file_order()
    missing = _missing_columns(name, source, columns, raw.columns, translated)
    if missing:
        return UserRows([], []), problems.in_file_order() + missing
    rows_inside_quotes(raw, columns, registry, problems)

    rows: list[dict] = []
    first_seen: dict[tuple[str, str], str] = {}
    for where, values in raw.records:
        fields, record_problems = check_record(values, columns, raw.delimited, translated, registry)
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
