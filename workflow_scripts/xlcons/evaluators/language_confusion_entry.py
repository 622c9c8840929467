"""The registry entry of language confusion (`language_confusion`): its per-item table, adapter
and LCPR in xlcons.evaluators.language_confusion, its job in xlcons.evaluators.language_id,
the benchmark's own summary in xlcons.reports.lcb (its figures: the evaluator report).

Standard library only: the registry imports it while the Snakefile builds the DAG.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xlcons.data_sources.catalog import LCB_WORDS_SHA256, LCB_WORDS_URL, LID176_SHA256, LID176_URL
from xlcons.datasets import PROMPT_LANGUAGE_ANSWERS
from xlcons.evaluators.info import EvaluatorInfo, ItemDetails, ResultsSource, config_section
from xlcons.evaluators.language_id_entry import LANGUAGE_ID_MODEL_KEY, lid_model
from xlcons.measurability import MEASURABLE_KEY, MEASURABLE_OPTION, THRESHOLD_KEY, THRESHOLD_OPTION

LCB_MODEL_KEY = "evaluators.language_confusion.model"
LCB_WORDS_KEY = "evaluators.language_confusion.words"
FALLBACK_KEY = "language_id_fallback"


def language_confusion_models(section: Mapping[str, Any]) -> tuple[str, ...]:
    """The benchmark's rule reads its own lid.176 and word list, and the language_id model for the
    languages lid.176 has no label for; the strict rule the language_id model."""
    if section.get("rule", "lcb") == "lcb":
        if section.get(FALLBACK_KEY, True):
            return (LCB_MODEL_KEY, LCB_WORDS_KEY, LANGUAGE_ID_MODEL_KEY)
        return (LCB_MODEL_KEY, LCB_WORDS_KEY)
    return lid_model(section)


# Marchisio et al. 2024: does the answer switch language part way (line level), or
# mix in English words (word level, non-Latin scripts)?
LANGUAGE_CONFUSION_ENTRY = EvaluatorInfo(
    "language_confusion",
    "language_confusion",
    "evaluate_language_confusion.smk",
    ("language_confusion", "language_confusion_lines"),
    "language_confusion",
    needs=frozenset({PROMPT_LANGUAGE_ANSWERS}),
    models=language_confusion_models,
    results=(
        ResultsSource(
            "language_confusion",
            "xlcons.evaluators.language_confusion:LANGUAGE_CONFUSION",
            "xlcons.evaluators.language_confusion:to_item_scores",
        ),
    ),
    derived=("xlcons.evaluators.language_confusion:LCPR",),
    # each line sent to language ID, with its label: the item explorer shows them under the answer
    details=(ItemDetails("language_confusion_lines", "xlcons.evaluators.language_confusion:LANGUAGE_CONFUSION_LINES"),),
    options=config_section(
        "Language confusion (Marchisio et al. 2024): line-level language ID of every answer (does it "
        "switch language part way?) and, for non-Latin-script languages, English words inside it; "
        "reported as line-level and word-level pass rates and their harmonic mean. By default exactly "
        "as the Language Confusion Benchmark's scorer defines them (docs/language-confusion.md).",
        "all",
        "Data sets whose answers are checked for language confusion; "
        "needs nothing of a data set. `all`: every enabled data set.",
        {
            "rule": {
                "description": "`lcb`: the Language Confusion Benchmark's scorer (compute_metrics.py at "
                "commit 0cfdbb4): punctuation removed, lines split on newlines, tokens by "
                "jieba/fugashi/whitespace, fastText lid.176 (`model`) with a line at or below probability "
                "0.3 `unknown` and an error, the exact label required, English words from its word list "
                "(`words`), WPR over the answers without a line error; exactly so on the benchmark's 15 "
                "languages, and beyond them with the language_id model where lid.176 has no label, the "
                "registry's labels (and `lid_same_as`) accepted, unknown lines not judged and Thai, "
                "Khmer, Lao and Burmese lines cut into words or letters. `strict`: xlcons's earlier rule "
                "(language_id's model, lines below `min_confidence` skipped, any Latin-script word "
                "outside code counts as English); see docs/language-confusion.md for every difference.",
                "enum": ["lcb", "strict"],
                "default": "lcb",
            },
            "model": {
                "description": "The `lcb` rule's language-ID model: fastText's lid.176.bin, fetched "
                "from its pinned URL (sha256 checked), or a local file (`path`, e.g. lid.176.ftz).",
                "$ref": "#/$defs/model_source",
                "default": {"url": LID176_URL, "sha256": LID176_SHA256, "name": "lid176"},
            },
            "words": {
                "description": "The `lcb` rule's English word list (one word per line; entries in "
                "lower case and longer than three letters count): the benchmark's `words`, "
                "fetched from its pinned commit (sha256 checked), or a local file (`path`).",
                "$ref": "#/$defs/model_source",
                "default": {"url": LCB_WORDS_URL, "sha256": LCB_WORDS_SHA256, "name": "lcb-words"},
            },
            "min_line_tokens": {
                "description": "Lines with fewer tokens are not judged (too short to identify); the benchmark's 5.",
                "type": "integer",
                "minimum": 1,
                "default": 5,
            },
            FALLBACK_KEY: {
                "description": "`lcb` rule: judge the languages lid.176 has no label for with the "
                "language_id model (GlotLID by default). `false`: they are not measurable "
                "(`no_lid_label`), and the language_id model is not needed (a run of the benchmark's "
                "languages only).",
                "type": "boolean",
                "default": True,
            },
            MEASURABLE_KEY: {
                **MEASURABLE_OPTION,
                "description": "`lcb` rule: "
                + MEASURABLE_OPTION["description"]
                + " Its own rules: a language neither lid.176 nor the language_id model has a label for "
                "is not measurable (`no_lid_label`), nor one whose faithful text (the data set's "
                "prompts) passes the line check less often than `faithful_text_threshold`.",
            },
            THRESHOLD_KEY: {
                **THRESHOLD_OPTION,
                "description": THRESHOLD_OPTION["description"]
                + " Here the line-level pass rate (LPR); under the `lcb` rule the benchmark's languages "
                "in its own data sets are measurable by its definition (their figure is reported only).",
            },
            "min_confidence": {
                "description": "`strict` rule only: a line whose top language-ID "
                "probability is below this is unknown (not judged).",
                "type": "number",
                "minimum": 0,
                "maximum": 1,
                "default": 0.5,
            },
        },
    ),
    jobs={
        "language_confusion": "xlcons.evaluators.language_id:rule_language_confusion",
        "lcb_tasks": "xlcons.reports.lcb:rule_lcb_tasks",
        "language_confusion_faithful": "xlcons.evaluators.language_id:rule_language_confusion_faithful",
    },
    faithful_metric="line_pass",
    position=70,
    headline="lcpr",
    rates=("line_pass", "word_pass"),
    figure_metrics=("lcpr", "line_pass", "word_pass"),
)

ENTRIES = (LANGUAGE_CONFUSION_ENTRY,)
