"""Checking one record of a user set: each value converted to the PROMPTS field it fills (id,
prompt, language, target language, optional texts, references), or a problem that names the
file column and says what is wrong."""

from __future__ import annotations

import json
from typing import Any

from xlcons.datasets.user.source import ENGLISH, OPTIONAL_COLUMN_KEYS
from xlcons.languages import LanguageRegistry, UnknownLanguageError


class _BadValue(ValueError):
    pass


def describe(value: Any) -> str:
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
        raise _BadValue(f"the id is {describe(value)}; ids must be text or whole numbers")
    if not value.strip():
        raise _BadValue("the id is blank")
    return value.strip()


def _prompt(value: Any) -> str:
    if value is None:
        raise _BadValue("no prompt")
    if not isinstance(value, str):
        raise _BadValue(f"the prompt is {describe(value)}, not text")
    if not value.strip():
        raise _BadValue("the prompt is blank")
    return value


def _lang(value: Any, registry: LanguageRegistry) -> str:
    if value is not None and not isinstance(value, str):
        raise _BadValue(f"the language code is {describe(value)}, not text")
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
        raise _BadValue(f"the value is {describe(value)}, not text")
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
        raise _BadValue(f"the reference is {describe(value)}; give a text or a list of texts")
    for answer in value:
        if not isinstance(answer, str):
            raise _BadValue(f"the list of references holds {describe(answer)}; every answer must be text")
    return list(value) or None


def check_record(
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
