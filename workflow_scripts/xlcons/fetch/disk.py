"""Small helpers for what a fetch writes: JSON written atomically and read leniently, a file's
sha256, the time stamp of a record, and the ``.part`` path a file is written to first."""

from __future__ import annotations

import hashlib
import json
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from xlcons.atomic import atomic_path

CHUNK = 1 << 20


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def write_json_atomic(path: Path, obj: Any) -> Path:
    """Write JSON so that readers see the old file or the new one, never a partial one."""
    path = Path(path)
    with atomic_path(path) as temporary, open(temporary, "w", encoding="utf-8") as fh:
        json.dump(obj, fh, indent=2, ensure_ascii=False)
        fh.write("\n")
        fh.flush()
        os.fsync(fh.fileno())
    return path


def read_json(path: Path) -> Any | None:
    """The parsed file, or None when it is missing or unreadable (treated as absent)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def part_path(final: Path) -> Path:
    return final.with_name(final.name + ".part")
