"""Empathy consistency's tables (written by xlcons.evaluators.empathy.profiles) and the adapter of
its per-item table to ITEM_SCORES.
"""

from __future__ import annotations

import polars as pl
import pyarrow as pa

from xlcons.item_scores import excluded_unless, long_table
from xlcons.schemas import DATASET, ITEM_ID, ITEM_STATUS_OK, LANG, MODEL

# Gupta et al. 2025 on EPITOME seeker posts (xlcons.evaluators.empathy.profiles). A response's empathy
# profile is one 0/1 per mechanism, ER (emotional reactions), IP (interpretations), EX
# (explorations), from classifiers on (English seeker post, response); the English response's
# profile (`*_en`) is compared with that of the response in `lang`, translated to English.

# Why an (item, language) cell is left out of the scores, checked in this order: no English
# seeker post; no English response; the English response is no answer of the model's (its
# request failed, or, with `refusals: exclude`, the model refused or said nothing); no
# translated response in `lang`; the response in `lang` is no answer of the model's (the
# same); it could not be translated; the model refused or said nothing in both languages.
EMPATHY_EXCLUSIONS = (
    "missing_prompt",
    "missing_english",
    "no_answer_english",
    "missing_translation",
    "no_answer",
    "untranslatable",
    "abstained_both",
)

# One row per (item, language other than English). `status` is `ok` | `excluded` (then
# `excluded_reason` is one of EMPATHY_EXCLUSIONS, else null). `er_en`/`ip_en`/`ex_en` and
# `er`/`ip`/`ex` are the two profiles (null for a side that cannot be classified), `profile_en`
# and `profile` the same written as `ER1-IP0-EX1`. `equal` and the `*_agree` flags are null on
# excluded rows. `translation_path` is the translation stage's (null when no translation row);
# `classifier` the classifiers' kind (`tfidf`, `encoder`).
EMPATHY_ITEMS = pa.schema(
    [
        DATASET,
        MODEL,
        ITEM_ID,
        LANG,
        pa.field("status", pa.string(), nullable=False),
        pa.field("excluded_reason", pa.string()),
        pa.field("translation_path", pa.string()),
        pa.field("profile_en", pa.string()),
        pa.field("profile", pa.string()),
        pa.field("er_en", pa.int8()),
        pa.field("ip_en", pa.int8()),
        pa.field("ex_en", pa.int8()),
        pa.field("er", pa.int8()),
        pa.field("ip", pa.int8()),
        pa.field("ex", pa.int8()),
        pa.field("equal", pa.bool_()),
        pa.field("er_agree", pa.bool_()),
        pa.field("ip_agree", pa.bool_()),
        pa.field("ex_agree", pa.bool_()),
        pa.field("classifier", pa.string(), nullable=False),
    ]
)
EMPATHY_STATUSES = ("ok", "excluded")

# One row per (data set, model, language): `consistency` is the share of scored items whose
# two profiles are equal, `*_agreement` the share agreeing on one mechanism (null when no item
# is scored). `n_items` counts scored items, `n_excluded` the excluded ones, split by reason
# in the `n_<reason>` columns (one per EMPATHY_EXCLUSIONS entry); `n_abstained` the scored
# items where the model refused or said nothing in one of the two languages (each inconsistent).
EMPATHY_SCORES = pa.schema(
    [
        DATASET,
        MODEL,
        LANG,
        pa.field("consistency", pa.float64()),
        pa.field("er_agreement", pa.float64()),
        pa.field("ip_agreement", pa.float64()),
        pa.field("ex_agreement", pa.float64()),
        pa.field("n_items", pa.int32(), nullable=False),
        pa.field("n_excluded", pa.int32(), nullable=False),
        *[pa.field(f"n_{reason}", pa.int32(), nullable=False) for reason in EMPATHY_EXCLUSIONS],
        pa.field("n_abstained", pa.int32(), nullable=False),
        pa.field("classifier", pa.string(), nullable=False),
    ]
)


def to_item_scores(table: pa.Table) -> pl.DataFrame:
    """EMPATHY_ITEMS rows as ITEM_SCORES (evaluator ``empathy``): ``consistency`` (1 when the English
    and the translated profile are equal) and ``ER``, ``IP``, ``EX`` (1 when that mechanism agrees);
    excluded items keep their reason."""
    frame = pl.from_arrow(table)
    metrics = {
        "consistency": pl.col("equal"),
        "ER": pl.col("er_agree"),
        "IP": pl.col("ip_agree"),
        "EX": pl.col("ex_agree"),
    }
    return long_table(frame, "empathy", metrics, excluded_unless(pl.col("status") == ITEM_STATUS_OK))
