"""The response cache of one generation job (an append-only JSON-lines file, xlcons.jsonl_cache).

Keys hash the model identity, the decoding parameters and the messages
(xlcons.generation.base.build_requests), so a changed parameter simply misses the cache.
Failed requests (finish_reason `error`) are not kept: a rerun tries them again. Nor are
prompts longer than the model's context (`prompt_too_long`): the context is not in the key
(`vllm.max_model_len` is an engine option), so a rerun after raising it must count them again.
A job's cache reads the caches of the same work's shard jobs too (`ResponseCache.of_job`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from xlcons.generation.base import Result
from xlcons.jsonl_cache import CacheFormat, JsonLinesCache
from xlcons.schemas import UNANSWERED_REASONS
from xlcons.shards import related_caches


class ResponseCache(JsonLinesCache):
    # Result.to_record's fields; what a later stage cannot do without is required (raise the
    # version, with an upgrade where one is possible, when a field is renamed or removed).
    FORMAT = CacheFormat("responses", version=1, fields=("response", "finish_reason"))

    def __init__(self, path: Path | str, *, flush_every: int = 16, sources: Sequence[Path | str] = ()):
        super().__init__(path, flush_every=flush_every, sources=sources)

    @classmethod
    def of_job(cls, path: Path | str) -> ResponseCache:
        """A job's cache at `path`, reading (never writing) the caches of the same work's other
        jobs: the unsharded job's and every shard job's, of any shard count (xlcons.shards), so an
        answer is found whichever job asked for it."""
        return cls(path, sources=related_caches(path))

    def get(self, key: str) -> Result | None:
        record = self.record(key)
        return None if record is None else Result.from_record(record)

    def put(self, result: Result) -> None:
        if result.finish_reason not in UNANSWERED_REASONS:
            self.add(result.to_record())
