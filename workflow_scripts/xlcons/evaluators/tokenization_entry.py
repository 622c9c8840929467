"""The registry entry of the tokenizer analysis (`tokenization`): run by
xlcons.evaluators.tokenization, its table and the adapter of its rows (corpus rows per model and
language) in xlcons.evaluators.tokenization_tables (read by the results stage and the MultiQ report).

Standard library only: the registry imports it while the Snakefile builds the DAG.
"""

from __future__ import annotations

from xlcons.evaluators.info import EvaluatorInfo, ResultsSource, config_section

# Holtermann et al. 2024, Table 5: how each generator's tokenizer cuts each language's prompts.
TOKENIZATION_ENTRY = EvaluatorInfo(
    "tokenization",
    "tokenization",
    "evaluate_tokenization.smk",
    ("tokenization",),
    "tokenization",
    tokenizer_models_only=True,
    results=(
        ResultsSource(
            "tokenization",
            "xlcons.evaluators.tokenization_tables:TOKENIZATION",
            "xlcons.evaluators.tokenization_tables:to_results",
            corpus=True,
        ),
    ),
    options=config_section(
        "How each generator's tokenizer cuts each language's prompts (Holtermann "
        "et al. 2024, Table 5); generators with a local tokenizer only.",
        ["multiq"],
        "Data sets whose prompts are tokenized.",
        {},
    ),
    jobs={"tokenization": "xlcons.evaluators.tokenization:rule_tokenization"},
    position=30,
    headline="tokens_per_prompt",
    # The shares have a range from their nature; a prompt's length in tokens has none (it depends
    # on the prompts): it is in the evaluator's table, not drawn.
    figure_metrics=("ascii_share", "character_share", "subword_share"),
)

ENTRIES = (TOKENIZATION_ENTRY,)
