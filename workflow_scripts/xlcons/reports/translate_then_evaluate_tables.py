"""The Translate-then-Evaluate report's tables (Gupta et al. 2025), computed from a RESULTS table.

Averaged consistency by script / family / In-Out groups beside the published averages,
the mean of every metric, per-language values with intervals, the self-consistency of the
round trips (translationese check) and the EPITOME classifiers beside the paper's. What each
table holds is described in xlcons.reports.translate_then_evaluate, which writes them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import polars as pl
import pyarrow as pa

from xlcons.languages import FAMILY_GROUPS, SCRIPT_GROUPS, LanguageRegistry
from xlcons.reports.groups import TRAINING_GROUPS, UNGROUPED, column_label, group_averages, group_table_wide
from xlcons.reports.metric_cells import (
    REFERENCE,
    as_frame,
    cell_lookup,
    finite_or_none,
    language_order,
    model_order,
    select_metric,
)
from xlcons.reports.translate_then_evaluate_published import (
    MECHANISMS,
    PAPER_CLASSIFIERS,
    PUBLISHED_AVERAGES,
    PUBLISHED_SELF_CONSISTENCY,
    paper_model,
)

# (dataset, evaluator, metric) of the paper's two scores and of the round-trip check.
INFORMATION = ("information", "information", "F")
EMPATHY = ("empathy", "empathy", "consistency")
TRANSLATIONESE = ("information", "translationese", "F")
SECTIONS = {"information": INFORMATION, "empathy": EMPATHY}
# averaged_metrics: column -> (dataset, evaluator, metric)
COMPONENTS = {
    "information precision": ("information", "information", "precision"),
    "information recall": ("information", "information", "recall"),
    "information f1 (item mean)": ("information", "information", "f1"),
    "information F": INFORMATION,
    "empathy consistency": EMPATHY,
    "empathy ER": ("empathy", "empathy", "ER"),
    "empathy IP": ("empathy", "empathy", "IP"),
    "empathy EX": ("empathy", "empathy", "EX"),
}


def _mean(values: Iterable[float | None]) -> float | None:
    found = [value for value in values if value is not None]
    return float(np.mean(found)) if found else None


def _minus(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def _group_labels(wide: pl.DataFrame) -> list[str]:
    """The wide group table's value columns, always with every paper group (stable columns), ungrouped where present."""
    labels = ["Avg"] + [column_label("script", g) for g in SCRIPT_GROUPS]
    if column_label("script", UNGROUPED) in wide.columns:
        labels.append(column_label("script", UNGROUPED))
    labels += [column_label("family", g) for g in FAMILY_GROUPS]
    if column_label("family", UNGROUPED) in wide.columns:
        labels.append(column_label("family", UNGROUPED))
    return labels + list(TRAINING_GROUPS)


def group_frame(
    results: pa.Table | pl.DataFrame,
    *,
    training_languages: Mapping[str, Sequence[str] | None] | None = None,
    languages: Sequence[str] | None = None,
    registry: LanguageRegistry | None = None,
) -> pl.DataFrame:
    """GROUP_TABLE rows of information F and empathy consistency (xlcons.reports.groups.group_averages)."""
    frame = as_frame(results)
    chosen = pl.concat([select_metric(frame, key, languages) for key in SECTIONS.values()])
    return group_averages(
        chosen, reference=REFERENCE, languages=languages, training_languages=training_languages, registry=registry
    )


def averaged_table(
    results: pa.Table | pl.DataFrame,
    *,
    training_languages: Mapping[str, Sequence[str] | None] | None = None,
    languages: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    registry: LanguageRegistry | None = None,
    groups: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """Gupta et al. 2025's main table: per model, information F and empathy consistency averaged
    over all / script / family / In-Out."""
    frame = as_frame(results)
    if groups is None:
        groups = group_frame(frame, training_languages=training_languages, languages=languages, registry=registry)
    wide = group_table_wide(groups)
    labels = _group_labels(wide)
    schema: dict[str, pl.DataType] = {"model": pl.String}
    for section in SECTIONS:
        schema[f"{section} Avg"] = pl.Float64
        schema[f"{section} published"] = pl.Float64
        schema[f"{section} difference"] = pl.Float64
        schema |= {f"{section} {label}": pl.Float64 for label in labels[1:]}
        schema[f"{section} n_languages"] = pl.Int64
    rows = []
    any_ungrouped = False
    for model in model_order(frame, models):
        row: dict = {"model": model}
        ungrouped = []
        label = paper_model(model)
        for section, (dataset, evaluator, metric) in SECTIONS.items():
            found = wide.filter(
                (pl.col("dataset") == dataset)
                & (pl.col("evaluator") == evaluator)
                & (pl.col("metric") == metric)
                & (pl.col("model") == model)
            )
            record = found.row(0, named=True) if found.height else {}
            published = PUBLISHED_AVERAGES[label][section] if label is not None else None
            row[f"{section} Avg"] = record.get("Avg")
            row[f"{section} published"] = published
            row[f"{section} difference"] = _minus(record.get("Avg"), published)
            for column in labels[1:]:
                row[f"{section} {column}"] = record.get(column)
            row[f"{section} n_languages"] = record.get("n_languages") or 0
            if record.get("ungrouped"):
                ungrouped.append(f"{section} {record['ungrouped']}")
        row["ungrouped languages"] = "; ".join(ungrouped) or None
        any_ungrouped = any_ungrouped or bool(ungrouped)
        rows.append(row)
    schema["ungrouped languages"] = pl.String
    table = pl.DataFrame(rows, schema=schema, orient="row")
    return table if any_ungrouped else table.drop("ungrouped languages")


def metrics_table(
    results: pa.Table | pl.DataFrame, *, languages: Sequence[str] | None = None, models: Sequence[str] | None = None
) -> pl.DataFrame:
    """Per model, the unweighted mean over languages of each metric of :data:`COMPONENTS`."""
    frame = as_frame(results)
    parts = {column: select_metric(frame, key, languages) for column, key in COMPONENTS.items()}
    rows = []
    for model in model_order(frame, models):
        row: dict[str, str | float | None] = {"model": model}
        for column, part in parts.items():
            row[column] = _mean(finite_or_none(v) for v in part.filter(pl.col("model") == model)["value"].to_list())
        rows.append(row)
    return pl.DataFrame(rows, schema={"model": pl.String} | {column: pl.Float64 for column in COMPONENTS}, orient="row")


PER_LANGUAGE_FIELDS = (
    ("", "value"),
    ("_ci_low", "ci_low"),
    ("_ci_high", "ci_high"),
    ("_n_items", "n_items"),
    ("_n_excluded", "n_excluded"),
)
PER_LANGUAGE_SECTIONS = {"information_F": INFORMATION, "empathy_consistency": EMPATHY}


def per_language_table(
    results: pa.Table | pl.DataFrame,
    *,
    languages: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    registry: LanguageRegistry | None = None,
) -> pl.DataFrame:
    """One row per (model, language): information F and empathy consistency with interval and counts (numbers)."""
    frame = as_frame(results)
    registry = registry or LanguageRegistry.load()
    parts = {name: cell_lookup(select_metric(frame, key, languages)) for name, key in PER_LANGUAGE_SECTIONS.items()}
    codes = language_order({lang for lookup in parts.values() for _, lang in lookup}, registry)
    schema: dict[str, pl.DataType] = {"model": pl.String, "lang": pl.String, "script_group": pl.String}
    for name in PER_LANGUAGE_SECTIONS:
        schema |= {
            f"{name}{suffix}": pl.Int64 if field.startswith("n_") else pl.Float64
            for suffix, field in PER_LANGUAGE_FIELDS
        }
    rows = []
    for model in model_order(frame, models):
        for lang in codes:
            if not any((model, lang) in lookup for lookup in parts.values()):
                continue
            row: dict[str, str | float | None] = {
                "model": model,
                "lang": lang,
                "script_group": registry[lang].script_group if lang in registry else UNGROUPED,
            }
            for name, lookup in parts.items():
                record = lookup.get((model, lang), {})
                for suffix, field in PER_LANGUAGE_FIELDS:
                    value = record.get(field)
                    row[f"{name}{suffix}"] = value if field.startswith("n_") else finite_or_none(value)
            rows.append(row)
    return pl.DataFrame(rows, schema=schema, orient="row")


def _with_interval(value: float | None, low: float | None, high: float | None, decimals: int) -> str | None:
    if value is None:
        return None
    text = f"{value:.{decimals}f}"
    if low is not None and high is not None:
        text += f" [{low:.{decimals}f}, {high:.{decimals}f}]"
    return text


def per_language_display(table: pl.DataFrame, decimals: int = 2) -> pl.DataFrame:
    """The Markdown / LaTeX form of :func:`per_language_table`: ``value [ci_low, ci_high]`` and the item count."""
    rows = []
    for record in table.iter_rows(named=True):
        row = {"model": record["model"], "lang": record["lang"], "script group": record["script_group"]}
        for name, title in (
            ("information_F", "information F [CI]"),
            ("empathy_consistency", "empathy consistency [CI]"),
        ):
            row[title] = _with_interval(record[name], record[f"{name}_ci_low"], record[f"{name}_ci_high"], decimals)
            row[f"{title.split()[0]} n"] = record[f"{name}_n_items"]
        rows.append(row)
    schema = {
        "model": pl.String,
        "lang": pl.String,
        "script group": pl.String,
        "information F [CI]": pl.String,
        "information n": pl.Int64,
        "empathy consistency [CI]": pl.String,
        "empathy n": pl.Int64,
    }
    return pl.DataFrame(rows, schema=schema, orient="row")


def self_consistency_table(
    results: pa.Table | pl.DataFrame,
    *,
    languages: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    registry: LanguageRegistry | None = None,
) -> pl.DataFrame:
    """Translationese check: F of the round trips en→l→en per model and pivot language, the
    paper's Llama-3.1-8B beside ours."""
    frame = as_frame(results)
    part = select_metric(frame, TRANSLATIONESE, languages)
    lookup = cell_lookup(part)
    present = [
        model for model in model_order(frame, models) if models is not None or any(key[0] == model for key in lookup)
    ]
    seen = set(part["lang"].to_list())
    for model in present:
        published = PUBLISHED_SELF_CONSISTENCY.get(paper_model(model) or "")
        if published:
            seen |= {code for code in published if languages is None or code in languages}
    codes = language_order(seen, registry)
    rows = []
    for model in present:
        ours = {
            code: finite_or_none(lookup[(model, code)]["value"]) if (model, code) in lookup else None for code in codes
        }
        rows.append({"model": model, "source": "ours", "Avg": _mean(ours.values()), **ours})
        published = PUBLISHED_SELF_CONSISTENCY.get(paper_model(model) or "")
        if published:
            paper = {code: published.get(code) for code in codes}
            difference = {code: _minus(ours[code], paper[code]) for code in codes}
            rows.append({"model": model, "source": "published", "Avg": _mean(paper.values()), **paper})
            rows.append({"model": model, "source": "difference", "Avg": _mean(difference.values()), **difference})
    schema = {"model": pl.String, "source": pl.String, "Avg": pl.Float64} | {code: pl.Float64 for code in codes}
    return pl.DataFrame(rows, schema=schema, orient="row")


def _percent(value) -> float | None:
    return None if value is None else 100.0 * float(value)


def classifier_table(evaluations: Sequence[Mapping] | None) -> pl.DataFrame:
    """Per mechanism (and kind): our test scores (%) and pair count beside the paper's F1 and accuracy."""
    order = {mechanism: index for index, mechanism in enumerate(MECHANISMS)}
    evaluations = sorted(
        evaluations or [], key=lambda e: (order.get(e.get("mechanism"), len(order)), str(e.get("kind")))
    )
    covered = {e.get("mechanism") for e in evaluations}
    entries = list(evaluations) + [{"mechanism": m} for m in MECHANISMS if m not in covered]
    entries.sort(key=lambda e: order.get(e.get("mechanism"), len(order)))
    rows = []
    for evaluation in entries:
        mechanism = evaluation.get("mechanism")
        test = evaluation.get("test") or {}
        paper = PAPER_CLASSIFIERS.get(mechanism, {})
        accuracy, macro, positive = (
            _percent(test.get("accuracy")),
            _percent(test.get("macro_f1")),
            _percent(test.get("positive_f1")),
        )
        pairs = test.get("n", evaluation.get("n_test"))
        rows.append(
            {
                "mechanism": mechanism,
                "kind": evaluation.get("kind"),
                "train_on": evaluation.get("train_on"),
                "test pairs": None if pairs is None else int(pairs),
                "accuracy": accuracy,
                "macro-F1": macro,
                "positive F1": positive,
                "paper accuracy": paper.get("accuracy"),
                "paper F1": paper.get("f1"),
                "accuracy − paper": _minus(accuracy, paper.get("accuracy")),
                "macro-F1 − paper F1": _minus(macro, paper.get("f1")),
                "positive F1 − paper F1": _minus(positive, paper.get("f1")),
            }
        )
    schema = {"mechanism": pl.String, "kind": pl.String, "train_on": pl.String, "test pairs": pl.Int64}
    schema |= {
        name: pl.Float64
        for name in (
            "accuracy",
            "macro-F1",
            "positive F1",
            "paper accuracy",
            "paper F1",
            "accuracy − paper",
            "macro-F1 − paper F1",
            "positive F1 − paper F1",
        )
    }
    return pl.DataFrame(rows, schema=schema, orient="row")
