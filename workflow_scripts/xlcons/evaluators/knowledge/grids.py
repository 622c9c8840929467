"""One model's answers laid out for knowledge consistency: a (question x language) grid per (variant, domain).

`build_grids` reads the PROMPTS rows (languages, gold answers, domains) and the responses
into `Grid`s, each cell an answer, an empty answer or a missing one (see
:mod:`xlcons.evaluators.knowledge.metrics` for how each counts); `score_chrf` fills in a
grid's chrF against the gold answers (and, for timeliness, Tscore and the best rank);
`oracle_text` is the gold text the oracle xSC embeds.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from xlcons.datasets.makqa import TIMELINESS, parse_item_id
from xlcons.evaluators.knowledge.measures import ChrF, timeliness_scores
from xlcons.schemas import UNANSWERED_REASONS

UNCATEGORISED = "uncategorised"
GENERIC_VARIANT = "default"  # the prompts as the data set gives them (MAKQA names its variants)
EMPTY_REASONS = frozenset({"empty", "refused"})
MISSING_REASONS = frozenset(UNANSWERED_REASONS)  # a failed request, a prompt too long for the model
# cell status codes
MISSING, OK, EMPTY = 0, 1, 2
STATUS_NAMES = {MISSING: "missing", OK: "ok", EMPTY: "empty"}


@dataclass
class Grid:
    """One (variant, domain): questions x languages."""

    variant: str
    domain: str
    item_ids: list[str]
    status: np.ndarray  # (n, L) MISSING / OK / EMPTY
    answers: list[list[str]]  # (n, L), "" where missing or empty
    references: list[list[list[str] | None]]  # (n, L), None where there are no gold answers
    prompted: np.ndarray = field(default=None)  # (n, L) bool: the item was asked in that language
    acc: np.ndarray = field(default=None)  # (n, L) chrF, NaN where missing; None without gold answers
    tscore: np.ndarray = field(default=None)
    best_rank: np.ndarray = field(default=None)


def _group_of(row: dict, makqa: bool) -> tuple[str, str]:
    """(variant, domain) of a prompt row: MAKQA's come from its item ids, others' from the category."""
    if makqa:
        variant, domain, _ = parse_item_id(row["item_id"])
        return variant, row.get("category") or domain
    return GENERIC_VARIANT, row.get("category") or UNCATEGORISED


def gold_cells(grid: Grid) -> np.ndarray:
    """(n, L) bool: the (question, language) cells that were asked and have gold answers, the
    cells a metric over gold answers (xAC, xTC, the oracle xSC) can count."""
    known = np.array([[bool(refs) for refs in row] for row in grid.references], dtype=bool)
    return known.reshape(grid.status.shape) & grid.prompted


def has_gold(grid: Grid) -> bool:
    return any(refs is not None for row in grid.references for refs in row)


def build_grids(responses: list[dict], prompts: list[dict], *, makqa: bool = True) -> tuple[list[str], list[Grid]]:
    languages = list(dict.fromkeys(row["lang"] for row in prompts))
    column = {lang: index for index, lang in enumerate(languages)}
    refs: dict[tuple[str, str], list[str] | None] = {}
    layout: dict[tuple[str, str], list[str]] = {}
    for row in prompts:
        variant, domain = _group_of(row, makqa)
        key = (row["item_id"], row["lang"])
        if key in refs:
            raise ValueError(f"prompts: item {key[0]!r} in language {key[1]!r} appears twice")
        refs[key] = list(row["references"]) if row.get("references") is not None else None
        ids = layout.setdefault((variant, domain), [])
        if not ids or ids[-1] != row["item_id"]:
            ids.append(row["item_id"])
    layout = {key: list(dict.fromkeys(ids)) for key, ids in layout.items()}

    answers: dict[tuple[str, str], tuple[int, str]] = {}
    unknown = []
    for row in responses:
        lang = row.get("lang", row.get("language"))
        key = (str(row["item_id"]), str(lang))
        if key not in refs:
            unknown.append(key)
            continue
        if key in answers:
            raise ValueError(f"responses: item {key[0]!r} in language {key[1]!r} appears twice")
        reason = row.get("finish_reason")
        text = row.get("response")
        if reason in MISSING_REASONS or text is None:
            continue
        if reason in EMPTY_REASONS or not str(text).strip():
            answers[key] = (EMPTY, "")
        else:
            answers[key] = (OK, str(text))
    if unknown:
        raise ValueError(f"responses: {len(unknown)} (item, language) pairs are not in the prompts, e.g. {unknown[:5]}")

    grids = []
    for (variant, domain), ids in layout.items():
        status: np.ndarray = np.zeros((len(ids), len(languages)), dtype=np.int8)
        texts = [["" for _ in languages] for _ in ids]
        references: list[list[list[str] | None]] = [[None for _ in languages] for _ in ids]
        for row_index, item in enumerate(ids):
            for lang, col in column.items():
                references[row_index][col] = refs.get((item, lang))
                if (item, lang) in answers:
                    status[row_index, col], texts[row_index][col] = answers[(item, lang)]
        prompted = np.array([[(item, lang) in refs for lang in languages] for item in ids], dtype=bool).reshape(
            status.shape
        )
        grids.append(Grid(variant, domain, ids, status, texts, references, prompted))
    return languages, grids


def score_chrf(grid: Grid, scorer: ChrF, ranking: str) -> None:
    if not has_gold(grid):
        return
    n, k = grid.status.shape
    grid.acc = np.full((n, k), np.nan)
    timeliness = grid.domain == TIMELINESS
    candidates: list[np.ndarray] = []
    cells: list[tuple[int, int]] = []
    for t in range(n):
        for j in range(k):
            state = grid.status[t, j]
            if state == MISSING:
                continue
            golds = grid.references[t][j]
            if not golds:  # a user set may give gold answers for some items only: the others stay out of xAC
                continue
            if state == EMPTY:
                grid.acc[t, j] = 0.0
                if timeliness:
                    candidates.append(np.zeros(len(golds)))
                    cells.append((t, j))
                continue
            if timeliness:
                per = scorer.per_reference(grid.answers[t][j], golds)
                grid.acc[t, j] = per.max()  # == the multi-reference chrF
                candidates.append(per)
                cells.append((t, j))
            else:
                grid.acc[t, j] = scorer.score(grid.answers[t][j], golds)
    if timeliness:
        grid.tscore = np.full((n, k), np.nan)
        grid.best_rank = np.zeros((n, k), dtype=np.int64)
        if cells:
            tscore, rank = timeliness_scores(candidates, ranking)
            rows, cols = np.array(cells).T
            grid.tscore[rows, cols] = tscore
            grid.best_rank[rows, cols] = rank


def oracle_text(golds: list[str] | None, domain: str, mode: str) -> str:
    if not golds:
        return ""
    if domain == TIMELINESS:
        return golds[-1]
    return golds[0] if mode == "first" else ", ".join(golds)


__all__ = [
    "EMPTY",
    "MISSING",
    "OK",
    "STATUS_NAMES",
    "Grid",
    "build_grids",
    "gold_cells",
    "has_gold",
    "oracle_text",
    "score_chrf",
]
