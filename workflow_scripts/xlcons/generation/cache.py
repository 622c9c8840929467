"""The response cache of one generation job (an append-only JSON-lines file, xlcons.jsonl_cache).

Keys hash the model identity, the decoding parameters and the messages
(xlcons.generation.base.build_requests), so a changed parameter simply misses the cache.
Failed requests (finish_reason `error`) are not kept: a rerun tries them again.
"""

from __future__ import annotations

from pathlib import Path

from xlcons.generation.base import Result
from xlcons.jsonl_cache import JsonLinesCache


class ResponseCache(JsonLinesCache):
    def __init__(self, path: Path | str, *, flush_every: int = 16):
        super().__init__(path, flush_every=flush_every)

    def get(self, key: str) -> Result | None:
        record = self.record(key)
        return None if record is None else Result.from_record(record)

    def put(self, result: Result) -> None:
        if result.finish_reason != "error":
            self.add(result.to_record())
