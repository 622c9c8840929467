"""The Parquet schema of every table that passes between stages, in one place, but for each
evaluator's own tables: those are declared beside the evaluator (its module or package, named
by its registry entry; e.g. FIDELITY in xlcons.evaluators.fidelity).

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
# is "No answer" and `error` says why (Gupta et al. 2025 recorded Gemini's RECITATION errors this
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
# (docs/methods.md §1 Aggregation; written and read by xlcons.reports.results / .groups / .comparison,
# whatever evaluator produced the scores)

EVALUATOR = pa.field("evaluator", pa.string(), nullable=False)
METRIC = pa.field("metric", pa.string(), nullable=False)
# The translator the row's score rests on (`translator.name`, else its model's folder; each
# of `translators` by its name): filled for the evaluators that read translations and the
# QE rows, empty ("") for the others. Every key below includes it, so a score under one
# translator is never averaged or compared with one under another.
TRANSLATOR = pa.field("translator", pa.string(), nullable=False)
NO_TRANSLATOR = ""

# One row per (evaluator, data set, language) of an evaluator with a faithful-text check
# (xlcons.measurability): the score the data set's own prompts get as answers (`metric`, over
# `n_items` of them), the threshold, the verdict (`measurable` | `not_measurable`) and its reason
# (why it is not measurable, or a note on a measured one). tables/measurability.csv.
MEASURABILITY = pa.schema(
    [
        pa.field("evaluator", pa.string(), nullable=False),
        DATASET,
        LANG,
        pa.field("metric", pa.string(), nullable=False),
        pa.field("faithful_score", pa.float64()),
        pa.field("n_items", pa.int64(), nullable=False),
        pa.field("threshold", pa.float64(), nullable=False),
        pa.field("verdict", pa.string(), nullable=False),
        pa.field("reason", pa.string()),
    ]
)

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
# harmonic mean of mean precision and mean recall) or `corpus` (a score over the whole set).
# `n_items` counts the items that entered the value (for a derived metric: items with at
# least one of its inputs scored; 0 when the value is null), `n_excluded` the excluded items
# and `excluded_reasons` their reasons as "reason:count; ..." (most frequent first; null when
# none). `note` says why a derived or corpus value is undefined (which input is missing, e.g.
# "lcpr undefined: line_pass has no scored item (no_judged_line:6)"); null otherwise.
# `ci_low`/`ci_high`: percentile bootstrap interval at `ci_level` over `n_resamples`
# resamples of the items (null with 0 resamples or < 2 items). A null `value` always has a
# non-empty `excluded_reasons` or `note` (xlcons.reports.results.unexplained_values).
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
        pa.field("note", pa.string()),
        pa.field("n_resamples", pa.int32(), nullable=False),
        pa.field("ci_level", pa.float64(), nullable=False),
    ]
)
RESULT_KINDS = ("mean", "derived", "corpus")  # corpus: a score over the whole set (xSC, xAC, ...), no interval

# One row per (data set, evaluator, metric, model, grouping, group): the unweighted mean of
# the per-language values of the group's languages (the reference language, English, left
# out). `grouping` is `all` (group `all`), `script` / `family` (Gupta et al. 2025's groups from the
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
