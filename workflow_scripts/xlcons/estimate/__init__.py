"""What a run will send before it runs: requests, prompt tokens, a bound on completion tokens and,
with `pricing`, money, per stage, data set and called model (usage.csv's groups).

`estimate(plan)` builds the rows from the same plan the Snakefile builds (the usage ledger's
jobs, xlcons.plan.usage), running no model: xlcons.estimate.stages counts each stage,
xlcons.estimate.table prints them, xlcons.estimate.check compares them with `limits`.
`python -m xlcons.estimate` and the `xlcons estimate` command (xlcons.cli) run it.
"""

from __future__ import annotations

from pathlib import Path

from xlcons.estimate.rows import COLUMNS, EstimateRow, totals
from xlcons.estimate.stages import Context, estimate_job
from xlcons.plan import Plan


def estimate(plan: Plan, resources: str = "resources", *, unfinished: bool = False) -> list[EstimateRow]:
    """One row per usage-ledger group of the run, priced where `pricing` prices the called model,
    then a `total` row per called model and the run's total. A group is one (stage, data set,
    model, translator) job, or its shard jobs (`generation.shards` and the like): estimated once,
    `jobs` counting the shards. With `unfinished`, only the groups with a usage file not there
    yet (what the budget check adds to the files that are)."""
    context = Context(plan, resources)
    pricing = plan.usage.pricing()
    groups: dict[tuple[str, ...], list[dict[str, str]]] = {}
    for job in plan.usage.usage_jobs():
        groups.setdefault(tuple(job[key] for key in ("stage", "dataset", "model", "translator")), []).append(job)
    rows = []
    for jobs in groups.values():
        if unfinished and all(Path(job["path"]).is_file() for job in jobs):
            continue
        row = estimate_job(context, jobs[0])
        row.jobs = len(jobs)
        rows.append(row.priced(pricing.get(row.called_model)))
    return rows + totals(rows)


__all__ = ["COLUMNS", "EstimateRow", "estimate"]
