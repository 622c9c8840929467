"""Languages a metric cannot measure: said as such, never scored low.

A metric that rests on a language-specific model (a language-ID model, a tokenizer, a word
list) cannot measure a language the model does not know: every answer in it would come out
as a failure, and the results table would publish the model's blind spot as the LLM's fault.
An evaluator that knows this gives each of that language's items the status
``not_measurable:<why>`` (:func:`not_measurable`) instead of a value, so the results table
shows an empty value, counts the items in ``n_excluded`` and names the reason in
``excluded_reasons``, like any other exclusion.

Each such evaluator decides automatically (its own rule: e.g. the configured language-ID
model has no label for the language) and lets the config override that per language with
one key, ``measurable`` in its section (:data:`MEASURABLE_OPTION`): ``{<lang>: true}``
measures a language the automatic rule would leave out, ``{<lang>: "<why>"}`` (or
``false``) reports it as not measurable, with that reason (``configured`` for ``false``).
:func:`verdicts` combines the two; :func:`mark_not_measurable` applies them to an item-scores
table.

Standard library only at import time: evaluator registry entries take the option's schema
from here while the Snakefile builds the DAG.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl

PREFIX = "not_measurable"
CONFIGURED = "configured"  # the reason of a language the config marks `false`
_WHY = re.compile(r"[a-z0-9][a-z0-9_.-]*")

MEASURABLE_KEY = "measurable"
MEASURABLE_OPTION: dict[str, Any] = {
    "description": "Per language, overrides whether this evaluator can measure it: `true` measures it even "
    "where the evaluator's own rule says it cannot; a reason (lower-case letters, digits, `_`, `.`, `-`) or "
    "`false` reports it as not measurable (results.csv: an empty value, its items counted in `n_excluded` "
    "with reason `not_measurable:<reason>`, `not_measurable:configured` for `false`), never as a low score.",
    "type": "object",
    "propertyNames": {"type": "string"},
    "additionalProperties": {"oneOf": [{"type": "boolean"}, {"type": "string", "pattern": "^[a-z0-9][a-z0-9_.-]*$"}]},
    "default": {},
}


def not_measurable(why: str) -> str:
    """The item status of a language that cannot be measured, for the reason `why` (a short slug)."""
    if not _WHY.fullmatch(why):
        raise ValueError(f"not-measurable reason {why!r}: use lower-case letters, digits, '_', '.' and '-'")
    return f"{PREFIX}:{why}"


def is_not_measurable(status: str | None) -> bool:
    """Whether an item status (or exclusion reason) says the language cannot be measured."""
    return bool(status) and str(status).startswith(PREFIX + ":")


def check_overrides(overrides: Mapping[str, Any] | None, known: Iterable[str], where: str) -> dict[str, bool | str]:
    """The `measurable` option as given, checked: each key a known language code, each value
    true, false or a reason slug. `where` names the config key in the error."""
    known = set(known)
    checked: dict[str, bool | str] = {}
    for lang, value in (overrides or {}).items():
        if lang not in known:
            raise ValueError(f"config key '{where}.{lang}': unknown language code {lang!r}")
        if isinstance(value, bool):
            checked[lang] = value
        elif isinstance(value, str) and _WHY.fullmatch(value):
            checked[lang] = value
        else:
            raise ValueError(
                f"config key '{where}.{lang}': {value!r} is neither true/false nor a reason "
                "(lower-case letters, digits, '_', '.', '-')"
            )
    return checked


def verdicts(
    automatic: Mapping[str, str | None], overrides: Mapping[str, bool | str] | None = None
) -> dict[str, str | None]:
    """Per language of `automatic` (lang -> the evaluator's own reason, or None where it can
    measure it): the ``not_measurable:<why>`` status, or None where the language is measured.
    An override (the `measurable` option) wins over the evaluator's own rule."""
    result: dict[str, str | None] = {}
    for lang, why in automatic.items():
        override = (overrides or {}).get(lang)
        if override is True:
            result[lang] = None
        elif override is False:
            result[lang] = not_measurable(CONFIGURED)
        elif isinstance(override, str):
            result[lang] = not_measurable(override)
        else:
            result[lang] = None if why is None else not_measurable(why)
    return result


def mark_not_measurable(scores: pl.DataFrame, statuses: Mapping[str, str | None]) -> pl.DataFrame:
    """ITEM_SCORES rows with every row of a language that has a not-measurable status
    (`statuses`, as :func:`verdicts` gives them) excluded: no value, that status."""
    import polars as pl

    marked = {lang: status for lang, status in statuses.items() if status is not None}
    if not marked or scores.is_empty():
        return scores
    status = pl.col("lang").replace_strict(marked, default=None, return_dtype=pl.String)
    return scores.with_columns(
        value=pl.when(status.is_null()).then(pl.col("value")).otherwise(None),
        status=pl.coalesce(status, pl.col("status")),
    )
