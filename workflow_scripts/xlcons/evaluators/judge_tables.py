"""The LLM judge's per-item table (JUDGMENTS, written by xlcons.evaluators.judge, read by the
results stage and xlcons.reports.multiq) and its adapter to ITEM_SCORES.

Kept apart from xlcons.evaluators.judge, which runs the judge through the generation
machinery (tqdm, a backend), so that the code of the report rules, which run in
envs/report.yaml, needs pyarrow and polars only (tests/test_envs.py follows every import).
"""

from __future__ import annotations

import polars as pl
import pyarrow as pa

from xlcons.item_scores import long_table
from xlcons.schemas import DATASET, ITEM_ID, ITEM_STATUS_OK, LANG, MODEL, PROMPT_TOO_LONG

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
JUDGE_FAILURES = (
    "error",
    PROMPT_TOO_LONG,
    "judge_error",
)  # no answer of the model's to judge, or no verdict: left out of accuracy


def to_item_scores(table: pa.Table) -> pl.DataFrame:
    """JUDGMENTS rows as ITEM_SCORES (evaluator ``judge``): ``accuracy`` is 1 for ``yes``, 0 for ``no``,
    ``unparseable`` and ``no_answer`` (Holtermann et al. 2024 counts everything that is not a clear yes as
    incorrect, over all responses). A failed request is excluded instead, with its verdict as
    the reason (JUDGE_FAILURES: the model's ``error`` or ``prompt_too_long``, the judge's
    ``judge_error``)."""
    frame = pl.from_arrow(table)
    failed = pl.col("verdict").is_in(list(JUDGE_FAILURES))
    return long_table(
        frame,
        "judge",
        {"accuracy": pl.col("verdict") == "yes"},
        pl.when(failed).then(pl.col("verdict")).otherwise(pl.lit(ITEM_STATUS_OK)),
    )
