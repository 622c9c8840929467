"""How much of a consistency score translation quality can move (issue: translation noise).

From the quality estimates of the translated sentences (TRANSLATION_QE) and the translation
path of each answer (TRANSLATIONS) the results stage derives, per (data set, model, item,
language), ITEM_SCORES rows of evaluator `translation_qe`:

* `qe`, the mean QE of the item's translated sentences (the backend's scores as they are,
  a copied sentence's included);
* `qe_below`, 1 when one of them scores under the threshold of the item's language (a
  number, or per language: xlcons.translation.quality_backends.threshold_for), else 0;
* `qe_copy` and `qe_off_target`, 1 when one of them is a copy of its source or not in
  English (xlcons.translation.quality_checks), else 0;
* `qe_fail`, 1 when any of the three is: the item fails QE whatever its scores.

Their results rows are the mean QE and the shares of items, with bootstrap intervals; the
denominator of every share is the row's `n_items`, the items with a translated sentence.
An item whose answer could not be translated (path `untranslatable`: kept as it is, in a
language NLLB lacks) has no sentence to score: its rows have status `untranslatable`, so
it is counted among the excluded items (`n_excluded`) and in no share. Items with nothing
to translate (English passed through, no answer) have no rows and are in no denominator.

For every evaluator that reads translations (information, empathy), each metric again on
the items that pass (`<metric>@qe_pass`), the others excluded with their reason: the first
of `qe_copy`, `qe_off_target`, `qe_below` that the item has, or `untranslatable` (English
passed through and no answer pass: nothing was translated); and the difference
`<metric>@qe_pass-all` as a derived metric whose bootstrap resamples the items once for both
means, so its interval is that of the difference. Derived metrics (information `F`) get
both the same way.

The report (`tables/translation_quality/`) puts them side by side per (data set, evaluator,
model, language, metric): all items, passing items, the difference, each with its interval
and count, then `QE n` (the items with QE: the denominator of the shares beside it, not `all
n`), the mean QE, the shares below the threshold, copied, off target and failing QE, the
untranslatable items and the language's threshold; and draws the mean-QE heatmap of models
× languages.

With the translationese check on as well, `qe_round_trip` asks whether the cheap QE
predicts the expensive round trip (:func:`qe_round_trip_table`): per (data set, model,
language) that has round trips, over the items scored by both, the correlation of an item's
QE (`translation_qe`/`qe`: the mean QE of the sentences of the model's answer in that
language translated into English, the translation the consistency scores read) with the
information F1 of the item's round trip (`translationese`/`f1`: the model's English answer
en -> language -> en against the original), as Spearman's rho and Pearson's r, each with a
p-value and a Fisher-z interval (xlcons.reports.results.correlate). Both are about the same
question in the same language and through the same translator, but not the same text: the
QE of the round trip's own way back is not computed (the round trips are translated whole,
not sentence by sentence, and the QE jobs score the translation stage's sentences).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import polars as pl

from xlcons.derived_metrics import DerivedMetric
from xlcons.evaluators.registry import EVALUATORS, TRANSLATIONS
from xlcons.reports.formats import TABLE_SUFFIXES, save_figure, write_table_files
from xlcons.reports.results import CI_LEVEL, correlate, primary_rows, with_translator
from xlcons.schemas import ITEM_SCORES, ITEM_STATUS_OK
from xlcons.translation.quality_backends import threshold_for

EVALUATOR = "translation_qe"
PASS = "@qe_pass"
DIFFERENCE = "@qe_pass-all"
SENSITIVITY, HEATMAP, ROUND_TRIP = "sensitivity", "heatmap_qe", "qe_round_trip"
ROUND_TRIP_EVALUATOR, ROUND_TRIP_METRIC = "translationese", "f1"
MIN_ITEMS = 3  # fewer paired items: no correlation (two points always lie on a line)
FIGURE_FORMATS = ("png", "pdf")
_KEYS = ["dataset", "model", "item_id", "lang"]


def translating_evaluators() -> list[str]:
    """The evaluators whose scores rest on translations (their ITEM_SCORES evaluator names)."""
    return [info.name for info in EVALUATORS.values() if info.reads == TRANSLATIONS]


QE_METRICS = ("qe", "qe_below", "qe_copy", "qe_off_target", "qe_fail")
# Why an item fails QE, in the order an excluded `@qe_pass` row names it.
FAIL_REASONS = ("qe_copy", "qe_off_target", "qe_below")
UNTRANSLATABLE = "untranslatable"  # the QE status of an answer kept untranslated (and its exclusion reason)
FAILED_QE = "qe_below"  # the exclusion reason of an item with a sentence under the threshold


def qe_item_scores(
    qe: pl.DataFrame, threshold: float | Mapping[str, float], paths: pl.DataFrame | None = None
) -> pl.DataFrame:
    """The QE_METRICS ITEM_SCORES rows of every item with a translated sentence (status ok), and
    of every item of `paths` (TRANSLATIONS rows: item keys, translator, translation_path) whose
    answer is untranslatable (status `untranslatable`, no value). `threshold`: a number, or a
    mapping of languages with a `default`."""
    qe = with_translator(qe)
    for flag in ("copy", "off_target"):  # tables written before the checks: nothing flagged
        qe = (
            qe.with_columns(pl.col(flag).fill_null(False))
            if flag in qe.columns
            else qe.with_columns(pl.lit(False).alias(flag))
        )
    thresholds = {lang: threshold_for(threshold, lang) for lang in qe["lang"].unique().to_list()}
    qe = qe.with_columns(
        (pl.col("qe") < pl.col("lang").replace_strict(thresholds, return_dtype=pl.Float64)).alias("_below")
    )
    per_item = qe.group_by([*_KEYS, "translator"]).agg(
        pl.col("qe").mean().alias("qe"),
        pl.col("_below").any().cast(pl.Float64).alias("qe_below"),
        pl.col("copy").any().cast(pl.Float64).alias("qe_copy"),
        pl.col("off_target").any().cast(pl.Float64).alias("qe_off_target"),
        (pl.col("_below") | pl.col("copy") | pl.col("off_target")).any().cast(pl.Float64).alias("qe_fail"),
    )
    parts = [
        per_item.select(
            *_KEYS,
            "translator",
            pl.lit(EVALUATOR).alias("evaluator"),
            pl.lit(metric).alias("metric"),
            pl.col(metric).alias("value"),
            pl.lit(ITEM_STATUS_OK).alias("status"),
        )
        for metric in QE_METRICS
    ]
    if paths is not None:
        kept = (
            with_translator(paths)
            .filter(pl.col("translation_path") == UNTRANSLATABLE)
            .select(*_KEYS, "translator")
            .unique()
        )
        parts += [
            kept.select(
                *_KEYS,
                "translator",
                pl.lit(EVALUATOR).alias("evaluator"),
                pl.lit(metric).alias("metric"),
                pl.lit(None, pl.Float64).alias("value"),
                pl.lit(UNTRANSLATABLE).alias("status"),
            )
            for metric in QE_METRICS
        ]
    return pl.concat(parts).select(ITEM_SCORES.names).cast({"value": pl.Float64})


def passing_scores(scores: pl.DataFrame, qe_rows: pl.DataFrame) -> pl.DataFrame:
    """The translation-reading evaluators' rows as `<metric>@qe_pass`: an item whose translation
    fails QE is excluded there, with its reason (the first of FAIL_REASONS it has, or
    `untranslatable`), so a cell where none passes says why."""
    keys = [*_KEYS, "translator"]  # an item's QE under the translator its score rests on
    qe_rows = with_translator(qe_rows)
    order = {reason: rank for rank, reason in enumerate(FAIL_REASONS)}
    flagged = qe_rows.filter(pl.col("metric").is_in(FAIL_REASONS) & (pl.col("value") == 1.0))
    failing = (
        flagged.with_columns(pl.col("metric").replace_strict(order, return_dtype=pl.Int32).alias("_rank"))
        .sort("_rank")
        .group_by(keys)
        .agg(pl.col("metric").first().alias("_reason"))
    )
    kept = qe_rows.filter((pl.col("metric") == "qe_fail") & (pl.col("status") == UNTRANSLATABLE)).select(
        *keys, pl.lit(UNTRANSLATABLE).alias("_reason")
    )
    reasons = pl.concat([failing.select(*keys, "_reason"), kept]).unique(subset=keys, keep="first")
    chosen = (
        with_translator(scores)
        .filter(pl.col("evaluator").is_in(translating_evaluators()))
        .join(reasons, on=keys, how="left")
    )
    excluded = pl.col("_reason").is_not_null() & (pl.col("status") == ITEM_STATUS_OK)
    return chosen.with_columns(
        (pl.col("metric") + PASS).alias("metric"),
        pl.when(excluded).then(None).otherwise(pl.col("value")).alias("value"),
        pl.when(excluded).then(pl.col("_reason")).otherwise(pl.col("status")).alias("status"),
    ).select(ITEM_SCORES.names)


def _difference(function=None, k: int = 1):
    def difference(*means: np.ndarray) -> np.ndarray:
        if function is None:
            return means[0] - means[1]
        return function(*means[:k]) - function(*means[k:])

    return difference


def sensitivity_metrics(scores: pl.DataFrame, derived: Sequence[DerivedMetric]) -> list[DerivedMetric]:
    """Derived metrics of the passing items: each derived metric on `@qe_pass` inputs, and the
    difference `@qe_pass-all` of every metric (mean or derived) that has passing rows."""
    passing = sorted(
        {m.removesuffix(PASS) for m in scores.filter(pl.col("metric").str.ends_with(PASS))["metric"].unique().to_list()}
    )
    metrics = [
        DerivedMetric(f"{m}{DIFFERENCE}", (f"{m}{PASS}", m), _difference(), tuple(translating_evaluators()))
        for m in passing
    ]
    for metric in derived:
        if set(metric.inputs) <= set(passing):
            inputs = tuple(f"{name}{PASS}" for name in metric.inputs)
            metrics.append(DerivedMetric(f"{metric.name}{PASS}", inputs, metric.function, metric.evaluators))
            metrics.append(
                DerivedMetric(
                    f"{metric.name}{DIFFERENCE}",
                    inputs + metric.inputs,
                    _difference(metric.function, len(inputs)),
                    metric.evaluators,
                )
            )
    return metrics


QE_COLUMNS = {
    "qe": "mean QE",
    "qe_below": "share below threshold",
    "qe_copy": "share copied",
    "qe_off_target": "share off-target",
    "qe_fail": "share failing QE",
}


def sensitivity_table(results: pl.DataFrame, thresholds: float | Mapping[str, float] | None = None) -> pl.DataFrame:
    """Per (data set, evaluator, model, language, metric): all items, passing items and the
    difference, each with its interval and count, beside the cell's QE: `QE n`, the items with
    QE (the denominator of the shares), the mean QE, the shares of items below the threshold,
    copied, off target and failing QE, `untranslatable n` (items without QE because their
    answer could not be translated) and, given `thresholds`, the language's `QE threshold`."""
    base = results.filter(
        pl.col("evaluator").is_in(translating_evaluators()) & ~pl.col("metric").str.contains("@qe_pass")
    )
    keys = ["dataset", "evaluator", "translator", "model", "lang", "metric"]

    def part(suffix: str, label: str) -> pl.DataFrame:
        rows = results.filter(pl.col("metric").str.ends_with(suffix)).with_columns(
            pl.col("metric").str.strip_suffix(suffix)
        )
        return rows.select(
            *keys,
            pl.col("value").alias(label),
            pl.col("ci_low").alias(f"{label} ci_low"),
            pl.col("ci_high").alias(f"{label} ci_high"),
            pl.col("n_items").alias(f"{label} n"),
        )

    table = base.select(
        *keys,
        pl.col("value").alias("all"),
        pl.col("ci_low").alias("all ci_low"),
        pl.col("ci_high").alias("all ci_high"),
        pl.col("n_items").alias("all n"),
    )
    table = table.join(part(PASS, "passing"), on=keys, how="left").join(
        part(DIFFERENCE, "difference"), on=keys, how="left"
    )
    cell = ["dataset", "translator", "model", "lang"]
    rows = results.filter((pl.col("evaluator") == EVALUATOR) & pl.col("metric").is_in(list(QE_COLUMNS)))
    qe = rows.select(cell).unique()
    for metric, label in QE_COLUMNS.items():
        values = rows.filter(pl.col("metric") == metric).select(*cell, pl.col("value").cast(pl.Float64).alias(label))
        qe = qe.join(values, on=cell, how="left")
    counts = rows.filter(pl.col("metric") == "qe_fail").select(
        *cell,
        pl.col("n_items").cast(pl.Int64).alias("QE n"),
        pl.col("n_excluded").cast(pl.Int64).alias("untranslatable n"),
    )
    qe = qe.join(counts, on=cell, how="left").select(*cell, "QE n", *QE_COLUMNS.values(), "untranslatable n")
    table = table.join(qe, on=cell, how="left")
    if thresholds is not None:
        table = table.with_columns(
            pl.col("lang")
            .map_elements(lambda lang: threshold_for(thresholds, lang), return_dtype=pl.Float64)
            .alias("QE threshold")
        )
    return table.sort(keys)


# -- The spread between translators -----------------------------------------------------

SPREAD = "translator_spread"
DIFFERENCE_SPREAD = "translator_difference_spread"
_SPREAD_COLUMNS = {"lowest": pl.Float64, "highest": pl.Float64, "range": pl.Float64, "n translators": pl.UInt32}


def _translated_rows(results: pl.DataFrame, translators: Sequence[str]) -> pl.DataFrame:
    """The results rows of the evaluators that read translations, under `translators`, without
    the QE-passing variants (`@qe_pass`)."""
    return results.filter(
        pl.col("evaluator").is_in(translating_evaluators())
        & ~pl.col("metric").str.contains("@qe_pass")
        & pl.col("translator").is_in(list(translators))
    )


def _spread(rows: pl.DataFrame, keys: list[str], value: str, translators: Sequence[str]) -> pl.DataFrame:
    """`value` of `rows` under each translator (a column each, in their order), the lowest and
    highest, their `range` (needs two) and `n translators` (those with a value)."""
    wide = rows.pivot(on="translator", index=keys, values=value, aggregate_function="first")
    for name in translators:
        if name not in wide.columns:
            wide = wide.with_columns(pl.lit(None, pl.Float64).alias(name))
    values = [pl.col(name) for name in translators]
    n = pl.sum_horizontal([column.is_not_null().cast(pl.UInt32) for column in values])
    wide = wide.with_columns(
        pl.min_horizontal(values).alias("lowest"), pl.max_horizontal(values).alias("highest"), n.alias("n translators")
    )
    return wide.with_columns(
        pl.when(pl.col("n translators") >= 2).then(pl.col("highest") - pl.col("lowest")).alias("range")
    )


def spread_table(results: pl.DataFrame, translators: Sequence[str]) -> pl.DataFrame:
    """Per (data set, evaluator, model, language, metric) of an evaluator that reads
    translations: the value under each of `translators` (a column each, in their order), the
    lowest and highest, and their `range` (highest - lowest), how far the choice of translator
    alone moves the score's level. `n translators` counts those with a value; the range needs
    two. The QE-passing variants (`@qe_pass`) are left out. Whether it moves a difference
    between two models is :func:`difference_spread_table`."""
    keys = ["dataset", "evaluator", "model", "lang", "metric"]
    rows = _translated_rows(results, translators)
    columns = {key: pl.String for key in keys} | {name: pl.Float64 for name in translators} | _SPREAD_COLUMNS
    if rows.is_empty():
        return pl.DataFrame(schema=columns)
    return _spread(rows, keys, "value", translators).select(list(columns)).cast(columns).sort(keys)


def difference_spread_table(
    results: pl.DataFrame, translators: Sequence[str], pairs: Sequence[Sequence[str]] | None = None
) -> pl.DataFrame:
    """Per (data set, evaluator, language, metric) and pair of models (`pairs`; None: every
    pair, `model_a` before `model_b` by name): the difference value_a - value_b under each of
    `translators` (a column each, null where either model has no value), the lowest and
    highest, their `range` and `n translators`, as :func:`spread_table` gives for the scores
    themselves; and `same sign`, whether the difference has one strict sign under every
    translator with a value (null below two). A translator that moves both models alike
    moves no difference: this range, not the scores' own, says how much a comparison of the
    two models rests on the choice of translator."""
    keys = ["dataset", "evaluator", "lang", "metric", "model_a", "model_b"]
    columns = (
        {key: pl.String for key in keys}
        | {name: pl.Float64 for name in translators}
        | _SPREAD_COLUMNS
        | {"same sign": pl.Boolean}
    )
    rows = _translated_rows(results, translators).select(
        "dataset", "evaluator", "translator", "model", "lang", "metric", "value"
    )
    cell = ["dataset", "evaluator", "translator", "lang", "metric"]
    joined = rows.rename({"model": "model_a", "value": "value_a"}).join(
        rows.rename({"model": "model_b", "value": "value_b"}), on=cell
    )
    if pairs is None:
        joined = joined.filter(pl.col("model_a") < pl.col("model_b"))
    else:
        wanted = pl.DataFrame(
            [tuple(pair) for pair in pairs], schema={"model_a": pl.String, "model_b": pl.String}, orient="row"
        )
        joined = joined.join(wanted, on=["model_a", "model_b"], how="semi")
    if joined.is_empty():
        return pl.DataFrame(schema=columns)
    joined = joined.with_columns((pl.col("value_a") - pl.col("value_b")).alias("difference"))
    wide = _spread(joined, keys, "difference", translators)
    agree = (pl.col("lowest") > 0) | (pl.col("highest") < 0)
    wide = wide.with_columns(pl.when(pl.col("n translators") >= 2).then(agree).alias("same sign"))
    return wide.select(list(columns)).cast(columns).sort(keys)


def plot_qe_heatmap(results: pl.DataFrame, base: Path, formats: Iterable[str]) -> list[Path]:
    """Mean QE per model (rows) and language (columns), one panel per data set."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import seaborn as sns

    qe = results.filter((pl.col("evaluator") == EVALUATOR) & (pl.col("metric") == "qe"))
    datasets = sorted(set(qe["dataset"].to_list())) or ["(none)"]
    figure, axes = plt.subplots(
        1,
        len(datasets),
        figsize=(max(6.0, 0.6 * max(1, qe["lang"].n_unique()) + 3) * len(datasets), 4.5),
        squeeze=False,
    )
    for axis, dataset in zip(axes[0], datasets):
        part = qe.filter(pl.col("dataset") == dataset)
        if not part.height:
            axis.set_axis_off()
            axis.set_title("no translated sentences")
            continue
        models, languages = sorted(set(part["model"].to_list())), sorted(set(part["lang"].to_list()))
        matrix = np.full((len(models), len(languages)), np.nan)
        for row in part.iter_rows(named=True):
            matrix[models.index(row["model"]), languages.index(row["lang"])] = row["value"]
        sns.heatmap(
            matrix,
            ax=axis,
            xticklabels=languages,
            yticklabels=models,
            cmap="viridis",
            annot=len(languages) <= 30,
            fmt=".2f",
            annot_kws={"size": 7},
            cbar_kws={"label": "mean QE"},
        )
        axis.set_title(f"{dataset}: mean translation QE")
    written = save_figure(figure, base, formats)
    plt.close(figure)
    return written


# -- Does QE predict the round trip? ---------------------------------------------------

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
        *_KEYS, pl.col("value").alias(name)
    )


def item_correlation(
    qe: Sequence[float], score: Sequence[float], *, ci_level: float = CI_LEVEL, metric: str = ROUND_TRIP_METRIC
) -> dict:
    """Spearman's rho and Pearson's r of paired per-item values, with p-values and Fisher-z
    intervals (xlcons.reports.results.correlate: exact permutation p-values up to 8 items; no
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
        for key, part in qe.join(scored, on=_KEYS, how="inner").partition_by(_CELL, as_dict=True).items()
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


def report_outputs(
    out_dir: Path | str,
    models: Sequence[str],
    table_formats: Sequence[str],
    figure_formats: Sequence[str] = FIGURE_FORMATS,
    round_trip: bool = False,
    qe: bool = True,
    spread: bool = False,
) -> list[Path]:
    """The report's files: with `qe`, the sensitivity table and the QE heatmap; with `round_trip`
    the QE-vs-round-trip table (QE and round trips both on); with `spread` (several
    translators) the translator spread tables of the scores and of the models' differences."""
    out = Path(out_dir)
    tables = (
        ([SENSITIVITY] if qe else [])
        + ([ROUND_TRIP] if qe and round_trip else [])
        + ([SPREAD, DIFFERENCE_SPREAD] if spread else [])
    )
    figures = [out / f"{HEATMAP}.{kind}" for kind in figure_formats] if qe else []
    return [out / f"{table}{TABLE_SUFFIXES[kind]}" for table in tables for kind in table_formats] + figures


def run_report(
    results_path: Path | str,
    out_dir: Path | str,
    *,
    table_formats: Sequence[str] = ("csv", "markdown"),
    figure_formats: Sequence[str] = FIGURE_FORMATS,
    item_scores_path: Path | str | None = None,
    qe: bool = True,
    translators: Sequence[str] = (),
    qe_threshold: float | Mapping[str, float] | None = None,
) -> list[Path]:
    """The rule's job: the results table in; with `qe`, the sensitivity table (with each
    language's `qe_threshold`, when given) and the QE heatmap out, and with `item_scores_path`
    (the results stage's item_scores.parquet) the QE-vs-round-trip table too; with two or more
    `translators` (the primary first) their spread. The heatmap and the round-trip table show
    the primary translator's QE."""
    from xlcons.reports.results import item_scores_frame, read_item_scores, read_results

    results = read_results([results_path])
    primary = translators[0] if translators else None
    out = Path(out_dir)
    written: list[Path] = []
    if qe:
        written += write_table_files(
            sensitivity_table(results, qe_threshold), out / SENSITIVITY, table_formats, decimals=3
        )
    if qe and item_scores_path is not None:
        scores = primary_rows(item_scores_frame(read_item_scores([item_scores_path])), primary)
        agreement = qe_round_trip_table(scores)
        written += write_table_files(agreement, out / ROUND_TRIP, table_formats, decimals=3)
    if len(translators) > 1:
        written += write_table_files(spread_table(results, translators), out / SPREAD, table_formats, decimals=3)
        written += write_table_files(
            difference_spread_table(results, translators), out / DIFFERENCE_SPREAD, table_formats, decimals=3
        )
    if qe:
        written += plot_qe_heatmap(primary_rows(results, primary), out / HEATMAP, figure_formats)
    return written
