"""Does QE predict the round trip? Per-item QE against the round trip's score, one correlation per cell.

With the translationese check on as well, the translation-quality report's `qe_round_trip`
asks whether the cheap QE predicts the expensive round trip (:func:`qe_round_trip_table`):
per (data set, model, language) that has round trips, over the items scored by both, the correlation of an item's
QE (`translation_qe`/`qe`: the mean QE of the sentences of the model's answer in that
language translated into English, the translation the consistency scores read) with the
information F1 of the item's round trip (`translationese`/`f1`: the model's English answer
en -> language -> en against the original), as Spearman's rho and Pearson's r, each with a
p-value and a Fisher-z interval (xlcons.reports.correlations.correlate). Both are about the
same question in the same language and through the same translator, but not the same text: the
QE of the round trip's own way back is not computed (the round trips are translated whole,
not sentence by sentence, and the QE jobs score the translation stage's sentences).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from xlcons.reports.bootstrap import CI_LEVEL
from xlcons.reports.correlations import correlate
from xlcons.reports.qe_scores import EVALUATOR, ITEM_KEYS
from xlcons.schemas import ITEM_STATUS_OK

ROUND_TRIP_EVALUATOR, ROUND_TRIP_METRIC = "translationese", "f1"
MIN_ITEMS = 3  # fewer paired items: no correlation (two points always lie on a line)
_CELL = ["dataset", "model", "lang"]


def _correlation_columns(metric: str) -> dict[str, pl.DataType]:
    columns: dict[str, pl.DataType] = {key: pl.String for key in _CELL} | {"n items": pl.Int64}
    for name in ("spearman", "pearson"):
        columns |= {
            name: pl.Float64,
            f"{name} ci_low": pl.Float64,
            f"{name} ci_high": pl.Float64,
            f"{name} p": pl.Float64,
        }
    return columns | {"mean QE": pl.Float64, f"mean round-trip {metric}": pl.Float64, "note": pl.String}


def _scored(item_scores: pl.DataFrame, evaluator: str, metric: str, name: str) -> pl.DataFrame:
    rows = item_scores.filter((pl.col("evaluator") == evaluator) & (pl.col("metric") == metric))
    return rows.filter((pl.col("status") == ITEM_STATUS_OK) & pl.col("value").is_not_null()).select(
        *ITEM_KEYS, pl.col("value").alias(name)
    )


def item_correlation(
    qe: Sequence[float], score: Sequence[float], *, ci_level: float = CI_LEVEL, metric: str = ROUND_TRIP_METRIC
) -> dict:
    """Spearman's rho and Pearson's r of paired per-item values, with p-values and Fisher-z
    intervals (xlcons.reports.correlations.correlate: exact permutation p-values up to 8 items; no
    interval below 5 items or at +-1, the reason in `note`). No correlation, interval or
    p-value (nulls), with the reason in `note`, for fewer than MIN_ITEMS items or a side that
    is constant over them."""
    x, y = np.asarray(qe, dtype=float), np.asarray(score, dtype=float)
    n = x.size
    row: dict = {
        "n items": n,
        "spearman": None,
        "spearman ci_low": None,
        "spearman ci_high": None,
        "spearman p": None,
        "pearson": None,
        "pearson ci_low": None,
        "pearson ci_high": None,
        "pearson p": None,
        "mean QE": float(x.mean()) if n else None,
        f"mean round-trip {metric}": float(y.mean()) if n else None,
        "note": None,
    }
    constant = [side for side, values in (("QE", x), (f"round-trip {metric}", y)) if n and np.ptp(values) == 0]
    if n < MIN_ITEMS:
        row["note"] = f"{n} item{'' if n == 1 else 's'} with both QE and a scored round trip, fewer than {MIN_ITEMS}"
    elif constant:
        row["note"] = " and ".join(constant) + " constant over the items"
    if row["note"]:
        return row
    notes = []
    for name, result in correlate(x, y, ci_level).items():
        row |= {
            name: result.value,
            f"{name} p": result.p_value,
            f"{name} ci_low": result.ci_low,
            f"{name} ci_high": result.ci_high,
        }
        if result.note and result.note not in notes:
            notes.append(result.note)
    return row | {"note": "; ".join(notes) or None}


def qe_round_trip_table(
    item_scores: pl.DataFrame, *, metric: str = ROUND_TRIP_METRIC, ci_level: float = CI_LEVEL
) -> pl.DataFrame:
    """Per (data set, model, language) with round trips, in a data set that has QE: the
    correlation over items of the item's QE with its round-trip `metric` (item_correlation).

    An item enters when both are scored (QE: something of its answer was translated; round
    trip: not excluded). A round-trip language without QE rows in that (data set, model) gets a
    row without values that says so; a language with QE but no round trips gets no row.
    """
    columns = _correlation_columns(metric)
    qe = _scored(item_scores, EVALUATOR, "qe", "qe")
    trips = item_scores.filter(
        (pl.col("evaluator") == ROUND_TRIP_EVALUATOR)
        & (pl.col("metric") == metric)
        & pl.col("dataset").is_in(qe["dataset"].unique().to_list())
    )
    scored = _scored(trips, ROUND_TRIP_EVALUATOR, metric, "score")
    paired = {
        key: part.sort("item_id")
        for key, part in qe.join(scored, on=ITEM_KEYS, how="inner").partition_by(_CELL, as_dict=True).items()
    }
    has_qe, has_scored = set(qe.select(_CELL).unique().iter_rows()), set(scored.select(_CELL).unique().iter_rows())
    statuses = {key: part["status"] for key, part in trips.partition_by(_CELL, as_dict=True).items()}
    rows = []
    for key in sorted(statuses):
        cell = paired.get(key, pl.DataFrame(schema={"qe": pl.Float64, "score": pl.Float64}))
        row = item_correlation(cell["qe"].to_numpy(), cell["score"].to_numpy(), ci_level=ci_level, metric=metric)
        if key not in has_qe:
            row["note"] = f"no QE in {key[2]}: none of the model's answers in it was translated"
        elif key not in has_scored:
            counts = statuses[key].value_counts(sort=True)
            row["note"] = (
                "no scored round trip (" + ", ".join(f"{status}: {count}" for status, count in counts.iter_rows()) + ")"
            )
        rows.append(dict(zip(_CELL, key)) | row)
    return pl.DataFrame(rows, schema=columns) if rows else pl.DataFrame(schema=columns)
