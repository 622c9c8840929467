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
    """One row per usage-ledger group of the run (summing its jobs), priced where `pricing`
    prices the called model, then a `total` row per called model and the run's total. With
    `unfinished`, only the jobs whose usage file is not there yet (what the budget check adds to
    the files that are)."""
    context = Context(plan, resources)
    pricing = plan.usage.pricing()
    groups: dict[tuple[str, ...], EstimateRow] = {}
    for job in plan.usage.usage_jobs():
        if unfinished and Path(job["path"]).is_file():
            continue
        row = estimate_job(context, job)
        key = (row.stage, row.dataset, row.model, row.translator, row.called_model)
        if key in groups:
            group = groups[key]
            group.jobs += 1
            for name in ("requests", "cached_requests", "prompt_tokens", "max_completion_tokens"):
                setattr(group, name, getattr(group, name) + getattr(row, name))
        else:
            groups[key] = row
    rows = [row.priced(pricing.get(row.called_model)) for row in groups.values()]
    return rows + totals(rows)


__all__ = ["COLUMNS", "EstimateRow", "estimate"]
