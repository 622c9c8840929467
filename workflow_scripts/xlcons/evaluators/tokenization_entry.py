"""The registry entry of the tokenizer analysis (`tokenization`): run by
xlcons.evaluators.tokenization, its table in xlcons.evaluators.tokenization_tables (read by
the MultiQ report, not the results stage).

Standard library only: the registry imports it while the Snakefile builds the DAG.
"""

from __future__ import annotations

from xlcons.evaluators.info import EvaluatorInfo, config_section

# Holtermann et al. 2024, Table 5: how each generator's tokenizer cuts each language's prompts.
TOKENIZATION_ENTRY = EvaluatorInfo(
    "tokenization",
    "tokenization",
    "evaluate_tokenization.smk",
    ("tokenization",),
    "tokenization",
    tokenizer_models_only=True,
    options=config_section(
        "How each generator's tokenizer cuts each language's prompts (Holtermann "
        "et al. 2024, Table 5); generators with a local tokenizer only.",
        ["multiq"],
        "Data sets whose prompts are tokenized.",
        {},
    ),
    jobs={"tokenization": "xlcons.evaluators.tokenization:rule_tokenization"},
    position=30,
    no_headline="no results rows: its table is MultiQ's Table 5 (rule multiq_report)",
)

ENTRIES = (TOKENIZATION_ENTRY,)
