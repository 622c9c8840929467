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
Counts and empty values
    ``n_items``: the items that entered the value (a derived metric: the items with at least
    one input scored); none when there is no value. A row without a value says why: a mean's
    excluded items carry their reasons (``excluded_reasons``); an undefined derived value
    counts every item of its cell as excluded, by the statuses that kept it out, and its
    ``note`` names the inputs without a scored item. :func:`unexplained_values` finds a row
    that would not say why (the results job warns of any).
Confidence interval
    percentile bootstrap over items (``n_resamples`` resamples of the cell's items with
    replacement, the 2.5% and 97.5% quantiles with numpy's linear interpolation, as
    scipy's ``bootstrap(method="percentile")``). A derived metric resamples the union of
    the items of its inputs *jointly*: every input mean of one resample comes from the
    same drawn items (a drawn item without a score for an input adds nothing to that
    input's mean; a resample in which an input has no scored item at all is left out of
    the quantiles). Null with 0 resamples or fewer than two items.
Rates of binary outcomes
    a metric whose item values are 1/0 outcomes (its evaluator's ``rates`` in the registry:
    fidelity, pass rates, accuracy, agreement, QE flags; and their ``@qe_pass`` copies) gets
    Wilson's score interval of its k of n instead (xlcons.reports.bootstrap.wilson_interval):
    never of zero width, also at 0 of n or n of n, and from one item on. A value that is not 0
    or 1 there is an error. Null with 0 resamples (no intervals asked for).
Random numbers
    each row has its own generator, ``cell_rng(seed, dataset, evaluator, model, lang,
    metric)``, drawing all indices in one call ``rng.integers(0, n, size=(n_resamples,
    n))`` over the row's items sorted by item_id; so a row's interval does not depend on
    which other models, languages or metrics the table holds.
Several translators
    the generator is seeded without the translator, and a cell's rows under several
    translators are paired by item id (:func:`xlcons.reports.bootstrap.paired_intervals`):
    the draws are over the union of the item ids they scored, once for all of them, and
    each translator's means take its own scores of the drawn ids. With one translator, or
    when every translator scored the same items, this is the plain bootstrap above.

The bootstrap itself is xlcons.reports.bootstrap; the correlations some reports draw from
these tables are xlcons.reports.correlations.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa

from xlcons.atomic import atomic_path
from xlcons.derived_metrics import DerivedMetric
from xlcons.reports.bootstrap import CI_LEVEL, N_RESAMPLES, cell_rng, paired_intervals, wilson_interval
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


def is_rate(metric: str, rates: Collection[str]) -> bool:
    """Whether a results row of `metric` is a rate of binary outcomes: `metric` is one of `rates`
    (EvaluatorInfo.rates), or a copy of one over a subset of its items (``fidelity_same@qe_pass``)."""
    return metric in rates or metric.split("@", 1)[0] in rates


def _rate_intervals(
    group: Sequence[dict], scored_values: Sequence[np.ndarray], n_resamples: int, ci_level: float
) -> list[tuple[float | None, float | None]]:
    """Wilson intervals of the rows of one rate metric (each row's own items); none with 0 resamples."""
    intervals: list[tuple[float | None, float | None]] = []
    for key, scored in zip(group, scored_values):
        binary = np.isin(scored, (0.0, 1.0))
        if not binary.all():
            raise ValueError(
                f"item scores: metric {key['metric']!r} is a rate of binary outcomes (its evaluator's "
                f"`rates`), but {int((~binary).sum())} values of dataset {key['dataset']!r}, model "
                f"{key['model']!r}, language {key['lang']!r} are not 0 or 1, e.g. {float(scored[~binary][0])}"
            )
        intervals.append(wilson_interval(int(scored.sum()), scored.size, ci_level) if n_resamples > 0 else (None, None))
    return intervals


def _mean_rows(
    frame: pl.DataFrame, n_resamples: int, seed: int, ci_level: float, rates: Collection[str] = ()
) -> list[dict]:
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
        if is_rate(first["metric"], rates):
            intervals = _rate_intervals([bounds[i] for i in group], scored_values, n_resamples, ci_level)
        else:
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
            defined = bool(np.isfinite(value))
            cell = statuses[start:stop]
            # An undefined value rests on no item: every item of the cell is then excluded,
            # by the statuses that kept it out of the missing input.
            entered = used if defined else np.zeros_like(used)
            excluded = [
                "+".join(sorted({s for s in item if s not in (None, ITEM_STATUS_OK)})) or "undefined"
                for item, good in zip(cell, entered)
                if not good
            ]
            rows.append(
                {
                    **{k: key[k] for k in CELL_KEYS},
                    "metric": metric.name,
                    "kind": "derived",
                    "value": value if defined else None,
                    "ci_low": low if defined else None,
                    "ci_high": high if defined else None,
                    "n_items": int(entered.sum()),
                    "n_excluded": len(excluded),
                    "excluded_reasons": _reasons(excluded),
                    "note": None if defined else _undefined_note(metric, means, cell),
                }
            )
    return rows


def _undefined_note(metric: DerivedMetric, means: Sequence[float], statuses: Sequence[tuple]) -> str:
    """Why a derived value is undefined: the inputs without a scored item in the cell, each with
    the reasons its items were excluded; else the function's result on the inputs' means."""
    missing = []
    for position, (name, mean) in enumerate(zip(metric.inputs, means)):
        if not np.isfinite(mean):
            reasons = _reasons(item[position] for item in statuses if item[position] not in (None, ITEM_STATUS_OK))
            missing.append(f"{name} has no scored item" + (f" ({reasons})" if reasons else ""))
    if missing:
        return f"{metric.name} undefined: " + "; ".join(missing)
    shown = ", ".join(f"{name}={mean:.4g}" for name, mean in zip(metric.inputs, means))
    return f"{metric.name} undefined: not finite at the inputs' means ({shown})"


def results_table(
    item_scores: pa.Table | pl.DataFrame,
    *,
    derived: Sequence[DerivedMetric] = (),
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
    ci_level: float = CI_LEVEL,
    rates: Collection[str] = (),
) -> pl.DataFrame:
    """One RESULTS row per (dataset, evaluator, translator, model, lang, metric): item means,
    `derived` metrics, bootstrap CIs; the metrics of `rates` (binary outcomes, :func:`is_rate`)
    get Wilson score intervals instead."""
    if not 0 < ci_level < 1:
        raise ValueError(f"ci_level must be in (0, 1), not {ci_level}")
    frame = item_scores_frame(item_scores)
    clashes = {d.name for d in derived} & set(frame["metric"].unique().to_list())
    if clashes:
        raise ValueError(f"derived metrics {sorted(clashes)} have the name of an item-level metric")
    rows = _mean_rows(frame, n_resamples, seed, ci_level, rates)
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


def unexplained_values(results: pl.DataFrame) -> pl.DataFrame:
    """The rows without a value that do not say why: no `excluded_reasons` and no `note` (each
    empty or blank). Every results table should have none (docs/results.md)."""
    said = [pl.col(name).cast(pl.String).fill_null("").str.strip_chars() != "" for name in ("excluded_reasons", "note")]
    return results.filter(pl.col("value").is_null() & ~(said[0] | said[1]))


def read_results(paths: Sequence[Path | str]) -> pl.DataFrame:
    tables = [read_table(path, RESULTS) for path in paths]
    return pl.from_arrow(pa.concat_tables(tables) if tables else RESULTS.empty_table())
