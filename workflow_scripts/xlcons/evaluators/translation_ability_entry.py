"""The registry entry of translation ability (`translation_ability`): its job, tables and adapter
in xlcons.evaluators.translation_ability.

Standard library only: the registry imports it while the Snakefile builds the DAG.
"""

from __future__ import annotations

from xlcons.datasets import TRANSLATION_REQUESTS
from xlcons.evaluators.info import EvaluatorInfo, ItemDetails, ResultsSource, config_section

# Xing et al. 2024 §5: the model under test as a translator, chrF and chrF++ per direction.
TRANSLATION_ABILITY_ENTRY = EvaluatorInfo(
    "translation_ability",
    "translation_ability",
    "evaluate_translation_ability.smk",
    ("translation_items", "translation_directions"),
    "translation_directions",
    needs=frozenset({TRANSLATION_REQUESTS}),
    results=(
        ResultsSource(
            "translation_directions",
            "xlcons.evaluators.translation_ability:TRANSLATION_DIRECTIONS",
            "xlcons.evaluators.translation_ability:to_results",
            corpus=True,
        ),
    ),
    details=(ItemDetails("translation_items", "xlcons.evaluators.translation_ability:TRANSLATION_ITEMS"),),
    options=config_section(
        "The model under test as a translator (Xing et al. 2024 §5): chrF and chrF++ "
        "(sacrebleu, corpus level) of its translations per direction, per language, "
        "and their correlation with xSC/xAC when MAKQA is scored in the same run.",
        ["flores"],
        "Data sets of translation requests scored (each needs a target "
        "language and a reference per prompt: the built-in `flores`).",
        {
            "answer": {
                "description": "What of an answer is scored: `answer` (the translation without a chat model's "
                "wrapping: preamble, label line or prefix, quotes, markdown, trailing note; of a multi-line answer "
                "without wrapping, its first line; see docs/translation-ability.md), `first_line` (the first "
                "non-empty line, an echoed `<target language>:` label removed) or `whole` (the stripped answer).",
                "enum": ["answer", "first_line", "whole"],
                "default": "answer",
            }
        },
    ),
    jobs={"translation_ability": "xlcons.evaluators.translation_ability:rule_translation_ability"},
    position=80,
    headline="chrF",
    figure_metrics=("chrF", "chrF++"),
)

ENTRIES = (TRANSLATION_ABILITY_ENTRY,)
