"""Knowledge-consistency report (Xing et al. 2024): Tables 3-6 and the language-pair heatmaps.

Inputs are the KNOWLEDGE_SCORES and KNOWLEDGE_PAIRS tables of one or more models (one
file each, from the scoring rule). A metric that could not be computed (xSC without an
embedder, and so xC) stays empty ("–"), never 0. Where a model's name matches one of the
paper's 11 models (GPT-3.5, Bloomz 560M/1B/3B/7B, Llama2 7B/13B, Baichuan2 7B/13B,
Mistral-7B, Mixtral-8x7B; compared without case or punctuation, `-turbo`/`-chat`/`-instruct`
ignored), `table6_vs_published` puts the published Table 6 value beside ours with the
difference.

Tables 3, 4 and 6 and the heatmaps show each model's main prompt variant (the paper's
`few_shot` where the model has it, else its first); Table 5 puts every variant the run has
side by side, a column each, as the paper's Table 5 does for its three prompts. Table 3 and
Table 4 end with the Oracle row (xSC of the gold answers) when the run computed it. Every
table with xTC names the candidate ranking it used (`xTC ranking`: `list_position`, as the
released code and the published numbers, or `recency`, the paper's text).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa

from xlcons.evaluators.knowledge.tables import KNOWLEDGE_PAIRS, KNOWLEDGE_SCORES, main_variant
from xlcons.reports.figure_style import draw_heatmap, fit_title
from xlcons.reports.formats import save_figure, write_table_files
from xlcons.tables import read_table

OVERALL = "all"
MAIN_METRICS = ("xSC", "xAC", "xTC", "xC")
DOMAIN_METRICS = ("xSC", "xAC")
HEATMAP_METRICS = ("xSC", "xAC")
# As xlcons.evaluators.knowledge.metrics averages language pairs: an undefined pair of these metrics
# (a correlation with a constant side) counts as 0; of any other (xSC: no question answered
# in both languages) it is left out of the mean.
UNDEFINED_PAIRS_AS_ZERO = ("xAC", "xTC")
# Xing et al. 2024, Table 6 (xSC, xAC, xTC, xC), all 11 models, by `paper_key` of our names for them
# (the names of their released outputs: gpt35, bloomz-560m, ...). Bloomz's 0.6B is bloomz-560m;
# the Hub names bloomz-1b1 and bloomz-7b1 are the paper's 1B and 7B.
PUBLISHED_TABLE6 = {
    "gpt35": (0.706, 0.489, 0.508, 0.552),
    "bloomz560m": (0.353, 0.261, 0.236, 0.275),
    "bloomz1b": (0.389, 0.256, 0.199, 0.260),
    "bloomz3b": (0.409, 0.298, 0.191, 0.272),
    "bloomz7b": (0.414, 0.275, 0.193, 0.267),
    "llama27b": (0.577, 0.243, 0.297, 0.326),
    "llama213b": (0.563, 0.293, 0.321, 0.361),
    "baichuan27b": (0.530, 0.342, 0.413, 0.415),
    "baichuan213b": (0.564, 0.367, 0.391, 0.425),
    "mistral7b": (0.527, 0.245, 0.349, 0.339),
    "mixtral8x7b": (0.666, 0.430, 0.450, 0.496),
}
PUBLISHED_TABLE6 |= {"bloomz1b1": PUBLISHED_TABLE6["bloomz1b"], "bloomz7b1": PUBLISHED_TABLE6["bloomz7b"]}
TABLE3, TABLE4, TABLE5, TABLE6, VERSUS = (
    "table3_xsc",
    "table4_domains",
    "table5_variants",
    "table6_consistency",
    "table6_vs_published",
)
RANKING = "xTC ranking"
HEATMAP = "figure2_pairs"
FIGURE_FORMATS = ("png", "pdf")


def paper_key(model: str) -> str:
    name = re.sub(r"-(turbo|chat|instruct)\b.*$", "", model.lower())
    return re.sub(r"[^a-z0-9]", "", name)


def _scores(table: pa.Table) -> pl.DataFrame:
    return main_variant(pl.from_arrow(table))


def _value(frame: pl.DataFrame, model: str, metric: str, domain: str = OVERALL) -> float | None:
    rows = frame.filter((pl.col("model") == model) & (pl.col("metric") == metric) & (pl.col("domain") == domain))
    value = rows["value"][0] if rows.height else None
    return None if value is None or (isinstance(value, float) and np.isnan(value)) else float(value)


def _ranking(frame: pl.DataFrame, model: str) -> str | None:
    rows = frame.filter((pl.col("model") == model) & (pl.col("metric") == "xTC") & pl.col("ranking").is_not_null())
    return rows["ranking"][0] if rows.height else None


def _models(frame: pl.DataFrame) -> list[str]:
    return sorted(set(frame["model"].to_list()))


def _oracle(frame: pl.DataFrame, domain: str = OVERALL) -> float | None:
    """The gold answers' xSC (the same for every model: it does not read their answers)."""
    values = [value for m in _models(frame) if (value := _value(frame, m, "xSC_oracle", domain)) is not None]
    return values[0] if values else None


def table6(scores: pa.Table) -> pl.DataFrame:
    """One row per model: xSC, xAC, xTC and their harmonic mean xC (overall), and the xTC ranking."""
    frame = _scores(scores)
    rows = [
        {"model": m, **{metric: _value(frame, m, metric) for metric in MAIN_METRICS}, RANKING: _ranking(frame, m)}
        for m in _models(frame)
    ]
    return pl.DataFrame(
        rows, schema={"model": pl.String, **{metric: pl.Float64 for metric in MAIN_METRICS}, RANKING: pl.String}
    )


def table3(scores: pa.Table) -> pl.DataFrame:
    """xSC per model, and the Oracle (gold answers) once."""
    frame = _scores(scores)
    rows = [{"model": m, "xSC": _value(frame, m, "xSC")} for m in _models(frame)]
    if (oracle := _oracle(frame)) is not None:
        rows.append({"model": "Oracle", "xSC": oracle})
    return pl.DataFrame(rows, schema={"model": pl.String, "xSC": pl.Float64})


def table4(scores: pa.Table) -> pl.DataFrame:
    """Per model and metric (xSC, xAC), one column per domain, then the overall value; the
    Oracle's xSC per domain last (the paper's first row)."""
    frame = _scores(scores)
    domains = sorted(set(frame["domain"].to_list()) - {OVERALL, "timeliness"})
    rows = [
        {"model": m, "metric": metric, **{d: _value(frame, m, metric, d) for d in domains + [OVERALL]}}
        for m in _models(frame)
        for metric in DOMAIN_METRICS
    ]
    oracle = {d: _oracle(frame, d) for d in domains + [OVERALL]}
    if any(value is not None for value in oracle.values()):
        rows.append({"model": "Oracle", "metric": "xSC", **oracle})
    return pl.DataFrame(
        rows, schema={"model": pl.String, "metric": pl.String, **{d: pl.Float64 for d in domains + [OVERALL]}}
    )


def table5(scores: pa.Table) -> pl.DataFrame:
    """Paper Table 5: xSC per model under each prompt variant of the run (a column each, in the
    registry's order of variants), with the main metrics of each variant beside it."""
    from xlcons.datasets.makqa import VARIANTS

    frame = pl.from_arrow(scores)
    present = set(frame["variant"].to_list())
    variants = [name for name in VARIANTS if name in present] + sorted(present - set(VARIANTS))
    rows = []
    for model in _models(frame):
        for metric in MAIN_METRICS:
            row: dict[str, Any] = {"model": model, "metric": metric}
            for variant in variants:
                row[variant] = _value(frame.filter(pl.col("variant") == variant), model, metric)
            if any(row[variant] is not None for variant in variants):
                rows.append(row)
    return pl.DataFrame(rows, schema={"model": pl.String, "metric": pl.String, **{v: pl.Float64 for v in variants}})


def versus_published(scores: pa.Table) -> pl.DataFrame:
    """Our Table 6 values beside the paper's, for models the paper has; xTC and xC rows name
    the ranking ours used (the published ones come from `list_position`)."""
    ours = table6(scores)
    rows = []
    for row in ours.iter_rows(named=True):
        published = PUBLISHED_TABLE6.get(paper_key(row["model"]))
        for metric, reference in zip(MAIN_METRICS, published or ()):
            value = row[metric]
            rows.append(
                {
                    "model": row["model"],
                    "metric": metric,
                    "ours": value,
                    "published": reference,
                    "difference": None if value is None else value - reference,
                    RANKING: row[RANKING] if metric in ("xTC", "xC") else None,
                }
            )
    schema = {
        "model": pl.String,
        "metric": pl.String,
        "ours": pl.Float64,
        "published": pl.Float64,
        "difference": pl.Float64,
        RANKING: pl.String,
    }
    return pl.DataFrame(rows, schema=schema)


def plot_pairs(pairs: pa.Table, model: str, base: Path, formats: Iterable[str]) -> list[Path]:
    """Paper Figure 2: language × language matrices of xSC and xAC (overall), one panel each, on
    one fixed colour scale ([0, 1]); the diagonal (a language with itself) white, pairs without
    a value grey and hatched."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    frame = main_variant(pl.from_arrow(pairs)).filter((pl.col("model") == model) & (pl.col("domain") == OVERALL))
    metrics = [m for m in HEATMAP_METRICS if frame.filter(pl.col("metric") == m).height]
    figure, axes = plt.subplots(
        1, max(1, len(metrics)), figsize=(6.5 * max(1, len(metrics)), 5.5), squeeze=False, layout="constrained"
    )
    shown = frame.filter(pl.col("metric").is_in(metrics))
    languages = list(dict.fromkeys(shown["lang_i"].to_list() + shown["lang_j"].to_list()))  # one order, every panel
    for axis, metric in zip(axes[0], metrics):
        part = frame.filter(pl.col("metric") == metric)
        matrix = np.full((len(languages), len(languages)), np.nan)
        for row in part.iter_rows(named=True):
            matrix[languages.index(row["lang_i"]), languages.index(row["lang_j"])] = (
                row["value"] if row["value"] is not None else np.nan
            )
        draw_heatmap(
            axis,
            matrix,
            metric,
            xticklabels=languages,
            yticklabels=languages,
            xlabel="language j",
            ylabel="language i",
            cbar_label=metric,
            diagonal=True,
            annotate=len(languages) <= 12,
        )
        fit_title(axis, f"{model}: {metric} by language pair")
    if not metrics:
        axes[0][0].set_axis_off()
        fit_title(axes[0][0], f"{model}: no language-pair scores")
    written = save_figure(figure, base, formats)
    plt.close(figure)
    return written


def report_outputs(
    out_dir: Path | str,
    models: Sequence[str],
    table_formats: Sequence[str],
    figure_formats: Sequence[str] = FIGURE_FORMATS,
) -> list[Path]:
    from xlcons.reports.formats import TABLE_SUFFIXES

    out = Path(out_dir)
    paths = [
        out / f"{name}{TABLE_SUFFIXES[kind]}"
        for name in (TABLE3, TABLE4, TABLE5, TABLE6, VERSUS)
        for kind in table_formats
    ]
    paths += [out / f"{HEATMAP}_{model}.{kind}" for model in models for kind in figure_formats]
    return paths


def _read_all(paths: Sequence[Path | str], schema: pa.Schema) -> pa.Table:
    tables = [read_table(path, schema) for path in paths]
    return pa.concat_tables(tables) if tables else schema.empty_table()


def run_report(
    score_files: Sequence[Path | str],
    pair_files: Sequence[Path | str],
    out_dir: Path | str,
    table_formats: Sequence[str] = ("csv", "markdown"),
    figure_formats: Sequence[str] = FIGURE_FORMATS,
    models: Sequence[str] | None = None,
) -> list[Path]:
    """The rule's job: every model's scores and pairs in, Tables 3-6 and the heatmaps out (a
    heatmap per model, in `models`' order, the config's, else the scores')."""
    scores, pairs = _read_all(score_files, KNOWLEDGE_SCORES), _read_all(pair_files, KNOWLEDGE_PAIRS)
    out = Path(out_dir)
    written = []
    tables = (
        (TABLE3, table3(scores)),
        (TABLE4, table4(scores)),
        (TABLE5, table5(scores)),
        (TABLE6, table6(scores)),
        (VERSUS, versus_published(scores)),
    )
    for name, frame in tables:
        written += write_table_files(frame, out / name, table_formats, decimals=3)
    scored = list(dict.fromkeys(pl.from_arrow(scores)["model"].to_list()))
    order = [name for name in models or () if name in scored] + [name for name in scored if name not in (models or ())]
    for model in order:
        written += plot_pairs(pairs, model, out / f"{HEATMAP}_{model}", figure_formats)  # the paper's prompt variant
    return written
