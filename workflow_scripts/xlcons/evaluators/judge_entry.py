"""The registry entry of the LLM judge (`judge`): run by xlcons.evaluators.judge, its per-item
table and adapter in xlcons.evaluators.judge_tables.

Standard library only: the registry imports it while the Snakefile builds the DAG.
"""

from __future__ import annotations

from xlcons.datasets import ENGLISH_QUESTION
from xlcons.evaluators.info import SHARDS_OPTION, EvaluatorInfo, ResultsSource, config_section, llm

# Holtermann et al. 2024: is the answer correct, judged by an LLM against the English question?
JUDGE_ENTRY = EvaluatorInfo(
    "judge",
    "judge",
    "evaluate_judge.smk",
    ("judgments",),
    "judgments",
    needs=frozenset({ENGLISH_QUESTION}),
    models=llm,
    results=(
        ResultsSource(
            "judgments", "xlcons.evaluators.judge_tables:JUDGMENTS", "xlcons.evaluators.judge_tables:to_item_scores"
        ),
    ),
    options=config_section(
        "The LLM judge of MultiQ answer correctness (Holtermann et al. 2024's yes/no instruction).",
        ["multiq"],
        "Data sets whose answers the judge scores; each needs an English "
        "question per item (English rows, or a `question_en` column).",
        {
            "llm": {
                "description": "The judge model; any generation backend.",
                "$ref": "#/$defs/llm",
                "default": {"hf_id": "Qwen/Qwen2.5-7B-Instruct", "backend": "vllm"},
            },
            "prompt": {
                "description": "`verdict_line`: the judge is asked to end its reply with a line `Verdict: yes` or "
                "`Verdict: no` (xlcons's instruction). `paper`: Holtermann et al. 2024's instruction (their "
                "Table 9) verbatim, as MultiQ's reproduction uses it. Either way the LAST verdict in the reply "
                "counts and one that cannot be read is `unparseable` (docs/multiq.md).",
                "enum": ["verdict_line", "paper"],
                "default": "verdict_line",
            },
            "shards": SHARDS_OPTION,
        },
    ),
    jobs={"judge": "xlcons.evaluators.judge:rule_judge", "judge_merge": "xlcons.evaluators.judge:rule_judge_merge"},
    sharded=True,
    calls_models=True,
    estimate="xlcons.estimate.stages:judge",
    position=20,
    headline="accuracy",
    rates=("accuracy",),
    figure_metrics=("accuracy",),
)

ENTRIES = (JUDGE_ENTRY,)
