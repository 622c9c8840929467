"""The item-scores layer: the long per-item table every evaluator maps to, below both the
evaluators and the reports.

Each evaluator turns its own per-item table into ITEM_SCORES rows (one per data set,
evaluator, translator, model, item, language and metric; see :mod:`xlcons.schemas`) with
:func:`long_table` and :func:`excluded_unless`; the results stage marks the rows that rest on
a failed request (:func:`failed_requests`, :func:`mark_failed`) and computes the derived
metrics an evaluator declares from the means of its item metrics
(:mod:`xlcons.derived_metrics`, the other module of this layer). What each built-in
evaluator's rows mean is said by its adapter, beside its per-item table in the evaluator's own
module (the `ResultsSource` of its registry entry names both).

Standard library only at import time (polars and the schemas are imported by the
functions): the evaluator registry, which the Snakefile reads while it builds the DAG, takes
`OWN_ANSWER` and `ENGLISH_ANSWER` from here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl
    import pyarrow as pa

# The answers one item's score rests on (EvaluatorInfo.answers): the answer in the item's
# language, and the English answer it is compared with. A score resting on a request that
# failed is not a score of the model: the results stage excludes it with status `error`.
OWN_ANSWER = "own"
ENGLISH_ANSWER = "english"

KEYS = ["dataset", "model", "item_id", "lang"]  # an answer: what responses and item scores share


def failed_requests(responses: pa.Table, refusals: str = "count") -> pl.DataFrame:
    """(dataset, model, item_id, lang, reason) of the RESPONSES rows that hold no answer of the
    model's: a failed request or a prompt too long for the model (`reason`: that finish reason);
    with `refusals` ``exclude``, also the model's own refusals and empty answers (``refused``,
    ``empty``), so that every score resting on them is excluded too."""
    import polars as pl

    from xlcons.schemas import NO_TEXT_REASONS, UNANSWERED_REASONS

    reasons = NO_TEXT_REASONS if refusals == "exclude" else UNANSWERED_REASONS
    frame = pl.from_arrow(responses.select([*KEYS, "finish_reason"]))
    unanswered = frame.filter(pl.col("finish_reason").is_in(list(reasons)))
    return unanswered.rename({"finish_reason": "reason"}).unique(maintain_order=True)


def mark_failed(scores: pl.DataFrame, failed: pl.DataFrame, answers: tuple[str, ...]) -> pl.DataFrame:
    """`scores` with the failed answer's reason as status (``error``, ``prompt_too_long``; and no
    value) where an answer the score rests on has none: the item's own (`OWN_ANSWER`) and/or the
    English one (`ENGLISH_ANSWER`); the item's own reason first when both have none."""
    import polars as pl

    from xlcons.schemas import ITEM_SCORES

    if failed.is_empty() or scores.is_empty():
        return scores
    reasons = []
    if OWN_ANSWER in answers:
        scores = scores.join(failed.rename({"reason": "_own"}), on=KEYS, how="left")
        reasons.append(pl.col("_own"))
    if ENGLISH_ANSWER in answers:
        english = failed.filter(pl.col("lang") == "en").drop("lang").rename({"reason": "_english"})
        scores = scores.join(english, on=["dataset", "model", "item_id"], how="left")
        reasons.append(pl.col("_english"))
    reason = pl.coalesce(reasons) if reasons else pl.lit(None, pl.String)
    return scores.with_columns(
        pl.coalesce(reason, pl.col("status")).alias("status"),
        pl.when(reason.is_not_null()).then(None).otherwise(pl.col("value")).alias("value"),
    ).select(ITEM_SCORES.names)


def long_table(frame: pl.DataFrame, evaluator: str, metrics: dict[str, pl.Expr], status: pl.Expr) -> pl.DataFrame:
    """One ITEM_SCORES row per input row and metric; a row whose status is not ok has no value."""
    import polars as pl

    from xlcons.schemas import ITEM_SCORES, ITEM_STATUS_OK, NO_TRANSLATOR

    parts = [
        frame.select(
            *KEYS,
            pl.lit(evaluator).alias("evaluator"),
            pl.lit(NO_TRANSLATOR).alias("translator"),  # the results stage names the translator of a file
            pl.lit(name).alias("metric"),
            status.alias("status"),
            expression.cast(pl.Float64).alias("value"),
        ).with_columns(pl.when(pl.col("status") == ITEM_STATUS_OK).then(pl.col("value")).alias("value"))
        for name, expression in metrics.items()
    ]
    return pl.concat(parts).select(ITEM_SCORES.names) if parts else pl.from_arrow(ITEM_SCORES.empty_table())


def excluded_unless(ok: pl.Expr, reason: str = "excluded_reason") -> pl.Expr:
    """Status `ok` where `ok` holds, else the row's reason (column `reason`; `excluded` when it is empty)."""
    import polars as pl

    from xlcons.schemas import ITEM_STATUS_OK

    return pl.when(ok).then(pl.lit(ITEM_STATUS_OK)).otherwise(pl.col(reason).fill_null("excluded"))
