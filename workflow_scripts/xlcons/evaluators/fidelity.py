"""Language fidelity (Holtermann et al. 2024, §3.2): does the model answer in the language it was asked in?

Each response gets the top-1 label of the language-ID model and one class:

``same``
    the label is one the registry accepts for the *prompt* language (for an English
    prompt an English answer is therefore ``same``, never ``english``);
``english``
    otherwise, the label is one the registry accepts for English;
``other``
    any other label;
``excluded``
    not scored, for the first reason that applies, in this order (``excluded_reason``):
    ``unsupported_language`` (the prompt language is in
    ``evaluators.language_id.unsupported_languages``; default mni-Mtei and doi, which
    GlotLID does not know), ``lid_unsupported_language`` (the model has no label the
    registry accepts for the prompt language, so a faithful answer could never count as
    ``same``: with lid.176 this covers every language without lid176_labels),
    ``no_answer`` (the response is "No answer"), ``no_label`` (nothing to identify once
    whitespace is removed), and in the robustness variant ``numeric_question`` (one of
    `NUMERIC_ITEM_IDS`) and ``short_response`` (under 10 characters once outer
    whitespace is removed).

Label, probability and `response_lang` (the registry code of the label) are filled for
every response that has text, excluded or not; "No answer" rows have none.

The robustness variant is the `robust` switch here (the rule's
``evaluators.language_id.robust``); `robust_variant` applies it to a table scored
without it, so the report can show both from one LID pass. The rule's entry point is
`xlcons.evaluators.language_id.run_language_id` (this module does not load fastText).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from xlcons.item_scores import excluded_unless, long_table
from xlcons.languages import LanguageRegistry
from xlcons.schemas import DATASET, ITEM_ID, LANG, MODEL, NO_ANSWER

# One row per response: its top-1 language-ID label (without `__label__`), the label's
# probability, the registry code the label stands for (`response_lang`, null when none),
# and the fidelity class `same` | `english` | `other` | `excluded`. An excluded row says
# why in `excluded_reason` (see FIDELITY_EXCLUSIONS); the others leave it null.
# `response_chars` is the length of the stripped response, for the robustness variant.
FIDELITY = pa.schema(
    [
        DATASET,
        MODEL,
        ITEM_ID,
        LANG,
        pa.field("label", pa.string()),
        pa.field("probability", pa.float64()),
        pa.field("response_lang", pa.string()),
        pa.field("fidelity", pa.string(), nullable=False),
        pa.field("excluded_reason", pa.string()),
        pa.field("response_chars", pa.int32(), nullable=False),
    ]
)
FIDELITY_CLASSES = ("same", "english", "other", "excluded")
FIDELITY_EXCLUSIONS = (
    "unsupported_language",  # listed in evaluators.language_id.unsupported_languages
    "lid_unsupported_language",  # the LID model has no label the registry accepts for it
    "no_answer",  # the response is "No answer" (failed, refused or empty generation)
    "no_label",  # nothing left to identify once whitespace is removed
    "numeric_question",  # robustness variant: one of the 26 numeric MultiQ questions
    "short_response",  # robustness variant: under 10 characters
)

DEFAULT_UNSUPPORTED_LANGUAGES = ("mni-Mtei", "doi")
SHORT_RESPONSE_CHARS = 10

# The MultiQ questions with numeric answers, dropped by the robustness variant. Holtermann et al. 2024
# names their number ("the 10 curated questions of the domain 'math' as well as 16
# questions that were drawn from the LMSYS dataset") but not their ids, so they were
# chosen from the English prompts of the release (../shared/data/multiq/MultiQ.csv):
# - gpt-41 … gpt-50: every question of the domain `maths`;
# - the LMSYS questions written with digits (numerals or a formula) whose answer is a
#   number (or a pair of numbers). Of the 23 LMSYS prompts with a digit, the other 7 ask
#   about a year and are answered with a name or yes/no (lmsys-4, 25, 36, 37, 39, 57, 59,
#   90). The rule gives exactly the paper's 16. LMSYS questions spelled out in words
#   ("What is two plus two?") also have numeric answers but are not in the list: counting
#   them would give far more than 16, and their prompts are ordinary text in every language.
# tests/test_lid_fidelity.py re-derives the list from the release.
NUMERIC_MATHS_IDS = tuple(f"gpt-{number}" for number in range(41, 51))
NUMERIC_LMSYS_IDS = tuple(
    f"lmsys-{number}" for number in (5, 8, 18, 24, 28, 44, 46, 51, 58, 64, 68, 69, 78, 84, 95, 97)
)
NUMERIC_ITEM_IDS = frozenset(NUMERIC_MATHS_IDS + NUMERIC_LMSYS_IDS)


class Identifier(Protocol):
    """What scoring needs of `xlcons.lid.LanguageIdentifier` (not imported here: this module
    also serves the report, whose environment has no fastText)."""

    registry: LanguageRegistry

    def predict(self, texts: Sequence[str]) -> list[tuple[str | None, float | None]]: ...

    def is_language(self, label: str | None, lang: str) -> bool: ...

    def supports(self, lang: str) -> bool: ...

    def to_registry_code(self, label: str | None) -> str | None: ...


def classify(label: str | None, lang: str, identifier: Identifier) -> str:
    """``same`` | ``english`` | ``other`` for a response to a prompt in `lang` (None label: ``other``)."""
    if identifier.is_language(label, lang):
        return "same"
    if identifier.is_language(label, "en"):
        return "english"
    return "other"


def exclusion(
    lang: str,
    item_id: str,
    response: str,
    label: str | None,
    identifier: Identifier,
    unsupported: frozenset[str],
    robust: bool,
) -> str | None:
    """The reason a response is not scored, or None (the order is the module docstring's)."""
    if lang in unsupported:
        return "unsupported_language"
    if not identifier.supports(lang):
        return "lid_unsupported_language"
    if response == NO_ANSWER:
        return "no_answer"
    if label is None:
        return "no_label"
    if robust and item_id in NUMERIC_ITEM_IDS:
        return "numeric_question"
    if robust and len(response.strip()) < SHORT_RESPONSE_CHARS:
        return "short_response"
    return None


def score_fidelity(
    responses: pa.Table,
    identifier: Identifier,
    unsupported_languages: Iterable[str] = DEFAULT_UNSUPPORTED_LANGUAGES,
    robust: bool = False,
) -> pa.Table:
    """The FIDELITY rows of RESPONSES rows (any number of models and languages), in their order."""
    rows = responses.select(["dataset", "model", "item_id", "lang", "response"]).to_pylist()
    unsupported = frozenset(unsupported_languages)
    for lang in {row["lang"] for row in rows} | unsupported:
        identifier.registry[lang]  # an unknown code fails here, with the registry's suggestion
    texts = [row["response"] if row["response"] != NO_ANSWER else "" for row in rows]
    predictions = identifier.predict(texts)
    records = []
    for row, (label, probability) in zip(rows, predictions):
        reason = exclusion(row["lang"], row["item_id"], row["response"], label, identifier, unsupported, robust)
        records.append(
            {
                "dataset": row["dataset"],
                "model": row["model"],
                "item_id": row["item_id"],
                "lang": row["lang"],
                "label": label,
                "probability": probability,
                "response_lang": identifier.to_registry_code(label),
                "fidelity": "excluded" if reason else classify(label, row["lang"], identifier),
                "excluded_reason": reason,
                "response_chars": len(row["response"].strip()) if row["response"] != NO_ANSWER else 0,
            }
        )
    return pa.Table.from_pylist(records, schema=FIDELITY)


def robust_variant(fidelity: pa.Table) -> pa.Table:
    """A FIDELITY table with the robustness variant's exclusions added to the rows still scored."""
    scored = pc.not_equal(fidelity["fidelity"], "excluded")
    numeric = pc.is_in(fidelity["item_id"], pa.array(sorted(NUMERIC_ITEM_IDS)))
    short = pc.less(fidelity["response_chars"], SHORT_RESPONSE_CHARS)
    new_reason = pc.if_else(
        numeric, "numeric_question", pc.if_else(short, "short_response", pa.scalar(None, pa.string()))
    )
    drop = pc.and_(scored, pc.or_(numeric, short))
    reason = pc.if_else(drop, new_reason, fidelity["excluded_reason"])
    classes = pc.if_else(drop, "excluded", fidelity["fidelity"])
    schema = fidelity.schema
    table = fidelity.set_column(schema.get_field_index("fidelity"), schema.field("fidelity"), classes)
    return table.set_column(schema.get_field_index("excluded_reason"), schema.field("excluded_reason"), reason)


def to_item_scores(table: pa.Table) -> pl.DataFrame:
    """FIDELITY rows as ITEM_SCORES (evaluator ``fidelity``): ``fidelity_same`` and ``fidelity_english``
    are 1 when the response is in the prompted language (respectively in English), 0 otherwise; a
    response excluded here (unsupported language, "No answer", nothing to identify) is excluded
    there, with its reason, so the shares are over the identified responses as in Holtermann et al. 2024."""
    frame = pl.from_arrow(table)
    fidelity = pl.col("fidelity")
    status = excluded_unless(fidelity != "excluded")
    return long_table(
        frame, "fidelity", {"fidelity_same": fidelity == "same", "fidelity_english": fidelity == "english"}, status
    )


# The exclusions that concern a whole language (the evaluator's own not-measurable reasons).
LANGUAGE_EXCLUSIONS = ("unsupported_language", "lid_unsupported_language")


def faithful_scores(table: pa.Table) -> dict[str, tuple[float | None, int, str | None]]:
    """Per language of FIDELITY rows scored on faithful text (the data set's prompts as answers):
    the share identified as the prompted language (`fidelity_same`, over the rows not excluded),
    their number, and the language-level exclusion (LANGUAGE_EXCLUSIONS) as the evaluator's own
    not-measurable reason, if any (the input of :func:`xlcons.measurability.measurability_rows`)."""
    reason = pl.col("excluded_reason")
    scored = pl.col("fidelity") != "excluded"
    rates = (
        pl.from_arrow(table)
        .group_by("lang")
        .agg(
            score=(pl.col("fidelity") == "same").filter(scored).cast(pl.Float64).mean(),
            n=scored.sum(),
            own=reason.filter(reason.is_in(LANGUAGE_EXCLUSIONS)).first(),
        )
    )
    return {row["lang"]: (row["score"], row["n"], row["own"]) for row in rates.iter_rows(named=True)}


def mark_not_measurable_rows(table: pa.Table, statuses: Mapping[str, str | None]) -> pa.Table:
    """FIDELITY rows with those of each not-measurable language (`statuses`, as
    :func:`xlcons.measurability.verdicts` gives them) excluded for that status, but for rows
    already excluded for a language-level reason (LANGUAGE_EXCLUSIONS), which keep theirs."""
    marked = {lang: status for lang, status in statuses.items() if status is not None}
    if not marked or table.num_rows == 0:
        return table
    status = pl.col("lang").replace_strict(marked, default=None, return_dtype=pl.String)
    keep = status.is_null() | pl.col("excluded_reason").is_in(LANGUAGE_EXCLUSIONS).fill_null(False)
    frame = pl.from_arrow(table).with_columns(
        fidelity=pl.when(keep).then(pl.col("fidelity")).otherwise(pl.lit("excluded")),
        excluded_reason=pl.when(keep).then(pl.col("excluded_reason")).otherwise(status),
    )
    return frame.to_arrow().cast(FIDELITY)
