"""Translate-then-Evaluate report (Gupta et al. 2025): averaged consistency, self-consistency, classifiers, heatmaps.

Input is a RESULTS table (xlcons.reports.results) holding, per (model, lang):

- dataset ``information``, evaluator ``information``: ``precision``, ``recall``, ``f1`` (item
  means) and the derived ``F`` (harmonic mean of mean precision and mean recall: the paper's
  information-consistency score);
- dataset ``information``, evaluator ``translationese``: the same metrics for the round trips
  en→l→en, ``lang`` being the pivot language l;
- dataset ``empathy``, evaluator ``empathy``: ``consistency`` (all three mechanisms agree: the
  paper's empathy score) and ``ER``, ``IP``, ``EX`` (agreement of one mechanism);

and, optionally, the EPITOME classifiers' evaluations (the dicts ``train_classifier`` writes
to ``evaluation.json``).

English is the reference every other language is compared with, so its rows (if any) are
left out everywhere. `languages` (e.g. Gupta et al. 2025's 30) restricts every table and figure to
those codes. Languages are ordered by script group (Latin, Indic, Perso-Arabic, Other, then
languages outside every group), and within a group by code.

Files (names in :func:`report_outputs`; the set depends only on the formats and on whether
the translationese and classifier parts are asked for, never on the data):

``averaged_consistency``
    Gupta et al. 2025's main table. One row per model; for information (F) and for empathy
    (consistency): the unweighted mean over languages (``Avg``), the published average and
    ``difference`` = ours − published where the model is one of the paper's twelve (matched by
    this project's config name or the paper's own label, case-insensitively), the averages
    over the script groups and over the paper's family groups, ``In`` / ``Out`` of the model's
    documented training languages ("–" where those are unknown) and the number of languages
    averaged. A language outside a grouping (e.g. ``sw`` has no family group) is averaged in
    that grouping's ``ungrouped`` column and named in ``ungrouped languages``; these columns
    appear only when some language is ungrouped. The averages are those of
    :func:`xlcons.reports.groups.group_averages`; the long form is ``group_averages.csv``.
``averaged_metrics``
    per model, the mean over languages of every metric: information precision, recall, per-item
    F1 and F; empathy consistency and the ER / IP / EX agreements.
``per_language``
    one row per (model, language): information F and empathy consistency with their bootstrap
    interval, number of scored items and of excluded items. The CSV has every number at full
    precision in its own column; Markdown and LaTeX show ``value [ci_low, ci_high]`` with two
    decimals.
``self_consistency`` (translationese)
    one row per model, one column per pivot language (and ``Avg``, the mean over the row's
    languages): F between the English responses and their round trips. For Llama-3.1-8B two
    more rows give the published values and the differences (ours − published; their ``Avg``
    is the mean of the per-language differences); the paper's pivot languages then get a
    column even where this run has no value.
``classifiers``
    per mechanism (and classifier kind): test accuracy, macro-F1 and positive-class F1 in %, the
    number of test pairs, the paper's F1 and accuracy, and the differences (the paper does not
    say which F1 it reports, so both of ours are compared with it). Without evaluations the rows
    hold the paper's figures only.
``heatmap_information_F``, ``heatmap_empathy_consistency``
    model × language heatmaps, languages separated and labelled by script group (languages
    outside the registry last, under "no group"), colour scale
    fixed at [0, 1] for every model, values printed in the cells where there is room, grey where
    a model has no value.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa

from xlcons.languages import FAMILY_GROUPS, SCRIPT_GROUPS, LanguageRegistry
from xlcons.reports.formats import TABLE_SUFFIXES, save_figure, write_table_files
from xlcons.reports.groups import TRAINING_GROUPS, UNGROUPED, column_label, group_averages, group_table_wide
from xlcons.reports.results import primary_rows
from xlcons.schemas import RESULTS

REFERENCE = "en"
FIGURE_FORMATS = ("png", "pdf")

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

# This project's config names of Gupta et al. 2025's models -> the labels of the paper's tables.
PAPER_MODELS = {
    "aya-expanse-8b": "aya-exp-8b",
    "aya-expanse-32b": "aya-exp-32b",
    "gemma-2-9b": "gemma-2-9b",
    "gemma-2-27b": "gemma-2-27b",
    "llama-3.1-8b": "Llama-3.1-8B",
    "llama-3.3-70b": "Llama-3.3-70B",
    "qwen-2.5-14b": "Qwen-2.5-14B",
    "qwen-2.5-72b": "Qwen-2.5-72B",
    "gemini-2.0-flash-lite": "gemini-2.0-lite",
    "gemini-2.0-flash": "gemini-2.0",
    "gpt-4o-mini": "gpt-4o-mini",
    "gpt-4o": "gpt-4o",
}
# Gupta et al. 2025's averaged consistency, information / empathy (docs/methods.md §1).
PUBLISHED_AVERAGES = {
    "aya-exp-8b": {"information": 0.42, "empathy": 0.65},
    "aya-exp-32b": {"information": 0.49, "empathy": 0.67},
    "gemma-2-9b": {"information": 0.52, "empathy": 0.59},
    "gemma-2-27b": {"information": 0.59, "empathy": 0.60},
    "Llama-3.1-8B": {"information": 0.32, "empathy": 0.45},
    "Llama-3.3-70B": {"information": 0.49, "empathy": 0.48},
    "Qwen-2.5-14B": {"information": 0.39, "empathy": 0.60},
    "Qwen-2.5-72B": {"information": 0.49, "empathy": 0.61},
    "gemini-2.0-lite": {"information": 0.65, "empathy": 0.65},
    "gemini-2.0": {"information": 0.64, "empathy": 0.60},
    "gpt-4o-mini": {"information": 0.62, "empathy": 0.76},
    "gpt-4o": {"information": 0.68, "empathy": 0.82},
}
# Gupta et al. 2025's table "Self-consistency": Llama-3.1-8B, round trips en→l→en, Qwen evaluator.
PUBLISHED_SELF_CONSISTENCY = {
    "Llama-3.1-8B": {
        "ar": 0.90,
        "cs": 0.91,
        "fr": 0.93,
        "hi": 0.91,
        "ja": 0.86,
        "ml": 0.90,
        "fa": 0.89,
        "ru": 0.94,
        "es": 0.94,
        "ta": 0.86,
    },
}
# Gupta et al. 2025's ModernBERT-large classifiers on the EPITOME test split (%).
PAPER_CLASSIFIERS = {
    "ER": {"f1": 86.1, "accuracy": 87.2},
    "IP": {"f1": 87.3, "accuracy": 87.4},
    "EX": {"f1": 92.0, "accuracy": 95.8},
}
MECHANISMS = tuple(PAPER_CLASSIFIERS)

AVERAGED = "averaged_consistency"
GROUPS_LONG = "group_averages"
METRICS = "averaged_metrics"
PER_LANGUAGE = "per_language"
SELF_CONSISTENCY = "self_consistency"
CLASSIFIERS = "classifiers"
HEATMAPS = {"information": "heatmap_information_F", "empathy": "heatmap_empathy_consistency"}
HEATMAP_LABELS = {
    "information": (
        "Information consistency (F)",
        "Information consistency F (English response vs. translated response)",
    ),
    "empathy": ("Empathy consistency", "Empathy consistency (all three EPITOME mechanisms agree)"),
}
ANNOTATE_MAX_LANGUAGES = 40
ANNOTATE_MAX_MODELS = 30


# -- Helpers ----------------------------------------------------------------------------


def paper_model(model: str) -> str | None:
    """The paper's label of `model` (a config name such as ``llama-3.1-8b`` or the paper's own label), else None."""
    lowered = model.lower()
    if lowered in PAPER_MODELS:
        return PAPER_MODELS[lowered]
    for label in PUBLISHED_AVERAGES:
        if label.lower() == lowered:
            return label
    return None


def _frame(results: pa.Table | pl.DataFrame) -> pl.DataFrame:
    return results if isinstance(results, pl.DataFrame) else pl.from_arrow(results)


def _select(
    results: pl.DataFrame, key: tuple[str, str, str], languages: Sequence[str] | None, *, reference: bool = False
) -> pl.DataFrame:
    """One metric's rows; the reference language's (English, compared with itself) only when asked."""
    dataset, evaluator, metric = key
    part = results.filter(
        (pl.col("dataset") == dataset) & (pl.col("evaluator") == evaluator) & (pl.col("metric") == metric)
    )
    if not reference:
        part = part.filter(pl.col("lang") != REFERENCE)
    if languages is not None:
        part = part.filter(pl.col("lang").is_in(list(languages)))
    return part


def _finite(value) -> float | None:
    return None if value is None or not np.isfinite(value) else float(value)


def _mean(values: Iterable[float | None]) -> float | None:
    found = [value for value in values if value is not None]
    return float(np.mean(found)) if found else None


def _minus(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def _models(results: pl.DataFrame, models: Sequence[str] | None) -> list[str]:
    """`models` in its order, else the models in the order they first appear in the results."""
    if models is not None:
        return list(dict.fromkeys(models))
    return list(dict.fromkeys(results["model"].to_list()))


def language_groups(codes: Iterable[str], registry: LanguageRegistry | None = None) -> list[tuple[str, list[str]]]:
    """(script group, codes) in the paper's group order (then ``ungrouped``), codes sorted
    within a group; empty groups left out."""
    registry = registry or LanguageRegistry.load()
    members: dict[str, list[str]] = {group: [] for group in (*SCRIPT_GROUPS, UNGROUPED)}
    for code in dict.fromkeys(codes):
        group = registry[code].script_group if code in registry else None
        members[group if group in members else UNGROUPED].append(code)
    return [(group, sorted(found)) for group, found in members.items() if found]


def language_order(codes: Iterable[str], registry: LanguageRegistry | None = None) -> list[str]:
    return [code for _, found in language_groups(codes, registry) for code in found]


def _lookup(part: pl.DataFrame) -> dict[tuple[str, str], dict]:
    lookup: dict[tuple[str, str], dict] = {}
    for row in part.iter_rows(named=True):
        lookup.setdefault((row["model"], row["lang"]), row)
    return lookup


# -- Tables -----------------------------------------------------------------------------


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
    frame = _frame(results)
    chosen = pl.concat([_select(frame, key, languages) for key in SECTIONS.values()])
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
    frame = _frame(results)
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
    for model in _models(frame, models):
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
    frame = _frame(results)
    parts = {column: _select(frame, key, languages) for column, key in COMPONENTS.items()}
    rows = []
    for model in _models(frame, models):
        row = {"model": model}
        for column, part in parts.items():
            row[column] = _mean(_finite(v) for v in part.filter(pl.col("model") == model)["value"].to_list())
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
    frame = _frame(results)
    registry = registry or LanguageRegistry.load()
    parts = {name: _lookup(_select(frame, key, languages)) for name, key in PER_LANGUAGE_SECTIONS.items()}
    codes = language_order({lang for lookup in parts.values() for _, lang in lookup}, registry)
    schema: dict[str, pl.DataType] = {"model": pl.String, "lang": pl.String, "script_group": pl.String}
    for name in PER_LANGUAGE_SECTIONS:
        schema |= {
            f"{name}{suffix}": pl.Int64 if field.startswith("n_") else pl.Float64
            for suffix, field in PER_LANGUAGE_FIELDS
        }
    rows = []
    for model in _models(frame, models):
        for lang in codes:
            if not any((model, lang) in lookup for lookup in parts.values()):
                continue
            row = {
                "model": model,
                "lang": lang,
                "script_group": registry[lang].script_group if lang in registry else UNGROUPED,
            }
            for name, lookup in parts.items():
                record = lookup.get((model, lang), {})
                for suffix, field in PER_LANGUAGE_FIELDS:
                    value = record.get(field)
                    row[f"{name}{suffix}"] = value if field.startswith("n_") else _finite(value)
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
    frame = _frame(results)
    part = _select(frame, TRANSLATIONESE, languages)
    lookup = _lookup(part)
    present = [
        model for model in _models(frame, models) if models is not None or any(key[0] == model for key in lookup)
    ]
    codes = set(part["lang"].to_list())
    for model in present:
        published = PUBLISHED_SELF_CONSISTENCY.get(paper_model(model) or "")
        if published:
            codes |= {code for code in published if languages is None or code in languages}
    codes = language_order(codes, registry)
    rows = []
    for model in present:
        ours = {code: _finite(lookup[(model, code)]["value"]) if (model, code) in lookup else None for code in codes}
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


# -- Figures ----------------------------------------------------------------------------


def _group_label(group: str, n_languages: int) -> str:
    """A script group's axis label, broken onto two lines where the group is one or two cells wide."""
    label = "no group" if group == UNGROUPED else group
    if n_languages <= 2:
        label = label.replace("-", "-\n").replace(" ", "\n")
    return label


def plot_heatmap(
    results: pa.Table | pl.DataFrame,
    section: str,
    base: Path | str,
    formats: Iterable[str] = FIGURE_FORMATS,
    *,
    languages: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    registry: LanguageRegistry | None = None,
) -> list[Path]:
    """Model × language heatmap of `section` (``information`` F or ``empathy`` consistency),
    languages grouped by script."""
    return plot_metric_heatmap(
        results,
        SECTIONS[section],
        HEATMAP_LABELS[section],
        base,
        formats,
        languages=languages,
        models=models,
        registry=registry,
    )


def plot_metric_heatmap(
    results: pa.Table | pl.DataFrame,
    key: tuple[str, str, str],
    labels: tuple[str, str],
    base: Path | str,
    formats: Iterable[str] = FIGURE_FORMATS,
    *,
    languages: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    registry: LanguageRegistry | None = None,
    english: bool = False,
) -> list[Path]:
    """Model × language heatmap of one (data set, evaluator, metric) of the results table, in
    [0, 1], languages grouped by script; `labels` are the colour bar's label and the title.
    English is left out unless `english` (Gupta et al. 2025 compares every language with it)."""
    import seaborn as sns
    from matplotlib.figure import Figure

    frame = _frame(results)
    lookup = _lookup(_select(frame, key, languages, reference=english))
    groups = language_groups({lang for _, lang in lookup}, registry)
    codes = [code for _, found in groups for code in found]
    rows = [model for model in _models(frame, models) if models is not None or any(key[0] == model for key in lookup)]
    matrix = np.full((len(rows), len(codes)), np.nan)
    for i, model in enumerate(rows):
        for j, code in enumerate(codes):
            if (model, code) in lookup:
                value = _finite(lookup[(model, code)]["value"])
                matrix[i, j] = np.nan if value is None else value
    cbar_label, title = labels
    width = min(max(5.0, 2.5 + 0.5 * len(codes)), 40.0)
    height = min(max(2.6, 1.8 + 0.42 * len(rows)), 30.0)
    figure = Figure(figsize=(width, height))
    axis = figure.subplots()
    if matrix.size == 0:
        axis.set_axis_off()
        axis.text(0.5, 0.5, "no results", ha="center", va="center", transform=axis.transAxes)
        axis.set_title(title)
        return save_figure(figure, Path(base), formats)
    annotate = len(codes) <= ANNOTATE_MAX_LANGUAGES and len(rows) <= ANNOTATE_MAX_MODELS
    axis.set_facecolor("#d9d9d9")  # cells without a value
    sns.heatmap(
        matrix,
        ax=axis,
        vmin=0.0,
        vmax=1.0,
        cmap="viridis",
        mask=np.isnan(matrix),
        annot=annotate,
        fmt=".2f",
        annot_kws={"fontsize": 6.5},
        xticklabels=codes,
        yticklabels=rows,
        cbar_kws={"label": cbar_label},
        linewidths=0.3,
        linecolor="white",
    )
    boundaries = np.cumsum([len(found) for _, found in groups])[:-1]
    for boundary in boundaries:
        axis.axvline(boundary, color="white", linewidth=3)
    starts = np.concatenate([[0], np.cumsum([len(found) for _, found in groups])[:-1]])
    centres = [start + len(found) / 2 for start, (_, found) in zip(starts, groups)]
    top = axis.secondary_xaxis("top")
    top.set_xticks(centres, labels=[_group_label(group, len(found)) for group, found in groups])
    top.tick_params(length=0, labelsize=8)
    top.set_xlabel("Script group")
    axis.set_xlabel("Language")
    axis.set_ylabel("Model")
    axis.tick_params(axis="x", labelrotation=90 if len(codes) > 20 else 0)
    axis.tick_params(axis="y", labelrotation=0)
    axis.set_title(title + ("; grey: no value" if np.isnan(matrix).any() else ""), pad=8)
    return save_figure(figure, Path(base), formats)


# -- The report job ---------------------------------------------------------------------


def _table_paths(out: Path, name: str, table_formats: Sequence[str]) -> list[Path]:
    return [out / f"{name}{TABLE_SUFFIXES[kind]}" for kind in table_formats]


def report_outputs(
    out_dir: Path | str,
    models: Sequence[str] = (),
    table_formats: Sequence[str] = ("csv", "markdown"),
    figure_formats: Sequence[str] = FIGURE_FORMATS,
    *,
    translationese: bool,
    classifiers: bool,
) -> list[Path]:
    """Every file :func:`write_report` writes, in its order. Every table has all models as rows,
    so `models` changes no name."""
    del models  # one file per table / figure, whatever the models
    out = Path(out_dir)
    paths = _table_paths(out, AVERAGED, table_formats)
    paths.append(out / f"{GROUPS_LONG}.csv")
    paths += _table_paths(out, METRICS, table_formats)
    paths += _table_paths(out, PER_LANGUAGE, table_formats)
    if translationese:
        paths += _table_paths(out, SELF_CONSISTENCY, table_formats)
    if classifiers:
        paths += _table_paths(out, CLASSIFIERS, table_formats)
    for name in HEATMAPS.values():
        paths += [out / f"{name}.{kind}" for kind in figure_formats]
    return paths


def write_report(
    results: pa.Table | pl.DataFrame,
    out_dir: Path | str,
    *,
    training_languages: Mapping[str, Sequence[str] | None] | None = None,
    classifier_evaluations: Sequence[Mapping] | None = None,
    table_formats: Sequence[str] = ("csv", "markdown"),
    figure_formats: Sequence[str] = FIGURE_FORMATS,
    languages: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    translationese: bool | None = None,
    translator: str | None = None,
) -> list[Path]:
    """Write the report into `out_dir`; returns the paths written (== :func:`report_outputs`).

    `translator`: the primary translator, whose scores the paper's tables show when the run
    has several (the spread between them is the translation-quality report's); None: all rows.

    `training_languages`: model -> its documented training language codes (None / absent:
    unknown, In / Out "–"). `classifier_evaluations`: the classifiers' evaluation dicts; None
    writes no classifier table, an empty list one with the paper's figures only. `models`:
    the rows and their order (default: the models in the order they first appear; a model
    given here without results gets empty cells). `translationese`: write the
    self-consistency table (default: when the results have translationese rows; the rule
    should pass it, as it passes it to :func:`report_outputs`).
    """
    unknown = sorted(set(table_formats) - set(TABLE_SUFFIXES)) + sorted(set(figure_formats) - set(FIGURE_FORMATS))
    if unknown:
        raise ValueError(
            f"unknown output formats {unknown}; tables: {sorted(TABLE_SUFFIXES)}, figures: {list(FIGURE_FORMATS)}"
        )
    frame = primary_rows(_frame(results), translator)
    if frame.is_empty():
        frame = pl.from_arrow(RESULTS.empty_table())
    if translationese is None:
        translationese = frame.filter(pl.col("evaluator") == TRANSLATIONESE[1]).height > 0
    registry = LanguageRegistry.load()
    out = Path(out_dir)
    options = {"languages": languages, "models": models}
    written: list[Path] = []

    groups = group_frame(frame, training_languages=training_languages, languages=languages, registry=registry)
    written += write_table_files(
        averaged_table(frame, groups=groups, registry=registry, **options), out / AVERAGED, table_formats, decimals=2
    )
    written += write_table_files(groups, out / GROUPS_LONG, ["csv"])
    written += write_table_files(metrics_table(frame, **options), out / METRICS, table_formats, decimals=2)

    numbers = per_language_table(frame, registry=registry, **options)
    display = per_language_display(numbers)
    for kind in table_formats:
        written += write_table_files(numbers if kind == "csv" else display, out / PER_LANGUAGE, [kind], decimals=2)

    if translationese:
        written += write_table_files(
            self_consistency_table(frame, registry=registry, **options),
            out / SELF_CONSISTENCY,
            table_formats,
            decimals=2,
        )
    if classifier_evaluations is not None:
        written += write_table_files(
            classifier_table(classifier_evaluations), out / CLASSIFIERS, table_formats, decimals=1
        )
    for section, name in HEATMAPS.items():
        written += plot_heatmap(frame, section, out / name, figure_formats, registry=registry, **options)
    return written
