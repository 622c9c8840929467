"""The response cache of one generation job: an append-only JSON-lines file.

One file per (data set, model) job, written by that job only, so parallel cluster jobs
never share a cache (the "database is locked" trap of a shared SQLite file). Records
are appended in small batches and fsynced; a job killed mid-write leaves at most a
partial last line, which the next open cuts off. Keys hash the model identity, the
decoding parameters and the messages (xlcons.generation.base.build_requests), so a
changed parameter simply misses the cache.

Failed requests (finish_reason `error`) are not kept: a rerun tries them again.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from xlcons.generation.base import Result


class ResponseCache:
    def __init__(self, path: Path | str, *, flush_every: int = 16):
        self.path = Path(path)
        self.flush_every = flush_every
        self._results: dict[str, Result] = {}
        self._pending: list[Result] = []
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._load()

    def _load(self) -> None:
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        complete = data[: data.rfind(b"\n") + 1]
        if len(complete) != len(data):  # a write was cut off: keep whole lines only
            with open(self.path, "r+b") as handle:
                handle.truncate(len(complete))
        for line in complete.decode("utf-8").splitlines():
            if line.strip():
                result = Result.from_record(json.loads(line))
                self._results[result.key] = result

    def __contains__(self, key: str) -> bool:
        return key in self._results

    def __len__(self) -> int:
        return len(self._results)

    def get(self, key: str) -> Result | None:
        return self._results.get(key)

    def put(self, result: Result) -> None:
        if result.finish_reason == "error":
            return
        self._results[result.key] = result
        self._pending.append(result)
        if len(self._pending) >= self.flush_every:
            self.flush()

    def flush(self) -> None:
        if not self._pending:
            return
        lines = "".join(json.dumps(result.to_record(), ensure_ascii=False) + "\n" for result in self._pending)
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(lines)
            handle.flush()
            os.fsync(handle.fileno())
        self._pending.clear()
