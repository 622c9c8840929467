"""Correlations with few points (xlcons.reports.correlations.correlate): Fisher-z intervals whose
coverage holds at small n, exact permutation p-values, and no interval where none exists."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import pearsonr, spearmanr

from xlcons.reports.correlations import (
    MIN_INTERVAL_POINTS,
    correlate,
    correlation_intervals,
    correlation_pvalues,
    fisher_z_interval,
)

Q = 1.959963984540054  # the normal 97.5% quantile


@pytest.mark.parametrize("n", [5, 8, 12])
def test_under_no_correlation_the_95_interval_excludes_0_about_5_percent_of_the_time(n):
    """Independent normal x and y, 1000 samples per n (seed fixed): a 95% interval should
    exclude 0 in 5% of them. Tolerance 0.02 (about 2.9 binomial standard errors). The
    percentile bootstrap this replaces excluded 0 in 8.7%, 9.6% and 10.2% (Pearson) and
    12.4%, 4.4%, 4.3% (Spearman) at n = 5, 8, 12. Spearman's rho takes few values at small n,
    so its interval may only be conservative: at n = 5 no value but +-1 (no interval) is far
    enough from 0."""
    rng = np.random.default_rng(20240605 + n)
    samples = 1000
    excluded = {"pearson": 0, "spearman": 0}
    for _ in range(samples):
        x, y = rng.standard_normal(n), rng.standard_normal(n)
        for name, (low, high) in correlation_intervals(x, y).items():
            excluded[name] += low is not None and (low > 0 or high < 0)
    assert abs(excluded["pearson"] / samples - 0.05) <= 0.02, excluded
    assert excluded["spearman"] / samples <= 0.05 + 0.02, excluded


def test_three_monotone_points_have_no_interval_and_an_exact_p_value():
    """rho = 1 on 3 points: the old bootstrap said [1, 1]. Now no interval (3 < 5 points, and
    atanh(1) is infinite), and the p-value is exact: 2 of the 3! = 6 pairings reach |rho| = 1."""
    result = correlate([1.0, 2.0, 3.0], [2.0, 4.0, 9.0])
    spearman = result["spearman"]
    assert spearman.value == pytest.approx(1.0) and (spearman.ci_low, spearman.ci_high) == (None, None)
    assert spearman.p_value == pytest.approx(2 / 6) and spearman.exact
    assert spearman.note == "3 points: no interval below 5"
    assert correlation_intervals([1.0, 2.0, 3.0], [2.0, 4.0, 9.0]) == {
        "spearman": (None, None),
        "pearson": (None, None),
    }
    # Six monotone points: enough points, but rho = 1 still has no interval; p = 2 / 720.
    six = correlate([1, 2, 3, 4, 5, 6], [1, 4, 9, 16, 25, 36])["spearman"]
    assert six.ci_low is None and six.note.startswith("spearman = +1") and six.p_value == pytest.approx(2 / 720)


def test_fisher_z_intervals_against_hand_computed_values():
    # r = 0.5 on n = 7: z = atanh(0.5) = 0.549306, standard error 1 / sqrt(4) = 0.5:
    # tanh(0.549306 -/+ 0.979982) = tanh(-0.430676), tanh(1.529288) = -0.405886, 0.910303.
    low, high = fisher_z_interval(0.5, 7, 0.5)
    assert (low, high) == (pytest.approx(-0.405886, abs=1e-6), pytest.approx(0.910303, abs=1e-6))
    assert fisher_z_interval(1.0, 7, 0.5) == (None, None) and fisher_z_interval(0.5, MIN_INTERVAL_POINTS - 1, 0.5) == (
        None,
        None,
    )
    # Ranks 1..6 against 2 1 4 3 6 5: d^2 sums to 6, rho = 1 - 36 / 210 = 0.828571; Bonett and
    # Wright's standard error sqrt((1 + rho^2 / 2) / (6 - 3)).
    x, y = [1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 6, 5]
    rho = 1 - 36 / 210
    se = math.sqrt((1 + rho * rho / 2) / 3)
    intervals = correlation_intervals(x, y)
    expected = (math.tanh(math.atanh(rho) - Q * se), math.tanh(math.atanh(rho) + Q * se))
    assert intervals["spearman"] == (pytest.approx(expected[0]), pytest.approx(expected[1]))
    # Pearson's: the same as scipy's Fisher-z interval (standard error 1 / sqrt(n - 3)).
    reference = pearsonr(x, y).confidence_interval(0.95)
    assert intervals["pearson"] == (pytest.approx(reference.low), pytest.approx(reference.high))


def test_p_values_are_exact_up_to_eight_points_then_scipys():
    # Five points, x 1..5 against 2 1 3 5 4: rho = 1 - 6 * 4 / 120 = 0.8. Of the 120 pairings,
    # Sum d^2 <= 4 (rho >= 0.8) for the identity (0), 4 single swaps of neighbours (2) and the 3
    # pairs of disjoint neighbour swaps (4), and as many with rho <= -0.8: 16 / 120.
    result = correlate([1, 2, 3, 4, 5], [2, 1, 3, 5, 4])
    assert result["spearman"].value == pytest.approx(0.8)
    assert result["spearman"].p_value == pytest.approx(16 / 120) and result["spearman"].exact
    assert spearmanr([1, 2, 3, 4, 5], [2, 1, 3, 5, 4]).pvalue < 16 / 120, "Student's t is too liberal at n = 5"
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal(10), rng.standard_normal(10)
    pvalues = correlation_pvalues(x, y)
    assert pvalues["spearman"] == (pytest.approx(spearmanr(x, y).pvalue), False)
    assert pvalues["pearson"] == (pytest.approx(pearsonr(x, y).pvalue), False)


def test_points_in_groups_count_as_their_groups():
    """Twelve points in six pairs that share y: the coefficient uses every point; the interval
    and the p-value take n = 6 (Fisher z with standard error 1 / sqrt(3); Student's t with 4
    degrees of freedom). Distinct labels change nothing."""
    from scipy.stats import t

    x = [1.0, 1.5, 2.0, 2.2, 3.0, 3.1, 4.0, 4.8, 5.0, 5.5, 6.0, 6.1]
    y = [0.3, 0.3, 0.2, 0.2, 0.5, 0.5, 0.4, 0.4, 0.8, 0.8, 0.7, 0.7]
    grouped = correlate(x, y, groups=[str(i // 2) for i in range(12)])["pearson"]
    r = np.corrcoef(x, y)[0, 1]
    assert grouped.value == pytest.approx(r)
    assert (grouped.ci_low, grouped.ci_high) == (
        pytest.approx(math.tanh(math.atanh(r) - Q / math.sqrt(3))),
        pytest.approx(math.tanh(math.atanh(r) + Q / math.sqrt(3))),
    )
    assert grouped.p_value == pytest.approx(2 * t.sf(r * math.sqrt(4 / (1 - r * r)), 4))
    assert correlate(x, y, groups=[str(i) for i in range(12)]) == correlate(x, y)
    with pytest.raises(ValueError, match="11 group labels for 12 points"):
        correlate(x, y, groups=["a"] * 11)
