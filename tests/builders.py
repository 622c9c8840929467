"""Small tables for tests, built the way the stages would write them."""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa

from xlcons.schemas import NO_ANSWER, RESPONSES


def response_rows(rows: Sequence[tuple[str, ...]], model: str = "m", dataset: str = "multiq") -> pa.Table:
    """RESPONSES rows from (item_id, lang, response[, finish_reason]); a "No answer" row without
    a finish reason is a refusal ("refused"), as the stage writes one; give "error" for a failed request."""
    records = []
    for item, lang, response, *reason in rows:
        finish = reason[0] if reason else ("refused" if response == NO_ANSWER else "stop")
        records.append({
            "dataset": dataset,
            "model": model,
            "item_id": item,
            "lang": lang,
            "prompt": f"({lang}) question {item}",
            "response": response,
            "finish_reason": finish,
            "prompt_tokens": None,
            "completion_tokens": None,
            "backend": "file",
            "decoding_hash": "x",
            "error": "failed" if finish == "error" else None,
        })
    return pa.Table.from_pylist(records, schema=RESPONSES)


def offline_config(repo) -> dict:
    """config/offline.yaml with its resources/ paths made absolute, for runs in another directory."""
    import yaml

    config = yaml.safe_load((repo / "config" / "offline.yaml").read_text())

    def absolute(section):
        if isinstance(section, dict):
            for key, value in section.items():
                if key == "path" and isinstance(value, str) and value.startswith("resources/"):
                    section[key] = str(repo / value)
                else:
                    absolute(value)

    absolute(config)
    return config
