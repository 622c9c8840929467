"""One row of the estimate: what one stage will send to one model for one (data set, model)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from xlcons.usage import cost

KEYS = ("stage", "dataset", "model", "translator", "called_model")
COUNTS = ("requests", "cached_requests", "prompt_tokens", "max_completion_tokens")
COLUMNS = (*KEYS, "basis", "tokens", "jobs", *COUNTS, "cost_usd")
TOTAL = "total"


@dataclass
class EstimateRow:
    """The figures of one usage-ledger group (usage.csv's keys). `basis` says how sure the
    requests are (exact, bound, approx, unknown; docs/usage.md#before-a-run-the-estimate),
    `tokens` how the prompt tokens were counted (tokenizer, chars/4, none)."""

    stage: str
    dataset: str
    model: str
    translator: str
    called_model: str
    basis: str
    tokens: str
    jobs: int = 1
    requests: int = 0
    cached_requests: int = 0
    prompt_tokens: int = 0
    max_completion_tokens: int = 0
    cost_usd: float | None = None
    note: str = ""
    # The called model is served over HTTP (an API: it costs money), not run from local files.
    served: bool = False

    def priced(self, prices: Any) -> EstimateRow:
        """The row with its cost at `prices` (USD per million tokens; none without): the prompt
        tokens at the input price, the completion bound at the output price."""
        counts = {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.max_completion_tokens}
        self.cost_usd = cost(counts, prices) if self.basis != "unknown" else None  # nothing counted
        return self

    def as_dict(self) -> dict[str, Any]:
        row = asdict(self)
        row.pop("note")
        row.pop("served")
        return row


# How sure a sum is: the least sure of its parts.
_ORDER = ("exact", "bound", "approx", "unknown")


def least_sure(bases: list[str]) -> str:
    return max(bases, key=_ORDER.index) if bases else "exact"


def totals(rows: list[EstimateRow]) -> list[EstimateRow]:
    """A `total` row per called model, then the run's (the priced models' cost)."""
    by_model: dict[str, list[EstimateRow]] = {}
    for row in rows:
        by_model.setdefault(row.called_model, []).append(row)
    out = [_sum(TOTAL, called, group) for called, group in by_model.items()]
    out.append(_sum(TOTAL, "", rows))
    return out


def _one_or_mixed(values: list[str]) -> str:
    distinct = set(values)
    return values[0] if len(distinct) == 1 else "mixed"


def _sum(stage: str, called: str, rows: list[EstimateRow]) -> EstimateRow:
    total = EstimateRow(
        stage,
        "",
        "",
        "",
        called,
        least_sure([row.basis for row in rows]),
        _one_or_mixed([row.tokens for row in rows]),
        jobs=sum(row.jobs for row in rows),
    )
    for name in COUNTS:
        setattr(total, name, sum(getattr(row, name) for row in rows))
    costs = [row.cost_usd for row in rows if row.cost_usd is not None]
    total.cost_usd = sum(costs) if costs else None
    return total
