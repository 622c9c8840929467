"""Paired comparison of two models on the same items: bootstrap CI of the difference, permutation p-value.

Input: ITEM_SCORES (xlcons.reports.results) of both models. Items are paired on
(item_id, lang) within a (dataset, evaluator, metric). For an item-mean metric a pair
is kept when both models scored the item (status ``ok``), and the statistic is the mean
over pairs of value_a - value_b. A derived metric (e.g. information F) keeps an item when
each model scored at least one of its inputs (the items the results table counts for it),
and its statistic is ``f(means of model a) - f(means of model b)`` with each input mean
over that model's scored items of the pairs. ``n_items`` counts the pairs, for every metric
alike; a language that either model has rows of but where no item pairs (the other model
gave no answer there, say) gets a row with ``n_items`` 0, ``n_languages`` 0 and no values.

Per language, and ``pooled`` over every language but the reference (the mean over
languages of the per-language differences: the difference of the two models' ``Avg``
in the group table when every language pairs the same items):

Confidence interval
    paired bootstrap: the items of each language are resampled with replacement (the same
    drawn items for both models; per language, stratified when pooled), ``n_resamples``
    times; the interval is Hesterberg's expanded percentile interval over n items in S
    languages (xlcons.reports.bootstrap.expanded_percentile_interval: quantiles at
    Phi(-+sqrt(n/(n-S)) t_{n-S}), 1.59% and 98.41% at 20 items in one language), because the
    plain percentile interval covers too little at small n (92.1-92.8% for a 95% interval at 20
    items, skewed or F-type scores, no difference; 94.3-94.6% expanded; BCa, tried, 91.8-92.6%:
    docs/validation.md). None where every language has one item (n - S < 1).
p-value
    two-sided paired permutation test: under the null the two models' scores of an item
    are exchangeable, so each resample swaps them on a random subset of the items (for a
    mean metric: flips the sign of the item's difference). Exact (all 2^n swaps) when
    ``n_permutations >= 2^n``, as ``scipy.stats.permutation_test(permutation_type=
    "samples")`` does; otherwise ``n_permutations`` random swaps and scipy's
    ``(count + 1) / (n_permutations + 1)``. Two-sided is twice the smaller one-sided
    p-value, clipped at 1, with scipy's tolerance for ties. Identical scores give p = 1.
Random numbers
    one generator per row, ``cell_rng(seed, "compare", dataset, evaluator, metric, lang,
    model_a, model_b)``: first the bootstrap indices of each language (in lang order, one
    ``integers(0, n_l, size=(n_resamples, n_l))`` call each), then the swaps over all the
    row's items in (lang, item_id) order (:func:`random_swaps`, in blocks of rows).
Multiple comparisons
    ``p_holm`` and ``p_bh`` adjust ``p_value`` within its family (:data:`FAMILY`): every row
    of one model pair in one (dataset, evaluator, translator), i.e. every metric, every
    language and the pooled row, ``n_tests`` p-values (rows without one are left out).
    Holm's step-down method controls the family-wise error rate under any dependence
    between the tests; Benjamini-Hochberg (``scipy.stats.false_discovery_control``) the
    false discovery rate, under independence or positive dependence of the tests (these
    share items, and a derived metric shares its inputs). :func:`adjust_pvalues` recomputes
    them for any other grouping of rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import polars as pl
import pyarrow as pa

from xlcons.derived_metrics import DerivedMetric
from xlcons.reports.bootstrap import (
    CI_LEVEL,
    N_PERMUTATIONS,
    N_RESAMPLES,
    cell_rng,
    expanded_percentile_interval,
    resampled_means,
)
from xlcons.reports.results import item_scores_frame
from xlcons.schemas import COMPARISONS, ITEM_STATUS_OK, POOLED

# The family of a comparison's p-value: the tests of one model pair in one data set, evaluator
# and translator (all metrics, all languages and the pooled row).
FAMILY = ["dataset", "evaluator", "translator", "model_a", "model_b"]
_BLOCK = 2_000_000  # swap matrix entries per block


def _identity(mean: np.ndarray) -> np.ndarray:
    return mean


@dataclass
class PairedItems:
    """One language's paired items: values and scored-masks (n × k) of both models."""

    va: np.ndarray
    ma: np.ndarray
    vb: np.ndarray
    mb: np.ndarray

    @classmethod
    def from_values(cls, a, b) -> PairedItems:
        """Two models' scores of the same items (1-D, or n × k for a derived metric's inputs); NaN = not scored."""
        va, vb = (np.asarray(x, dtype=float).reshape(len(x), -1) for x in (a, b))
        return cls(va, np.isfinite(va), vb, np.isfinite(vb))

    @property
    def n(self) -> int:
        return self.va.shape[0]


def _means(sums: np.ndarray, counts: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return sums / counts


def _statistic(strata: Sequence[PairedItems], function: Callable) -> tuple[float, float, float]:
    """(value_a, value_b, difference), each the mean over strata."""
    a, b = [], []
    for s in strata:
        a.append(function(*_means(np.where(s.ma, s.va, 0).sum(0), s.ma.sum(0))))
        b.append(function(*_means(np.where(s.mb, s.vb, 0).sum(0), s.mb.sum(0))))
    a, b = np.array(a, dtype=float), np.array(b, dtype=float)
    return float(np.mean(a)), float(np.mean(b)), float(np.mean(a - b))


def _bootstrap(
    strata: Sequence[PairedItems], function: Callable, n_resamples: int, rng: np.random.Generator
) -> np.ndarray:
    total = np.zeros(n_resamples)
    for s in strata:
        indices = rng.integers(0, s.n, size=(n_resamples, s.n))
        a = function(*resampled_means(s.va, s.ma, indices).T)
        b = function(*resampled_means(s.vb, s.mb, indices).T)
        total += a - b
    return total / len(strata)


def _swap_null(strata: Sequence[PairedItems], function: Callable, swaps: np.ndarray) -> np.ndarray:
    """The statistic with model a's and b's scores exchanged where `swaps` (P × n, all strata's items) is True."""
    total = np.zeros(swaps.shape[0])
    offset = 0
    for s in strata:
        block: np.ndarray = swaps[:, offset : offset + s.n].astype(np.float64)
        offset += s.n
        wa, wb = np.where(s.ma, s.va, 0.0), np.where(s.mb, s.vb, 0.0)
        ma: np.ndarray = s.ma.astype(np.float64)
        mb: np.ndarray = s.mb.astype(np.float64)
        k = wa.shape[1]
        moved = block @ np.hstack([wb - wa, mb - ma])  # what the swapped items move from b to a: sums, counts
        a = _means(wa.sum(0) + moved[:, :k], ma.sum(0) + moved[:, k:])
        b = _means(wb.sum(0) - moved[:, :k], mb.sum(0) - moved[:, k:])
        total += function(*a.T) - function(*b.T)
    return total / len(strata)


def random_swaps(rng: np.random.Generator, rows: int, n: int) -> np.ndarray:
    """`rows` × `n` fair coin flips (True: swap), 8 from each random byte: unpackbits of
    integers(0, 256, (rows, ceil(n/8)), uint8)."""
    packed = rng.integers(0, 256, size=(rows, (n + 7) // 8), dtype=np.uint8)
    return np.unpackbits(packed, axis=1, count=n).astype(bool)


def _pvalue(null: np.ndarray, observed: float, exact: bool) -> float:
    """scipy.stats.permutation_test's two-sided p-value (its tie tolerance and +1 adjustment)."""
    null = null[np.isfinite(null)]
    if null.size == 0 or not np.isfinite(observed):
        return None
    adjustment = 0 if exact else 1
    gamma = abs(np.finfo(float).eps * 100 * observed)
    less = (np.count_nonzero(null <= observed + gamma) + adjustment) / (null.size + adjustment)
    greater = (np.count_nonzero(null >= observed - gamma) + adjustment) / (null.size + adjustment)
    return float(min(1.0, 2 * min(less, greater)))


def paired_test(
    strata: Sequence[PairedItems],
    function: Callable = _identity,
    *,
    n_resamples: int = N_RESAMPLES,
    n_permutations: int = N_PERMUTATIONS,
    rng: np.random.Generator,
    ci_level: float = CI_LEVEL,
) -> dict:
    """value_a, value_b, difference, ci_low, ci_high, p_value, n_permutations, exact for paired strata."""
    n = sum(s.n for s in strata)
    value_a, value_b, difference = _statistic(strata, function)
    result = {
        "value_a": value_a,
        "value_b": value_b,
        "difference": difference,
        "ci_low": None,
        "ci_high": None,
        "p_value": None,
        "n_permutations": 0,
        "exact": False,
    }
    for name in ("value_a", "value_b", "difference"):
        if not np.isfinite(result[name]):
            result[name] = None
    if n == 0:
        return result
    if n_resamples > 0 and n >= 2:
        result["ci_low"], result["ci_high"] = expanded_percentile_interval(
            _bootstrap(strata, function, n_resamples, rng), n, len(strata), ci_level
        )
    if n_permutations > 0 and result["difference"] is not None:
        exact = n < 63 and 2**n <= n_permutations
        blocks: Iterable[np.ndarray]  # P × n swap masks: one array when exact, else lazily drawn
        if exact:
            count = 2**n
            codes = np.arange(count, dtype=np.int64)[:, None]
            blocks = [((codes >> np.arange(n)) & 1).astype(bool)]
        else:
            count = n_permutations
            step = max(1, _BLOCK // n)
            blocks = (random_swaps(rng, min(step, count - start), n) for start in range(0, count, step))
        null = np.concatenate([_swap_null(strata, function, swaps) for swaps in blocks])
        result.update(p_value=_pvalue(null, difference, exact), n_permutations=count, exact=exact)
    return result


def holm(pvalues: Sequence[float]) -> np.ndarray:
    """Holm's adjusted p-values: the i-th smallest of m times (m - i + 1), made non-decreasing
    in that order and capped at 1 (reject at level a where the adjusted p-value <= a)."""
    p = np.asarray(pvalues, dtype=float)
    order = np.argsort(p, kind="stable")
    stepped = np.minimum(1.0, np.maximum.accumulate(p[order] * (p.size - np.arange(p.size))))
    adjusted = np.empty_like(p)
    adjusted[order] = stepped
    return adjusted


def adjust_pvalues(table: pl.DataFrame, family: Sequence[str] = FAMILY) -> pl.DataFrame:
    """`table` (COMPARISONS rows) with `p_holm`, `p_bh` (Benjamini-Hochberg,
    scipy.stats.false_discovery_control) and `n_tests` recomputed per `family` group: over the
    group's rows that have a p-value (the others get nulls; `n_tests` counts them)."""
    from scipy.stats import false_discovery_control

    holm_p, bh_p = np.full(table.height, np.nan), np.full(table.height, np.nan)
    n_tests = np.zeros(table.height, dtype=np.int64)
    indexed = table.with_row_index("_row").with_columns(pl.col("p_value").cast(pl.Float64).fill_null(np.nan))
    for _, part in indexed.group_by(list(family)):
        rows, p = part["_row"].to_numpy(), part["p_value"].to_numpy()
        tested = np.isfinite(p)
        n_tests[rows] = tested.sum()
        if tested.any():
            holm_p[rows[tested]] = holm(p[tested])
            bh_p[rows[tested]] = false_discovery_control(p[tested], method="bh")
    return table.with_columns(
        pl.Series("p_holm", holm_p).fill_nan(None),
        pl.Series("p_bh", bh_p).fill_nan(None),
        pl.Series("n_tests", n_tests).cast(pl.Int32),
    )


def _aligned(frame: pl.DataFrame, model: str, inputs: Sequence[str]) -> pl.DataFrame:
    """lang, item_id and one column per input: the score, null when excluded or absent."""
    part = frame.filter((pl.col("model") == model) & pl.col("metric").is_in(list(inputs)))
    part = part.with_columns(score=pl.when(pl.col("status") == ITEM_STATUS_OK).then(pl.col("value")))
    wide = part.pivot(on="metric", index=["lang", "item_id"], values="score", aggregate_function="first")
    for name in inputs:
        if name not in wide.columns:
            wide = wide.with_columns(pl.lit(None, dtype=pl.Float64).alias(name))
    return wide.select(["lang", "item_id", *inputs])


def compare_models(
    item_scores: pa.Table | pl.DataFrame,
    model_a: str,
    model_b: str,
    *,
    derived: Sequence[DerivedMetric] = (),
    metrics: Sequence[str] | None = None,
    reference: str | None = "en",
    pooled: bool = True,
    n_resamples: int = N_RESAMPLES,
    n_permutations: int = N_PERMUTATIONS,
    seed: int = 0,
    ci_level: float = CI_LEVEL,
) -> pl.DataFrame:
    """COMPARISONS rows of model_a - model_b per (dataset, evaluator, translator, metric, lang)
    and pooled over languages, with the p-values adjusted per FAMILY.

    `metrics` restricts the item-level metrics compared (None: all; `derived` ones are
    always added where their inputs exist).
    """
    frame = item_scores_frame(item_scores)
    frame = frame.filter(pl.col("model").is_in([model_a, model_b]))
    rows = []
    for (dataset, evaluator, translator), part in frame.group_by(
        ["dataset", "evaluator", "translator"], maintain_order=True
    ):
        present = part["metric"].unique(maintain_order=True).to_list()
        plans: list[tuple[str, list[str], Callable]] = [
            (m, [m], _identity) for m in present if metrics is None or m in metrics
        ]
        for d in derived:
            if (d.evaluators is None or evaluator in d.evaluators) and all(name in present for name in d.inputs):
                plans.append((d.name, list(d.inputs), d.function))
        for name, inputs, function in plans:
            joined = _aligned(part, model_a, inputs).join(
                _aligned(part, model_b, inputs), on=["lang", "item_id"], how="inner", suffix="__b"
            )
            # paired: both models scored the item (a derived metric: at least one of its inputs each)
            joined = joined.filter(
                pl.any_horizontal(pl.col(inputs).is_not_null())
                & pl.any_horizontal(pl.col([f"{i}__b" for i in inputs]).is_not_null())
            )
            joined = joined.sort(["lang", "item_id"])
            # every language either model has rows of: one without a paired item gets a row with n_items 0
            languages = sorted(set(part.filter(pl.col("metric").is_in(inputs))["lang"].to_list()))
            strata = {lang: PairedItems(*(np.empty((0, len(inputs))),) * 4) for lang in languages}
            for (lang,), group in joined.group_by(["lang"], maintain_order=True):
                va = group.select(inputs).fill_null(np.nan).to_numpy().astype(float)
                vb = group.select([f"{i}__b" for i in inputs]).fill_null(np.nan).to_numpy().astype(float)
                strata[lang] = PairedItems(va, np.isfinite(va), vb, np.isfinite(vb))
            cases = [(lang, [stratum] if stratum.n else []) for lang, stratum in strata.items()]
            if pooled:
                cases.append((POOLED, [s for lang, s in strata.items() if lang != reference and s.n]))
            for lang, chosen in cases:
                rng = cell_rng(seed, "compare", dataset, evaluator, name, lang, model_a, model_b)
                if chosen:
                    result = paired_test(
                        chosen,
                        function,
                        n_resamples=n_resamples,
                        n_permutations=n_permutations,
                        rng=rng,
                        ci_level=ci_level,
                    )
                else:
                    result = {
                        "value_a": None,
                        "value_b": None,
                        "difference": None,
                        "ci_low": None,
                        "ci_high": None,
                        "p_value": None,
                        "n_permutations": 0,
                        "exact": False,
                    }
                rows.append(
                    {
                        "dataset": dataset,
                        "evaluator": evaluator,
                        "translator": translator,
                        "metric": name,
                        "lang": lang,
                        "model_a": model_a,
                        "model_b": model_b,
                        "n_items": sum(s.n for s in chosen),
                        "n_languages": len(chosen),
                        **result,
                        "p_holm": None,  # set per family below
                        "p_bh": None,
                        "n_tests": 0,
                        "n_resamples": int(n_resamples),
                        "ci_level": float(ci_level),
                    }
                )
    if not rows:
        return pl.from_arrow(COMPARISONS.empty_table())
    return sort_comparisons(adjust_pvalues(pl.from_arrow(pa.Table.from_pylist(rows, schema=COMPARISONS))))


def sort_comparisons(table: pl.DataFrame) -> pl.DataFrame:
    """COMPARISONS rows in their written order: by data set, evaluator, translator, model_a,
    model_b, metric and language (the pooled row after the languages), whatever the order of
    the configured pairs or of the item scores."""
    pooled_last = pl.col("lang") == POOLED
    return table.sort([*FAMILY, "metric", pooled_last, "lang"])


def compare_pairs(
    item_scores: pa.Table | pl.DataFrame,
    pairs: Sequence[tuple[str, str]] | None = None,
    **options,
) -> pl.DataFrame:
    """`compare_models` for each (model_a, model_b) of `pairs` (None: every pair of models, by name: a < b)."""
    frame = item_scores_frame(item_scores)
    if pairs is None:
        pairs = list(combinations(sorted(frame["model"].unique().to_list()), 2))
    tables = [compare_models(frame, a, b, **options) for a, b in pairs]
    return sort_comparisons(pl.concat(tables)) if tables else pl.from_arrow(COMPARISONS.empty_table())
