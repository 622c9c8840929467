"""How far a long model job has got: ``<job>: <done>/<total> items, <rate>/s[, <n> tokens/s], ETA <mm:ss>``.

A rule script sends its stderr to the rule's log (:func:`xlcons.job.start_job`), so whoever
watches ``snakemake`` run (or reads a SLURM job's output) would otherwise see nothing of a
generation or translation job until it ends. ``Progress`` writes its lines to the process's
original stderr (``sys.__stderr__``: Snakemake's console locally, the job's SLURM log on a
cluster) and to the job log as well, at most every ``every`` seconds and once at the end.
Where the job counts the tokens the model wrote (``update(n, tokens=...)``), the line gives
their rate too.

Each line is also kept as the job's *status file* (:func:`set_status_file`; a rule script's
is ``<its log>.progress.json``, set by ``start_job``), rewritten atomically at every line:
every part of the job (a translation job has one per language pair) with its counts, rates,
ETA and state. ``xlcons progress`` (:mod:`xlcons.run_progress`) reads them all to show the
whole run. The clock is injectable, so tests drive it by hand.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

import pyarrow as pa

from xlcons.atomic import atomic_path

REPORT_EVERY_S = 20.0
STATUS_FORMAT = "xlcons-progress"
STATUS_SUFFIX = ".progress.json"

# This process's (this job's) status file, and the parts reported to it so far, by job name.
_status_file: Path | None = None
_parts: dict[str, dict[str, Any]] = {}


def status_file_for_log(log: Path | str) -> Path:
    """Where a job whose log is ``logs/generate/multiq/tiny-llm.log`` keeps its status:
    ``logs/generate/multiq/tiny-llm.progress.json``."""
    log = Path(log)
    return log.with_name(log.stem + STATUS_SUFFIX) if log.suffix == ".log" else log.with_name(log.name + STATUS_SUFFIX)


def set_status_file(path: Path | str | None) -> None:
    """Keep this process's progress in ``path`` from now on (None: keep none); forgets earlier parts."""
    global _status_file
    _status_file = None if path is None else Path(path)
    _parts.clear()


def _write_status(part: dict[str, Any], now_epoch: float) -> None:
    if _status_file is None:
        return
    _parts[part["job"]] = part
    status = {
        "format": STATUS_FORMAT,
        "version": 1,
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "updated": round(now_epoch, 3),
        "parts": list(_parts.values()),
    }
    try:
        with atomic_path(_status_file) as temporary:
            temporary.write_text(json.dumps(status, indent=1) + "\n", encoding="utf-8")
    except OSError as error:  # a full or vanished log folder must not stop the job
        print(f"progress: cannot write {_status_file}: {error}", file=sys.stderr)


def _default_streams() -> list[TextIO]:
    """The console (original stderr) and, inside a rule script, the job log it was redirected to."""
    streams = [stream for stream in (sys.__stderr__, sys.stderr) if stream is not None]
    return list({id(stream): stream for stream in streams}.values())


def format_eta(seconds: float | None) -> str:
    """``mm:ss`` (minutes past 59 keep counting: ``75:00``), or ``--:--`` when unknown."""
    if seconds is None:
        return "--:--"
    whole = int(round(seconds))
    return f"{whole // 60:02d}:{whole % 60:02d}"


def format_rate(rate: float) -> str:
    """Two decimals below 10 items/s, one below 100, none above: as many digits as mean something."""
    if rate >= 100:
        return f"{rate:.0f}"
    if rate >= 10:
        return f"{rate:.1f}"
    return f"{rate:.2f}"


def table_owners(table: pa.Table) -> str:
    """``<data set>/<model>`` of a table's rows (several joined with ``+``), to name a job's lines."""
    pairs = table.select(["dataset", "model"]).to_pylist()
    return "+".join(dict.fromkeys(f"{row['dataset']}/{row['model']}" for row in pairs)) or "(no rows)"


class Progress:
    """Counts the items of one job and reports them.

    ``update(n, tokens=t)`` after each batch reports when ``every`` seconds have passed since
    the last line; ``finish()`` (or leaving the ``with`` block) writes the last line once. The
    rates are means since the start (``tokens``: what the model wrote, shown once any is
    counted), and the ETA the remaining items at that rate. The status file gets the same
    figures at the start, at every line and at the end.
    """

    def __init__(
        self,
        job: str,
        total: int,
        *,
        unit: str = "items",
        every: float = REPORT_EVERY_S,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
        streams: Sequence[TextIO] | None = None,
    ):
        self.job = job
        self.total = total
        self.unit = unit
        self.every = every
        self.clock, self.wall_clock = clock, wall_clock
        self.streams = list(streams) if streams is not None else _default_streams()
        self.done = 0
        self.tokens = 0
        self.started = clock()
        self.started_epoch = wall_clock()
        self._last_report = self.started
        self._finished = False
        _write_status(self.snapshot(self.started), self.started_epoch)

    def snapshot(self, now: float) -> dict[str, Any]:
        """The figures of a line, as the status file keeps them (rates per second, ETA in seconds)."""
        elapsed = now - self.started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        remaining = max(self.total - self.done, 0)
        eta = 0.0 if remaining == 0 else (remaining / rate if rate > 0 else None)
        return {
            "job": self.job,
            "unit": self.unit,
            "done": self.done,
            "total": self.total,
            "tokens": self.tokens,
            "rate": round(rate, 4),
            "tokens_per_s": round(self.tokens / elapsed, 2) if elapsed > 0 else 0.0,
            "eta_s": None if eta is None else round(eta, 1),
            "elapsed_s": round(elapsed, 1),
            "started": round(self.started_epoch, 3),
            "state": "finished" if self._finished else "running",
        }

    def line(self, now: float) -> str:
        figures = self.snapshot(now)
        tokens = f", {format_rate(figures['tokens_per_s'])} tokens/s" if self.tokens else ""
        return (
            f"{self.job}: {self.done}/{self.total} {self.unit}, {format_rate(figures['rate'])}/s{tokens}, "
            f"ETA {format_eta(figures['eta_s'])}"
        )

    def _report(self, now: float) -> None:
        text = self.line(now) + "\n"
        for stream in self.streams:
            stream.write(text)
            stream.flush()
        self._last_report = now
        _write_status(self.snapshot(now), self.started_epoch + (now - self.started))

    def update(self, n: int = 1, tokens: int | None = 0) -> None:
        """`n` more items done, and the `tokens` the model wrote for them (None: not counted)."""
        self.done += n
        self.tokens += int(tokens or 0)
        now = self.clock()
        if now - self._last_report >= self.every and self.done < self.total:
            self._report(now)

    def finish(self) -> None:
        if not self._finished:
            self._finished = True
            self._report(self.clock())

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.finish()


__all__ = [
    "REPORT_EVERY_S",
    "STATUS_FORMAT",
    "Progress",
    "format_eta",
    "format_rate",
    "set_status_file",
    "status_file_for_log",
    "table_owners",
]
