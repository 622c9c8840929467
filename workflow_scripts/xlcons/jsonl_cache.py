"""An append-only JSON-lines cache owned by one job: what the long stages resume from.

One file per job, written by that job only, so parallel cluster jobs never share a cache
(the "database is locked" trap of one shared SQLite file); the same job started twice at
once (two invocations) takes turns (xlcons.cache_lock). Records are appended in small
batches and fsynced; a job killed mid-write leaves at most a partial last line, which the
next open cuts off. Keys hash everything that shapes a record, so a changed parameter
misses the cache and nothing is ever overwritten.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from xlcons.cache_lock import hold


class CacheError(ValueError):
    """A cache file holds a line that is not one of its records (edited by hand, or damaged)."""


class JsonLinesCache:
    def __init__(self, path: Path | str, *, flush_every: int):
        self.path = Path(path)
        self.flush_every = flush_every
        self._records: dict[str, dict] = {}
        self._pending: list[dict] = []
        self.path.parent.mkdir(parents=True, exist_ok=True)
        hold(self, self.path)  # one writer at a time: a second job on this cache waits, then reads it
        self._load()

    def _load(self) -> None:
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        complete = data[: data.rfind(b"\n") + 1]
        if len(complete) != len(data):  # a write was cut off: keep whole lines only
            with open(self.path, "r+b") as handle:
                handle.truncate(len(complete))
        for number, raw in enumerate(complete.split(b"\n"), start=1):
            if not raw.strip():
                continue
            try:
                record = json.loads(raw.decode("utf-8"))
                self._records[record["key"]] = record
            except (UnicodeDecodeError, ValueError, KeyError, TypeError) as error:
                raise CacheError(
                    f"{self.path}, line {number}: not a cache record ({type(error).__name__}: {error}). "
                    f"Delete that line (its item is computed again; the other lines are kept) or the whole file."
                ) from None

    def __contains__(self, key: str) -> bool:
        return key in self._records

    def __len__(self) -> int:
        return len(self._records)

    def record(self, key: str) -> dict | None:
        return self._records.get(key)

    def add(self, record: dict) -> None:
        """Keep `record` (it carries its `key`); written with the next flush."""
        self._records[record["key"]] = record
        self._pending.append(record)
        if len(self._pending) >= self.flush_every:
            self.flush()

    def flush(self) -> None:
        if not self._pending:
            return
        lines = "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in self._pending)
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(lines)
            handle.flush()
            os.fsync(handle.fileno())
        self._pending.clear()
