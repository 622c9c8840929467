"""Per-item scores to one long results table with 95% bootstrap confidence intervals.

The input is the evaluator-independent ITEM_SCORES table (one row per data set,
evaluator, model, item, language and metric; see xlcons.schemas). Each evaluator gets a
small adapter to it; the metric names are the adapter's, e.g.

- information consistency (paper 000): `precision`, `recall`, `f1` per item, and the
  derived `F` (:data:`INFORMATION_F`), the harmonic mean of mean precision and mean recall;
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
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa

from xlcons.schemas import ITEM_SCORES, ITEM_STATUS_OK, NO_TRANSLATOR, RESULTS
from xlcons.tables import SchemaError, conform, read_table, write_table

CELL_KEYS = ["dataset", "evaluator", "translator", "model", "lang"]
RESULT_KEYS = [*CELL_KEYS, "metric"]
# What seeds a row's resampling: its key without the translator, so the same (data set,
# evaluator, model, language, metric) under two translators draws the same items (paired).
_RNG_CELL_KEYS = [key for key in CELL_KEYS if key != "translator"]
_RNG_KEYS = [*_RNG_CELL_KEYS, "metric"]
CI_LEVEL = 0.95
N_RESAMPLES = 1000


# -- Derived metrics ------------------------------------------------------------------


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


# Paper 000's information-consistency score F(l) = 2·C^P·C^R / (C^P + C^R), in every cell
# with precision and recall rows (whatever the adapter calls the evaluator).
INFORMATION_F = DerivedMetric("F", ("precision", "recall"), harmonic_mean)


# -- Input ----------------------------------------------------------------------------


def item_scores_frame(table: pa.Table | pl.DataFrame) -> pl.DataFrame:
    """ITEM_SCORES as a polars frame, checked: unique keys, and a finite value on every `ok` row."""
    frame = with_translator(table if isinstance(table, pl.DataFrame) else pl.from_arrow(table))
    frame = pl.from_arrow(conform(frame.to_arrow(), ITEM_SCORES, what="item scores"))
    ok = pl.col("status") == ITEM_STATUS_OK
    bad = frame.filter(ok & (pl.col("value").is_null() | ~pl.col("value").is_finite()))
    if bad.height:
        raise SchemaError(f"item scores: {bad.height} rows have status 'ok' but no finite value, e.g. {bad.row(0, named=True)}")
    duplicated = frame.filter(pl.struct([*RESULT_KEYS, "item_id"]).is_duplicated())
    if duplicated.height:
        raise SchemaError(f"item scores: {duplicated.height} rows repeat a (dataset, evaluator, translator, model, lang, metric, item_id), e.g. {duplicated.row(0, named=True)}")
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


def _pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r of each row of x with the same row of y (NaN where either row is constant)."""
    x = x - x.mean(axis=1, keepdims=True)
    y = y - y.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (x * y).sum(axis=1) / np.sqrt((x * x).sum(axis=1) * (y * y).sum(axis=1))
    return np.clip(r, -1.0, 1.0)


def correlation_intervals(x: np.ndarray, y: np.ndarray, indices: np.ndarray,
                          ci_level: float = CI_LEVEL) -> dict[str, tuple[float | None, float | None]]:
    """Percentile bootstrap intervals of Pearson's r and Spearman's rho of paired values: each
    row of `indices` is one resample of the pairs; a resample constant on one side is left out."""
    from scipy.stats import rankdata

    xs, ys = np.asarray(x, dtype=float)[indices], np.asarray(y, dtype=float)[indices]
    return {"pearson": percentile_interval(_pearson_rows(xs, ys), ci_level),
            "spearman": percentile_interval(_pearson_rows(rankdata(xs, axis=1), rankdata(ys, axis=1)), ci_level)}


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
    return "; ".join(f"{reason}:{count}" for reason, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def _mean_rows(frame: pl.DataFrame, n_resamples: int, seed: int, ci_level: float) -> list[dict]:
    rows = []
    frame = frame.sort([*RESULT_KEYS, "item_id"])
    values = frame["value"].fill_null(np.nan).to_numpy()
    ok = (frame["status"] == ITEM_STATUS_OK).to_numpy()
    statuses = frame["status"].to_list()
    bounds = frame.with_row_index("row").group_by(RESULT_KEYS, maintain_order=True).agg(start=pl.col("row").first(), length=pl.len())
    for key in bounds.iter_rows(named=True):
        start, stop = key["start"], key["start"] + key["length"]
        scored = values[start:stop][ok[start:stop]]
        low, high = bootstrap_interval(scored[:, None], np.ones((scored.size, 1), dtype=bool), None, n_resamples, cell_rng(seed, *(key[k] for k in _RNG_KEYS)), ci_level)
        rows.append(
            {
                **{k: key[k] for k in RESULT_KEYS},
                "kind": "mean",
                "value": float(scored.mean()) if scored.size else None,
                "ci_low": low,
                "ci_high": high,
                "n_items": int(scored.size),
                "n_excluded": int(key["length"] - scored.size),
                "excluded_reasons": _reasons(s for s, good in zip(statuses[start:stop], ok[start:stop]) if not good),
            }
        )
    return rows


def _derived_rows(frame: pl.DataFrame, metric: DerivedMetric, n_resamples: int, seed: int, ci_level: float) -> list[dict]:
    inputs = list(metric.inputs)
    if len(set(inputs)) != len(inputs) or metric.name in inputs:
        raise ValueError(f"derived metric {metric.name!r}: inputs {inputs} must be distinct metrics other than itself")
    chosen = frame.filter(pl.col("metric").is_in(inputs))
    if metric.evaluators is not None:
        chosen = chosen.filter(pl.col("evaluator").is_in(list(metric.evaluators)))
    if chosen.is_empty():
        return []
    complete = chosen.group_by(CELL_KEYS).agg(n_inputs=pl.col("metric").n_unique()).filter(pl.col("n_inputs") == len(inputs))
    chosen = chosen.join(complete.select(CELL_KEYS), on=CELL_KEYS, how="semi")
    if chosen.is_empty():
        return []
    wide = (
        chosen.with_columns(score=pl.when(pl.col("status") == ITEM_STATUS_OK).then(pl.col("value")))
        .pivot(on="metric", index=[*CELL_KEYS, "item_id"], values=["score", "status"], aggregate_function="first")
        .sort([*CELL_KEYS, "item_id"])
    )
    values = np.column_stack([wide[f"score_{name}"].fill_null(np.nan).to_numpy() for name in inputs])
    mask = np.isfinite(values)
    statuses = list(zip(*(wide[f"status_{name}"].to_list() for name in inputs)))
    bounds = wide.with_row_index("row").group_by(CELL_KEYS, maintain_order=True).agg(start=pl.col("row").first(), length=pl.len())
    rows = []
    for key in bounds.iter_rows(named=True):
        start, stop = key["start"], key["start"] + key["length"]
        v, m = values[start:stop], mask[start:stop]
        used = m.any(axis=1)
        v, m = v[used], m[used]
        with np.errstate(invalid="ignore"):
            means = [float(v[m[:, j], j].mean()) if m[:, j].any() else np.nan for j in range(len(inputs))]
        value = float(metric.function(*[np.asarray(x) for x in means]))
        rng = cell_rng(seed, *(key[k] for k in _RNG_CELL_KEYS), metric.name)
        low, high = bootstrap_interval(v, m, metric.function, n_resamples, rng, ci_level)
        excluded = ["+".join(sorted({s for s in item if s not in (None, ITEM_STATUS_OK)})) for item, good in zip(statuses[start:stop], used) if not good]
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
    """One RESULTS row per (dataset, evaluator, translator, model, lang, metric): item means, `derived` metrics, bootstrap CIs."""
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
    return table.sort([*CELL_KEYS, "kind", "metric"], descending=[False] * len(CELL_KEYS) + [True, False])


def write_results(results: pl.DataFrame, base: Path | str) -> list[Path]:
    """`base`.parquet (RESULTS schema, written atomically) and `base`.csv."""
    base = Path(base)
    parquet = write_table(results.to_arrow(), base.with_name(base.name + ".parquet"), RESULTS)
    csv = base.with_name(base.name + ".csv")
    results.write_csv(csv)
    return [parquet, csv]


def read_results(paths: Sequence[Path | str]) -> pl.DataFrame:
    tables = [read_table(path, RESULTS) for path in paths]
    return pl.from_arrow(pa.concat_tables(tables) if tables else RESULTS.empty_table())
