"""The usage ledger of one model job: what it asked of which model, and what that took.

A job that calls a model (generation, a translator, the QE model, the information evaluator,
the judge) runs in one process, so the ledger is that process's: the code that sends
requests adds to it where it already knows the counts (``record``), and the rule script
writes it next to the job's outputs when the job ends (``write_job_usage``). The results
stage gathers the files into ``usage.csv`` (:mod:`xlcons.reports.usage`).

Per called model and part of the job (``generate``, ``extract``, ``verify``, ``translate``,
``qe``) the ledger counts:

- ``requests``: requests sent to the model in this run (distinct prompts or sentences the
  cache did not hold), and ``cached_requests``: those the job's cache answered, which cost
  nothing; a rerun after a kill shows only what it sent again;
- ``prompt_tokens`` and ``completion_tokens`` of the sent requests, as the backend counted
  them (the counts the caches keep per item), and ``cached_tokens``: the prompt tokens the
  engine or the provider served from its prefix cache (vLLM, OpenAI's cached input);
- ``failures``: sent requests that came back without an answer (errors), and ``retries``:
  attempts repeated after a retryable API error;
- ``held_requests``: requests the budget guard held back, unsent, since their bound would pass
  a limit (a Batch API job submits only the requests that fit: xlcons.budget.admit).

The job adds its wall time and the GPUs it held (``gpu_s`` = GPUs x wall). Standard
library only: the rule scripts import it before anything heavy.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from xlcons.atomic import atomic_path

log = logging.getLogger(__name__)

FORMAT = "xlcons-usage"
VERSION = 1


@dataclass
class Usage:
    """The counters of one (called model, part) of a job."""

    requests: int = 0
    cached_requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    failures: int = 0
    retries: int = 0
    held_requests: int = 0

    def add(self, **counts: int | None) -> None:
        for name, value in counts.items():
            if name not in COUNTERS:
                raise KeyError(f"usage: unknown counter {name!r}; known: {', '.join(COUNTERS)}")
            setattr(self, name, getattr(self, name) + int(value or 0))


COUNTERS: tuple[str, ...] = tuple(field.name for field in fields(Usage))
# Counters added after usage files were written: read as 0 from a file without them.
ADDED_COUNTERS = ("held_requests",)


class Ledger:
    """The counters of one job, by (called model, part), in the order they were first used;
    `earlier` holds what the job's stopped attempts sent (``carry``), counted with this
    attempt's in every record of the ledger."""

    def __init__(self) -> None:
        self.entries: dict[tuple[str, str], Usage] = {}
        self.earlier: dict[tuple[str, str], Usage] = {}
        self.earlier_wall_s = 0.0
        self.started = time.monotonic()

    def carry(self, stopped: Mapping[str, Any]) -> None:
        """Count a stopped attempt's ledger (a ``.running`` file's record) with this attempt's:
        every counter but ``cached_requests``, which this attempt counts afresh (its cache now
        answers what the stopped attempt sent)."""
        for call in stopped.get("calls", []):
            counts = {name: call.get(name, 0) for name in COUNTERS if name != "cached_requests"}
            self.earlier.setdefault((call["model"], call["part"]), Usage()).add(**counts)
        self.earlier_wall_s += float(stopped.get("wall_s", 0.0))

    def add(self, model: str, part: str, **counts: int | None) -> None:
        """Add to a (model, part)'s counters; counts that are all zero add no entry (an engine
        without counters, a translator stand-in)."""
        if any(counts.values()) or (model, part) in self.entries:
            self.entries.setdefault((model, part), Usage()).add(**counts)
        else:
            Usage().add(**counts)  # still refuses an unknown counter

    def written(self, model: str, part: str) -> int:
        """The completion tokens counted so far for a (model, part): what progress lines rate."""
        entry = self.entries.get((model, part))
        return entry.completion_tokens if entry is not None else 0

    def calls(self) -> list[dict[str, Any]]:
        """The counters by (model, part): the stopped attempts' (``carry``) and this attempt's, added."""
        merged: dict[tuple[str, str], Usage] = {key: Usage(**asdict(usage)) for key, usage in self.earlier.items()}
        for key, usage in self.entries.items():
            merged.setdefault(key, Usage()).add(**asdict(usage))
        return [{"model": model, "part": part, **asdict(usage)} for (model, part), usage in merged.items()]

    def record(self, gpus: int, wall_s: float) -> dict[str, Any]:
        """What the job's usage file holds (`wall_s` is this attempt's; the stopped attempts' are added)."""
        wall_s += self.earlier_wall_s
        return {
            "format": FORMAT,
            "version": VERSION,
            "gpus": gpus,
            "wall_s": round(wall_s, 3),
            "gpu_s": round(gpus * wall_s, 3),
            "calls": self.calls(),
        }


_ledger = Ledger()


def ledger() -> Ledger:
    """This process's (this job's) ledger."""
    return _ledger


def record(model: str, part: str, **counts: int | None) -> None:
    """Add counts to this job's ledger (None counts as 0: a backend that does not count tokens)."""
    _ledger.add(model, part, **counts)


@contextmanager
def recording() -> Iterator[Ledger]:
    """A fresh ledger for the block (tests; a job's own ledger is the process's)."""
    global _ledger
    previous, _ledger = _ledger, Ledger()
    try:
        yield _ledger
    finally:
        _ledger = previous


MILLION = 1_000_000


def cost(counts: Mapping[str, Any], prices: Mapping[str, float] | None) -> float | None:
    """USD for counted tokens (``prompt_tokens``, ``cached_tokens``, ``completion_tokens``) at a
    model's prices (USD per million tokens: ``input``, ``cached_input``, ``output``): prompt
    tokens not served from a prompt cache at ``input``, cached ones at ``cached_input`` (the
    ``input`` price when it has none), completion tokens at ``output``. None without prices."""
    if not prices:
        return None
    cached = counts.get("cached_tokens", 0)
    cached_price = prices["input"] if prices.get("cached_input") is None else prices["cached_input"]
    usd = (counts["prompt_tokens"] - cached) * prices["input"] + cached * cached_price
    return (usd + counts["completion_tokens"] * prices["output"]) / MILLION


RUNNING_SUFFIX = ".running"


def run_usage_files(results_dir: Path | str, pattern: str = "*.json") -> list[Path]:
    """The usage files present under a results folder (`<results>/[by-translator/<name>/]usage/`,
    the layout of xlcons.plan.layout's ``usage_file``): the ledgers of the jobs that finished."""
    results = Path(results_dir)
    return sorted([*results.glob(f"usage/**/{pattern}"), *results.glob(f"by-translator/*/usage/**/{pattern}")])


def running_file(usage_path: Path | str) -> Path:
    """Where a job whose usage output is `usage_path` keeps its ledger while it runs:
    ``<usage file>.running`` (not a ``.json``: never read as a finished job's file)."""
    usage_path = Path(usage_path)
    return usage_path.with_name(usage_path.name + RUNNING_SUFFIX)


def running_usage_files(results_dir: Path | str) -> list[Path]:
    """The ledgers of jobs that are running, or that stopped (failed, killed) before writing
    their usage file: what they sent counts for the budget guard, and the job's next attempt
    carries it on (``carry_stopped``). One left beside a usage file written after it (a job
    killed between writing its usage file and removing the ledger) is in that file already."""
    found = []
    for path in run_usage_files(results_dir, f"*.json{RUNNING_SUFFIX}"):
        finished = path.with_name(path.name.removesuffix(RUNNING_SUFFIX))
        try:
            if finished.stat().st_mtime >= path.stat().st_mtime:
                continue
        except OSError:  # no usage file (the usual case), or the ledger removed meanwhile
            pass
        found.append(path)
    return found


def carry_stopped(usage_path: Path | str) -> dict[str, Any] | None:
    """At a job's start: the ledger its stopped attempt left (``<usage file>.running``: stopped by
    the budget guard, failed or killed) is carried on in this job's ledger, so the new attempt's
    running ledger and usage file add to it instead of replacing it: everything any attempt sent
    counts. Returns what was carried (None: no stopped attempt, or an unreadable ledger, logged)."""
    path = running_file(usage_path)
    if not path.is_file():
        return None
    try:
        stopped = read_usage(path)
    except UsageError as error:
        log.warning("usage: the stopped attempt's ledger is not carried on (%s)", error)
        return None
    _ledger.carry(stopped)
    return stopped


def write_running_usage(usage_path: Path | str) -> Path:
    """This job's ledger so far, beside its usage output (the budget guard of other jobs reads it)."""
    return write_usage(running_file(usage_path), _ledger.record(0, time.monotonic() - _ledger.started))


def write_usage(path: Path | str, usage: Mapping[str, Any]) -> Path:
    with atomic_path(path) as temporary:
        temporary.write_text(json.dumps(usage, indent=1) + "\n", encoding="utf-8")
    return Path(path)


def write_job_usage(smk) -> Path | None:
    """The rule script's last step: this job's ledger to its `usage` output, with its wall time
    (since the ledger started, i.e. since the script imported this module at start-up) and
    the GPUs its resources asked for. Nothing for a rule without a `usage` output."""
    if "usage" not in smk.output.keys():
        return None
    gpus = int(getattr(smk.resources, "gpu", 0) or 0)
    written = write_usage(smk.output.usage, _ledger.record(gpus, time.monotonic() - _ledger.started))
    running_file(smk.output.usage).unlink(missing_ok=True)  # now counted by its finished file
    return written


class UsageError(ValueError):
    """A usage file that cannot be read; the message names the file and the key."""


def read_usage(path: Path | str) -> dict[str, Any]:
    """A job's usage file, checked: its counters are whole numbers, its times numbers."""
    try:
        usage = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise UsageError(f"usage file {path}: cannot be read ({error})") from None
    if not isinstance(usage, dict) or usage.get("format") != FORMAT:
        raise UsageError(f"usage file {path}: not an xlcons usage file (key 'format' is not {FORMAT!r})")
    for key in ("gpus", "wall_s", "gpu_s"):
        if not isinstance(usage.get(key), (int, float)):
            raise UsageError(f"usage file {path}: key {key!r} is not a number")
    for index, call in enumerate(usage.get("calls", [])):
        for key in ADDED_COUNTERS:  # a file written before the counter was: none counted
            if isinstance(call, dict):
                call.setdefault(key, 0)
        for key in COUNTERS:
            if not isinstance(call.get(key), int):
                raise UsageError(f"usage file {path}: calls[{index}].{key} is not a whole number")
    return usage
