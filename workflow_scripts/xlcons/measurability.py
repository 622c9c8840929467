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

The automatic rule every language-ID evaluator shares is the *faithful-text check*
(:func:`measurability_rows`): the workflow scores each data set's own prompts (faithful text by
construction) as if they were answers, with the same evaluator code and configured models, in
one job per (evaluator, data set); a language whose faithful-text score (the evaluator's
``faithful_metric``) is below the section's ``faithful_text_threshold`` (:data:`THRESHOLD_OPTION`,
0.95 by default) is not measurable, reason ``faithful_text_below_<threshold>``. Its rows, one per
language (:data:`MEASURABILITY_COLUMNS`), make ``tables/measurability.csv``.

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


THRESHOLD_KEY = "faithful_text_threshold"
DEFAULT_THRESHOLD = 0.95
THRESHOLD_OPTION: dict[str, Any] = {
    "description": "The faithful-text check: the data set's own prompts, scored as answers with this "
    "evaluator's configured models, must reach this score in a language (the share of faithful text "
    "judged as written in its language), else the language is not measurable "
    "(`not_measurable:faithful_text_below_<threshold>`); the `measurable` option overrides it. "
    "Every language's figure: tables/measurability.csv.",
    "type": "number",
    "minimum": 0,
    "maximum": 1,
    "default": DEFAULT_THRESHOLD,
}
# Verdicts and the notes of a measured language's `reason` (tables/measurability.csv).
MEASURABLE, NOT_MEASURABLE = "measurable", "not_measurable"
REFERENCE_LANGUAGE = "reference_language"  # measured as the reference's scorer does, whatever the check says
NO_FAITHFUL_TEXT = "no_faithful_text"  # the set's prompts are not text in the answer language: not checked
NOT_SCORED = "no_faithful_score"  # no prompt of the language could be scored (e.g. every line too short)
MEASURED_ON_REQUEST = "configured_measurable"  # the `measurable` option says true
MEASURABILITY_COLUMNS = (
    "evaluator",
    "dataset",
    "lang",
    "metric",
    "faithful_score",
    "n_items",
    "threshold",
    "verdict",
    "reason",
)


def below_threshold(threshold: float) -> str:
    """The reason of a language whose faithful text scores below `threshold`."""
    return f"faithful_text_below_{threshold:g}"


def measurability_rows(
    evaluator: str,
    dataset: str,
    metric: str,
    scores: Mapping[str, tuple[float | None, int, str | None]],
    threshold: float = DEFAULT_THRESHOLD,
    overrides: Mapping[str, bool | str] | None = None,
    by_definition: Iterable[str] = (),
    checked: bool = True,
) -> list[dict[str, Any]]:
    """One row (:data:`MEASURABILITY_COLUMNS`) per language of `scores` (lang -> its faithful-text
    score, the number of items it rests on, and the evaluator's own reason why it cannot measure
    the language, or None). The verdict, in this order: the `measurable` override; the
    evaluator's own reason; a language of `by_definition` (the reference's languages, measured
    as its scorer does) is measurable; without `checked` (the set's prompts are not faithful
    text) or a score the check says nothing; else not measurable below `threshold`."""
    if not 0 <= threshold <= 1:
        raise ValueError(f"faithful-text threshold {threshold!r}: a share between 0 and 1")
    by_definition = set(by_definition)
    automatic: dict[str, str | None] = {}
    notes: dict[str, str | None] = {}
    for lang, (score, _, own) in scores.items():
        notes[lang] = None
        if own is not None:
            automatic[lang] = own
            continue
        if lang in by_definition:
            automatic[lang], notes[lang] = None, REFERENCE_LANGUAGE
        elif not checked:
            automatic[lang], notes[lang] = None, NO_FAITHFUL_TEXT
        elif score is None:
            automatic[lang], notes[lang] = None, NOT_SCORED
        else:
            automatic[lang] = below_threshold(threshold) if score < threshold else None
    statuses = verdicts(automatic, overrides)
    rows = []
    for lang in sorted(scores):
        score, n_items, _ = scores[lang]
        status = statuses[lang]
        if status is not None:
            reason: str | None = status.removeprefix(PREFIX + ":")
        elif (overrides or {}).get(lang) is True and automatic[lang] is not None:
            reason = MEASURED_ON_REQUEST
        else:
            reason = notes[lang]
        rows.append(
            {
                "evaluator": evaluator,
                "dataset": dataset,
                "lang": lang,
                "metric": metric,
                "faithful_score": score,
                "n_items": n_items,
                "threshold": threshold,
                "verdict": NOT_MEASURABLE if status is not None else MEASURABLE,
                "reason": reason,
            }
        )
    return rows


def statuses_of(rows: Iterable[Mapping[str, Any]]) -> dict[str, str | None]:
    """Per language of measurability rows: its ``not_measurable:<why>`` item status, or None
    where it is measured (what :func:`mark_not_measurable` applies)."""
    return {row["lang"]: not_measurable(row["reason"]) if row["verdict"] == NOT_MEASURABLE else None for row in rows}


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
