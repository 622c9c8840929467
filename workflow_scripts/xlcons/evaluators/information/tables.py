"""Information consistency's tables (written by xlcons.evaluators.information.stage, scored by
.scores) and the adapter of its per-item table to ITEM_SCORES.

Kept apart from the stage (the generation machinery, the sentence splitters) so that the
results stage imports pyarrow and polars only.
"""

from __future__ import annotations

import polars as pl
import pyarrow as pa

from xlcons.item_scores import excluded_unless, long_table
from xlcons.schemas import DATASET, ITEM_ID, ITEM_SCORES, LANG, MODEL, UNANSWERED_REASONS

# Information consistency (Gupta et al. 2025, FActScore-style; docs/methods.md §1; written by
# xlcons.evaluators.information.stage, rules for sides without facts in
# xlcons.evaluators.information.scores)
# `comparison` is `translation` (English response vs the English translation of the response
# in `lang`) or `round_trip` (English response vs its en→lang→en round trip, the
# translationese check). The *english* side is the English response, the *translated* side
# the translation or round trip. `evaluator_model` identifies the extraction/verification LLM.

# One row per (item, language) compared. `english_status`/`translated_status` are one of
# INFORMATION_SIDE_STATUSES. `n_supported_english` counts English facts the translated side
# supports (recall's numerator), `n_supported_translated` translated facts the English side
# supports (precision's). `n_unparseable` counts verdicts that could not be read (scored as
# not supported), `n_extraction_failed` extraction requests that failed. `precision`,
# `recall` and `f1` are null when the item is excluded (`excluded_reason` one of
# INFORMATION_EXCLUSIONS, else null); `one_sided` items (facts on one side only) score 0.
# `n_llm_calls` counts the distinct LLM prompts the row's scores rest on (extraction of both
# sides' sentences + verification), whether answered now or from the cache.
INFORMATION_ITEMS = pa.schema(
    [
        DATASET,
        MODEL,
        ITEM_ID,
        LANG,
        pa.field("comparison", pa.string(), nullable=False),
        pa.field("evaluator_model", pa.string(), nullable=False),
        pa.field("translation_path", pa.string()),
        pa.field("english_status", pa.string(), nullable=False),
        pa.field("translated_status", pa.string(), nullable=False),
        pa.field("n_sentences_english", pa.int32(), nullable=False),
        pa.field("n_sentences_translated", pa.int32(), nullable=False),
        pa.field("n_facts_english", pa.int32(), nullable=False),
        pa.field("n_facts_translated", pa.int32(), nullable=False),
        pa.field("n_supported_english", pa.int32(), nullable=False),
        pa.field("n_supported_translated", pa.int32(), nullable=False),
        pa.field("n_unparseable", pa.int32(), nullable=False),
        pa.field("n_extraction_failed", pa.int32(), nullable=False),
        pa.field("precision", pa.float64()),
        pa.field("recall", pa.float64()),
        pa.field("f1", pa.float64()),
        pa.field("one_sided", pa.bool_(), nullable=False),
        pa.field("excluded_reason", pa.string()),
        pa.field("n_llm_calls", pa.int32(), nullable=False),
    ]
)
INFORMATION_COMPARISONS = ("translation", "round_trip")
INFORMATION_SIDE_STATUSES = ("facts", "no_facts", "no_answer", "refusal", "extraction_failed", "untranslatable")
INFORMATION_EXCLUSIONS = (
    *UNANSWERED_REASONS,
    "extraction_failed",
    "verification_failed",
    "untranslatable",
    "no_answer",
    "refusal",
    "no_facts",
)

# One row per extracted fact. `side` is `english` (a fact of the English response, checked
# against the translated side) or `translated`; `sentence_index` counts the side's sentences
# from 0, `fact_index` the side's facts from 0. `verdict` is `supported`, `not_supported`,
# `unparseable`, `verification_failed` (the verifier's request failed: the item is excluded,
# and a rerun asks again) or `unchecked` (the item was not verified: one-sided or excluded);
# `verifier_response`/`verifier_finish_reason` are the raw answer (null when unchecked).
INFORMATION_FACTS = pa.schema(
    [
        DATASET,
        MODEL,
        ITEM_ID,
        LANG,
        pa.field("comparison", pa.string(), nullable=False),
        pa.field("evaluator_model", pa.string(), nullable=False),
        pa.field("side", pa.string(), nullable=False),
        pa.field("sentence_index", pa.int32(), nullable=False),
        pa.field("sentence", pa.string(), nullable=False),
        pa.field("fact_index", pa.int32(), nullable=False),
        pa.field("fact", pa.string(), nullable=False),
        pa.field("verdict", pa.string(), nullable=False),
        pa.field("verifier_response", pa.string()),
        pa.field("verifier_finish_reason", pa.string()),
    ]
)
INFORMATION_VERDICTS = ("supported", "not_supported", "unparseable", "verification_failed", "unchecked")

# One row per (data set, model, language, comparison, evaluator model). `c_precision` = mean
# P, `c_recall` = mean R over the scored items, `f` their harmonic mean (the paper's score),
# `mean_f1` the mean per-item F1; all null when no item was scored. `n_items` counts all
# rows, `n_scored` the scored ones (`n_one_sided` of them scored 0 by rule), `n_excluded`
# the rest, `excluded_reasons` them by reason as "reason:count; ..." (most frequent first;
# null when none). Fact and unparseable-verdict counts are summed over all rows.
INFORMATION_SCORES = pa.schema(
    [
        DATASET,
        MODEL,
        LANG,
        pa.field("comparison", pa.string(), nullable=False),
        pa.field("evaluator_model", pa.string(), nullable=False),
        pa.field("c_precision", pa.float64()),
        pa.field("c_recall", pa.float64()),
        pa.field("f", pa.float64()),
        pa.field("mean_f1", pa.float64()),
        pa.field("n_items", pa.int32(), nullable=False),
        pa.field("n_scored", pa.int32(), nullable=False),
        pa.field("n_one_sided", pa.int32(), nullable=False),
        pa.field("n_excluded", pa.int32(), nullable=False),
        pa.field("excluded_reasons", pa.string()),
        pa.field("n_facts_english", pa.int32(), nullable=False),
        pa.field("n_facts_translated", pa.int32(), nullable=False),
        pa.field("n_unparseable", pa.int32(), nullable=False),
    ]
)


def to_item_scores(table: pa.Table) -> pl.DataFrame:
    """Both comparisons of INFORMATION_ITEMS as ITEM_SCORES: ``translation`` rows as evaluator
    ``information``, ``round_trip`` rows as ``translationese``. ``precision``, ``recall`` and ``f1``
    per item as the stage scored them; an item it excluded (no answer on both sides, no facts,
    failed extraction) is excluded here with the same reason. Gupta et al. 2025's score ``F`` is derived
    from the means (:data:`xlcons.evaluators.information.derived.INFORMATION_F`)."""
    frame = pl.from_arrow(table)
    parts = []
    for comparison, evaluator in (("translation", "information"), ("round_trip", "translationese")):
        rows = frame.filter(pl.col("comparison") == comparison)
        if rows.height:
            metrics = {name: pl.col(name) for name in ("precision", "recall", "f1")}
            parts.append(long_table(rows, evaluator, metrics, excluded_unless(pl.col("excluded_reason").is_null())))
    return pl.concat(parts) if parts else pl.from_arrow(ITEM_SCORES.empty_table())
