"""The record of the batches a job submitted to a Batch API: a small JSON file beside its cache.

A batch is paid for when it is created, so its id is written here (atomically) the moment it
exists, before the first look at its status: a job killed while it waits, started again, finds
the batch here and waits for the same one instead of submitting (and paying for) the requests
again. Each entry holds the exact request keys of its batch (and their digest, which the batch's
metadata at the provider repeats), the endpoint and the model, so a later run resumes a batch
only for the requests it still needs and only at the endpoint that has it. Once the answers of a
batch are in the job's cache, its entry is marked `collected` and its keys are dropped; the id
and the outcome stay, a log of what was paid for.

The file: ``{"xlcons_batches": 1, "batches": [<entry>, ...]}``; an entry's fields are those of
:class:`BatchEntry`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from xlcons.atomic import atomic_path
from xlcons.generation.base import GenerationError

FORMAT = "xlcons_batches"
VERSION = 1
SUBMITTED, COLLECTED, LOST = "submitted", "collected", "lost"


def keys_digest(keys: Iterable[str]) -> str:
    """The sha256 of a set of request keys (sorted, one a line): names a batch's requests."""
    return hashlib.sha256("\n".join(sorted(keys)).encode()).hexdigest()


@dataclass
class BatchEntry:
    """One submitted batch. `status` is this job's view: `submitted` (its answers are not yet in
    the cache), `collected` (they are), `lost` (the endpoint no longer knows the batch); `outcome`
    is the provider's last status of it (completed, expired, failed, cancelled)."""

    id: str
    endpoint: str
    model: str
    input_file_id: str
    submitted_at: str
    keys: list[str] = field(default_factory=list)
    keys_sha256: str = ""
    requests: int = 0
    status: str = SUBMITTED
    outcome: str | None = None
    counts: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        self.keys_sha256 = self.keys_sha256 or keys_digest(self.keys)
        self.requests = self.requests or len(self.keys)


class BatchState:
    """The batches recorded in one file; every change is written at once, whole (xlcons.atomic)."""

    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.entries: list[BatchEntry] = self._read()

    def _problem(self, what: str) -> GenerationError:
        return GenerationError(
            f"{self.path}: {what}. It lists the batches this job submitted to the Batch API; repair it, or "
            "delete it if no batch is still running (a batch it names would otherwise be submitted and paid again)"
        )

    def _read(self) -> list[BatchEntry]:
        if not self.path.exists():
            return []
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, ValueError) as error:
            raise self._problem(f"not JSON ({error})") from None
        if not isinstance(data, dict) or data.get(FORMAT) != VERSION or not isinstance(data.get("batches"), list):
            raise self._problem(f'not a record of batches (expected {{"{FORMAT}": {VERSION}, "batches": [...]}})')
        names = {f.name for f in fields(BatchEntry)}
        try:
            return [BatchEntry(**{k: v for k, v in entry.items() if k in names}) for entry in data["batches"]]
        except (AttributeError, TypeError) as error:
            raise self._problem(f"an entry lacks a field ({error})") from None

    def save(self) -> None:
        with atomic_path(self.path) as temporary:
            payload = {FORMAT: VERSION, "batches": [asdict(entry) for entry in self.entries]}
            temporary.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")

    def pending(self) -> list[BatchEntry]:
        return [entry for entry in self.entries if entry.status == SUBMITTED]

    def add(self, entry: BatchEntry) -> None:
        self.entries.append(entry)
        self.save()

    def mark(
        self, batch_id: str, status: str, outcome: str | None = None, counts: dict[str, Any] | None = None
    ) -> None:
        """Record that a batch was collected or lost; its keys are no longer needed."""
        for entry in self.entries:
            if entry.id == batch_id and entry.status == SUBMITTED:
                entry.status, entry.keys = status, []
                entry.outcome = outcome or entry.outcome
                entry.counts = counts or entry.counts
        self.save()
