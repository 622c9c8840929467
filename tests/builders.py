"""Small tables for tests, built the way the stages would write them."""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa

from xlcons.schemas import NO_ANSWER, RESPONSES


def response_rows(rows: Sequence[tuple[str, str, str]], model: str = "m", dataset: str = "multiq") -> pa.Table:
    """RESPONSES rows from (item_id, lang, response); "No answer" rows carry an error, as the stage writes them."""
    return pa.Table.from_pylist(
        [
            {
                "dataset": dataset,
                "model": model,
                "item_id": item,
                "lang": lang,
                "prompt": f"({lang}) question {item}",
                "response": response,
                "finish_reason": "error" if response == NO_ANSWER else "stop",
                "prompt_tokens": None,
                "completion_tokens": None,
                "backend": "file",
                "decoding_hash": "x",
                "error": "failed" if response == NO_ANSWER else None,
            }
            for item, lang, response in rows
        ],
        schema=RESPONSES,
    )


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
