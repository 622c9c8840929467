"""How far a long model job has got, on the console: ``<job>: <done>/<total> items, <rate>/s, ETA <mm:ss>``.

A rule script sends its stderr to the rule's log (:func:`xlcons.job.start_job`), so whoever
watches ``snakemake`` run (or reads a SLURM job's output) would otherwise see nothing of a
generation or translation job until it ends. ``Progress`` writes its lines to the process's
original stderr (``sys.__stderr__``: Snakemake's console locally, the job's SLURM log on a
cluster) and to the job log as well, at most every ``every`` seconds and once at the end.
The clock is injectable, so tests drive it by hand.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from typing import TextIO

import pyarrow as pa

REPORT_EVERY_S = 20.0


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

    ``update(n)`` after each batch reports when ``every`` seconds have passed since the last
    line; ``finish()`` (or leaving the ``with`` block) writes the last line once. The rate is
    the mean since the start, and the ETA the remaining items at that rate.
    """

    def __init__(
        self,
        job: str,
        total: int,
        *,
        unit: str = "items",
        every: float = REPORT_EVERY_S,
        clock: Callable[[], float] = time.monotonic,
        streams: Sequence[TextIO] | None = None,
    ):
        self.job = job
        self.total = total
        self.unit = unit
        self.every = every
        self.clock = clock
        self.streams = list(streams) if streams is not None else _default_streams()
        self.done = 0
        self.started = clock()
        self._last_report = self.started
        self._finished = False

    def line(self, now: float) -> str:
        elapsed = now - self.started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        remaining = max(self.total - self.done, 0)
        eta = 0.0 if remaining == 0 else (remaining / rate if rate > 0 else None)
        return f"{self.job}: {self.done}/{self.total} {self.unit}, {format_rate(rate)}/s, ETA {format_eta(eta)}"

    def _report(self, now: float) -> None:
        text = self.line(now) + "\n"
        for stream in self.streams:
            stream.write(text)
            stream.flush()
        self._last_report = now

    def update(self, n: int = 1) -> None:
        self.done += n
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


__all__ = ["REPORT_EVERY_S", "Progress", "format_eta", "format_rate", "table_owners"]
