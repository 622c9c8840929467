"""Precision, recall and F1 of one item, the rule for sides without facts, and the language scores.

Notation (docs/methods.md §1): for item x in language l, the *English* side is r_en(x) and the
*translated* side is r̂_l(x) (for the translationese check: the original English response
and its en→l→en round trip).

- Precision P(x): share of the translated side's facts that the English side supports.
- Recall R(x): share of the English side's facts that the translated side supports.
- F1(x) = 2·P·R / (P + R), and 0 when P = R = 0.
- Per language: C^P = mean P, C^R = mean R over the scored items, F = 2·C^P·C^R /
  (C^P + C^R) (0 when both are 0), and the mean per-item F1.

**The rule for sides without facts.** Each side of an item first gets a status:

``no_answer``
    the text is empty, whitespace, or exactly "No answer" (`xlcons.schemas.NO_ANSWER`:
    the generation failed, was refused by the API, or returned nothing, or the
    translation stage had nothing to translate). Not sent to the extractor.
``refusal``
    the text is a short refusal: at most `REFUSAL_MAX_CHARS` characters that begin like
    "I'm sorry", "Sorry", "I cannot", "I can't", "I am unable", "As an AI",
    "Unfortunately, I" (`is_refusal`). Not sent to the extractor. A longer text that
    opens with an apology and then answers is a normal answer; the extraction prompt tells
    the model that statements about the writer are not facts.
``extraction_failed``
    the text has sentences, no facts came out, and at least one of its extraction
    requests failed (finish reason error/refused/empty: the evaluator, not the model,
    failed; failed requests are not cached, so a rerun tries them again). A side with
    facts from some sentences and failed requests for others counts as ``facts`` and the
    failures are counted in ``n_extraction_failed``.
``no_facts``
    the extractor found no fact in any sentence (or the text has no sentence at all:
    only numbers, code or layout).
``facts``
    at least one fact.
``untranslatable``
    the translated side of an answer the translation stage could not translate (its
    `translation_path` is ``untranslatable``: the text is the answer as it was, not in
    English). Not sent to the English fact extractor.

Then, per item:

0. The model's request for either side's answer failed, or its prompt did not fit the
   model (the response's finish reason ``error`` or ``prompt_too_long``, read from the
   responses table) → **excluded** with that reason: no answer of the model's, as the
   results table excludes it too (xlcons.item_scores.mark_failed).
1. Either side ``extraction_failed`` → the item is **excluded** (reason
   ``extraction_failed``): the evaluator failed, the model is not to blame. A verification
   request that failed (finish reason error/refused/empty, not cached, so a rerun asks it
   again) excludes the item likewise (reason ``verification_failed``): it is never read as
   "not supported". The translated side ``untranslatable`` → **excluded** (reason
   ``untranslatable``).
2. Both sides without facts (``no_answer``, ``refusal`` or ``no_facts`` in any
   combination) → **excluded**, with the reason ``no_answer`` if either side is
   no_answer, else ``refusal`` if either side is a refusal, else ``no_facts``. There is
   nothing to compare; an item where the model refused in both languages is consistent in
   behaviour but carries no information.
3. Exactly one side with facts → **P = R = F1 = 0** and ``one_sided`` is true: one side
   conveys information the other conveys none of, the most inconsistent outcome. (Taking
   the empty side's share as vacuously 1 would reward a model for refusing or failing in
   a language; taking it as undefined would make C^P and C^R average different items.)
   No verification is run for such items.
4. Both sides with facts → P and R as above.

Excluded items have null P, R and F1 (never NaN), keep their row in the item table and
are counted by reason in the language table; a language whose items are all excluded
has null C^P, C^R, F and mean F1 and ``n_scored`` 0.

**Unparseable verdicts** count as *not supported* (the verifier did not confirm the
fact; as Holtermann et al. 2024's normaliser, an unreadable verdict is not a positive one) and are
counted per item (``n_unparseable``) and per language, so their share can be checked.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from xlcons.evaluators.information.parsing import SUPPORTED
from xlcons.evaluators.information.tables import INFORMATION_ITEMS, INFORMATION_SCORES
from xlcons.schemas import NO_ANSWER, UNANSWERED_REASONS

FACTS = "facts"
NO_FACTS = "no_facts"
NO_ANSWER_STATUS = "no_answer"
REFUSAL = "refusal"
EXTRACTION_FAILED = "extraction_failed"
UNTRANSLATABLE = "untranslatable"
VERIFICATION_FAILED = "verification_failed"
SIDE_STATUSES = (FACTS, NO_FACTS, NO_ANSWER_STATUS, REFUSAL, EXTRACTION_FAILED, UNTRANSLATABLE)
EXCLUSION_REASONS = (
    *UNANSWERED_REASONS,
    EXTRACTION_FAILED,
    VERIFICATION_FAILED,
    UNTRANSLATABLE,
    NO_ANSWER_STATUS,
    REFUSAL,
    NO_FACTS,
)

REFUSAL_MAX_CHARS = 300
_REFUSAL_START = re.compile(
    r"^(?:i\s*(?:'m|am)\s+(?:so\s+|very\s+)?(?:sorry|afraid|unable|not\s+able)\b"
    r"|sorry\b|my\s+apologies\b|i\s+apologi[sz]e\b"
    r"|i\s+(?:cannot|can't|can\s+not|won't|will\s+not|must\s+decline|am\s+not\s+allowed)\b"
    r"|as\s+an\s+ai\b|unfortunately,?\s+i\b)",
    re.IGNORECASE,
)
_MARKUP = re.compile(r"[*_#>`\"\u201c\u201d]+")


def is_no_answer(text: str | None) -> bool:
    """True for a missing, blank or "No answer" text."""
    return text is None or not text.strip() or text.strip() == NO_ANSWER


def is_refusal(text: str | None) -> bool:
    """True for a short text that begins like a refusal (see the module docstring)."""
    if is_no_answer(text):
        return False
    plain = " ".join(_MARKUP.sub("", text.replace("\u2019", "'")).split())
    return len(plain) <= REFUSAL_MAX_CHARS and bool(_REFUSAL_START.match(plain))


def pre_extraction_status(text: str | None) -> str | None:
    """``no_answer`` or ``refusal`` for a text the extractor never sees, else None."""
    if is_no_answer(text):
        return NO_ANSWER_STATUS
    if is_refusal(text):
        return REFUSAL
    return None


def side_status(text: str | None, n_facts: int, n_extraction_failed: int) -> str:
    """The status of one side after extraction (rules in the module docstring)."""
    before = pre_extraction_status(text)
    if before is not None:
        return before
    if n_facts > 0:
        return FACTS
    return EXTRACTION_FAILED if n_extraction_failed > 0 else NO_FACTS


def f1_score(precision: float, recall: float) -> float:
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


@dataclass(frozen=True)
class ItemScore:
    precision: float | None
    recall: float | None
    f1: float | None
    one_sided: bool
    excluded_reason: str | None
    n_supported_english: int
    n_supported_translated: int
    n_unparseable: int

    @property
    def scored(self) -> bool:
        return self.excluded_reason is None


def needs_verification(english_status: str, translated_status: str) -> bool:
    """Only items with facts on both sides are verified; the rule scores the others."""
    return english_status == FACTS and translated_status == FACTS


def exclusion_reason(english_status: str, translated_status: str) -> str | None:
    """Why an item is left out of the means, or None when it is scored (rules 1 and 2)."""
    statuses = {english_status, translated_status}
    if EXTRACTION_FAILED in statuses:
        return EXTRACTION_FAILED
    if UNTRANSLATABLE in statuses:
        return UNTRANSLATABLE
    if FACTS in statuses:
        return None
    for reason in (NO_ANSWER_STATUS, REFUSAL):
        if reason in statuses:
            return reason
    return NO_FACTS


def score_item(
    english_status: str,
    translated_status: str,
    english_verdicts: Sequence[str],
    translated_verdicts: Sequence[str],
    failed_request: str | None = None,
    refusals: str = "count",
) -> ItemScore:
    """P, R and F1 of one item from the sides' statuses and verdicts.

    `english_verdicts` are the verdicts on the English side's facts (checked against the
    translated side: recall), `translated_verdicts` those on the translated side's facts
    (checked against the English side: precision). Unparseable counts as not supported; a
    ``verification_failed`` verdict excludes the item. `failed_request`: the finish reason of
    a side's failed generation request (rule 0), which excludes the item. With `refusals`
    ``exclude`` (the config's `refusals`), an item whose one side is the model's refusal or
    empty answer is excluded with that side's status instead of scoring 0 (rule 3).
    """
    for status in (english_status, translated_status):
        if status not in SIDE_STATUSES:
            raise ValueError(f"unknown side status {status!r}; known: {SIDE_STATUSES}")
    unparseable = sum(
        verdict not in (SUPPORTED, "not_supported", VERIFICATION_FAILED)
        for verdict in [*english_verdicts, *translated_verdicts]
    )
    supported_english = sum(verdict == SUPPORTED for verdict in english_verdicts)
    supported_translated = sum(verdict == SUPPORTED for verdict in translated_verdicts)
    reason = exclusion_reason(english_status, translated_status)
    if failed_request is not None:
        reason = failed_request
    elif reason is None and VERIFICATION_FAILED in (*english_verdicts, *translated_verdicts):
        reason = VERIFICATION_FAILED
    elif reason is None and refusals == "exclude":
        reason = next((s for s in (english_status, translated_status) if s in (NO_ANSWER_STATUS, REFUSAL)), None)
    if reason is not None:
        return ItemScore(None, None, None, False, reason, supported_english, supported_translated, unparseable)
    if not needs_verification(english_status, translated_status):
        return ItemScore(0.0, 0.0, 0.0, True, None, 0, 0, 0)
    if not english_verdicts or not translated_verdicts:
        raise ValueError("both sides have facts, so both need verdicts")
    precision = supported_translated / len(translated_verdicts)
    recall = supported_english / len(english_verdicts)
    return ItemScore(
        precision,
        recall,
        f1_score(precision, recall),
        False,
        None,
        supported_english,
        supported_translated,
        unparseable,
    )


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def format_reasons(reasons: Counter) -> str | None:
    """``"reason:count; ..."``, most frequent first (ties by name); None when there are none."""
    if not reasons:
        return None
    return "; ".join(
        f"{reason}:{count}" for reason, count in sorted(reasons.items(), key=lambda pair: (-pair[1], pair[0]))
    )


_GROUP = ("dataset", "model", "lang", "comparison", "evaluator_model")


def language_scores(items: pa.Table) -> pa.Table:
    """INFORMATION_SCORES: one row per (dataset, model, lang, comparison, evaluator model), in first-seen order.

    C^P and C^R are the means of P and R over the scored items (one-sided items included
    with their zeros), F their harmonic mean (0 when both are 0), mean_f1 the mean per-item
    F1; all four are null when no item was scored. Excluded items are counted by reason.
    """
    groups: dict[tuple, list[Mapping[str, Any]]] = {}
    for row in items.select(list(INFORMATION_ITEMS.names)).to_pylist():
        groups.setdefault(tuple(row[key] for key in _GROUP), []).append(row)
    records = []
    for key, rows in groups.items():
        scored = [row for row in rows if row["excluded_reason"] is None]
        c_precision = _mean([row["precision"] for row in scored])
        c_recall = _mean([row["recall"] for row in scored])
        reasons = Counter(row["excluded_reason"] for row in rows if row["excluded_reason"] is not None)
        records.append(
            {
                **dict(zip(_GROUP, key)),
                "c_precision": c_precision,
                "c_recall": c_recall,
                "f": None if c_precision is None else f1_score(c_precision, c_recall),
                "mean_f1": _mean([row["f1"] for row in scored]),
                "n_items": len(rows),
                "n_scored": len(scored),
                "n_one_sided": sum(bool(row["one_sided"]) for row in scored),
                "n_excluded": len(rows) - len(scored),
                "excluded_reasons": format_reasons(reasons),
                "n_facts_english": sum(row["n_facts_english"] for row in rows),
                "n_facts_translated": sum(row["n_facts_translated"] for row in rows),
                "n_unparseable": sum(row["n_unparseable"] for row in rows),
            }
        )
    return pa.Table.from_pylist(records, schema=INFORMATION_SCORES)
