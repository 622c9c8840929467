"""The registry entry of language fidelity (`language_id`): scored by xlcons.evaluators.fidelity
(its per-item table and adapter), run by xlcons.evaluators.language_id.

Standard library only: the registry imports it while the Snakefile builds the DAG.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xlcons.datasets import PROMPT_LANGUAGE_ANSWERS
from xlcons.evaluators.info import EvaluatorInfo, ResultsSource, config_section
from xlcons.measurability import MEASURABLE_KEY, MEASURABLE_OPTION, THRESHOLD_KEY, THRESHOLD_OPTION

# Its section and model: the translation stage (source-language detection) and QE use them too.
LANGUAGE_ID_SECTION = "language_id"
LANGUAGE_ID_MODEL_KEY = f"evaluators.{LANGUAGE_ID_SECTION}.model"


def lid_model(section: Mapping[str, Any]) -> tuple[str, ...]:
    """The language-ID model (language confusion's too, under its `strict` rule)."""
    return (LANGUAGE_ID_MODEL_KEY,)


# Holtermann et al. 2024: is the answer in the language of the question (response-level LID)?
LANGUAGE_ID_ENTRY = EvaluatorInfo(
    "language_id",
    "language_id",
    "evaluate_language_id.smk",
    ("fidelity",),
    "fidelity",
    needs=frozenset({PROMPT_LANGUAGE_ANSWERS}),
    models=lid_model,
    results=(
        ResultsSource("fidelity", "xlcons.evaluators.fidelity:FIDELITY", "xlcons.evaluators.fidelity:to_item_scores"),
    ),
    options=config_section(
        "Language identification of responses (MultiQ language fidelity; source language of translations).",
        ["multiq"],
        "Data sets whose answers get language fidelity (Holtermann et al. 2024): the share "
        "answered in the prompted language, in English, in another. Needs nothing of a data set.",
        {
            "model": {
                "description": "A fastText language-ID model file (GlotLID "
                "by default; lid.176 or any fastText LID model by path).",
                "$ref": "#/$defs/model_source",
                "default": {"hf_id": "cis-lmu/glotlid", "hf_file": "model.bin"},
            },
            "label_scheme": {
                "description": "How the model's labels map to the language registry: `glotlid` "
                "(`__label__<iso639-3>_<Script>`, matched on ISO 639-3 against the registry's "
                "glotlid_labels) or `lid176` (`__label__<code>`, matched against lid176_labels).",
                "enum": ["glotlid", "lid176"],
                "default": "glotlid",
            },
            "unsupported_languages": {
                "description": "Languages the LID model cannot recognise; excluded from fidelity "
                "and reported as excluded (GlotLID knows neither Meiteilon nor Dogri).",
                "type": "array",
                "items": {"type": "string"},
                "default": ["mni-Mtei", "doi"],
            },
            "robust": {
                "description": "Holtermann et al. 2024's robustness variant — drop "
                "the numeric questions and responses under 10 characters.",
                "type": "boolean",
                "default": False,
            },
            MEASURABLE_KEY: {
                **MEASURABLE_OPTION,
                "description": MEASURABLE_OPTION["description"]
                + " Its own rules: a language the model has no label for (or listed in "
                "`unsupported_languages`) stays excluded as such; one whose faithful text (the data "
                "set's prompts) is identified as its language less often than `faithful_text_threshold` "
                "is not measurable.",
            },
            THRESHOLD_KEY: {
                **THRESHOLD_OPTION,
                "description": THRESHOLD_OPTION["description"] + " Here the share identified as the "
                "prompted language (`fidelity_same`).",
            },
        },
    ),
    jobs={
        "language_id": "xlcons.evaluators.language_id:rule_language_id",
        "language_id_faithful": "xlcons.evaluators.language_id:rule_language_id_faithful",
    },
    faithful_metric="fidelity_same",
    position=10,
    headline="fidelity_same",
    rates=("fidelity_same", "fidelity_english"),
    results_evaluator="fidelity",
    figure_metrics=("fidelity_same", "fidelity_english"),
)

ENTRIES = (LANGUAGE_ID_ENTRY,)
