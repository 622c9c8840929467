"""The Parquet schema of every table that passes between stages, in one place.

Each stage writes through :func:`xlcons.tables.write_table`, which casts to the schema
here, so a column that goes missing or changes type fails in the stage that wrote it,
not three rules later.
"""

from __future__ import annotations

import pyarrow as pa

# The keys that identify a row across the stage tables: (data set, model, item, language).
DATASET = pa.field("dataset", pa.string(), nullable=False)
MODEL = pa.field("model", pa.string(), nullable=False)
ITEM_ID = pa.field("item_id", pa.string(), nullable=False)
LANG = pa.field("lang", pa.string(), nullable=False)

# One row per (item, language) of a prompt set: what is sent to the model, and what the
# evaluators need about the item. `references` holds gold answers where a data set has
# them (MAKQA), `category` its domain/subject, `source_lang` the language the prompt was
# written in (the item's own language, or `en` for prompts translated from English).
PROMPTS = pa.schema(
    [
        DATASET,
        ITEM_ID,
        LANG,
        pa.field("prompt", pa.string(), nullable=False),
        pa.field("category", pa.string()),
        pa.field("references", pa.list_(pa.string())),
        pa.field("source_lang", pa.string(), nullable=False),
    ]
)

# One row per (item, language) answered by one model. `finish_reason` is `stop`,
# `length`, `refused`, `empty` or `error`; for the last three `response` is "No answer"
# and `error` says why (paper 000 recorded Gemini's RECITATION errors this way).
# `decoding_hash` identifies the model + decoding configuration that produced the row.
RESPONSES = pa.schema(
    [
        DATASET,
        MODEL,
        ITEM_ID,
        LANG,
        pa.field("prompt", pa.string(), nullable=False),
        pa.field("response", pa.string(), nullable=False),
        pa.field("finish_reason", pa.string(), nullable=False),
        pa.field("prompt_tokens", pa.int32()),
        pa.field("completion_tokens", pa.int32()),
        pa.field("backend", pa.string(), nullable=False),
        pa.field("decoding_hash", pa.string(), nullable=False),
        pa.field("error", pa.string()),
    ]
)

NO_ANSWER = "No answer"
FINISH_REASONS = ("stop", "length", "refused", "empty", "error")

# -- MultiQ evaluation
# (paper 004: language fidelity, judged QA accuracy, tokenizer analysis; written by
# xlcons.evaluators.fidelity / .judge / .tokenization, read by xlcons.reports.multiq)

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

# One row per response judged by the LLM judge. `verdict` is `yes` | `no` |
# `unparseable` (the judge's text says neither, or both, or the judge failed) |
# `no_answer` (the response was "No answer"; the judge is not asked). `judge_response`
# is the judge's raw text (null for no_answer), `judge_finish_reason` its finish reason.
JUDGMENTS = pa.schema(
    [
        DATASET,
        MODEL,
        ITEM_ID,
        LANG,
        pa.field("verdict", pa.string(), nullable=False),
        pa.field("judge_response", pa.string()),
        pa.field("judge_finish_reason", pa.string()),
        pa.field("judge_model", pa.string(), nullable=False),
    ]
)
VERDICTS = ("yes", "no", "unparseable", "no_answer")

# One row per (model tokenizer, prompt language): how the tokenizer splits that
# language's prompts. `top_*` list the 20 most used non-noise tokens (most used first),
# `*_share` the share of them in each class, `token_class` the language's class
# (`ascii` | `character` | `subword`, paper 004 Table 5). `unique_tokens_all_languages`
# counts distinct tokens over every prompt of the table (the same value on every row).
TOKENIZATION = pa.schema(
    [
        DATASET,
        MODEL,
        pa.field("tokenizer", pa.string(), nullable=False),
        LANG,
        pa.field("n_prompts", pa.int32(), nullable=False),
        pa.field("n_tokens", pa.int64(), nullable=False),
        pa.field("tokens_per_prompt", pa.float64(), nullable=False),
        pa.field("unique_tokens", pa.int32(), nullable=False),
        pa.field("unique_tokens_all_languages", pa.int32(), nullable=False),
        pa.field("top_tokens", pa.list_(pa.string()), nullable=False),
        pa.field("top_token_ids", pa.list_(pa.int64()), nullable=False),
        pa.field("top_token_counts", pa.list_(pa.int64()), nullable=False),
        pa.field("top_token_classes", pa.list_(pa.string()), nullable=False),
        pa.field("ascii_share", pa.float64(), nullable=False),
        pa.field("character_share", pa.float64(), nullable=False),
        pa.field("subword_share", pa.float64(), nullable=False),
        pa.field("token_class", pa.string(), nullable=False),
    ]
)
TOKEN_CLASSES = ("ascii", "character", "subword")

# -- knowledge consistency
# Paper 001 on MAKQA (xlcons.metrics.knowledge). `variant` is the prompt variant (the
# default `few_shot` for ids without a prefix); `domain` is a MAKQA domain or `all` (xSC
# and xAC pooled over the six non-timeliness domains, xTC on timeliness).

# One row per (model, variant, metric, domain); metric is xSC, xSC_oracle, xAC, xTC or xC.
# `value` is null when the metric is undefined (xC without one of its components).
# `n_items` counts questions with at least one usable answer, `n_excluded` the
# (question, language) cells left out (no response, or a generation error), `n_empty` the
# cells with an empty answer (scored as wrong). `ranking` is xTC's candidate ranking
# (`recency` or `list_position`), on the xTC and xC rows. Counts are null on xC rows.
KNOWLEDGE_SCORES = pa.schema(
    [
        DATASET,
        MODEL,
        pa.field("variant", pa.string(), nullable=False),
        pa.field("metric", pa.string(), nullable=False),
        pa.field("domain", pa.string(), nullable=False),
        pa.field("value", pa.float64()),
        pa.field("n_items", pa.int32()),
        pa.field("n_excluded", pa.int32()),
        pa.field("n_empty", pa.int32()),
        pa.field("ranking", pa.string()),
    ]
)
KNOWLEDGE_METRICS = ("xSC", "xSC_oracle", "xAC", "xTC", "xC")

# One row per ordered language pair (lang_i != lang_j) of a metric and domain, for the
# heatmaps: C_ij (xSC), C^A_ij (xAC, xTC). `value` is null where undefined (a constant
# score vector or fewer than two shared questions; the metric counts those as 0);
# `n_items` is the number of questions both languages answered.
KNOWLEDGE_PAIRS = pa.schema(
    [
        DATASET,
        MODEL,
        pa.field("variant", pa.string(), nullable=False),
        pa.field("metric", pa.string(), nullable=False),
        pa.field("domain", pa.string(), nullable=False),
        pa.field("lang_i", pa.string(), nullable=False),
        pa.field("lang_j", pa.string(), nullable=False),
        pa.field("value", pa.float64()),
        pa.field("n_items", pa.int32(), nullable=False),
    ]
)

# One row per prompted (question, language): `status` ok | empty | missing; `chrf` the
# multi-reference chrF (0-100) against the gold answers; on timeliness questions `tscore`
# (best chrF / rank) and `best_rank` (rank of the best-matching candidate, null when the
# answer matches none). Null scores where the answer is missing.
KNOWLEDGE_ITEMS = pa.schema(
    [
        DATASET,
        MODEL,
        pa.field("variant", pa.string(), nullable=False),
        pa.field("domain", pa.string(), nullable=False),
        ITEM_ID,
        LANG,
        pa.field("status", pa.string(), nullable=False),
        pa.field("chrf", pa.float64()),
        pa.field("tscore", pa.float64()),
        pa.field("best_rank", pa.int32()),
    ]
)
KNOWLEDGE_STATUSES = ("ok", "empty", "missing")


# -- translation

TRANSLATION_PATHS = ("passthrough_english", "prompt_language", "other_language", "no_answer", "untranslatable")

# One row per response of one (data set, model, prompt language): how it was translated to
# English. `translation_path` is one of TRANSLATION_PATHS; `source_lang_detected` the registry
# code language ID gave (null when detection is off or the label stands for no registry
# language), `lid_label` the raw label; `response_lang` the language it was translated from
# (`en` for English passed through; null for no_answer and untranslatable). `translation` is
# the English text (the response itself for passthrough_english and untranslatable, "No
# answer" for no_answer). `n_degenerate` counts sentences whose first translation was
# degenerate, `n_repaired` those of them a sampled attempt fixed. `splitter` names the
# sentence splitter (null when nothing was split), `translator` the translation system.
TRANSLATIONS = pa.schema(
    [
        DATASET,
        MODEL,
        ITEM_ID,
        LANG,
        pa.field("response", pa.string(), nullable=False),
        pa.field("translation_path", pa.string(), nullable=False),
        pa.field("source_lang_detected", pa.string()),
        pa.field("lid_label", pa.string()),
        pa.field("response_lang", pa.string()),
        pa.field("translation", pa.string(), nullable=False),
        pa.field("n_sentences", pa.int32(), nullable=False),
        pa.field("n_degenerate", pa.int32(), nullable=False),
        pa.field("n_repaired", pa.int32(), nullable=False),
        pa.field("splitter", pa.string()),
        pa.field("translator", pa.string(), nullable=False),
    ]
)

# One row per translated sentence (sentence_index counts the response's sentences from 0).
# `source_lang` is the registry code it was translated from. `degenerate_reason` is why the
# first (greedy or beam) translation was degenerate, null when it was not; `repaired` says a
# sampled attempt replaced it; `attempts` counts the sampled attempts made. A sentence with
# a reason and repaired false kept a degenerate translation.
TRANSLATED_SENTENCES = pa.schema(
    [
        DATASET,
        MODEL,
        ITEM_ID,
        LANG,
        pa.field("sentence_index", pa.int32(), nullable=False),
        pa.field("source_lang", pa.string(), nullable=False),
        pa.field("source", pa.string(), nullable=False),
        pa.field("translation", pa.string(), nullable=False),
        pa.field("degenerate_reason", pa.string()),
        pa.field("repaired", pa.bool_(), nullable=False),
        pa.field("attempts", pa.int32(), nullable=False),
    ]
)

# One row per English response of the translationese check: `pivot` is its translation into
# `lang`, `round_trip` the pivot translated back to English. `translation_path` is
# `round_trip`, or `no_answer` (both texts are then "No answer"). Counts cover both directions.
ROUND_TRIPS = pa.schema(
    [
        DATASET,
        MODEL,
        ITEM_ID,
        LANG,
        pa.field("response", pa.string(), nullable=False),
        pa.field("translation_path", pa.string(), nullable=False),
        pa.field("pivot", pa.string(), nullable=False),
        pa.field("round_trip", pa.string(), nullable=False),
        pa.field("n_sentences", pa.int32(), nullable=False),
        pa.field("n_degenerate", pa.int32(), nullable=False),
        pa.field("n_repaired", pa.int32(), nullable=False),
        pa.field("translator", pa.string(), nullable=False),
    ]
)

# Per (data set, model, language): responses by translation path and sentence counts.
TRANSLATION_COUNTS = pa.schema(
    [
        DATASET,
        MODEL,
        LANG,
        pa.field("n_responses", pa.int32(), nullable=False),
        *[pa.field(path, pa.int32(), nullable=False) for path in TRANSLATION_PATHS],
        pa.field("n_sentences", pa.int32(), nullable=False),
        pa.field("n_degenerate", pa.int32(), nullable=False),
        pa.field("n_repaired", pa.int32(), nullable=False),
        pa.field("n_unrepaired", pa.int32(), nullable=False),
    ]
)

REVIEW_COLUMNS = ("dataset", "item_id", "lang", "source", "translation", "n_sentences", "n_degenerate", "n_repaired")
