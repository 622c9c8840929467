"""Knowledge consistency's tables (written by xlcons.evaluators.knowledge.metrics and .stage, read by
the results stage and xlcons.reports.knowledge / .translation_ability) and the adapter of its
overall scores to RESULTS rows.

Kept apart from the metrics (sacrebleu, scipy, the sentence embedder) so that the results
stage and the reports import pyarrow and polars only.
"""

from __future__ import annotations

import polars as pl
import pyarrow as pa

from xlcons.schemas import DATASET, ITEM_ID, LANG, MODEL, NO_TRANSLATOR, RESULTS

# Xing et al. 2024 on MAKQA (xlcons.evaluators.knowledge.metrics). `variant` is the prompt variant (the
# default `few_shot` for ids without a prefix); `domain` is a MAKQA domain or `all` (xSC
# and xAC pooled over the six non-timeliness domains, xTC on timeliness).

# One row per (model, variant, metric, domain); metric is xSC, xSC_oracle, xAC, xTC or xC.
# `value` is null when the metric is undefined (xC without one of its components; a score
# without two languages to pair). `n_items` counts the questions that entered the score: for
# xSC those with at least one usable answer, for xAC and xTC those with a chrF / Tscore in
# some language (a usable answer *and* gold answers), for xC those of xSC and xTC together;
# `n_excluded` the (question, language) cells left out (no response, or a generation
# error), `n_empty` the cells with an empty answer (scored as wrong). `ranking` is xTC's
# candidate ranking (`recency` or `list_position`), on the xTC and xC rows. Counts are null
# on an xC row without a value.
KNOWLEDGE_SCORES = pa.schema(
    [
        DATASET,
        MODEL,
        pa.field("variant", pa.string(), nullable=False),
        pa.field("metric", pa.string(), nullable=False),
        pa.field("domain", pa.string(), nullable=False),
        pa.field("value", pa.float64()),
        pa.field("n_items", pa.int32()),
        pa.field("n_excluded", pa.int32()),
        pa.field("n_empty", pa.int32()),
        pa.field("ranking", pa.string()),
    ]
)
KNOWLEDGE_METRICS = ("xSC", "xSC_oracle", "xAC", "xTC", "xC")

# One row per ordered language pair (lang_i != lang_j) of a metric and domain, for the
# heatmaps: C_ij (xSC), C^A_ij (xAC, xTC). `value` is null where undefined (a constant
# score vector or fewer than two shared questions; the metric counts those as 0);
# `n_items` is the number of questions both languages answered.
KNOWLEDGE_PAIRS = pa.schema(
    [
        DATASET,
        MODEL,
        pa.field("variant", pa.string(), nullable=False),
        pa.field("metric", pa.string(), nullable=False),
        pa.field("domain", pa.string(), nullable=False),
        pa.field("lang_i", pa.string(), nullable=False),
        pa.field("lang_j", pa.string(), nullable=False),
        pa.field("value", pa.float64()),
        pa.field("n_items", pa.int32(), nullable=False),
    ]
)

# One row per prompted (question, language): `status` ok | empty | missing; `chrf` the
# multi-reference chrF (0-100) against the gold answers; on timeliness questions `tscore`
# (best chrF / rank) and `best_rank` (rank of the best-matching candidate, null when the
# answer matches none). Null scores where the answer is missing.
KNOWLEDGE_ITEMS = pa.schema(
    [
        DATASET,
        MODEL,
        pa.field("variant", pa.string(), nullable=False),
        pa.field("domain", pa.string(), nullable=False),
        ITEM_ID,
        LANG,
        pa.field("status", pa.string(), nullable=False),
        pa.field("chrf", pa.float64()),
        pa.field("tscore", pa.float64()),
        pa.field("best_rank", pa.int32()),
    ]
)
KNOWLEDGE_STATUSES = ("ok", "empty", "missing")


# Why an overall score has no value (RESULTS' `note`): a component of xC without a row was not
# computed, one with a row but no value is undefined.
_NOT_COMPUTED = {
    "xSC": "xSC not computed (no sentence embedder)",
    "xAC": "xAC not computed: no question outside timeliness has a gold answer",
    "xTC": "xTC not computed: no timeliness question with gold answers",
}
_UNDEFINED = {
    "xSC": "no two languages answered a common question",
    "xSC_oracle": "no two languages have gold answers to a common question",
    "xAC": "fewer than two languages",
    "xTC": "fewer than two languages",
}
XC_COMPONENTS = ("xSC", "xAC", "xTC")


def _note(row: dict, rows: list[dict]) -> str | None:
    """RESULTS' `note` of an overall (domain ``all``) KNOWLEDGE_SCORES row: None with a value, else
    why not; `rows` are all the KNOWLEDGE_SCORES rows (for xC: is each component of its
    data set, model and variant there?)."""
    if row["value"] is not None:
        return None
    if row["metric"] != "xC":
        return f"{row['metric']} undefined: {_UNDEFINED.get(row['metric'], 'no score')}"
    mine = [r for r in rows if all(r[key] == row[key] for key in ("dataset", "model", "variant"))]
    overall = {r["metric"]: r for r in mine if r["domain"] == "all"}
    why = []
    for component in XC_COMPONENTS:
        found = overall.get(component)
        if found is None and component == "xSC" and any(r["metric"] == "xSC" for r in mine):
            why.append("xSC not computed: no question outside timeliness")  # an embedder ran, on timeliness only
        elif found is None:
            why.append(_NOT_COMPUTED[component])
        elif found["value"] is None:
            why.append(f"{component} undefined: {_UNDEFINED[component]}")
    return "xC undefined: " + ("; ".join(why) or "a component is not finite")


MAIN_VARIANT = "few_shot"  # the paper's prompt variant (a MAKQA id without a prefix)
OVERALL_DOMAIN = "all"


def main_variant(frame: pl.DataFrame) -> pl.DataFrame:
    """Each model's rows of its main prompt variant: the paper's where it has it, else its first."""
    kept = []
    for model in dict.fromkeys(frame["model"].to_list()):
        mine = frame.filter(pl.col("model") == model)
        variants = list(dict.fromkeys(mine["variant"].to_list()))
        main = MAIN_VARIANT if MAIN_VARIANT in variants else variants[0]
        kept.append(mine.filter(pl.col("variant") == main))
    return pl.concat(kept) if kept else frame


def pair_cells(pairs: pa.Table) -> pl.DataFrame:
    """The language-pair matrices the evaluator report draws (EvaluatorInfo.pair_figure): each
    model's main variant, over every domain (``all``); model, metric, lang_i, lang_j, value."""
    frame = main_variant(pl.from_arrow(pairs)).filter(pl.col("domain") == OVERALL_DOMAIN)
    return frame.select("model", "metric", "lang_i", "lang_j", "value")


def to_results(scores: pa.Table) -> pl.DataFrame:
    """RESULTS rows (kind ``corpus``, language ``all``) for the overall knowledge scores of each variant.

    xSC/xAC/xTC/xC are correlations and means over language pairs, not item means: they enter
    the results table as ``corpus`` rows (value and counts, no interval). The metric is named
    ``<metric>`` when the run has one prompt variant, ``<metric>@<variant>`` when it compares
    several (Xing et al. 2024's Table 5), so one (data set, model) holds them all. A row
    without a value says why in `note` (for xC: which component is missing, and why).
    """
    everything = pl.from_arrow(scores)
    frame = everything.filter(pl.col("domain") == "all")
    if frame.is_empty():
        return pl.from_arrow(RESULTS.empty_table())
    rows = everything.to_dicts()
    notes = [_note(row, rows) for row in frame.to_dicts()]
    single = frame["variant"].n_unique() == 1
    selected = frame.with_columns(pl.Series("note", notes, dtype=pl.String)).select(
        "dataset",
        pl.lit("knowledge").alias("evaluator"),
        pl.lit(NO_TRANSLATOR).alias("translator"),
        "model",
        pl.lit("all").alias("lang"),
        (pl.col("metric") if single else pl.col("metric") + "@" + pl.col("variant")).alias("metric"),
        pl.lit("corpus").alias("kind"),
        "value",
        pl.lit(None, pl.Float64).alias("ci_low"),
        pl.lit(None, pl.Float64).alias("ci_high"),
        pl.col("n_items").fill_null(0),
        pl.col("n_excluded").fill_null(0),
        pl.lit(None, pl.String).alias("excluded_reasons"),
        "note",
        pl.lit(0).alias("n_resamples"),
        pl.lit(0.95).alias("ci_level"),
    )
    return pl.from_arrow(pa.Table.from_pylist(selected.to_dicts(), schema=RESULTS))
