"""The run's usage table, results/tables/usage.csv: every model job's ledger (xlcons.usage), summed.

One row per stage, data set, model whose answers the jobs worked on, translator and called
model (the model the requests went to: the generator itself, the judge, the evaluator's
LLM, the translator, the QE model), summing that group's jobs; then a `total` row per called
model over every stage, and a grand `total` row. A job's wall time and GPU seconds belong to
the row of the first model it called (a job calls one model, but for the language checks of
the QE job). With `pricing` (USD per million tokens by called model) each row gets its cost:
prompt tokens not served from a prompt cache at the `input` price, cached ones at
`cached_input` (the `input` price when it has none), completion tokens at `output`; a row
of a model without a price has no cost, and the totals count the priced rows.
"""

from __future__ import annotations

import csv
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from xlcons.atomic import atomic_path
from xlcons.usage import COUNTERS, cost, read_usage

log = logging.getLogger(__name__)

TOTAL = "total"
KEYS = ("stage", "dataset", "model", "translator", "called_model")
TIMES = ("wall_s", "gpu_s")
COLUMNS = (*KEYS, "jobs", *COUNTERS, *TIMES, "cost_usd")


def _empty(keys: Mapping[str, str]) -> dict[str, Any]:
    return {**keys, "jobs": 0, **dict.fromkeys(COUNTERS, 0), **dict.fromkeys(TIMES, 0.0)}


def job_rows(job: Mapping[str, str], usage: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per model a job called (its parts summed); the job, its wall time and GPU seconds
    on the first. A job that called no model (nothing to do) keeps one row, `called_model` empty."""
    keys = {key: job.get(key, "") for key in KEYS[:-1]}
    rows: dict[str, dict[str, Any]] = {}
    for call in usage.get("calls", []):
        row = rows.setdefault(call["model"], _empty({**keys, "called_model": call["model"]}))
        for counter in COUNTERS:
            row[counter] += call.get(counter, 0)  # a counter added after the file was written: none
    first = next(iter(rows.values()), None) or rows.setdefault("", _empty({**keys, "called_model": ""}))
    first["jobs"] = 1
    for time in TIMES:
        first[time] = float(usage[time])
    return list(rows.values())


def _add(into: dict[str, Any], row: Mapping[str, Any]) -> None:
    for name in ("jobs", *COUNTERS, *TIMES):
        into[name] += row[name]


def usage_rows(
    jobs: Sequence[tuple[Mapping[str, str], Mapping[str, Any]]], pricing: Mapping[str, Mapping[str, float]]
) -> list[dict[str, Any]]:
    """The usage table's rows for (job, its usage file) pairs, in the jobs' order; see the module docstring."""
    groups: dict[tuple[str, ...], dict[str, Any]] = {}
    for job, usage in jobs:
        for row in job_rows(job, usage):
            key = tuple(row[name] for name in KEYS)
            _add(groups.setdefault(key, _empty({name: row[name] for name in KEYS})), row)
    rows = list(groups.values())
    by_model: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row["called_model"]:
            _add(by_model.setdefault(row["called_model"], _empty(_total_keys(row["called_model"]))), row)
    grand = _empty(_total_keys(""))
    for row in rows:
        _add(grand, row)
    for row in [*rows, *by_model.values()]:
        row["cost_usd"] = cost(row, pricing.get(row["called_model"]))
    costs = [row["cost_usd"] for row in by_model.values() if row["cost_usd"] is not None]
    grand["cost_usd"] = sum(costs) if costs else None
    return [*rows, *by_model.values(), grand]


def _total_keys(called_model: str) -> dict[str, str]:
    return {"stage": TOTAL, "dataset": "", "model": "", "translator": "", "called_model": called_model}


def unpriced_models(rows: Sequence[Mapping[str, Any]], pricing: Mapping[str, Any]) -> list[str]:
    """Called models that sent tokens but have no price (the log names them, once `pricing` is set)."""
    return list(
        dict.fromkeys(
            row["called_model"]
            for row in rows
            if row["stage"] != TOTAL
            and row["called_model"]
            and row["prompt_tokens"]
            and row["called_model"] not in pricing
        )
    )


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6f}".rstrip("0").rstrip(".") if value else "0"
    return value


def write_usage_table(rows: Sequence[Mapping[str, Any]], path: Path | str) -> Path:
    with atomic_path(path) as temporary, open(temporary, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows({name: _cell(row[name]) for name in COLUMNS} for row in rows)
    return Path(path)


def run_usage_job(
    files: Sequence[Path | str],
    jobs: Sequence[Mapping[str, str]],
    out: Path | str,
    pricing: Mapping[str, Mapping[str, float]],
) -> list[dict[str, Any]]:
    """The rule's job: every model job's usage file in (`jobs`, the plan's usage_jobs, say what
    each is), usage.csv out."""
    labels = {str(Path(job["path"])): job for job in jobs}
    pairs = []
    for path in files:
        job = labels.get(str(Path(path)))
        if job is None:
            raise ValueError(f"usage file {path}: not among the run's model jobs (the plan's usage_jobs)")
        pairs.append((job, read_usage(path)))
    rows = usage_rows(pairs, pricing)
    if pricing and (missing := unpriced_models(rows, pricing)):
        log.warning("pricing: no price for %s; their rows have no cost", ", ".join(missing))
    write_usage_table(rows, out)
    return rows
