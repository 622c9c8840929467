"""One writer per item cache: an exclusive lock beside it, held while a job uses the cache.

Two Snakemake invocations in one directory with different targets can schedule the same
job at once (each locks only the outputs it asked for). Both would generate the same items
and append them to one cache. With this lock the second job waits, saying so in its log,
and then finds the first job's answers in the cache and generates nothing again.

The lock is `flock` on `<cache>.lock`: released when the job's process ends, however it
ends, so a killed job leaves no stale lock. Within one process the lock is counted, so a
cache opened twice (the tests, a job's two passes) does not wait on itself. On a file system
without `flock` the job goes on unlocked, with a warning.
"""

from __future__ import annotations

import errno
import fcntl
import logging
import os
import weakref
from pathlib import Path

log = logging.getLogger(__name__)

# Locks this process holds: lock path -> [file descriptor, holders].
_held: dict[str, list[int]] = {}


def lock_path(cache: Path | str) -> Path:
    cache = Path(cache)
    return cache.with_name(f"{cache.name}.lock")


def _release(key: str) -> None:
    entry = _held.get(key)
    if entry is None:
        return
    entry[1] -= 1
    if entry[1] == 0:
        del _held[key]
        os.close(entry[0])  # closing the descriptor releases the flock


def hold(owner: object, cache: Path | str) -> None:
    """Take the lock of `cache` for as long as `owner` lives (or the process runs); waits while
    another process holds it."""
    path = lock_path(cache)
    key = str(path.resolve())
    if key in _held:
        _held[key][1] += 1
    else:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log.warning(
                "%s: another job is writing this cache (another snakemake invocation?); waiting for it to finish", cache
            )
            fcntl.flock(fd, fcntl.LOCK_EX)
            log.info("%s: the other job finished; going on from its cache", cache)
        except OSError as error:
            if error.errno not in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL):
                os.close(fd)
                raise
            log.warning(
                "%s: this file system has no flock (%s); the cache is used without a lock", cache, error.strerror
            )
        _held[key] = [fd, 1]
    weakref.finalize(owner, _release, key)
