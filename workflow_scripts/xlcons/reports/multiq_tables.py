"""The MultiQ report's tables (Holtermann et al. 2024): accuracy, fidelity shares, other languages, per language.

Computed from the evaluators' FIDELITY, JUDGMENTS and TOKENIZATION tables of one or more
models, matched on (dataset, model, item_id, lang). The denominators of every figure are
described in xlcons.reports.multiq, which writes the tables.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa

from xlcons.evaluators.fidelity import FIDELITY, robust_variant
from xlcons.evaluators.judge_tables import JUDGE_FAILURES
from xlcons.languages import LanguageRegistry
from xlcons.tables import conform

TOP_N = (10, 20, 50)
TOP_RESPONSE_LANGUAGES = 15
FIDELITY_COLUMNS = ("same", "english", "other")
TOKEN_COLUMNS = ("subword", "character", "ascii")
TOKEN_TITLES = {"subword": "Subword", "character": "Character", "ascii": "ASCII"}
KEYS = ["dataset", "model", "item_id", "lang"]
TOP_FALLBACKS = 10


def as_frame(table: pa.Table | pl.DataFrame) -> pl.DataFrame:
    return table if isinstance(table, pl.DataFrame) else pl.from_arrow(table)


def models_in_order(*frames: pl.DataFrame) -> list[str]:
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
    return _verdict_counts(as_frame(judgments), ["model", "lang"])


def accuracy_table(judgments: pa.Table | pl.DataFrame, top_n: Sequence[int] = TOP_N) -> pl.DataFrame:
    """Table 3: accuracy overall, on English and on each model's top-N languages."""
    judgments = as_frame(judgments)
    by_language = accuracy_by_language(judgments)
    overall = _verdict_counts(judgments, ["model"])
    rows = []
    for model in models_in_order(judgments):
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
    judgments, fidelity = as_frame(judgments), as_frame(fidelity)
    joined = judgments.join(fidelity.select([*KEYS, "fidelity"]), on=KEYS, how="inner")
    joined = joined.filter(pl.col("fidelity").is_in(list(FIDELITY_COLUMNS)))
    return _wide(
        _verdict_counts(joined, ["model", "fidelity"]), "fidelity", FIDELITY_COLUMNS, models_in_order(judgments)
    )


def accuracy_by_tokenization(judgments: pa.Table | pl.DataFrame, tokenization: pa.Table | pl.DataFrame) -> pl.DataFrame:
    """Table 5: accuracy in the languages each model's tokenizer splits into subwords, characters, bytes."""
    judgments, tokenization = as_frame(judgments), as_frame(tokenization)
    classes = tokenization.select(["model", "lang", "token_class"]).unique(["model", "lang"], keep="first")
    joined = judgments.join(classes, on=["model", "lang"], how="inner")
    table = _wide(
        _verdict_counts(joined, ["model", "token_class"]), "token_class", TOKEN_COLUMNS, models_in_order(judgments)
    )
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


def fidelity_shares(fidelity: pa.Table | pl.DataFrame, *, robust: bool = True) -> pl.DataFrame:
    """Figure 3's numbers: per model (and variant), % same / English / other of the scored responses."""
    frame = as_frame(fidelity)
    variants = [("main", frame)]
    if robust:
        variants.append(("robust", as_frame(robust_variant(conform(frame.to_arrow(), FIDELITY, what="fidelity")))))
    rows = []
    for model in models_in_order(frame):
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
    frame = as_frame(fidelity).filter(pl.col("model") == model)
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
    other = as_frame(fidelity).filter(pl.col("fidelity") == "other")
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
    for model in models_in_order(as_frame(fidelity)):
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
    for model in models_in_order(as_frame(fidelity)):
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
    judgments, fidelity = as_frame(judgments), as_frame(fidelity)
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
            as_frame(tokenization)
            .select(["model", "lang", "token_class", "tokens_per_prompt", "unique_tokens"])
            .unique(["model", "lang"], keep="first")
        )
        table = table.join(classes, on=["model", "lang"], how="left", maintain_order="left")
    return table
