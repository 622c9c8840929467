"""The budget check before anything is scheduled: the estimate against `limits` (xlcons.budget).

The Snakefile calls `limits_problem` once the plan is built; with no limit set it returns at
once, so a run without limits never loads a tokenizer. With a limit it counts what the run's
ledger would hold at most: what the usage files under the results folder already count (the
finished jobs) and what the ledgers of stopped attempts count (``<usage file>.running``: jobs
stopped by the guard, failed or killed), as the guard counts them while the run goes on, plus
the estimate's bound on what the jobs without a usage file yet will send (prompt tokens and
`max_new_tokens` completion tokens per request not in their caches, so what a stopped attempt
sent and cached is counted once, by its ledger): a finished run started again is not refused
for what it already did, nor a stopped one given a second budget. A finished job that reruns
(its params changed) is counted by its old file only; the guard checks what it sends.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

from xlcons.budget import HOW_TO_RAISE, Limits, Spent, describe, over_limit, spent_by
from xlcons.estimate import estimate
from xlcons.estimate.prompts import UNKNOWN
from xlcons.estimate.rows import TOTAL, EstimateRow
from xlcons.plan import Plan
from xlcons.usage import read_usage, run_usage_files, running_usage_files


def already_spent(plan: Plan) -> Spent:
    """What the usage files under the results folder count, and the ledgers stopped attempts left."""
    pricing = plan.usage.pricing()
    total = Spent()
    for path in [*run_usage_files(plan.results), *running_usage_files(plan.results)]:
        total = total + spent_by(read_usage(path).get("calls", []), pricing)
    return total


def unpriced_problem(rows: list[EstimateRow], pricing: Mapping[str, Any]) -> str | None:
    """Why `limits.max_cost` cannot hold: the models served over HTTP (APIs) that jobs still to run
    call and `pricing` does not price, each with the key it needs and the close keys it has (a
    price under another spelling of the name counts nothing); None when every one is priced."""
    unpriced: dict[str, list[str]] = {}
    for row in rows:
        if row.stage != TOTAL and row.served and row.called_model not in pricing:
            job = f"{row.stage} {row.dataset}/{row.model or '-'}"
            unpriced.setdefault(row.called_model, []).append(job)
    if not unpriced:
        return None
    lines = []
    for model, jobs in unpriced.items():
        close = difflib.get_close_matches(model, list(pricing), n=3, cutoff=0.6)
        near = (
            f"; `pricing` has {', '.join(repr(key) for key in close)}: the key must be the API's model name"
            if close
            else ""
        )
        lines.append(
            f"{model!r} (called by {', '.join(jobs)}) has no price: add "
            f"pricing: {{{model!r}: {{input: ..., output: ...}}}}{near}"
        )
    return (
        "xlcons: limits.max_cost is set, but models this run calls have no price in `pricing`, so their cost "
        "would count nothing and the limit would not hold:\n  " + "\n  ".join(lines) + "\nPrices are USD per "
        "million tokens, keyed by the called model's name as usage.csv and `xlcons estimate` show it "
        "(docs/usage.md#pricing; a served model that costs nothing: input: 0, output: 0). Nothing was scheduled: "
        "add the prices, or limit tokens instead (limits: {max_tokens: ...})."
    )


def limits_problem(
    plan: Plan, resources: str = "resources", rows: list[EstimateRow] | None = None
) -> tuple[str | None, list[str]]:
    """(why the run must not start, or None; notes for the log: stages the estimate could not count)."""
    limits = Limits.from_config(plan.config)
    if not limits:
        return None, []
    rows = rows if rows is not None else estimate(plan, resources, unfinished=True)
    if limits.max_cost is not None and (unpriced := unpriced_problem(rows, plan.usage.pricing())):
        return unpriced, []
    run = rows[-1]
    bound = Spent(run.prompt_tokens + run.max_completion_tokens, run.cost_usd or 0.0)
    before = already_spent(plan)
    notes = [
        f"the estimate could not count {row.stage} {row.dataset}/{row.model or '-'} ({row.note}); "
        "the budget guard checks its jobs while they run"
        for row in rows
        if row.basis == UNKNOWN and row.stage != "total"
    ]
    reached = over_limit(limits, before + bound, reached=False)
    if reached is None:
        return None, notes
    key, value, limit = reached
    part = (
        f"{run.prompt_tokens:,} prompt tokens + at most {run.max_completion_tokens:,} completion tokens"
        if key.endswith("max_tokens")
        else f"{describe(key, run.cost_usd or 0.0)} at the `pricing` prices"
    )
    spent = describe(key, before.tokens if key.endswith("max_tokens") else before.cost_usd)
    return (
        f"xlcons: the run's estimate is above {key}: it may come to {describe(key, value)} ({part} to send, "
        f"plus {spent} that the usage files and stopped attempts' ledgers under {plan.results} already count), "
        f"and {key} is "
        f"{describe(key, limit)}. Nothing was scheduled. See the figures per stage with "
        "`xlcons estimate --configfile <your config files>` (docs/usage.md#before-a-run-the-estimate). "
        "To run anyway, " + HOW_TO_RAISE.format(key=key.split(".")[-1]) + "; the jobs still stop when the "
        "run's ledger reaches the limit."
    ), notes
