"""The tokenizer analysis's table (TOKENIZATION, written by xlcons.evaluators.tokenization, read
by xlcons.reports.multiq).

Kept apart from xlcons.evaluators.tokenization, which loads the tokenizers (transformers), so
that the MultiQ report's code, which runs in envs/report.yaml, needs pyarrow only
(tests/test_envs.py follows every import).
"""

from __future__ import annotations

import pyarrow as pa

from xlcons.schemas import DATASET, LANG, MODEL

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
