"""An append-only JSON-lines cache owned by one job: what the long stages resume from.

One file per job, written by that job only, so parallel cluster jobs never share a cache
(the "database is locked" trap of one shared SQLite file); the same job started twice at
once (two invocations) takes turns (xlcons.cache_lock). Records are appended in small
batches and fsynced; a job killed mid-write leaves at most a partial last line, which the
next open cuts off. Keys hash everything that shapes a record, so a changed parameter
misses the cache and nothing is ever overwritten. A cache may also read other files of its
kind without writing them (``sources``: the caches of the other shard jobs of the same work,
xlcons.shards), unlocked: their last line is left out until its writer completes it.

Each kind of cache declares its format in one place (:class:`CacheFormat`, the ``FORMAT`` of
its class): a name, a version and the fields every record must have. A new file starts with
a header line, ``{"xlcons_cache": <name>, "version": <n>}``; a file without one (written
before headers existed) is read as version 1. Opening a cache of another kind, of a version
this code cannot read, or with a record that lacks a required field fails at once, naming
the file and what to do, not later on a table built from its records. A declared upgrade
(``upgrades``: version -> function of a record) reads an older version instead, and the file
is rewritten in the current one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from xlcons.atomic import atomic_path
from xlcons.cache_lock import hold

HEADER = "xlcons_cache"  # the header line's key naming the kind of cache
UNVERSIONED = 1  # the version of a file without a header line


class CacheError(ValueError):
    """A cache file holds a line that is not one of its records (edited by hand, or damaged),
    or records of another kind or version of cache."""


@dataclass(frozen=True)
class CacheFormat:
    """What one kind of cache holds: its `name` (in the header line), the `version` of its
    records (raise it when a field is renamed, removed or changes meaning), the `fields` every
    record must have besides its ``key``, and `upgrades`: for an older version, a function
    turning one of its records into one of the next version (where that is possible)."""

    name: str
    version: int = 1
    fields: tuple[str, ...] = ()
    upgrades: Mapping[int, Callable[[dict], dict]] = field(default_factory=dict)

    def header(self) -> dict:
        return {HEADER: self.name, "version": self.version}


class JsonLinesCache:
    FORMAT = CacheFormat("records")  # a subclass declares its own

    def __init__(self, path: Path | str, *, flush_every: int, sources: Sequence[Path | str] = ()):
        """`sources`: other caches of the same kind that this one reads but never writes (the
        caches of the other shard jobs of the same work, xlcons.shards): a key found there is
        in this cache too, and what this cache adds goes to its own file only."""
        self.path = Path(path)
        self.flush_every = flush_every
        self._records: dict[str, dict] = {}
        self._read_only: dict[str, dict] = {}
        self._pending: list[dict] = []
        self.path.parent.mkdir(parents=True, exist_ok=True)
        hold(self, self.path)  # one writer at a time: a second job on this cache waits, then reads it
        self._load()
        for source in sources:
            self._read_source(Path(source))

    def _problem(self, what: str, path: Path | None = None) -> CacheError:
        return CacheError(
            f"{path or self.path}: {what}. Delete the file (its items are computed again) or move it away."
        )

    def _load(self) -> None:
        data = self.path.read_bytes() if self.path.exists() else b""
        complete = data[: data.rfind(b"\n") + 1]
        if len(complete) != len(data):  # a write was cut off: keep whole lines only
            with open(self.path, "r+b") as handle:
                handle.truncate(len(complete))
        if not complete.strip():  # a new cache: it starts with its header
            self.path.write_text(json.dumps(self.FORMAT.header()) + "\n", encoding="utf-8")
            return
        version, records = self._parse(complete, self.path)
        self._records.update(records)
        if version != self.FORMAT.version:  # upgraded: the file says so from now on
            with atomic_path(self.path) as temporary:
                lines = [self.FORMAT.header(), *self._records.values()]
                temporary.write_text(
                    "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8"
                )

    def _read_source(self, path: Path) -> None:
        """Read another job's cache, without its lock: its writer appends whole lines and may be
        writing now, so a last line without its line break is left out; the file is never changed
        (an older version is upgraded in memory only)."""
        try:
            data = path.read_bytes()
        except FileNotFoundError:  # gone since it was listed
            return
        complete = data[: data.rfind(b"\n") + 1]
        if complete.strip():
            for key, record in self._parse(complete, path)[1].items():
                if key not in self._records:
                    self._read_only.setdefault(key, record)

    def _parse(self, complete: bytes, path: Path) -> tuple[int, dict[str, dict]]:
        """The version and the (upgraded) records, by key, of a cache file's whole lines."""
        version = UNVERSIONED
        records: list[tuple] = []  # (line number, record, key)
        for number, raw in enumerate(complete.split(b"\n"), start=1):
            if not raw.strip():
                continue
            try:
                record = json.loads(raw.decode("utf-8"))
                if not records and version == UNVERSIONED and isinstance(record, dict) and HEADER in record:
                    version = self._check_header(record, number, path)
                    continue
                records.append((number, record, record["key"]))
            except (UnicodeDecodeError, ValueError, KeyError, TypeError) as error:
                raise CacheError(
                    f"{path}, line {number}: not a cache record ({type(error).__name__}: {error}). "
                    f"Delete that line (its item is computed again; the other lines are kept) or the whole file."
                ) from None
        upgrade = self._upgrade_from(version, path)
        upgraded: dict[str, dict] = {}
        for number, record, key in records:
            record = upgrade(record)
            missing = [name for name in self.FORMAT.fields if name not in record]
            if missing:
                raise self._problem(
                    f"line {number} has no {', '.join(repr(name) for name in missing)}: not a record of version "
                    f"{self.FORMAT.version} of the {self.FORMAT.name} cache format "
                    "(written by another version of xlcons, or another kind of cache)",
                    path,
                )
            upgraded[key] = record
        return version, upgraded

    def _check_header(self, header: dict, number: int, path: Path) -> int:
        name, version = header.get(HEADER), header.get("version")
        if name != self.FORMAT.name:
            raise self._problem(f"line {number} says it is a {name!r} cache, not a {self.FORMAT.name!r} cache", path)
        if not isinstance(version, int) or isinstance(version, bool):
            raise self._problem(f"line {number}: the header has no version number ({header})", path)
        return version

    def _upgrade_from(self, version: int, path: Path) -> Callable[[dict], dict]:
        """The function turning a record of `version` into one of the current version, or the
        error saying why there is none."""
        current = self.FORMAT.version
        if version > current:
            raise self._problem(
                f"version {version} of the {self.FORMAT.name} cache format, written by a newer xlcons; "
                f"this one reads version {current} (run the newer xlcons on it)",
                path,
            )
        steps = [self.FORMAT.upgrades.get(old) for old in range(version, current)]
        if None in steps:
            raise self._problem(
                f"version {version} of the {self.FORMAT.name} cache format, written by an older xlcons; "
                f"this one reads version {current} and cannot convert it",
                path,
            )

        def upgrade(record: dict) -> dict:
            for step in steps:
                record = step(record)
            return record

        return upgrade

    def __contains__(self, key: str) -> bool:
        return key in self._records or key in self._read_only

    def __len__(self) -> int:
        return len(self._records) + sum(key not in self._records for key in self._read_only)

    def record(self, key: str) -> dict | None:
        return self._records.get(key) or self._read_only.get(key)

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


def read_keys(path: Path | str) -> set[str]:
    """The keys a cache file holds, read without taking its lock or changing it (the estimate
    reads the caches of a run that may be going on): whole lines only, the header skipped; a
    missing file holds none. A line that is not a record is skipped here (the job that owns
    the file reports it)."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return set()
    keys: set[str] = set()
    for raw in data[: data.rfind(b"\n") + 1].split(b"\n"):
        try:
            record = json.loads(raw.decode("utf-8")) if raw.strip() else None
        except (UnicodeDecodeError, ValueError):
            continue
        if isinstance(record, dict) and isinstance(record.get("key"), str):
            keys.add(record["key"])
    return keys
