"""The progress of a whole run, while it runs: ``xlcons progress`` (or ``python -m xlcons.run_progress``).

Two sources, both plain files in the run's folder, so it works from a login node while the
jobs run on a cluster:

- Snakemake's own log of the latest invocation (``.snakemake/log/<start>.snakemake.log``):
  its last ``<n> of <m> steps (<p>%) done`` line gives the jobs done and planned, and its
  name the time the invocation started;
- the status file each model job keeps beside its log (``logs/**/<job>.progress.json``,
  :mod:`xlcons.progress`): items done and planned per part of the job, rates, tokens/s, ETA.

- the model jobs the invocation planned (``.snakemake/xlcons-planned-model-jobs.json``, written by
  the workflow's ``onstart``, ``record_planned``): every job with a ``usage`` output that
  Snakemake is to run, with the status file it will keep.

Only status files written since the invocation started count (older ones belong to earlier
runs). A part whose job said *running* but has not written for ``stale_after_s`` (three
report intervals) is shown as *silent*: its job was killed, or hangs, or its node lost the
shared file system. Items are summed per unit (``items``, ``sentences``) over the jobs that
started; the share done is over the planned model jobs, each counting its items' share done
(a job not started yet: nothing), so a run whose started jobs are done is not shown as done.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from xlcons.atomic import atomic_path
from xlcons.progress import REPORT_EVERY_S, STATUS_FORMAT, STATUS_SUFFIX, format_eta, format_rate

STALE_AFTER_S = 3 * REPORT_EVERY_S + 10
PLANNED_FILE = Path(".snakemake") / "xlcons-planned-model-jobs.json"
PLANNED_FORMAT = "xlcons-planned-model-jobs"
_STEPS = re.compile(r"(\d+) of (\d+) steps \((\d+(?:\.\d+)?)%\) done")
_LOG_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{6})\.(\d+)\.snakemake\.log$")


@dataclass
class Invocation:
    """The latest ``snakemake`` invocation in the folder: its log, start, and jobs done of planned."""

    log: Path
    started: float
    done: int | None = None
    planned: int | None = None
    finished: bool = False  # the log's last line says the run ended (done, or failed)
    failed: bool = False


@dataclass
class Part:
    """One part of one job, from its status file."""

    file: Path
    figures: dict[str, Any]
    state: str  # running, silent, finished
    age_s: float  # since its job last wrote the file


@dataclass(frozen=True)
class PlannedJob:
    """A model job the invocation is to run: the status file it will keep beside its log, and
    its usage ledger (written when it ends: a job that keeps no status file, such as QE, is done
    once its ledger is written since the invocation started)."""

    status: Path
    usage: Path


@dataclass
class RunProgress:
    invocation: Invocation | None
    parts: list[Part] = field(default_factory=list)
    # The model jobs this invocation planned (None: not recorded, e.g. a dry run or an older run).
    planned: list[PlannedJob] | None = None

    def items(self) -> dict[str, tuple[int, int]]:
        """(done, planned) per unit, over the parts of this invocation."""
        totals: dict[str, tuple[int, int]] = {}
        for part in self.parts:
            done, planned = totals.get(part.figures["unit"], (0, 0))
            totals[part.figures["unit"]] = (done + part.figures["done"], planned + part.figures["total"])
        return totals

    def _by_file(self) -> dict[Path, list[Part]]:
        by_file: dict[Path, list[Part]] = {}
        for part in self.parts:
            by_file.setdefault(part.file.resolve(), []).append(part)
        return by_file

    def job_states(self) -> list[str]:
        """Each model job's state: per planned job when the plan is recorded (``not started`` for
        one without a status file or a ledger yet), else per status file of this invocation.
        A job is running while a part of it is, silent while one is, finished otherwise."""
        since = self.invocation.started if self.invocation is not None else 0.0
        by_file = self._by_file()
        states = []
        for path, parts in by_file.items() if self.planned is None else self._planned_parts(by_file):
            if self.planned is not None and _written_since(path, since):
                states.append("finished")  # `path` is the job's ledger here
            elif not parts:
                states.append("not started")
            else:
                found = {part.state for part in parts}
                states.append(next(state for state in ("running", "silent", "finished") if state in found))
        return states

    def _planned_parts(self, by_file: dict[Path, list[Part]]) -> list[tuple[Path, list[Part]]]:
        return [(job.usage, by_file.get(job.status.resolve(), [])) for job in self.planned or []]

    def share_done(self) -> float | None:
        """The share of the planned model jobs' work done: each planned job counts its items done
        of its items so far (0 before it starts, 1 once its ledger is written); None without a
        record of the plan."""
        if not self.planned:
            return None
        since = self.invocation.started if self.invocation is not None else 0.0
        shares = []
        for usage, parts in self._planned_parts(self._by_file()):
            total = sum(part.figures["total"] for part in parts)
            if _written_since(usage, since):
                shares.append(1.0)
            elif total:
                shares.append(min(1.0, sum(part.figures["done"] for part in parts) / total))
            else:  # nothing to do (all cached) once it says it finished; not started
                shares.append(1.0 if parts and all(part.state == "finished" for part in parts) else 0.0)
        return sum(shares) / len(shares)


def _written_since(path: Path, since: float) -> bool:
    try:
        return path.stat().st_mtime >= since
    except OSError:
        return False


def record_planned(jobs: Sequence[tuple[Path | str, Path | str]], directory: Path | str = ".") -> Path:
    """What the workflow's ``onstart`` keeps for ``xlcons progress``: the model jobs it is to run,
    each as (its status file, :func:`xlcons.progress.status_file_for_log` of its log; its usage ledger)."""
    path = Path(directory) / PLANNED_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {
        "format": PLANNED_FORMAT,
        "jobs": [{"status": str(status), "usage": str(usage)} for status, usage in jobs],
    }
    with atomic_path(path) as temporary:
        temporary.write_text(json.dumps(record, indent=1), encoding="utf-8")
    return path


def read_planned(directory: Path, since: float) -> list[PlannedJob] | None:
    """The planned model jobs, when the record belongs to the invocation that started at `since`."""
    path = directory / PLANNED_FILE
    try:
        if path.stat().st_mtime < since:
            return None  # an earlier invocation's
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("format") != PLANNED_FORMAT:
        return None
    return [PlannedJob(directory / job["status"], directory / job["usage"]) for job in record.get("jobs", [])]


def started_at(log: Path) -> float:
    """When the invocation whose log this is started: from Snakemake's name for it
    (``2026-12-05T214012.123456.snakemake.log``, local time), else the file's own time."""
    match = _LOG_NAME.match(log.name)
    if match:
        return datetime.strptime(match.group(1), "%Y-%m-%dT%H%M%S").timestamp() + float(f"0.{match.group(2)}")
    return log.stat().st_mtime


def latest_invocation(directory: Path) -> Invocation | None:
    """Snakemake's log of the latest invocation in `directory`, read; None before the first."""
    logs = sorted((directory / ".snakemake" / "log").glob("*.snakemake.log"), key=started_at)
    if not logs:
        return None
    log = logs[-1]
    invocation = Invocation(log, started_at(log))
    text = log.read_text(encoding="utf-8", errors="replace")
    steps = _STEPS.findall(text)
    if steps:
        invocation.done, invocation.planned = int(steps[-1][0]), int(steps[-1][1])
    invocation.failed = "Exiting because a job execution failed" in text
    invocation.finished = "Complete log" in text or "Nothing to be done" in text
    return invocation


def read_parts(logs: Path, since: float, now: float, stale_after_s: float = STALE_AFTER_S) -> list[Part]:
    """The parts of every status file under `logs` written at or after `since`; unreadable
    files (being replaced, or not ours) are skipped."""
    parts = []
    for path in sorted(logs.rglob(f"*{STATUS_SUFFIX}")):
        try:
            status = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(status, dict) or status.get("format") != STATUS_FORMAT:
            continue
        updated = float(status.get("updated", 0))
        if updated < since:
            continue
        age = max(now - updated, 0.0)
        for figures in status.get("parts", []):
            state = figures.get("state", "running")
            if state == "running" and age > stale_after_s:
                state = "silent"
            parts.append(Part(path, figures, state, age))
    return parts


def collect(directory: Path | str, *, logs: str = "logs", now: float | None = None) -> RunProgress:
    """The run in `directory` (where ``snakemake`` runs), as it stands now."""
    directory = Path(directory)
    now = time.time() if now is None else now
    invocation = latest_invocation(directory)
    since = invocation.started if invocation is not None else 0.0
    planned = read_planned(directory, since) if invocation is not None else None
    return RunProgress(invocation, read_parts(directory / logs, since, now), planned)


def render(run: RunProgress) -> str:
    """The lines ``xlcons progress`` prints."""
    lines = []
    invocation = run.invocation
    if invocation is None:
        lines.append("no snakemake run in this folder yet (.snakemake/log is empty)")
    else:
        start = datetime.fromtimestamp(invocation.started).strftime("%Y-%m-%d %H:%M:%S")
        if invocation.planned:
            share = 100 * (invocation.done or 0) / invocation.planned
            jobs = f"{invocation.done} of {invocation.planned} jobs done ({share:.0f}%)"
        elif invocation.finished:
            jobs = "jobs done not in Snakemake's log (run without --quiet to have them)"
        else:
            jobs = "no job finished yet"
        state = " - failed" if invocation.failed else (" - ended" if invocation.finished else "")
        lines.append(f"run started {start}: {jobs}{state}  [{invocation.log}]")
    states = run.job_states()
    counts = {state: states.count(state) for state in ("running", "silent", "finished", "not started")}
    started = len(states) - counts["not started"]
    items = ", ".join(
        f"{done}/{planned} {unit}" if planned else f"0 {unit}" for unit, (done, planned) in sorted(run.items().items())
    )
    jobs = f"{counts['running']} running, {counts['silent']} silent, {counts['finished']} finished"
    share = run.share_done()
    if run.planned and share is not None:
        waiting = counts["not started"]
        jobs = f"{len(run.planned)} planned: {jobs}, {waiting} not started; {100 * share:.0f}% of their work done"
        where = f"in the {started} started" if waiting else "in all"
    else:  # no record of the plan: only the started jobs are known
        where = f"in the {started} started (the jobs not started yet are not known)"
    lines.append(f"model jobs: {jobs}" + (f"; items {where}: {items}" if items else ""))
    active = [part for part in run.parts if part.state != "finished"]
    width = max((len(part.figures["job"]) for part in active), default=0)
    for part in sorted(active, key=lambda part: (part.state, part.figures["job"])):
        figures = part.figures
        tokens = f", {format_rate(figures['tokens_per_s'])} tokens/s" if figures.get("tokens") else ""
        note = f"  (silent for {format_eta(part.age_s)}: killed or stuck?)" if part.state == "silent" else ""
        lines.append(
            f"  {figures['job']:<{width}}  {figures['done']}/{figures['total']} {figures['unit']}, "
            f"{format_rate(figures['rate'])}/s{tokens}, ETA {format_eta(figures['eta_s'])}{note}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="xlcons progress",
        description="How far the run in a folder has got: jobs done (Snakemake's log) and items per model job.",
    )
    parser.add_argument("--directory", "-d", default=".", help="the folder snakemake runs in (default: here)")
    parser.add_argument("--logs", default="logs", help="the jobs' log folder, within it (default: logs)")
    parser.add_argument("--watch", type=float, metavar="SECONDS", help="print again every SECONDS until Ctrl-C")
    args = parser.parse_args(argv)
    while True:
        print(render(collect(args.directory, logs=args.logs)), flush=True)
        if not args.watch:
            return 0
        try:
            time.sleep(args.watch)
        except KeyboardInterrupt:
            return 0
        print()


if __name__ == "__main__":
    sys.exit(main())
