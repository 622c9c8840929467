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
# written in (the item's own language, or `en` for prompts translated from English),
# `question_en` the item's question in English where a data set gives one beside its
# languages (a user set's `question_en` column; the LLM judge reads it when the set has
# no English rows).
PROMPTS = pa.schema(
    [
        DATASET,
        ITEM_ID,
        LANG,
        pa.field("prompt", pa.string(), nullable=False),
        pa.field("category", pa.string()),
        pa.field("references", pa.list_(pa.string())),
        pa.field("source_lang", pa.string(), nullable=False),
        pa.field("question_en", pa.string()),
    ]
)

# One row per (item, language) answered by one model. `finish_reason` is `stop`,
# `length`, `refused`, `empty`, `error` or `prompt_too_long`; for the last four `response`
# is "No answer" and `error` says why (paper 000 recorded Gemini's RECITATION errors this
# way; a prompt_too_long row names the prompt's token count and the model's context).
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
# The prompt (with room for one new token) does not fit the model's context: never sent.
PROMPT_TOO_LONG = "prompt_too_long"
FINISH_REASONS = ("stop", "length", "refused", "empty", "error", PROMPT_TOO_LONG)
# Rows that hold no answer of the model's at all (a failed request, a prompt the model could
# not take): every score resting on them is excluded, with the finish reason as the reason.
UNANSWERED_REASONS = ("error", PROMPT_TOO_LONG)
# Rows whose response is "No answer": the unanswered ones and the model's own empty answers.
NO_TEXT_REASONS = ("refused", "empty", *UNANSWERED_REASONS)

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
# `unparseable` (the judge's text says neither, or both, or the judge refused or said
# nothing) | `no_answer` (the response was "No answer"; the judge is not asked) | `error`
# (the model's request failed, so there is no answer to judge; the judge is not asked) |
# `prompt_too_long` (the prompt did not fit the model's context; the judge is not asked) |
# `judge_error` (the judge's own request failed, or the judge prompt did not fit the judge's
# context). The last three are not the model's answers: accuracy leaves them out, and the
# tables count them. `judge_response`
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
VERDICTS = ("yes", "no", "unparseable", "no_answer", "error", PROMPT_TOO_LONG, "judge_error")
JUDGE_FAILURES = ("error", PROMPT_TOO_LONG, "judge_error")  # no answer of the model's to judge, or no verdict: left out of accuracy

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
# Paper 001 on MAKQA (xlcons.evaluators.knowledge.metrics). `variant` is the prompt variant (the
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
SENTENCE_KEYS = [
    DATASET,
    MODEL,
    ITEM_ID,
    LANG,
    pa.field("sentence_index", pa.int32(), nullable=False),
    pa.field("source_lang", pa.string(), nullable=False),
]
TRANSLATED_SENTENCES = pa.schema(
    [
        *SENTENCE_KEYS,
        pa.field("source", pa.string(), nullable=False),
        pa.field("translation", pa.string(), nullable=False),
        pa.field("degenerate_reason", pa.string()),
        pa.field("repaired", pa.bool_(), nullable=False),
        pa.field("attempts", pa.int32(), nullable=False),
    ]
)

# One row per translated sentence (TRANSLATED_SENTENCES' keys): its reference-free quality
# estimate `qe` (xlcons.translation.quality: `qe_backend` embedding or comet) from the model
# `qe_model` (its Hub id, or the folder name of a local path). `copy`: the translation is its
# (non-English) source copied through; `off_target`: language ID says the translation is not
# English (xlcons.translation.quality_checks); either fails the item whatever `qe` is.
# `lid_label` / `lid_probability`: the translation's language-ID label and its probability,
# null when the translation has too little prose to be identified.
TRANSLATION_QE = pa.schema(
    [
        *SENTENCE_KEYS,
        pa.field("qe", pa.float64(), nullable=False),
        pa.field("qe_backend", pa.string(), nullable=False),
        pa.field("qe_model", pa.string(), nullable=False),
        pa.field("copy", pa.bool_(), nullable=False),
        pa.field("off_target", pa.bool_(), nullable=False),
        pa.field("lid_label", pa.string()),
        pa.field("lid_probability", pa.float64()),
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


# -- results: per-item scores, aggregation with confidence intervals, group tables, model comparison
# (METHODS.md §1 Aggregation; written and read by xlcons.reports.results / .groups / .comparison,
# whatever evaluator produced the scores)

EVALUATOR = pa.field("evaluator", pa.string(), nullable=False)
METRIC = pa.field("metric", pa.string(), nullable=False)
# The translator the row's score rests on (`translator.name`, else its model's folder; each
# of `translators` by its name): filled for the evaluators that read translations and the
# QE rows, empty ("") for the others. Every key below includes it, so a score under one
# translator is never averaged or compared with one under another.
TRANSLATOR = pa.field("translator", pa.string(), nullable=False)
NO_TRANSLATOR = ""

# The common input of aggregation: one row per (data set, evaluator, model, item, language,
# metric), converted from an evaluator's own table by a small adapter. `value` is the item's
# score (a float: precision / recall / f1 of information consistency, 0/1 empathy
# consistency or per-mechanism agreement, 0/1 MultiQ fidelity same / english and accuracy
# yes/no); `status` is `ok` for a scored item, else a short reason why the item is excluded
# (e.g. `no_answer`, `no_facts`, `unparseable`), and `value` is then null. An `ok` row must
# have a finite value; nothing is dropped silently, excluded rows are counted by reason.
ITEM_SCORES = pa.schema(
    [
        DATASET,
        EVALUATOR,
        TRANSLATOR,
        MODEL,
        ITEM_ID,
        LANG,
        METRIC,
        pa.field("value", pa.float64()),
        pa.field("status", pa.string(), nullable=False),
    ]
)
ITEM_STATUS_OK = "ok"

# One row per (data set, evaluator, model, language, metric). `kind` is `mean` (the mean of
# the item values) or `derived` (a function of several metrics' means, e.g. information F =
# harmonic mean of mean precision and mean recall). `n_items` counts the items behind the
# value (for a derived metric: items with at least one of its inputs scored), `n_excluded`
# the excluded items and `excluded_reasons` their reasons as "reason:count; ..." (most
# frequent first; null when none). `ci_low`/`ci_high`: percentile bootstrap interval at
# `ci_level` over `n_resamples` resamples of the items (null with 0 resamples or < 2 items).
# `value` is null when no item was scored.
RESULTS = pa.schema(
    [
        DATASET,
        EVALUATOR,
        TRANSLATOR,
        MODEL,
        LANG,
        METRIC,
        pa.field("kind", pa.string(), nullable=False),
        pa.field("value", pa.float64()),
        pa.field("ci_low", pa.float64()),
        pa.field("ci_high", pa.float64()),
        pa.field("n_items", pa.int32(), nullable=False),
        pa.field("n_excluded", pa.int32(), nullable=False),
        pa.field("excluded_reasons", pa.string()),
        pa.field("n_resamples", pa.int32(), nullable=False),
        pa.field("ci_level", pa.float64(), nullable=False),
    ]
)
RESULT_KINDS = ("mean", "derived", "corpus")  # corpus: a score over the whole set (xSC, xAC, ...), no interval

# One row per (data set, evaluator, metric, model, grouping, group): the unweighted mean of
# the per-language values of the group's languages (the reference language, English, left
# out). `grouping` is `all` (group `all`), `script` / `family` (paper 000's groups from the
# language registry, plus `ungrouped` for languages in none), or `training` (`In` / `Out`
# of the model's documented training languages). `languages` lists the codes averaged
# (space-separated; "" for an empty group; null where the model's training languages are
# unknown, and `value` is then null too); `languages_without_value` those of the group that
# had no scored item.
GROUP_TABLE = pa.schema(
    [
        DATASET,
        EVALUATOR,
        TRANSLATOR,
        METRIC,
        MODEL,
        pa.field("grouping", pa.string(), nullable=False),
        pa.field("group", pa.string(), nullable=False),
        pa.field("value", pa.float64()),
        pa.field("n_languages", pa.int32(), nullable=False),
        pa.field("languages", pa.string()),
        pa.field("languages_without_value", pa.string()),
    ]
)
GROUPINGS = ("all", "script", "family", "training")

# One row per (data set, evaluator, metric, language, model pair), and one with lang
# `pooled` (all languages but the reference: the mean over languages of the per-language
# differences, items resampled / swapped within their language). Items are paired on
# (item_id, lang) and kept when both models scored them (derived metrics: at least one input
# each); `n_items` counts those pairs (0, with null values, in a language either model has
# rows of where none pairs). `difference` = value_a - value_b on the paired items; `ci_low`/`ci_high` its
# paired percentile bootstrap interval; `p_value` the two-sided paired permutation test
# (swapping the two models' scores within items), exact when `exact` (all 2^n swaps);
# `p_holm` (Holm) and `p_bh` (Benjamini-Hochberg) that p-value adjusted for the `n_tests`
# p-values of its family: every row of the same (dataset, evaluator, translator, model_a,
# model_b), all metrics, languages and the pooled row.
COMPARISONS = pa.schema(
    [
        DATASET,
        EVALUATOR,
        TRANSLATOR,
        METRIC,
        LANG,
        pa.field("model_a", pa.string(), nullable=False),
        pa.field("model_b", pa.string(), nullable=False),
        pa.field("n_items", pa.int32(), nullable=False),
        pa.field("n_languages", pa.int32(), nullable=False),
        pa.field("value_a", pa.float64()),
        pa.field("value_b", pa.float64()),
        pa.field("difference", pa.float64()),
        pa.field("ci_low", pa.float64()),
        pa.field("ci_high", pa.float64()),
        pa.field("p_value", pa.float64()),
        pa.field("p_holm", pa.float64()),  # p_value adjusted within its family (xlcons.reports.comparison)
        pa.field("p_bh", pa.float64()),
        pa.field("n_tests", pa.int32(), nullable=False),  # the p-values in the row's family
        pa.field("n_resamples", pa.int32(), nullable=False),
        pa.field("n_permutations", pa.int64(), nullable=False),
        pa.field("exact", pa.bool_(), nullable=False),
        pa.field("ci_level", pa.float64(), nullable=False),
    ]
)
POOLED = "pooled"


# -- information consistency
# (paper 000, FActScore-style; METHODS.md §1; written by xlcons.evaluators.information.stage,
# rules for sides without facts in xlcons.evaluators.information.scores)
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
INFORMATION_SIDE_STATUSES = ("facts", "no_facts", "no_answer", "refusal", "extraction_failed")
INFORMATION_EXCLUSIONS = ("extraction_failed", "no_answer", "refusal", "no_facts")

# One row per extracted fact. `side` is `english` (a fact of the English response, checked
# against the translated side) or `translated`; `sentence_index` counts the side's sentences
# from 0, `fact_index` the side's facts from 0. `verdict` is `supported`, `not_supported`,
# `unparseable` or `unchecked` (the item was not verified: one-sided or excluded);
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
INFORMATION_VERDICTS = ("supported", "not_supported", "unparseable", "unchecked")

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


# -- empathy consistency
# Paper 000 on EPITOME seeker posts (xlcons.evaluators.empathy.profiles). A response's empathy
# profile is one 0/1 per mechanism, ER (emotional reactions), IP (interpretations), EX
# (explorations), from classifiers on (English seeker post, response); the English response's
# profile (`*_en`) is compared with that of the response in `lang`, translated to English.

# Why an (item, language) cell is left out of the scores, checked in this order: no English
# seeker post; no English response; the English response is "No answer"; no translated
# response in `lang`; the response in `lang` is "No answer"; it could not be translated.
EMPATHY_EXCLUSIONS = (
    "missing_prompt",
    "missing_english",
    "no_answer_english",
    "missing_translation",
    "no_answer",
    "untranslatable",
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
# in the `n_<reason>` columns (one per EMPATHY_EXCLUSIONS entry).
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
        pa.field("classifier", pa.string(), nullable=False),
    ]
)
