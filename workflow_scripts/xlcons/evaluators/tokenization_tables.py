"""The tokenizer analysis's table (TOKENIZATION, written by xlcons.evaluators.tokenization, read
by xlcons.reports.multiq) and its adapter to the results table's corpus rows.

Kept apart from xlcons.evaluators.tokenization, which loads the tokenizers (transformers), so
that the MultiQ report's code, which runs in envs/report.yaml, needs pyarrow and polars only
(tests/test_envs.py follows every import).
"""

from __future__ import annotations

import polars as pl
import pyarrow as pa

from xlcons.schemas import DATASET, LANG, MODEL, NO_TRANSLATOR, RESULTS

# One row per (model tokenizer, prompt language): how the tokenizer splits that
# language's prompts. `top_*` list the 20 most used non-noise tokens (most used first),
# `*_share` the share of them in each class, `token_class` the language's class
# (`ascii` | `character` | `subword`, Holtermann et al. 2024, Table 5). `unique_tokens_all_languages`
# counts distinct tokens over every prompt of the table (the same value on every row).
TOKENIZATION = pa.schema(
    [
        DATASET,
        MODEL,
        pa.field("tokenizer", pa.string(), nullable=False),
        LANG,
        pa.field("n_prompts", pa.int32(), nullable=False),
        pa.field("n_tokens", pa.int64(), nullable=False),
        pa.field("tokens_per_prompt", pa.float64(), nullable=False),
        pa.field("unique_tokens", pa.int32(), nullable=False),
        pa.field("unique_tokens_all_languages", pa.int32(), nullable=False),
        pa.field("top_tokens", pa.list_(pa.string()), nullable=False),
        pa.field("top_token_ids", pa.list_(pa.int64()), nullable=False),
        pa.field("top_token_counts", pa.list_(pa.int64()), nullable=False),
        pa.field("top_token_classes", pa.list_(pa.string()), nullable=False),
        pa.field("ascii_share", pa.float64(), nullable=False),
        pa.field("character_share", pa.float64(), nullable=False),
        pa.field("subword_share", pa.float64(), nullable=False),
        pa.field("token_class", pa.string(), nullable=False),
    ]
)
TOKEN_CLASSES = ("ascii", "character", "subword")

EVALUATOR = "tokenization"
# The results table's metrics of a (model, language): its prompts' mean length in tokens, the
# distinct tokens they use, and the class shares of their top tokens (Table 5's classes).
SHARES = tuple(f"{name}_share" for name in TOKEN_CLASSES)
METRICS = ("tokens_per_prompt", "unique_tokens", *SHARES)


def to_results(tokenization: pa.Table) -> pl.DataFrame:
    """RESULTS rows (kind ``corpus``, no interval: a tokenizer is deterministic), one per (model,
    language, metric of METRICS); `n_items` the language's prompts. A language whose tokens are all
    noise (punctuation, spaces) has no top token, so no class share: its shares are empty, with a note."""
    rows = []
    for row in tokenization.to_pylist():
        no_top = not row["top_tokens"]
        for metric in METRICS:
            undefined = no_top and metric in SHARES
            rows.append(
                {
                    "dataset": row["dataset"],
                    "evaluator": EVALUATOR,
                    "translator": NO_TRANSLATOR,
                    "model": row["model"],
                    "lang": row["lang"],
                    "metric": metric,
                    "kind": "corpus",
                    "value": None if undefined else float(row[metric]),
                    "ci_low": None,
                    "ci_high": None,
                    "n_items": 0 if undefined else row["n_prompts"],
                    "n_excluded": 0,
                    "excluded_reasons": None,
                    "note": f"{metric} undefined: no token of the prompts but punctuation or space"
                    if undefined
                    else None,
                    "n_resamples": 0,
                    "ci_level": 0.95,
                }
            )
    return pl.from_arrow(pa.Table.from_pylist(rows, schema=RESULTS))
