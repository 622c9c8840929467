"""Per-item scores to one long results table with 95% bootstrap confidence intervals.

The input is the evaluator-independent ITEM_SCORES table (one row per data set,
evaluator, model, item, language and metric; see xlcons.schemas). Each evaluator gets a
small adapter to it; the metric names are the adapter's, e.g.

- information consistency (Gupta et al. 2025): `precision`, `recall`, `f1` per item, and the
  derived `F` (:data:`xlcons.evaluators.information.tables.INFORMATION_F`), the harmonic mean
  of mean precision and mean recall;
- empathy consistency: `consistency` (0/1: all three mechanisms agree) and `ER`, `IP`,
  `EX` (0/1 agreement of one mechanism);
- MultiQ: `fidelity_same`, `fidelity_english` (0/1) and `accuracy` (yes = 1, no = 0).

An item whose `status` is not ``ok`` is excluded from every mean it would enter, and
counted with its reason. :func:`results_table` gives one row per (data set, evaluator,
model, language, metric) in the RESULTS schema:

Value
    ``mean``: the mean over the scored items; ``derived``: ``function(mean_1, ..., mean_k)``
    of its input metrics, each mean over that input's own scored items (so it equals the
    function of the inputs' rows). A cell gets a derived row only when it has rows of
    every input.
Confidence interval
    percentile bootstrap over items (``n_resamples`` resamples of the cell's items with
    replacement, the 2.5% and 97.5% quantiles with numpy's linear interpolation, as
    scipy's ``bootstrap(method="percentile")``). A derived metric resamples the union of
    the items of its inputs *jointly*: every input mean of one resample comes from the
    same drawn items (a drawn item without a score for an input adds nothing to that
    input's mean; a resample in which an input has no scored item at all is left out of
    the quantiles). Null with 0 resamples or fewer than two items.
Random numbers
    each row has its own generator, ``cell_rng(seed, dataset, evaluator, model, lang,
    metric)``, drawing all indices in one call ``rng.integers(0, n, size=(n_resamples,
    n))`` over the row's items sorted by item_id; so a row's interval does not depend on
    which other models, languages or metrics the table holds.
Several translators
    the generator is seeded without the translator, and a cell's rows under several
    translators are paired by item id (:func:`paired_intervals`): the draws are over the
    union of the item ids they scored, once for all of them, and each translator's means
    take its own scores of the drawn ids. With one translator, or when every translator
    scored the same items, this is the plain bootstrap above.
Correlations
    :func:`correlate` (used by the reports that correlate two scores): Fisher-z intervals,
    exact permutation p-values at small n, no interval below MIN_INTERVAL_POINTS points or
    for a coefficient of exactly +-1.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa

from xlcons.atomic import atomic_path
from xlcons.derived_metrics import DerivedMetric
from xlcons.schemas import ITEM_SCORES, ITEM_STATUS_OK, NO_TRANSLATOR, RESULTS
from xlcons.tables import SchemaError, conform, read_table, write_table

CELL_KEYS = ["dataset", "evaluator", "translator", "model", "lang"]
RESULT_KEYS = [*CELL_KEYS, "metric"]
# The row orders of the tables written: by key, never by the order of the config, the input
# files or a hash (docs/results.md lists them), so the same inputs give the same bytes.
ITEM_SCORES_ORDER = [*CELL_KEYS, "metric", "item_id"]
_KIND_ORDER = {"mean": 0, "derived": 1, "corpus": 2}
# What seeds a row's resampling: its key without the translator, so the same (data set,
# evaluator, model, language, metric) under two translators draws the same item ids (paired).
_RNG_CELL_KEYS = [key for key in CELL_KEYS if key != "translator"]
_RNG_KEYS = [*_RNG_CELL_KEYS, "metric"]
CI_LEVEL = 0.95
N_RESAMPLES = 1000


# -- Derived metrics ------------------------------------------------------------------


# -- Input ----------------------------------------------------------------------------


def item_scores_frame(table: pa.Table | pl.DataFrame) -> pl.DataFrame:
    """ITEM_SCORES as a polars frame, checked: unique keys, and a finite value on every `ok` row."""
    frame = with_translator(table if isinstance(table, pl.DataFrame) else pl.from_arrow(table))
    frame = pl.from_arrow(conform(frame.to_arrow(), ITEM_SCORES, what="item scores"))
    ok = pl.col("status") == ITEM_STATUS_OK
    bad = frame.filter(ok & (pl.col("value").is_null() | ~pl.col("value").is_finite()))
    if bad.height:
        raise SchemaError(
            f"item scores: {bad.height} rows have status 'ok' but no finite value, e.g. {bad.row(0, named=True)}"
        )
    duplicated = frame.filter(pl.struct([*RESULT_KEYS, "item_id"]).is_duplicated())
    if duplicated.height:
        raise SchemaError(
            f"item scores: {duplicated.height} rows repeat a (dataset, evaluator, "
            f"translator, model, lang, metric, item_id), e.g. {duplicated.row(0, named=True)}"
        )
    return frame


def with_translator(frame: pl.DataFrame, translator: str = NO_TRANSLATOR) -> pl.DataFrame:
    """`frame` with a `translator` column: kept where it has one (an empty cell read as
    `translator`), else `translator` on every row (the default: rows under no translator)."""
    if "translator" in frame.columns:
        return frame.with_columns(pl.col("translator").cast(pl.String).fill_null(translator))
    return frame.with_columns(pl.lit(translator, dtype=pl.String).alias("translator"))


def primary_rows(frame: pl.DataFrame, primary: str | None) -> pl.DataFrame:
    """The rows under the primary translator and those under none: what the tables and figures
    made for one translator show when `translators` adds more (None: every row)."""
    if primary is None or "translator" not in frame.columns:
        return frame
    return frame.filter(pl.col("translator").is_in([primary, NO_TRANSLATOR]))


def read_item_scores(paths: Sequence[Path | str]) -> pa.Table:
    """Concatenate ITEM_SCORES files (one per evaluator and model, say)."""
    tables = [read_table(path, ITEM_SCORES) for path in paths]
    return pa.concat_tables(tables) if tables else ITEM_SCORES.empty_table()


# -- Bootstrap ------------------------------------------------------------------------


def cell_rng(seed: int, *key: str) -> np.random.Generator:
    """The generator of one table row: seeded by `seed` and a stable hash of the row's key."""
    digest = zlib.crc32("\x1f".join(key).encode("utf-8"))
    return np.random.default_rng([int(seed) % 2**63, digest])


def resampled_means(values: np.ndarray, mask: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Means of each column of `values` (n × k) over its `mask`ed items, per row of `indices` (B × n): B × k.

    NaN where a resample drew no scored item of a column.
    """
    means = np.empty((indices.shape[0], values.shape[1]))
    for column in range(values.shape[1]):
        scored = np.ascontiguousarray(mask[:, column])
        weighted = np.where(scored, values[:, column], 0.0)
        sums = np.take(weighted, indices).sum(axis=1)
        if scored.all():
            means[:, column] = sums / indices.shape[1]
            continue
        counts = np.take(scored.astype(np.float64), indices).sum(axis=1)
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


# -- Correlations ---------------------------------------------------------------------

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
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n = x.size
    if n < MIN_INTERVAL_POINTS or np.ptp(x) == 0 or np.ptp(y) == 0:
        return {name: (None, None) for name in CORRELATIONS}
    coefficients = _coefficients(x, y)
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

    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.size < MIN_CORRELATION_POINTS or np.ptp(x) == 0 or np.ptp(y) == 0:
        raise ValueError(
            f"no correlation of {x.size} pairs with a constant side or fewer than {MIN_CORRELATION_POINTS}"
        )
    if x.size > EXACT_PERMUTATION_POINTS:
        return {"spearman": (float(spearmanr(x, y).pvalue), False), "pearson": (float(pearsonr(x, y).pvalue), False)}
    every = PermutationMethod(n_resamples=np.inf)  # n! <= n_resamples: scipy runs every pairing
    return {
        "spearman": (float(pearsonr(rankdata(x), rankdata(y), method=every).pvalue), True),
        "pearson": (float(pearsonr(x, y, method=every).pvalue), True),
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
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n = x.size
    clusters = n if groups is None else len(set(groups))
    if groups is not None and len(groups) != n:
        raise ValueError(f"{len(groups)} group labels for {n} points")
    if n < MIN_CORRELATION_POINTS:
        return {
            name: Correlation(None, None, None, None, note=f"{n} points, fewer than {MIN_CORRELATION_POINTS}")
            for name in CORRELATIONS
        }
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return {name: Correlation(None, None, None, None, note="a side is constant") for name in CORRELATIONS}
    values = _coefficients(x, y)
    if clusters == n:
        pvalues = correlation_pvalues(x, y)
        bounds = correlation_intervals(x, y, ci_level)
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


# -- The results table ----------------------------------------------------------------


def _reasons(statuses: Iterable[str]) -> str | None:
    counts: dict[str, int] = {}
    for status in statuses:
        counts[status] = counts.get(status, 0) + 1
    if not counts:
        return None
    return "; ".join(
        f"{reason}:{count}" for reason, count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    )


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
    intervals = []
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


def _by_rng_key(keys: list[dict], rng_keys: Sequence[str]) -> list[list[int]]:
    """Positions of `keys` grouped by their values of `rng_keys` (runs of equal keys: `keys` sorted so)."""
    groups: list[list[int]] = []
    last = None
    for position, key in enumerate(keys):
        current = tuple(key[k] for k in rng_keys)
        if current != last:
            groups.append([])
            last = current
        groups[-1].append(position)
    return groups


def _mean_rows(frame: pl.DataFrame, n_resamples: int, seed: int, ci_level: float) -> list[dict]:
    rows = []
    frame = frame.sort([*_RNG_KEYS, "translator", "item_id"])  # a cell's translators next to each other
    values = frame["value"].fill_null(np.nan).to_numpy()
    ok = (frame["status"] == ITEM_STATUS_OK).to_numpy()
    statuses = frame["status"].to_list()
    item_ids = frame["item_id"].to_numpy()
    bounds = list(
        frame.with_row_index("row")
        .group_by(RESULT_KEYS, maintain_order=True)
        .agg(start=pl.col("row").first(), length=pl.len())
        .iter_rows(named=True)
    )
    for group in _by_rng_key(bounds, _RNG_KEYS):
        members, scored_values = [], []
        for key in (bounds[i] for i in group):
            chosen = slice(key["start"], key["start"] + key["length"])
            scored = values[chosen][ok[chosen]]
            scored_values.append(scored)
            members.append((item_ids[chosen][ok[chosen]], scored[:, None], np.ones((scored.size, 1), dtype=bool)))
        first = bounds[group[0]]
        intervals = paired_intervals(
            members, None, n_resamples, cell_rng(seed, *(first[k] for k in _RNG_KEYS)), ci_level
        )
        for key, scored, (low, high) in zip((bounds[i] for i in group), scored_values, intervals):
            start, stop = key["start"], key["start"] + key["length"]
            rows.append(
                {
                    **{k: key[k] for k in RESULT_KEYS},
                    "kind": "mean",
                    "value": float(scored.mean()) if scored.size else None,
                    "ci_low": low,
                    "ci_high": high,
                    "n_items": int(scored.size),
                    "n_excluded": int(key["length"] - scored.size),
                    "excluded_reasons": _reasons(
                        s for s, good in zip(statuses[start:stop], ok[start:stop]) if not good
                    ),
                }
            )
    return rows


def _derived_rows(
    frame: pl.DataFrame, metric: DerivedMetric, n_resamples: int, seed: int, ci_level: float
) -> list[dict]:
    inputs = list(metric.inputs)
    if len(set(inputs)) != len(inputs) or metric.name in inputs:
        raise ValueError(f"derived metric {metric.name!r}: inputs {inputs} must be distinct metrics other than itself")
    chosen = frame.filter(pl.col("metric").is_in(inputs))
    if metric.evaluators is not None:
        chosen = chosen.filter(pl.col("evaluator").is_in(list(metric.evaluators)))
    if chosen.is_empty():
        return []
    complete = (
        chosen.group_by(CELL_KEYS).agg(n_inputs=pl.col("metric").n_unique()).filter(pl.col("n_inputs") == len(inputs))
    )
    chosen = chosen.join(complete.select(CELL_KEYS), on=CELL_KEYS, how="semi")
    if chosen.is_empty():
        return []
    wide = (
        chosen.with_columns(score=pl.when(pl.col("status") == ITEM_STATUS_OK).then(pl.col("value")))
        .pivot(on="metric", index=[*CELL_KEYS, "item_id"], values=["score", "status"], aggregate_function="first")
        .sort([*_RNG_CELL_KEYS, "translator", "item_id"])  # a cell's translators next to each other
    )
    values = np.column_stack([wide[f"score_{name}"].fill_null(np.nan).to_numpy() for name in inputs])
    mask = np.isfinite(values)
    statuses = list(zip(*(wide[f"status_{name}"].to_list() for name in inputs)))
    item_ids = wide["item_id"].to_numpy()
    bounds = list(
        wide.with_row_index("row")
        .group_by(CELL_KEYS, maintain_order=True)
        .agg(start=pl.col("row").first(), length=pl.len())
        .iter_rows(named=True)
    )
    rows = []
    for group in _by_rng_key(bounds, _RNG_CELL_KEYS):
        members, cells = [], []
        for key in (bounds[i] for i in group):
            start, stop = key["start"], key["start"] + key["length"]
            used = mask[start:stop].any(axis=1)
            members.append((item_ids[start:stop][used], values[start:stop][used], mask[start:stop][used]))
            cells.append((key, used))
        first = bounds[group[0]]
        rng = cell_rng(seed, *(first[k] for k in _RNG_CELL_KEYS), metric.name)
        intervals = paired_intervals(members, metric.function, n_resamples, rng, ci_level)
        for (key, used), (_, v, m), (low, high) in zip(cells, members, intervals):
            start, stop = key["start"], key["start"] + key["length"]
            with np.errstate(invalid="ignore"):
                means = [float(v[m[:, j], j].mean()) if m[:, j].any() else np.nan for j in range(len(inputs))]
            value = float(metric.function(*[np.asarray(x) for x in means]))
            excluded = [
                "+".join(sorted({s for s in item if s not in (None, ITEM_STATUS_OK)}))
                for item, good in zip(statuses[start:stop], used)
                if not good
            ]
            rows.append(
                {
                    **{k: key[k] for k in CELL_KEYS},
                    "metric": metric.name,
                    "kind": "derived",
                    "value": value if np.isfinite(value) else None,
                    "ci_low": low,
                    "ci_high": high,
                    "n_items": int(used.sum()),
                    "n_excluded": len(excluded),
                    "excluded_reasons": _reasons(excluded),
                }
            )
    return rows


def results_table(
    item_scores: pa.Table | pl.DataFrame,
    *,
    derived: Sequence[DerivedMetric] = (),
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
    ci_level: float = CI_LEVEL,
) -> pl.DataFrame:
    """One RESULTS row per (dataset, evaluator, translator, model, lang, metric): item means,
    `derived` metrics, bootstrap CIs."""
    if not 0 < ci_level < 1:
        raise ValueError(f"ci_level must be in (0, 1), not {ci_level}")
    frame = item_scores_frame(item_scores)
    clashes = {d.name for d in derived} & set(frame["metric"].unique().to_list())
    if clashes:
        raise ValueError(f"derived metrics {sorted(clashes)} have the name of an item-level metric")
    rows = _mean_rows(frame, n_resamples, seed, ci_level)
    for metric in derived:
        rows += _derived_rows(frame, metric, n_resamples, seed, ci_level)
    for row in rows:
        row["n_resamples"] = int(n_resamples)
        row["ci_level"] = float(ci_level)
    table = pl.from_arrow(pa.Table.from_pylist(rows, schema=RESULTS)) if rows else pl.from_arrow(RESULTS.empty_table())
    return sort_results(table)


def sort_results(results: pl.DataFrame) -> pl.DataFrame:
    """RESULTS rows in their written order: by data set, evaluator, translator, model and
    language, then the kind (mean, derived, corpus) and the metric."""
    kind = pl.col("kind").replace_strict(_KIND_ORDER, default=len(_KIND_ORDER), return_dtype=pl.Int32)
    return results.sort([*CELL_KEYS, kind, "kind", "metric"], nulls_last=True)


def sort_item_scores(scores: pl.DataFrame) -> pl.DataFrame:
    """ITEM_SCORES rows in their written order (ITEM_SCORES_ORDER), whatever the order of the files they came from."""
    return scores.sort(ITEM_SCORES_ORDER, nulls_last=True)


def write_results(results: pl.DataFrame, base: Path | str) -> list[Path]:
    """`base`.parquet (RESULTS schema, written atomically) and `base`.csv."""
    base = Path(base)
    parquet = write_table(results.to_arrow(), base.with_name(base.name + ".parquet"), RESULTS)
    csv = base.with_name(base.name + ".csv")
    with atomic_path(csv) as temporary:
        results.write_csv(temporary)
    return [parquet, csv]


def read_results(paths: Sequence[Path | str]) -> pl.DataFrame:
    tables = [read_table(path, RESULTS) for path in paths]
    return pl.from_arrow(pa.concat_tables(tables) if tables else RESULTS.empty_table())
