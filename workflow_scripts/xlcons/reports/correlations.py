"""Correlations of paired values for the reports that correlate two scores (translation quality, translation ability).

:func:`correlate` gives Spearman's rho and Pearson's r, each with its p-value and Fisher-z
interval: exact permutation p-values up to EXACT_PERMUTATION_POINTS points, no interval below
MIN_INTERVAL_POINTS points or for a coefficient of exactly +-1, nothing below
MIN_CORRELATION_POINTS points or with a constant side (the reason in `note`).

:func:`mantel` correlates two language × language matrices (a score per language pair or
direction against another): the cells share languages, so its p-value permutes the languages
of one matrix (Mantel / QAP), exactly over every relabelling up to N_PERMUTATIONS of them, and
it gives no interval.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from xlcons.reports.bootstrap import CI_LEVEL, N_PERMUTATIONS

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


# -- Correlations over language pairs: the Mantel test -------------------------------------------

MANTEL_NOTE = "Mantel p-value (languages permuted); no interval: pairs share languages"
_MANTEL_BLOCK = 2_000_000  # relabelled cells per block


def _row_ranks(values: np.ndarray) -> np.ndarray:
    """Average ranks within each row of `values` (P × m), NaN kept as NaN and left out of the ranking."""
    from scipy.stats import rankdata

    return np.asarray(rankdata(values, axis=1, nan_policy="omit"), dtype=float)


def _row_pearson(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pearson's r of each row of `a` with the same row of `b` (P × m), over the entries finite in both."""
    both = np.isfinite(a) & np.isfinite(b)
    a, b = np.where(both, a, 0.0), np.where(both, b, 0.0)
    count = both.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        da = np.where(both, a - (a.sum(axis=1) / count)[:, None], 0.0)
        db = np.where(both, b - (b.sum(axis=1) / count)[:, None], 0.0)
        r = (da * db).sum(axis=1) / np.sqrt((da * da).sum(axis=1) * (db * db).sum(axis=1))
    return np.clip(r, -1.0, 1.0)


def language_permutations(n_languages: int, n_permutations: int, rng: np.random.Generator) -> tuple[np.ndarray, bool]:
    """The relabellings of a Mantel test (P × L) and whether they are all of them: every one of
    the L! orders when L! <= n_permutations (the identity among them), else `n_permutations`
    random ones (rng.permuted of each row of aranges), the observed labelling not among them."""
    from itertools import permutations
    from math import factorial

    if factorial(n_languages) <= n_permutations:
        return np.array(list(permutations(range(n_languages))), dtype=np.intp).reshape(-1, n_languages), True
    order = np.tile(np.arange(n_languages, dtype=np.intp), (n_permutations, 1))
    return rng.permuted(order, axis=1), False


def mantel(
    x: np.ndarray,
    y: np.ndarray,
    *,
    symmetric: bool,
    n_permutations: int = N_PERMUTATIONS,
    rng: np.random.Generator,
) -> dict[str, Correlation]:
    """Spearman's rho and Pearson's r between two language × language matrices, with Mantel
    (QAP) permutation p-values that respect the languages the cells share.

    The points are the cells (i, j), i != j (`symmetric`: i < j, each unordered pair once), where
    both matrices have a finite value; the diagonal is ignored. The coefficients are those of
    :func:`correlate` on these points. Under the null of no relation between the matrices, the
    languages of one are exchangeable: the test relabels the rows and columns of `y` together
    (y[p_i, p_j]) and recomputes both coefficients on the cells then finite in both (Spearman:
    ranks recomputed when that set changes). Two-sided: the share of relabellings with
    |coefficient| >= the observed one (scipy's tie tolerance), exact over every relabelling when
    L! <= `n_permutations`, else ``(count + 1) / (n_permutations + 1)`` over random ones
    (:func:`language_permutations`). No interval: a Fisher-z interval on the cells would treat
    them as independent (they are not: every cell shares its languages with 2(L-2) others).
    Fewer than MIN_CORRELATION_POINTS cells or a constant side: nothing, with the reason in `note`."""
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if xs.ndim != 2 or xs.shape[0] != xs.shape[1] or xs.shape != ys.shape:
        raise ValueError(
            f"Mantel test: two square matrices of the same languages needed, not {xs.shape} and {ys.shape}"
        )
    languages = xs.shape[0]
    rows, columns = np.triu_indices(languages, 1) if symmetric else np.nonzero(~np.eye(languages, dtype=bool))
    observed_x, observed_y = xs[rows, columns], ys[rows, columns]
    used = np.isfinite(observed_x) & np.isfinite(observed_y)
    n = int(used.sum())
    if n < MIN_CORRELATION_POINTS:
        return {
            name: Correlation(None, None, None, None, note=f"{n} points, fewer than {MIN_CORRELATION_POINTS}")
            for name in CORRELATIONS
        }
    if np.ptp(observed_x[used]) == 0 or np.ptp(observed_y[used]) == 0:
        return {name: Correlation(None, None, None, None, note="a side is constant") for name in CORRELATIONS}
    values = _coefficients(observed_x[used], observed_y[used])
    orders, exact = language_permutations(languages, n_permutations, rng)
    same_cells = bool(np.isfinite(observed_x).all() and np.isfinite(observed_y).all())
    rank_x = rank_y = None
    if same_cells:  # every relabelling keeps every cell: the ranks are relabelled, not recomputed
        from scipy.stats import rankdata

        rank_x, rank_y = rankdata(observed_x), np.full_like(ys, np.nan)
        rank_y[rows, columns] = rankdata(observed_y)
        if symmetric:
            rank_y[columns, rows] = rank_y[rows, columns]
    parts: dict[str, list[np.ndarray]] = {name: [] for name in CORRELATIONS}
    step = max(1, _MANTEL_BLOCK // rows.size)
    for start in range(0, orders.shape[0], step):  # blocks of relabellings: memory bounded at many languages
        block = orders[start : start + step]
        permuted = ys[block[:, rows], block[:, columns]]  # relabellings × cells: y relabelled
        fixed = np.broadcast_to(observed_x, permuted.shape)
        if rank_x is not None and rank_y is not None:
            ranked = (np.broadcast_to(rank_x, permuted.shape), rank_y[block[:, rows], block[:, columns]])
        else:
            both = np.isfinite(fixed) & np.isfinite(permuted)
            ranked = (_row_ranks(np.where(both, fixed, np.nan)), _row_ranks(np.where(both, permuted, np.nan)))
        parts["spearman"].append(_row_pearson(*ranked))
        parts["pearson"].append(_row_pearson(fixed, permuted))
    null = {name: np.concatenate(found) for name, found in parts.items()}
    out = {}
    for name in CORRELATIONS:
        draws = null[name][np.isfinite(null[name])]
        gamma = abs(np.finfo(float).eps * 100 * values[name])
        count = np.count_nonzero(np.abs(draws) >= abs(values[name]) - gamma)
        p = count / draws.size if exact else (count + 1) / (draws.size + 1)
        out[name] = Correlation(values[name], float(min(1.0, p)), None, None, exact=exact, note=MANTEL_NOTE)
    return out
