"""MultiQ report (Holtermann et al. 2024): Tables 3-5, Figures 3-4 and per-language results, for any models.

Inputs are the evaluators' tables of one or more models: FIDELITY (language ID),
JUDGMENTS (LLM judge) and, optionally, TOKENIZATION. Rows are matched on (dataset,
model, item_id, lang). Languages are MultiQ's prompt codes, near-duplicates (he/iw,
zh/zh-CN, jv/jw, tl/fil) counted as languages of their own, as the paper's 137 are.

Denominators (all figures are percentages):

Accuracy (Tables 3 and 5, per-language results)
    share of responses judged ``yes`` among *all* responses of the group: ``no``,
    ``unparseable`` (the judge said neither, or both, or failed) and ``no_answer`` (the
    model gave no answer, so the judge was not asked) all count as not correct, as in
    the paper, whose verdict normaliser read everything it could not parse as
    "incorrect". Nothing is guessed in the JUDGMENTS table itself, and the counts of
    unparseable and no_answer verdicts stand beside every accuracy. Failed requests
    (verdicts ``error`` and ``judge_error``: no answer of the model's to judge, or no
    verdict) and prompts longer than the model's context (``prompt_too_long``) are not
    the model's and are left out of the denominator; ``n_failed``
    counts them (with ``generation.max_failed_share`` at its default 0 there are none).
Table 3
    ``all``: pooled over every response of the model; ``en``: on English prompts;
    ``top10/20/50``: the mean of the per-language accuracies of the model's own N best
    languages (empty when the model has fewer than N languages).
Table 4 (accuracy by fidelity class)
    accuracy among the responses of each class (same, English, other); responses that
    are ``excluded`` from fidelity (unsupported languages, "No answer", ...) are in no
    class and are left out, as the paper left out Dogri and Meiteilon.
Table 5 (accuracy by tokenization class)
    accuracy pooled over every response in the languages of that class (the class of the
    prompt language under the model's own tokenizer); languages with no TOKENIZATION row
    are left out.
Fidelity shares (Figure 3, fidelity table)
    share of same / English / other among the responses that are not excluded; the
    excluded ones are counted beside (``n_excluded``). The table has the paper's
    robustness variant (numeric questions and responses under 10 characters dropped too)
    as a second row per model.
Other languages (§3.2)
    of the responses in neither the prompt's language nor English (class ``other``), the
    share in a language of the prompt language's family (families from the language
    registry; a response language outside it has an unknown family, as in the paper), the
    number of distinct languages, and each model's most frequent such languages.
Accuracy per language (Figures 5 and 9)
    each model's per-language accuracy (as above), the languages sorted by the median over
    the run's models, best first.
Language matrix (Figure 4)
    per model, for each prompt language (rows in registry order), the share of its scored
    (not excluded) responses in each response language. Response languages are named by registry code (the
    FIDELITY ``response_lang``), else by the raw LID label; the `TOP_RESPONSE_LANGUAGES`
    most frequent over the model's responses get a column, the rest are summed in "other".
    The colour scale is fixed at 0-100%.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa

from xlcons.evaluators.fidelity import FIDELITY, robust_variant
from xlcons.evaluators.judge_tables import JUDGE_FAILURES, JUDGMENTS
from xlcons.evaluators.tokenization_tables import TOKENIZATION
from xlcons.languages import LanguageRegistry
from xlcons.reports.formats import TABLE_SUFFIXES, write_table_files
from xlcons.reports.formats import save_figure as _save
from xlcons.tables import conform, read_table

TOP_N = (10, 20, 50)
TOP_RESPONSE_LANGUAGES = 15
FIDELITY_COLUMNS = ("same", "english", "other")
FIDELITY_TITLES = {"same": "Same", "english": "English", "other": "Other"}
TOKEN_COLUMNS = ("subword", "character", "ascii")
TOKEN_TITLES = {"subword": "Subword", "character": "Character", "ascii": "ASCII"}
KEYS = ["dataset", "model", "item_id", "lang"]
FIGURE_FORMATS = ("png", "pdf")
FIDELITY_COLOURS = {"same": "#43A047", "english": "#7CCEFD", "other": "#9667D0"}

TABLE3 = "table3_accuracy"
TABLE4 = "table4_accuracy_by_fidelity"
TABLE5 = "table5_accuracy_by_tokenization"
FIDELITY_TABLE = "fidelity_shares"
PER_LANGUAGE = "per_language"
FIGURE3 = "figure3_fidelity"
FIGURE4 = "figure4_language_matrix"
FIGURE5 = "figure5_accuracy_by_language"
OTHER_FAMILIES, OTHER_FALLBACKS = "other_language_families", "other_language_fallbacks"
TOP_FALLBACKS = 10
VERSUS = "table3_vs_published"

# Holtermann et al. 2024's published numbers (docs/methods.md §3), by the paper's model names as paper_key
# spells them: Table 3 accuracy % (all, en, top10, top20, top50) and the same-language share %.
PUBLISHED_TABLE3 = {
    "qwen157b": (16.6, 84.0, 61.6, 50.2, 34.3),
    "mistral7b": (15.4, 84.5, 64.6, 56.6, 37.6),
    "mixtral8x7b": (33.8, 90.5, 87.7, 84.8, 67.4),
    "llama27b": (19.2, 81.5, 58.4, 53.9, 41.4),
    "llama213b": (23.4, 82.0, 66.4, 62.7, 49.6),
    "llama270b": (29.1, 90.5, 80.7, 76.5, 61.2),
}
# Holtermann et al. 2024, Table 4: accuracy % among the responses in the same language, in English, in another.
PUBLISHED_TABLE4 = {
    "qwen157b": (21.5, 11.4, 11.7),
    "mistral7b": (17.1, 14.6, 11.8),
    "mixtral8x7b": (35.0, 37.0, 26.7),
    "llama27b": (44.7, 14.9, 46.5),
    "llama213b": (51.6, 15.1, 49.6),
    "llama270b": (61.4, 17.3, 48.2),
}
PUBLISHED_SAME = {"mistral7b": 62.3, "mixtral8x7b": 60.6, "qwen157b": 50.4, "llama270b": 21.4}
TABLE3_COLUMNS = ("all", "en", "top10", "top20", "top50")


def _frame(table: pa.Table | pl.DataFrame) -> pl.DataFrame:
    return table if isinstance(table, pl.DataFrame) else pl.from_arrow(table)


def _models(*frames: pl.DataFrame) -> list[str]:
    """Models in the order they first appear (the order of the input files)."""
    seen: dict[str, None] = {}
    for frame in frames:
        for model in frame["model"].to_list():
            seen.setdefault(model, None)
    return list(seen)


def _registry_order(codes: Iterable[str]) -> list[str]:
    """Codes in the order of the language registry (its table is sorted by code); unknown ones last."""
    position = {code: index for index, code in enumerate(LanguageRegistry.load().codes)}
    codes = list(codes)
    return sorted(codes, key=lambda code: (position.get(code, len(position)), codes.index(code)))


def _verdict_counts(frame: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    return (
        frame.group_by(by, maintain_order=True)
        .agg(
            n=pl.len(),
            n_yes=(pl.col("verdict") == "yes").sum(),
            n_no=(pl.col("verdict") == "no").sum(),
            n_unparseable=(pl.col("verdict") == "unparseable").sum(),
            n_no_answer=(pl.col("verdict") == "no_answer").sum(),
            n_failed=pl.col("verdict").is_in(list(JUDGE_FAILURES)).sum(),
        )
        .with_columns(
            accuracy=pl.when(pl.col("n") > pl.col("n_failed")).then(
                100.0 * pl.col("n_yes") / (pl.col("n") - pl.col("n_failed"))
            )
        )
    )


# -- Tables ---------------------------------------------------------------------------


def accuracy_by_language(judgments: pa.Table | pl.DataFrame) -> pl.DataFrame:
    """model, lang, n, n_yes, n_no, n_unparseable, n_no_answer, n_failed, accuracy (%)."""
    return _verdict_counts(_frame(judgments), ["model", "lang"])


def accuracy_table(judgments: pa.Table | pl.DataFrame, top_n: Sequence[int] = TOP_N) -> pl.DataFrame:
    """Table 3: accuracy overall, on English and on each model's top-N languages."""
    judgments = _frame(judgments)
    by_language = accuracy_by_language(judgments)
    overall = _verdict_counts(judgments, ["model"])
    rows = []
    for model in _models(judgments):
        languages = by_language.filter(pl.col("model") == model)
        ranked = sorted(languages["accuracy"].to_list(), reverse=True)
        english = languages.filter(pl.col("lang") == "en")["accuracy"].to_list()
        total = overall.filter(pl.col("model") == model).row(0, named=True)
        row = {
            "model": model,
            "n_languages": languages.height,
            "n_responses": total["n"],
            "all": total["accuracy"],
            "en": english[0] if english else None,
        }
        for n in top_n:
            row[f"top{n}"] = float(np.mean(ranked[:n])) if len(ranked) >= n else None
        row["n_unparseable"] = total["n_unparseable"]
        row["n_no_answer"] = total["n_no_answer"]
        row["n_failed"] = total["n_failed"]
        rows.append(row)
    schema = {"model": pl.String, "n_languages": pl.Int64, "n_responses": pl.Int64, "all": pl.Float64, "en": pl.Float64}
    schema |= {f"top{n}": pl.Float64 for n in top_n} | {
        "n_unparseable": pl.Int64,
        "n_no_answer": pl.Int64,
        "n_failed": pl.Int64,
    }
    return pl.DataFrame(rows, schema=schema, orient="row")


def _wide(counts: pl.DataFrame, column: str, classes: Sequence[str], models: list[str]) -> pl.DataFrame:
    """One row per model: accuracy per class, then the number of responses per class."""
    rows = []
    for model in models:
        row: dict[str, Any] = {"model": model}
        for name in classes:
            found = counts.filter((pl.col("model") == model) & (pl.col(column) == name))
            row[name] = found["accuracy"][0] if found.height else None
        for name in classes:
            found = counts.filter((pl.col("model") == model) & (pl.col(column) == name))
            row[f"n_{name}"] = int(found["n"][0]) if found.height else 0
        rows.append(row)
    schema = {"model": pl.String} | {name: pl.Float64 for name in classes} | {f"n_{name}": pl.Int64 for name in classes}
    return pl.DataFrame(rows, schema=schema, orient="row")


def accuracy_by_fidelity(judgments: pa.Table | pl.DataFrame, fidelity: pa.Table | pl.DataFrame) -> pl.DataFrame:
    """Table 4: accuracy among the responses in the same language, in English, in another."""
    judgments, fidelity = _frame(judgments), _frame(fidelity)
    joined = judgments.join(fidelity.select([*KEYS, "fidelity"]), on=KEYS, how="inner")
    joined = joined.filter(pl.col("fidelity").is_in(list(FIDELITY_COLUMNS)))
    return _wide(_verdict_counts(joined, ["model", "fidelity"]), "fidelity", FIDELITY_COLUMNS, _models(judgments))


def accuracy_by_tokenization(judgments: pa.Table | pl.DataFrame, tokenization: pa.Table | pl.DataFrame) -> pl.DataFrame:
    """Table 5: accuracy in the languages each model's tokenizer splits into subwords, characters, bytes."""
    judgments, tokenization = _frame(judgments), _frame(tokenization)
    classes = tokenization.select(["model", "lang", "token_class"]).unique(["model", "lang"], keep="first")
    joined = judgments.join(classes, on=["model", "lang"], how="inner")
    table = _wide(_verdict_counts(joined, ["model", "token_class"]), "token_class", TOKEN_COLUMNS, _models(judgments))
    languages = classes.group_by(["model", "token_class"]).agg(n=pl.len())
    extra = []
    for model in table["model"].to_list():
        row = {"model": model}
        for name in TOKEN_COLUMNS:
            found = languages.filter((pl.col("model") == model) & (pl.col("token_class") == name))
            row[f"languages_{name}"] = int(found["n"][0]) if found.height else 0
        unique = tokenization.filter(pl.col("model") == model)["unique_tokens_all_languages"]
        row["unique_tokens"] = int(unique[0]) if unique.len() else None
        extra.append(row)
    schema = (
        {"model": pl.String} | {f"languages_{name}": pl.Int64 for name in TOKEN_COLUMNS} | {"unique_tokens": pl.Int64}
    )
    return table.join(pl.DataFrame(extra, schema=schema, orient="row"), on="model", how="left", maintain_order="left")


def versus_published(
    accuracy: pl.DataFrame, shares: pl.DataFrame, by_fidelity: pl.DataFrame | None = None
) -> pl.DataFrame:
    """Our Table 3 and Table 4 accuracies and same-language share beside Holtermann et al. 2024's, for the
    paper's six models (matched by name: case, punctuation and -chat/-instruct suffixes ignored)."""
    from xlcons.reports.knowledge import paper_key

    rows = []
    for row in accuracy.to_dicts():
        for column, reference in zip(TABLE3_COLUMNS, PUBLISHED_TABLE3.get(paper_key(row["model"]), ())):
            rows.append(
                {"model": row["model"], "metric": f"accuracy {column}", "ours": row[column], "published": reference}
            )
    for row in by_fidelity.to_dicts() if by_fidelity is not None else []:
        for column, reference in zip(FIDELITY_COLUMNS, PUBLISHED_TABLE4.get(paper_key(row["model"]), ())):
            rows.append(
                {
                    "model": row["model"],
                    "metric": f"accuracy answering {column}",
                    "ours": row[column],
                    "published": reference,
                }
            )
    for row in shares.filter(pl.col("variant") == "main").to_dicts():
        reference = PUBLISHED_SAME.get(paper_key(row["model"]))
        if reference is not None:
            rows.append({"model": row["model"], "metric": "fidelity same", "ours": row["same"], "published": reference})
    frame = pl.DataFrame(
        rows, schema={"model": pl.String, "metric": pl.String, "ours": pl.Float64, "published": pl.Float64}
    )
    return frame.with_columns(difference=pl.col("ours") - pl.col("published"))


def fidelity_shares(fidelity: pa.Table | pl.DataFrame, *, robust: bool = True) -> pl.DataFrame:
    """Figure 3's numbers: per model (and variant), % same / English / other of the scored responses."""
    frame = _frame(fidelity)
    variants = [("main", frame)]
    if robust:
        variants.append(("robust", _frame(robust_variant(conform(frame.to_arrow(), FIDELITY, what="fidelity")))))
    rows = []
    for model in _models(frame):
        for variant, table in variants:
            rows_of_model = table.filter(pl.col("model") == model)
            scored = rows_of_model.filter(pl.col("fidelity") != "excluded")
            row = {
                "model": model,
                "variant": variant,
                "n_scored": scored.height,
                "n_excluded": rows_of_model.height - scored.height,
            }
            for name in FIDELITY_COLUMNS:
                count = scored.filter(pl.col("fidelity") == name).height
                row[name] = 100.0 * count / scored.height if scored.height else None
            rows.append(row)
    schema = {"model": pl.String, "variant": pl.String, "n_scored": pl.Int64, "n_excluded": pl.Int64}
    schema |= {name: pl.Float64 for name in FIDELITY_COLUMNS}
    return pl.DataFrame(rows, schema=schema, orient="row").select(
        ["model", "variant", *FIDELITY_COLUMNS, "n_scored", "n_excluded"]
    )


def language_matrix(fidelity: pa.Table | pl.DataFrame, model: str, top: int = TOP_RESPONSE_LANGUAGES) -> pl.DataFrame:
    """Figure 4's numbers: one row per prompt language, one column per response language (+ other), % of the row."""
    frame = _frame(fidelity).filter(pl.col("model") == model)
    prompt_languages = _registry_order(dict.fromkeys(frame["lang"].to_list()))
    scored = frame.filter(pl.col("fidelity") != "excluded").with_columns(
        response=pl.coalesce(pl.col("response_lang"), pl.col("label"), pl.lit("none"))
    )
    totals = scored.group_by("response").agg(n=pl.len()).sort(["n", "response"], descending=[True, False])
    kept = totals["response"].to_list()[:top]
    columns = kept + (["other"] if totals.height > len(kept) else [])
    counts = scored.with_columns(
        response=pl.when(pl.col("response").is_in(kept)).then(pl.col("response")).otherwise(pl.lit("other"))
    )
    counts = counts.group_by(["lang", "response"]).agg(n=pl.len())
    lookup = {(row["lang"], row["response"]): row["n"] for row in counts.iter_rows(named=True)}
    rows = []
    for lang in prompt_languages:
        total = sum(lookup.get((lang, column), 0) for column in columns)
        row = {"prompt_lang": lang, "n_scored": total}
        for column in columns:
            row[column] = 100.0 * lookup.get((lang, column), 0) / total if total else None
        rows.append(row)
    schema = {"prompt_lang": pl.String, "n_scored": pl.Int64} | {column: pl.Float64 for column in columns}
    return pl.DataFrame(rows, schema=schema, orient="row")


def _other_responses(fidelity: pa.Table | pl.DataFrame) -> pl.DataFrame:
    """The responses in neither the prompt's language nor English, with the response language
    (registry code, else the LID's raw label) and both languages' families (registry; null
    for a label outside it)."""
    registry = LanguageRegistry.load()
    family = {code: registry[code].family for code in registry.codes}
    other = _frame(fidelity).filter(pl.col("fidelity") == "other")
    return other.with_columns(
        response=pl.coalesce(pl.col("response_lang"), pl.col("label"), pl.lit("none")),
        prompt_family=pl.col("lang").replace_strict(family, default=None, return_dtype=pl.String),
        response_family=pl.col("response_lang").replace_strict(family, default=None, return_dtype=pl.String),
    )


def other_language_families(fidelity: pa.Table | pl.DataFrame) -> pl.DataFrame:
    """Holtermann et al. 2024 §3.2: of each model's responses in another language (neither the prompt's nor
    English), how many are in a language of the prompt language's family, of another family, or
    of a family the registry does not know (a language outside it); and how many distinct
    languages they are in. Shares are % of the model's other-language responses."""
    other = _other_responses(fidelity)
    rows = []
    for model in _models(_frame(fidelity)):
        mine = other.filter(pl.col("model") == model)
        known = mine.filter(pl.col("response_family").is_not_null() & pl.col("prompt_family").is_not_null())
        same = known.filter(pl.col("response_family") == pl.col("prompt_family")).height
        n = mine.height
        row = {
            "model": model,
            "n_other": n,
            "n_languages": mine["response"].n_unique(),
            "n_same_family": same,
            "n_other_family": known.height - same,
            "n_unknown_family": n - known.height,
        }
        for name in ("same_family", "other_family", "unknown_family"):
            row[f"{name} %"] = 100.0 * row[f"n_{name}"] / n if n else None
        rows.append(row)
    schema = {
        "model": pl.String,
        "n_other": pl.Int64,
        "n_languages": pl.Int64,
        "n_same_family": pl.Int64,
        "n_other_family": pl.Int64,
        "n_unknown_family": pl.Int64,
        "same_family %": pl.Float64,
        "other_family %": pl.Float64,
        "unknown_family %": pl.Float64,
    }
    return pl.DataFrame(rows, schema=schema, orient="row")


def other_language_fallbacks(fidelity: pa.Table | pl.DataFrame, top: int = TOP_FALLBACKS) -> pl.DataFrame:
    """Each model's most frequent languages among its other-language responses (rank, language,
    count, % of its other-language responses); ties by code."""
    other = _other_responses(fidelity)
    parts = []
    for model in _models(_frame(fidelity)):
        mine = other.filter(pl.col("model") == model)
        counts = mine.group_by("response").agg(n=pl.len()).sort(["n", "response"], descending=[True, False]).head(top)
        parts.append(
            counts.with_columns(
                model=pl.lit(model),
                rank=pl.int_range(1, counts.height + 1, dtype=pl.Int64),
                share=(100.0 * pl.col("n") / max(mine.height, 1)),
            ).select(
                [
                    "model",
                    "rank",
                    pl.col("response").alias("language"),
                    pl.col("n").cast(pl.Int64),
                    pl.col("share").alias("% of other"),
                ]
            )
        )
    schema = {"model": pl.String, "rank": pl.Int64, "language": pl.String, "n": pl.Int64, "% of other": pl.Float64}
    return pl.concat(parts) if parts else pl.DataFrame(schema=schema)


def per_language(
    judgments: pa.Table | pl.DataFrame,
    fidelity: pa.Table | pl.DataFrame,
    tokenization: pa.Table | pl.DataFrame | None = None,
) -> pl.DataFrame:
    """Per model and prompt language: accuracy with its counts, fidelity shares, tokenization class."""
    judgments, fidelity = _frame(judgments), _frame(fidelity)
    accuracy = accuracy_by_language(judgments)
    shares = fidelity.group_by(["model", "lang"], maintain_order=True).agg(
        n_fidelity_scored=(pl.col("fidelity") != "excluded").sum(),
        n_fidelity_excluded=(pl.col("fidelity") == "excluded").sum(),
        **{f"n_{name}": (pl.col("fidelity") == name).sum() for name in FIDELITY_COLUMNS},
    )
    for name in FIDELITY_COLUMNS:
        shares = shares.with_columns(
            pl.when(pl.col("n_fidelity_scored") > 0)
            .then(100.0 * pl.col(f"n_{name}") / pl.col("n_fidelity_scored"))
            .otherwise(None)
            .alias(f"fidelity_{name}")
        ).drop(f"n_{name}")
    table = accuracy.join(shares, on=["model", "lang"], how="full", coalesce=True, maintain_order="left")
    if tokenization is not None:
        classes = (
            _frame(tokenization)
            .select(["model", "lang", "token_class", "tokens_per_prompt", "unique_tokens"])
            .unique(["model", "lang"], keep="first")
        )
        table = table.join(classes, on=["model", "lang"], how="left", maintain_order="left")
    return table


def plot_fidelity(shares: pl.DataFrame, base: Path | str, formats: Iterable[str] = FIGURE_FORMATS) -> list[Path]:
    """Figure 3: one stacked horizontal bar per model, same / English / other (% of scored responses)."""
    import seaborn as sns
    from matplotlib.figure import Figure

    main = shares.filter(pl.col("variant") == "main")
    models = main["model"].to_list()
    with sns.axes_style("whitegrid"):
        figure = Figure(figsize=(8, 1.2 + 0.5 * max(len(models), 1)))
        axis = figure.subplots()
        left = np.zeros(len(models))
        for name in FIDELITY_COLUMNS:
            values = np.array([value or 0.0 for value in main[name].to_list()])
            bars = axis.barh(
                models, values, left=left, color=FIDELITY_COLOURS[name], label=FIDELITY_TITLES[name], edgecolor="white"
            )
            for bar, value in zip(bars, values):
                if value >= 5:
                    axis.text(
                        bar.get_x() + bar.get_width() / 2,
                        bar.get_y() + bar.get_height() / 2,
                        f"{value:.1f}",
                        ha="center",
                        va="center",
                        fontsize=8,
                        color="black",
                    )
            left += values
        axis.set_xlim(0, 100)
        axis.set_xlabel("Responses (%)")
        axis.set_ylabel("Model")
        axis.invert_yaxis()
        axis.set_title("Language fidelity: response in the prompt's language, in English, or in another")
        axis.legend(
            title="Response language",
            loc="upper center",
            bbox_to_anchor=(0.5, -0.35 if len(models) < 4 else -0.12),
            ncol=3,
            frameon=False,
        )
        return _save(figure, Path(base), formats)


def languages_by_median_accuracy(by_language: pl.DataFrame) -> list[str]:
    """Prompt languages sorted by the median of the models' accuracies, best first (ties by code)."""
    medians = (
        by_language.filter(pl.col("accuracy").is_not_null())
        .group_by("lang")
        .agg(pl.col("accuracy").median().alias("median"))
    )
    return [row["lang"] for row in medians.sort(["median", "lang"], descending=[True, False]).to_dicts()]


def plot_accuracy_by_language(
    by_language: pl.DataFrame, base: Path | str, formats: Iterable[str] = FIGURE_FORMATS
) -> list[Path]:
    """Figures 5 and 9: each model's accuracy per prompt language, the languages sorted by the
    median accuracy over the models (the paper's Figure 5 shows four models of one size, Figure 9
    all six; here every model of the run)."""
    import seaborn as sns
    from matplotlib.figure import Figure

    languages = languages_by_median_accuracy(by_language)
    models = _models(by_language)
    with sns.axes_style("whitegrid"):
        figure = Figure(figsize=(min(4 + 0.16 * max(len(languages), 1), 30), 4.5))
        axis = figure.subplots()
        palette = sns.color_palette("colorblind", max(len(models), 1))
        for colour, model in zip(palette, models):
            mine = {row["lang"]: row["accuracy"] for row in by_language.filter(pl.col("model") == model).to_dicts()}
            values = [np.nan if mine.get(lang) is None else mine[lang] for lang in languages]
            axis.plot(range(len(languages)), values, marker="o", markersize=3, linewidth=1, color=colour, label=model)
        axis.set_xticks(range(len(languages)))
        axis.set_xticklabels(languages, rotation=90, fontsize=6 if len(languages) > 40 else 8)
        axis.set_xlim(-0.5, max(len(languages), 1) - 0.5)
        axis.set_ylim(0, 100)
        axis.set_xlabel("Prompt language (sorted by the median accuracy over the models)")
        axis.set_ylabel("Accuracy (%)")
        axis.set_title("Accuracy per language")
        if models:
            axis.legend(loc="upper right", fontsize=8)
        figure.tight_layout()
        return _save(figure, Path(base), formats)


def plot_language_matrix(
    matrix: pl.DataFrame, model: str, base: Path | str, formats: Iterable[str] = FIGURE_FORMATS
) -> list[Path]:
    """Figure 4: heatmap of response-language shares per prompt language (fixed 0-100% scale)."""
    import seaborn as sns
    from matplotlib.figure import Figure

    columns = [column for column in matrix.columns if column not in ("prompt_lang", "n_scored")]
    rows = [f"{lang} ({n})" for lang, n in zip(matrix["prompt_lang"].to_list(), matrix["n_scored"].to_list())]
    values = np.array(
        [[np.nan if value is None else value for value in matrix[column].to_list()] for column in columns], dtype=float
    ).T
    if values.size == 0:
        values = np.full((max(len(rows), 1), max(len(columns), 1)), np.nan)
    small = values.size <= 600
    height = min(2 + 0.28 * max(len(rows), 1), 45)
    figure = Figure(figsize=(min(3.5 + 0.45 * max(len(columns), 1), 30), height))
    axis = figure.subplots()
    sns.heatmap(
        values,
        ax=axis,
        vmin=0,
        vmax=100,
        cmap="viridis",
        annot=small,
        fmt=".0f",
        annot_kws={"fontsize": 7},
        xticklabels=columns or False,
        yticklabels=rows or False,
        cbar_kws={"label": "Responses of the prompt language (%)", "shrink": min(1.0, 6 / height)},
        linewidths=0.3 if small else 0,
        linecolor="white",
    )
    axis.set_xlabel("Response language (registry code, else LID label)")
    axis.set_ylabel("Prompt language (scored responses)")
    axis.set_title(f"{model}: prompt language × response language")
    axis.tick_params(axis="x", labelrotation=90)
    axis.tick_params(axis="y", labelrotation=0)
    return _save(figure, Path(base), formats)


# -- The report job -------------------------------------------------------------------


def report_outputs(
    out_dir: Path | str,
    models: Sequence[str],
    table_formats: Sequence[str] = ("csv", "markdown"),
    figure_formats: Sequence[str] = FIGURE_FORMATS,
    tokenization: bool = True,
) -> list[Path]:
    """Every file `run_report` writes for these models (for the rule's output)."""
    out = Path(out_dir)
    tables = [TABLE3, TABLE4, FIDELITY_TABLE, OTHER_FAMILIES, OTHER_FALLBACKS, VERSUS] + (
        [TABLE5] if tokenization else []
    )
    paths = [out / f"{name}{TABLE_SUFFIXES[kind]}" for name in tables for kind in table_formats]
    paths.append(out / f"{PER_LANGUAGE}.csv")
    paths += [out / f"{name}.{kind}" for name in (FIGURE3, FIGURE5) for kind in figure_formats]
    for model in models:
        paths.append(out / f"{FIGURE4}_{model}.csv")
        paths += [out / f"{FIGURE4}_{model}.{kind}" for kind in figure_formats]
    return paths


def _read_all(paths: Sequence[Path | str], schema: pa.Schema) -> pa.Table:
    tables = [read_table(path, schema) for path in paths]
    return pa.concat_tables(tables) if tables else schema.empty_table()


def build_report(
    fidelity: pa.Table,
    judgments: pa.Table,
    out_dir: Path | str,
    tokenization: pa.Table | None = None,
    table_formats: Sequence[str] = ("csv", "markdown"),
    figure_formats: Sequence[str] = FIGURE_FORMATS,
    top_response_languages: int = TOP_RESPONSE_LANGUAGES,
) -> list[Path]:
    """Write every table and figure of the report into `out_dir`; returns the paths written."""
    out = Path(out_dir)
    unknown = sorted(set(table_formats) - set(TABLE_SUFFIXES)) + sorted(set(figure_formats) - set(FIGURE_FORMATS))
    if unknown:
        raise ValueError(
            f"unknown output formats {unknown}; tables: {sorted(TABLE_SUFFIXES)}, figures: {list(FIGURE_FORMATS)}"
        )
    written = []
    accuracy = accuracy_table(judgments)
    written += write_table_files(accuracy, out / TABLE3, table_formats)
    by_fidelity = accuracy_by_fidelity(judgments, fidelity)
    written += write_table_files(by_fidelity, out / TABLE4, table_formats)
    shares = fidelity_shares(fidelity)
    written += write_table_files(shares, out / FIDELITY_TABLE, table_formats)
    written += write_table_files(other_language_families(fidelity), out / OTHER_FAMILIES, table_formats)
    written += write_table_files(other_language_fallbacks(fidelity), out / OTHER_FALLBACKS, table_formats)
    written += write_table_files(versus_published(accuracy, shares, by_fidelity), out / VERSUS, table_formats)
    if tokenization is not None:
        written += write_table_files(accuracy_by_tokenization(judgments, tokenization), out / TABLE5, table_formats)
    written += write_table_files(per_language(judgments, fidelity, tokenization), out / PER_LANGUAGE, ["csv"])
    written += plot_fidelity(shares, out / FIGURE3, figure_formats)
    written += plot_accuracy_by_language(accuracy_by_language(judgments), out / FIGURE5, figure_formats)
    for model in _models(_frame(fidelity)):
        matrix = language_matrix(fidelity, model, top_response_languages)
        written += write_table_files(matrix, out / f"{FIGURE4}_{model}", ["csv"])
        written += plot_language_matrix(matrix, model, out / f"{FIGURE4}_{model}", figure_formats)
    return written


def run_report(
    fidelity_files: Sequence[Path | str],
    judgment_files: Sequence[Path | str],
    out_dir: Path | str,
    tokenization_files: Sequence[Path | str] = (),
    table_formats: Sequence[str] = ("csv", "markdown"),
    figure_formats: Sequence[str] = FIGURE_FORMATS,
    top_response_languages: int = TOP_RESPONSE_LANGUAGES,
) -> list[Path]:
    """The rule's job: FIDELITY, JUDGMENTS (and TOKENIZATION) files of all models in, the report out."""
    tokenization = _read_all(tokenization_files, TOKENIZATION) if tokenization_files else None
    return build_report(
        _read_all(fidelity_files, FIDELITY),
        _read_all(judgment_files, JUDGMENTS),
        out_dir,
        tokenization,
        table_formats,
        figure_formats,
        top_response_languages,
    )
