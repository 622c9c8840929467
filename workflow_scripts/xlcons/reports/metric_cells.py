"""One metric's cells (model × language) of a results table, and the script-group order of languages.

What the Translate-then-Evaluate tables (xlcons.reports.translate_then_evaluate_tables) and the
model × language heatmaps (xlcons.reports.heatmaps) share: a metric's rows picked from a RESULTS
table (English, the reference every other language is compared with, left out unless asked
for), looked up by (model, language), the models in their order and the languages grouped by
script group (Latin, Indic, Perso-Arabic, Other, then languages outside every group), by code
within a group.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import polars as pl
import pyarrow as pa

from xlcons.languages import SCRIPT_GROUPS, LanguageRegistry
from xlcons.reports.groups import UNGROUPED

REFERENCE = "en"


def as_frame(results: pa.Table | pl.DataFrame) -> pl.DataFrame:
    return results if isinstance(results, pl.DataFrame) else pl.from_arrow(results)


def select_metric(
    results: pl.DataFrame, key: tuple[str, str, str], languages: Sequence[str] | None, *, reference: bool = False
) -> pl.DataFrame:
    """One metric's rows; the reference language's (English, compared with itself) only when asked."""
    dataset, evaluator, metric = key
    part = results.filter(
        (pl.col("dataset") == dataset) & (pl.col("evaluator") == evaluator) & (pl.col("metric") == metric)
    )
    if not reference:
        part = part.filter(pl.col("lang") != REFERENCE)
    if languages is not None:
        part = part.filter(pl.col("lang").is_in(list(languages)))
    return part


def finite_or_none(value) -> float | None:
    return None if value is None or not np.isfinite(value) else float(value)


def model_order(results: pl.DataFrame, models: Sequence[str] | None) -> list[str]:
    """`models` in its order, else the models in the order they first appear in the results."""
    if models is not None:
        return list(dict.fromkeys(models))
    return list(dict.fromkeys(results["model"].to_list()))


def language_groups(codes: Iterable[str], registry: LanguageRegistry | None = None) -> list[tuple[str, list[str]]]:
    """(script group, codes) in the paper's group order (then ``ungrouped``), codes sorted
    within a group; empty groups left out."""
    registry = registry or LanguageRegistry.load()
    members: dict[str, list[str]] = {group: [] for group in (*SCRIPT_GROUPS, UNGROUPED)}
    for code in dict.fromkeys(codes):
        group = registry[code].script_group if code in registry else None
        members[group if group in members else UNGROUPED].append(code)
    return [(group, sorted(found)) for group, found in members.items() if found]


def language_order(codes: Iterable[str], registry: LanguageRegistry | None = None) -> list[str]:
    return [code for _, found in language_groups(codes, registry) for code in found]


def cell_lookup(part: pl.DataFrame) -> dict[tuple[str, str], dict]:
    lookup: dict[tuple[str, str], dict] = {}
    for row in part.iter_rows(named=True):
        lookup.setdefault((row["model"], row["lang"]), row)
    return lookup
