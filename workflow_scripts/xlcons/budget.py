"""The budget guard: `limits.max_cost` (USD) and `limits.max_tokens` (prompt + completion) of a run.

Two checks use it. Before anything is scheduled, the Snakefile compares the estimate's bound
(xlcons.estimate) with the limits. While the run goes on, every job that sends requests calls
``check()`` before each chunk: it adds up *the run's ledger* and stops the job with
``BudgetExceeded`` once that reaches a limit. The caller has flushed its cache before the
chunk, so every answer received is kept and a rerun with a higher limit sends only the rest.

The run's ledger is what the usage files under the results folder say (the jobs that finished:
what the current results cost, ``xlcons.usage.run_usage_files``), plus the ledgers that running
jobs keep beside their usage output (``<usage file>.running``, rewritten at each check, removed
when the job writes its usage file; a job that was stopped, failed or was killed leaves its own,
and its next attempt carries it on in its own ledger, ``xlcons.usage.carry_stopped``, so what
every attempt sent keeps counting), plus this job's own ledger (``xlcons.usage.ledger``).
Parallel jobs thus see each other's spending up to their last check: together they may pass a
limit by about one chunk each.

A job's guard is set up from the config Snakemake hands to its script (`install_from_config`,
called by xlcons.job.start_job): the limits are not the job's params, so changing them
reruns nothing. Standard library only.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xlcons.usage import (
    UsageError,
    cost,
    ledger,
    read_usage,
    run_usage_files,
    running_file,
    running_usage_files,
    write_running_usage,
)

log = logging.getLogger(__name__)

# How the limits are changed, in every message that names one (docs/usage.md#the-budget-guard).
HOW_TO_RAISE = (
    "raise it in the config (limits: {{{key}: ...}}, or on the command line: --config 'limits={{{key}: ...}}'), "
    "or run without limits: --config limits="
)


@dataclass(frozen=True)
class Limits:
    """A run's limits; None where the config sets none."""

    max_cost: float | None = None
    max_tokens: int | None = None

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Limits:
        """The `limits` section (validated by the config schema; `--config limits={max_cost: 5}`
        gives numbers as text, which are read as numbers here)."""
        section = config.get("limits") or {}
        cost_limit, tokens = section.get("max_cost"), section.get("max_tokens")
        return cls(
            None if cost_limit is None else float(cost_limit),
            None if tokens is None else int(float(tokens)),
        )

    def __bool__(self) -> bool:
        return self.max_cost is not None or self.max_tokens is not None


@dataclass(frozen=True)
class Spent:
    """What a set of usage counts comes to: tokens (prompt + completion), USD of the priced
    models, and the models that sent tokens without a price (their cost is not counted)."""

    tokens: int = 0
    cost_usd: float = 0.0
    unpriced: tuple[str, ...] = ()

    def __add__(self, other: Spent) -> Spent:
        return Spent(
            self.tokens + other.tokens,
            self.cost_usd + other.cost_usd,
            tuple(dict.fromkeys(self.unpriced + other.unpriced)),
        )


def spent_by(calls: Iterable[Mapping[str, Any]], pricing: Mapping[str, Mapping[str, float]]) -> Spent:
    """What usage entries (a usage file's `calls`: `model` and the counters) add up to."""
    total = Spent()
    for call in calls:
        tokens = call["prompt_tokens"] + call["completion_tokens"]
        usd = cost(call, pricing.get(call["model"]))
        unpriced = (call["model"],) if usd is None and tokens else ()
        total = total + Spent(tokens, usd or 0.0, unpriced)
    return total


def over_limit(limits: Limits, spent: Spent, *, reached: bool = True) -> tuple[str, float, float] | None:
    """The first limit `spent` has reached (with `reached=False`: gone past), as (key, spent,
    limit); None while under both."""

    def over(value: float, limit: float | None) -> bool:
        return limit is not None and (value >= limit if reached else value > limit)

    if over(spent.cost_usd, limits.max_cost):
        return "limits.max_cost", spent.cost_usd, limits.max_cost
    if over(spent.tokens, limits.max_tokens):
        return "limits.max_tokens", spent.tokens, limits.max_tokens
    return None


def describe(key: str, value: float) -> str:
    return f"{value:,.4f} USD" if key.endswith("max_cost") else f"{int(value):,} tokens"


class BudgetExceeded(RuntimeError):
    """The run's ledger reached a limit; the job stopped before its next chunk of requests."""

    def __init__(self, job: str, key: str, spent: float, limit: float, own: float = 0.0):
        self.key, self.spent, self.limit = key, spent, limit
        super().__init__(
            f"{job}: budget reached: the run's ledger is at {describe(key, spent)} (this job's requests: "
            f"{describe(key, own)}; it writes no usage file when stopped, so say so if you add it up), {key} is "
            f"{describe(key, limit)}. The job stopped before its next chunk of requests; every answer "
            "received so far is kept in its cache, so running the workflow again sends only the rest. "
            "To go on, " + HOW_TO_RAISE.format(key=key.split(".")[-1]) + " (docs/usage.md#the-budget-guard)."
        )


class BudgetHeld(BudgetExceeded):
    """Requests a job did not send at all, since their bound would take the run's ledger past a
    limit (a Batch API job: they are not uploaded); raised once the ones that fit are answered."""

    def __init__(self, job: str, model: str, held: int, total: int, key: str, spent: float, bound: float, limit: float):
        self.held, self.total = held, total
        RuntimeError.__init__(
            self,
            f"{job}: budget reached: {held} of {total} requests to {model} were not submitted: with the run's "
            f"ledger at {describe(key, spent)}, the {total} requests' bound ({describe(key, bound)}: each prompt at "
            f"most one token per UTF-8 byte of its messages plus the chat format's, and its max_tokens written) "
            f"would take it past {key}, which is {describe(key, limit)}. The {total - held} that fit were submitted "
            "and their "
            "answers are kept in the job's cache, so running the workflow again submits only the rest. To go on, "
            + HOW_TO_RAISE.format(key=key.split(".")[-1])
            + " (docs/usage.md#the-budget-guard).",
        )
        self.key, self.spent, self.limit = key, spent, limit


class BudgetGuard:
    """A job's check of the run's ledger against the limits; `ledger_files` lists the finished
    jobs' usage files (read again at each check, since other jobs finish meanwhile), `own` is
    this job's usage file (not counted from disk: its ledger is the process's)."""

    def __init__(
        self,
        limits: Limits,
        pricing: Mapping[str, Mapping[str, float]],
        ledger_files: Callable[[], Sequence[Path]],
        own: Path | str | None = None,
        job: str = "job",
        running_files: Callable[[], Sequence[Path]] = lambda: [],
    ):
        self.limits, self.pricing, self.ledger_files, self.job = limits, pricing, ledger_files, job
        self.running_files = running_files
        self.own = Path(own).resolve() if own else None
        self._read: dict[Path, tuple[float, Spent]] = {}  # a file's mtime and what it says
        self._held: BudgetHeld | None = None  # why the last `admit` held requests back

    def _file(self, path: Path) -> Spent:
        try:
            mtime = path.stat().st_mtime
        except OSError:  # removed meanwhile (a job that reruns)
            return Spent()
        if path in self._read and self._read[path][0] == mtime:
            return self._read[path][1]
        try:
            spent = spent_by(read_usage(path).get("calls", []), self.pricing)
        except UsageError as error:  # half a file of another job is not a reason to stop this one
            log.warning("budget: %s is not counted (%s)", path, error)
            spent = Spent()
        self._read[path] = (mtime, spent)
        return spent

    def own_spent(self) -> Spent:
        """This job's own ledger so far."""
        return spent_by(ledger().calls(), self.pricing)

    def spent(self) -> Spent:
        """The run's ledger: the finished jobs' usage files, the running (or stopped) jobs'
        running ledgers, and this job's own ledger (neither of its files: its ledger is in memory)."""
        mine = set() if self.own is None else {self.own, running_file(self.own)}
        total = self.own_spent()
        for path in [*self.ledger_files(), *self.running_files()]:
            if Path(path).resolve() not in mine:
                total = total + self._file(Path(path))
        return total

    def save(self) -> None:
        """This job's ledger so far, beside its usage output: for the other jobs' checks, and for
        this job's next attempt should this one stop."""
        if self.own is not None:
            try:
                write_running_usage(self.own)
            except OSError as error:  # the guard still works on what this job can read
                log.warning("budget: cannot write %s (%s)", running_file(self.own), error)

    def admit(self, model: str, bounds: Sequence[tuple[int, int]]) -> int:
        """How many of `bounds` (requests to `model` in the order they would go, each at most
        (prompt, completion) tokens) fit under the limits with the run's ledger as it is now,
        each priced at `model`'s price. Requests sent at once and paid whatever the guard says
        (a batch) are admitted so: the first that would take the ledger past a limit and those
        after it are held back, said in the log; the caller raises ``held`` once the admitted
        ones are answered."""
        self.save()
        spent, prices = self.spent(), self.pricing.get(model)
        admitted = Spent()
        for count, (prompt, completion) in enumerate(bounds):
            usd = cost({"prompt_tokens": prompt, "completion_tokens": completion}, prices) or 0.0
            request = Spent(prompt + completion, usd)
            if over_limit(self.limits, spent + admitted + request, reached=False):
                held = self._held = self._describe_held(model, bounds, count, spent)
                log.warning("%s", held)
                return count
            admitted = admitted + request
        self._held = None
        return len(bounds)

    def _describe_held(self, model: str, bounds: Sequence[tuple[int, int]], count: int, spent: Spent) -> BudgetHeld:
        prices = self.pricing.get(model)
        bound = Spent(
            sum(prompt + completion for prompt, completion in bounds),
            sum(cost({"prompt_tokens": p, "completion_tokens": c}, prices) or 0.0 for p, c in bounds),
        )
        key, _, limit = over_limit(self.limits, spent + bound, reached=False) or ("limits.max_tokens", 0, 0)
        usd = key.endswith("max_cost")
        now, at_most = (spent.cost_usd, bound.cost_usd) if usd else (float(spent.tokens), float(bound.tokens))
        return BudgetHeld(self.job, model, len(bounds) - count, len(bounds), key, now, at_most, limit)

    def check(self) -> Spent:
        """Raise BudgetExceeded when the run's ledger has reached a limit; what it is at, otherwise.
        First this job's ledger so far goes beside its usage output, for the other jobs' checks."""
        self.save()
        spent = self.spent()
        if reached := over_limit(self.limits, spent):
            own = self.own_spent()
            raise BudgetExceeded(self.job, *reached, own.cost_usd if reached[0].endswith("max_cost") else own.tokens)
        return spent


_guard: BudgetGuard | None = None


def check() -> None:
    """This job's budget check (none unless the job installed a guard): call before sending a
    chunk of requests, after flushing the cache."""
    if _guard is not None:
        _guard.check()


def admit(model: str, bounds: Sequence[tuple[int, int]]) -> int:
    """How many of these requests (each at most (prompt, completion) tokens to `model`) this job
    may send at once within the limits (all of them without a guard): BudgetGuard.admit."""
    return len(bounds) if _guard is None else _guard.admit(model, bounds)


def held() -> BudgetHeld | None:
    """Why the last ``admit`` held requests back (to raise once the admitted ones are answered); None if it did not."""
    return None if _guard is None else _guard._held


def save() -> None:
    """This job's ledger so far beside its usage output (with a guard): a job that stops keeps it there."""
    if _guard is not None:
        _guard.save()


def install(guard: BudgetGuard | None) -> None:
    global _guard
    _guard = guard


@contextmanager
def guarding(guard: BudgetGuard | None) -> Iterator[BudgetGuard | None]:
    """A guard for the block (tests; a job's own is installed for the process)."""
    global _guard
    previous, _guard = _guard, guard
    try:
        yield guard
    finally:
        _guard = previous


def install_from_config(config: Mapping[str, Any], own: Path | str | None, job: str) -> BudgetGuard | None:
    """A model job's guard from the run's config (`limits`, `pricing`, `output.results_dir`);
    none when the config sets no limit."""
    limits = Limits.from_config(config)
    if not limits:
        install(None)
        return None
    results = config.get("output", {}).get("results_dir", "results")
    guard = BudgetGuard(
        limits,
        config.get("pricing") or {},
        lambda: run_usage_files(results),
        own,
        job,
        running_files=lambda: running_usage_files(results),
    )
    install(guard)
    return guard
