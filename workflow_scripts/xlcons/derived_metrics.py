"""Derived metrics: a metric of the results table computed from the means of other metrics of
the same cell, on the same bootstrap resample (information consistency's F, language
confusion's LCPR). Part of the item-scores layer (:mod:`xlcons.item_scores`): an evaluator
declares its derived metrics, the results stage (:mod:`xlcons.reports.results`) computes them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


def harmonic_mean(*means: np.ndarray) -> np.ndarray:
    """Elementwise harmonic mean k / sum(1/m) (F = 2PR/(P+R) for two); 0 where an input is 0, NaN propagates."""
    stacked = np.asarray(np.broadcast_arrays(*[np.asarray(m, dtype=float) for m in means]))
    with np.errstate(divide="ignore", invalid="ignore"):
        result = len(means) / np.sum(1.0 / stacked, axis=0)
    zero = np.any(stacked == 0, axis=0) & ~np.any(np.isnan(stacked), axis=0)
    return np.where(zero, 0.0, result)


@dataclass(frozen=True)
class DerivedMetric:
    """A metric computed from the means of other metrics of the same cell, on the same resample.

    `function` takes one array per input (the input means, any shape) and returns an
    array of that shape. `evaluators` restricts it to those evaluators (None: every cell
    that has all the inputs).
    """

    name: str
    inputs: tuple[str, ...]
    function: Callable[..., np.ndarray]
    evaluators: tuple[str, ...] | None = None
