"""The Parquet schema of every table that passes between stages, in one place.

Each stage writes through :func:`xlcons.tables.write_table`, which casts to the schema
here, so a column that goes missing or changes type fails in the stage that wrote it,
not three rules later.
"""

from __future__ import annotations

import pyarrow as pa

# One row per (item, language) of a prompt set: what is sent to the model, and what the
# evaluators need about the item. `references` holds gold answers where a data set has
# them (MAKQA), `category` its domain/subject, `source_lang` the language the prompt was
# written in (the item's own language, or `en` for prompts translated from English).
PROMPTS = pa.schema(
    [
        pa.field("dataset", pa.string(), nullable=False),
        pa.field("item_id", pa.string(), nullable=False),
        pa.field("lang", pa.string(), nullable=False),
        pa.field("prompt", pa.string(), nullable=False),
        pa.field("category", pa.string()),
        pa.field("references", pa.list_(pa.string())),
        pa.field("source_lang", pa.string(), nullable=False),
    ]
)

# One row per (item, language) answered by one model. `finish_reason` is `stop`,
# `length`, `refused`, `empty` or `error`; for the last three `response` is "No answer"
# and `error` says why (paper 000 recorded Gemini's RECITATION errors this way).
# `decoding_hash` identifies the model + decoding configuration that produced the row.
RESPONSES = pa.schema(
    [
        pa.field("dataset", pa.string(), nullable=False),
        pa.field("model", pa.string(), nullable=False),
        pa.field("item_id", pa.string(), nullable=False),
        pa.field("lang", pa.string(), nullable=False),
        pa.field("prompt", pa.string(), nullable=False),
        pa.field("response", pa.string(), nullable=False),
        pa.field("finish_reason", pa.string(), nullable=False),
        pa.field("prompt_tokens", pa.int32()),
        pa.field("completion_tokens", pa.int32()),
        pa.field("backend", pa.string(), nullable=False),
        pa.field("decoding_hash", pa.string(), nullable=False),
        pa.field("error", pa.string()),
    ]
)

NO_ANSWER = "No answer"
FINISH_REASONS = ("stop", "length", "refused", "empty", "error")
