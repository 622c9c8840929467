"""Outputs appear whole or not at all: written beside their place, then renamed onto it.

Readers (Snakemake, a collaborator, the next job) see the old file or the new one, never a
half-written one, and a killed job leaves no file that looks complete. The temporary file
is created private (mode 0600, as ``tempfile.mkstemp`` makes it); before the rename it gets
the mode the user's umask gives a new file (0644 under the usual 022), so a group on a
shared file system can read the results.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextmanager
def atomic_path(path: Path | str) -> Iterator[Path]:
    """A temporary path beside ``path`` to write to; renamed onto ``path`` when the block ends
    without an error, removed when it raises."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(handle)
    try:
        yield Path(temporary)
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
