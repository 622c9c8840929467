"""Percentile bootstrap intervals over items, score intervals of rates, and the generator each table row draws with.

Used by the results table (xlcons.reports.results) and the paired model comparisons
(xlcons.reports.comparison):

Confidence interval
    percentile bootstrap over items (``n_resamples`` resamples of a cell's items with
    replacement, the 2.5% and 97.5% quantiles with numpy's linear interpolation, as
    scipy's ``bootstrap(method="percentile")``). Several means of one cell (the inputs of a
    derived metric) are resampled *jointly*: every mean of one resample comes from the same
    drawn items (a drawn item without a score for an input adds nothing to that input's
    mean; a resample in which an input has no scored item at all is left out of the
    quantiles). Null with 0 resamples or fewer than two items.
Random numbers
    each row has its own generator, ``cell_rng(seed, *key)``, seeded by a stable hash of the
    row's key, so a row's interval does not depend on which other rows the table holds.
Small samples (the paired comparisons)
    :func:`expanded_percentile_interval`: the percentile interval at widened quantiles
    (Hesterberg 2015), whose coverage holds at 20 items where the percentile interval's
    does not (see docs/validation.md).
Rates of binary outcomes
    :func:`wilson_interval`: Wilson's score interval of k successes in n
    (``scipy.stats.binomtest(k, n).proportion_ci(method="wilson")``), which a percentile
    bootstrap of a 0/1 mean is not: at 5 of 5 every resample is 5 of 5 and the bootstrap
    claims [1, 1]; Wilson's interval is never of zero width for n >= 1.
Several translators
    :func:`paired_intervals` draws once over the union of the item ids the translators
    scored, and each translator's means take its own scores of the drawn ids.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence

import numpy as np

CI_LEVEL = 0.95
N_RESAMPLES = 1000
N_PERMUTATIONS = 10_000  # the random permutations of a permutation test (paired comparisons, Mantel)


def cell_rng(seed: int, *key: str) -> np.random.Generator:
    """The generator of one table row: seeded by `seed` and a stable hash of the row's key."""
    digest = zlib.crc32("\x1f".join(key).encode("utf-8"))
    return np.random.default_rng([int(seed) % 2**63, digest])


def wilson_interval(successes: int, n: int, ci_level: float = CI_LEVEL) -> tuple[float | None, float | None]:
    """Wilson's score interval of a rate of `successes` in `n` binary outcomes; None, None for n = 0."""
    from scipy.stats import binomtest

    if n <= 0:
        return None, None
    interval = binomtest(int(successes), int(n)).proportion_ci(confidence_level=ci_level, method="wilson")
    return float(interval.low), float(interval.high)


def resampled_means(values: np.ndarray, mask: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Means of each column of `values` (n × k) over its `mask`ed items, per row of `indices` (B × n): B × k.

    NaN where a resample drew no scored item of a column.
    """
    means = np.empty((indices.shape[0], values.shape[1]))
    for column in range(values.shape[1]):
        scored = np.ascontiguousarray(mask[:, column])
        weighted = np.where(scored, values[:, column], 0.0)
        sums: np.ndarray = np.take(weighted, indices).sum(axis=1)
        if scored.all():
            means[:, column] = sums / indices.shape[1]
            continue
        counts: np.ndarray = np.take(scored.astype(np.float64), indices).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            means[:, column] = sums / counts
    return means


def percentile_interval(samples: np.ndarray, ci_level: float = CI_LEVEL) -> tuple[float | None, float | None]:
    """The (1-level)/2 and (1+level)/2 quantiles of the finite samples (linear interpolation); None when none."""
    samples = np.asarray(samples, dtype=float)
    samples = samples[np.isfinite(samples)]
    if samples.size == 0:
        return None, None
    alpha = 1.0 - ci_level
    low, high = np.quantile(samples, [alpha / 2, 1 - alpha / 2])
    return float(low), float(high)


def expanded_percentile_interval(
    samples: np.ndarray, n: int, groups: int = 1, ci_level: float = CI_LEVEL
) -> tuple[float | None, float | None]:
    """Hesterberg's expanded percentile interval (2015, "What teachers should know about the
    bootstrap", section 5.2): the bootstrap quantiles at Phi(-+ q), q = sqrt(n/df) * t_df the
    Student (1+level)/2 quantile with df = n - `groups` degrees of freedom (`n` items in `groups`
    strata, each resampled within itself; Hesterberg's n - 1 for one). It widens the percentile
    interval by what its two small-sample errors cost: the bootstrap's variance is the plug-in
    one, (n-1)/n of the unbiased, and its quantiles are normal ones, not Student's. At 20 items
    a 95% interval takes the 1.59% and 98.41% quantiles; it tends to the percentile interval as n
    grows. None, None where df < 1 or no sample is finite."""
    from scipy.special import ndtr
    from scipy.stats import t as student

    df = n - groups
    if df < 1:
        return None, None
    q = float(np.sqrt(n / df) * student.ppf((1 + ci_level) / 2, df))
    return percentile_interval(samples, 1.0 - 2.0 * float(ndtr(-q)))


def bootstrap_interval(
    values: np.ndarray,
    mask: np.ndarray,
    function: Callable[..., np.ndarray] | None,
    n_resamples: int,
    rng: np.random.Generator,
    ci_level: float = CI_LEVEL,
) -> tuple[float | None, float | None]:
    """Percentile CI of `function(*column means)` (the single column's mean when None), items resampled jointly."""
    n = values.shape[0]
    if n_resamples <= 0 or n < 2:
        return None, None
    indices = rng.integers(0, n, size=(n_resamples, n))
    means = resampled_means(values, mask, indices)
    samples = means[:, 0] if function is None else function(*means.T)
    return percentile_interval(samples, ci_level)


def paired_intervals(
    members: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]],
    function: Callable[..., np.ndarray] | None,
    n_resamples: int,
    rng: np.random.Generator,
    ci_level: float = CI_LEVEL,
) -> list[tuple[float | None, float | None]]:
    """:func:`bootstrap_interval` of one cell under several translators, paired by item id.

    Each member is (item ids, values n × k, mask n × k) of one translator. The resamples draw
    from the union of their item ids (sorted), ``rng.integers(0, N, size=(n_resamples, N))``
    once for all members, and each member's means take its own rows of the drawn ids (a drawn
    id it has no row for adds nothing; a resample in which it has no scored item is left out).
    One member: exactly :func:`bootstrap_interval` of its own items. A member with fewer than
    two items has no interval."""
    if len(members) == 1:
        _, values, mask = members[0]
        return [bootstrap_interval(values, mask, function, n_resamples, rng, ci_level)]
    union = np.unique(np.concatenate([np.asarray(ids, dtype=str) for ids, _, _ in members]))
    if n_resamples <= 0 or union.size < 2:
        return [(None, None)] * len(members)
    indices = rng.integers(0, union.size, size=(n_resamples, union.size))
    intervals: list[tuple[float | None, float | None]] = []
    for ids, values, mask in members:
        if len(ids) < 2:
            intervals.append((None, None))
            continue
        at = np.searchsorted(union, np.asarray(ids, dtype=str))
        spread = np.full((union.size, values.shape[1]), np.nan)
        spread[at] = values
        present = np.zeros((union.size, values.shape[1]), dtype=bool)
        present[at] = mask
        means = resampled_means(spread, present, indices)
        intervals.append(percentile_interval(means[:, 0] if function is None else function(*means.T), ci_level))
    return intervals
