"""Holtermann et al. 2024's published MultiQ numbers (docs/methods.md §3) and our tables beside them.

Matched by model name as :func:`xlcons.reports.knowledge.paper_key` spells it (case,
punctuation and -chat/-instruct suffixes ignored).
"""

from __future__ import annotations

import polars as pl

from xlcons.reports.multiq_tables import FIDELITY_COLUMNS

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
