"""Correlations of paired values for the reports that correlate two scores (translation quality, translation ability).

:func:`correlate` gives Spearman's rho and Pearson's r, each with its p-value and Fisher-z
interval: exact permutation p-values up to EXACT_PERMUTATION_POINTS points, no interval below
MIN_INTERVAL_POINTS points or for a coefficient of exactly +-1, nothing below
MIN_CORRELATION_POINTS points or with a constant side (the reason in `note`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from xlcons.reports.bootstrap import CI_LEVEL

CORRELATIONS = ("spearman", "pearson")
MIN_CORRELATION_POINTS = 3  # fewer: no correlation (two points always lie on a line)
MIN_INTERVAL_POINTS = 5  # fewer: a correlation and its p-value, but no interval
EXACT_PERMUTATION_POINTS = 8  # up to this many points the p-value runs every one of the n! pairings
_PERFECT = 1.0 - 1e-12  # |r| at least this: a perfect correlation (rounding aside), no Fisher-z interval


@dataclass(frozen=True)
class Correlation:
    """One correlation of paired values: the coefficient, its two-sided p-value (`exact`: from
    every pairing), its Fisher-z interval (None, None where there is none) and why not (`note`)."""

    value: float | None
    p_value: float | None
    ci_low: float | None
    ci_high: float | None
    exact: bool = False
    note: str | None = None


def _coefficients(x: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """Spearman's rho (as scipy's spearmanr: Pearson's r of the average ranks, scipy's
    rankdata) and Pearson's r (numpy's corrcoef), clipped to [-1, 1]."""
    from scipy.stats import rankdata

    def pearson(a: np.ndarray, b: np.ndarray) -> float:
        return float(np.clip(np.corrcoef(a, b)[0, 1], -1.0, 1.0))

    return {"spearman": pearson(rankdata(x), rankdata(y)), "pearson": pearson(x, y)}


def fisher_z_interval(
    r: float, n: int, standard_error: float, ci_level: float = CI_LEVEL
) -> tuple[float | None, float | None]:
    """tanh(atanh(r) -/+ q * standard_error), q the normal (1+level)/2 quantile: the Fisher-z
    interval. None, None where it does not exist: |r| = 1 (atanh is infinite) or n below
    MIN_INTERVAL_POINTS."""
    from statistics import NormalDist

    if n < MIN_INTERVAL_POINTS or not np.isfinite(r) or abs(r) >= _PERFECT:
        return None, None
    z, q = np.arctanh(r), NormalDist().inv_cdf((1 + ci_level) / 2)
    return float(np.tanh(z - q * standard_error)), float(np.tanh(z + q * standard_error))


def correlation_intervals(
    x: Sequence[float], y: Sequence[float], ci_level: float = CI_LEVEL
) -> dict[str, tuple[float | None, float | None]]:
    """Fisher-z intervals of Pearson's r (standard error 1/sqrt(n-3)) and Spearman's rho
    (Bonett and Wright 2000: sqrt((1 + rho^2/2)/(n-3))) of paired values, by name. None, None
    for fewer than MIN_INTERVAL_POINTS pairs, a constant side, or a coefficient of exactly +-1."""
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n = xs.size
    if n < MIN_INTERVAL_POINTS or np.ptp(xs) == 0 or np.ptp(ys) == 0:
        return {name: (None, None) for name in CORRELATIONS}
    coefficients = _coefficients(xs, ys)
    rho, r = coefficients["spearman"], coefficients["pearson"]
    return {
        "spearman": fisher_z_interval(rho, n, np.sqrt((1 + rho * rho / 2) / (n - 3)), ci_level),
        "pearson": fisher_z_interval(r, n, 1 / np.sqrt(n - 3), ci_level),
    }


def correlation_pvalues(x: Sequence[float], y: Sequence[float]) -> dict[str, tuple[float, bool]]:
    """Two-sided p-values of Spearman's rho and Pearson's r against no correlation, with
    whether each is exact: up to EXACT_PERMUTATION_POINTS pairs a permutation test over all n!
    pairings (scipy's pearsonr with a PermutationMethod, of the values and, for Spearman, of
    their average ranks, so ties are handled), else scipy's spearmanr and pearsonr
    (Student's t). Needs at least MIN_CORRELATION_POINTS pairs and neither side constant."""
    from scipy.stats import PermutationMethod, pearsonr, rankdata, spearmanr

    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if xs.size < MIN_CORRELATION_POINTS or np.ptp(xs) == 0 or np.ptp(ys) == 0:
        raise ValueError(
            f"no correlation of {xs.size} pairs with a constant side or fewer than {MIN_CORRELATION_POINTS}"
        )
    if xs.size > EXACT_PERMUTATION_POINTS:
        return {
            "spearman": (float(spearmanr(xs, ys).pvalue), False),
            "pearson": (float(pearsonr(xs, ys).pvalue), False),
        }
    every = PermutationMethod(n_resamples=np.inf)  # n! <= n_resamples: scipy runs every pairing
    return {
        "spearman": (float(pearsonr(rankdata(xs), rankdata(ys), method=every).pvalue), True),
        "pearson": (float(pearsonr(xs, ys, method=every).pvalue), True),
    }


def _grouped_inference(
    values: dict[str, float], groups: int, ci_level: float
) -> tuple[dict[str, tuple[float | None, bool]], dict[str, tuple[float | None, float | None]]]:
    """p-values (Student's t with groups - 2 degrees of freedom) and Fisher-z intervals of
    coefficients computed on every point, with the number of independent groups as n."""
    from scipy.stats import t as student

    pvalues: dict[str, tuple[float | None, bool]] = {}
    for name, r in values.items():
        if groups < MIN_CORRELATION_POINTS:
            pvalues[name] = (None, False)
        elif abs(r) >= _PERFECT:
            pvalues[name] = (0.0, False)
        else:
            pvalues[name] = (float(2 * student.sf(abs(r) * np.sqrt((groups - 2) / (1 - r * r)), groups - 2)), False)
    se = {
        "spearman": np.sqrt((1 + values["spearman"] ** 2 / 2) / max(groups - 3, 1)),
        "pearson": 1 / np.sqrt(max(groups - 3, 1)),
    }
    return pvalues, {name: fisher_z_interval(values[name], groups, se[name], ci_level) for name in CORRELATIONS}


def correlate(
    x: Sequence[float],
    y: Sequence[float],
    ci_level: float = CI_LEVEL,
    *,
    intervals: bool = True,
    groups: Sequence[str] | None = None,
) -> dict[str, Correlation]:
    """Spearman's rho and Pearson's r of paired values, each with its p-value
    (:func:`correlation_pvalues`) and, with `intervals`, its Fisher-z interval
    (:func:`correlation_intervals`). Fewer than MIN_CORRELATION_POINTS pairs or a constant
    side: nothing (nulls) with the reason in `note`; fewer than MIN_INTERVAL_POINTS, or a
    coefficient of exactly +-1: no interval, with the reason.

    `groups` labels points that are not independent of each other (one label per point):
    the coefficients use every point, but the p-value (Student's t) and the interval take
    the number of distinct labels as n. Every label distinct: the same as no groups."""
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n = xs.size
    clusters = n if groups is None else len(set(groups))
    if groups is not None and len(groups) != n:
        raise ValueError(f"{len(groups)} group labels for {n} points")
    if n < MIN_CORRELATION_POINTS:
        return {
            name: Correlation(None, None, None, None, note=f"{n} points, fewer than {MIN_CORRELATION_POINTS}")
            for name in CORRELATIONS
        }
    if np.ptp(xs) == 0 or np.ptp(ys) == 0:
        return {name: Correlation(None, None, None, None, note="a side is constant") for name in CORRELATIONS}
    values = _coefficients(xs, ys)
    if clusters == n:
        pvalues = correlation_pvalues(xs, ys)
        bounds = correlation_intervals(xs, ys, ci_level)
    else:
        pvalues, bounds = _grouped_inference(values, clusters, ci_level)
    if not intervals:
        bounds = {name: (None, None) for name in CORRELATIONS}
    unit = "points" if clusters == n else "groups"
    out = {}
    for name in CORRELATIONS:
        note = None
        if clusters < MIN_CORRELATION_POINTS:
            note = f"{clusters} {unit}: no p-value or interval below {MIN_CORRELATION_POINTS}"
        elif intervals and clusters < MIN_INTERVAL_POINTS:
            note = f"{clusters} {unit}: no interval below {MIN_INTERVAL_POINTS}"
        elif intervals and abs(values[name]) >= _PERFECT:
            note = f"{name} = {values[name]:+.0f}: no interval (Fisher z is infinite)"
        out[name] = Correlation(values[name], pvalues[name][0], *bounds[name], exact=pvalues[name][1], note=note)
    return out
