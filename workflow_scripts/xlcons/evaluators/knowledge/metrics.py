"""Knowledge consistency on MAKQA (Xing et al. 2024): xSC, xAC, xTC and xC.

For a model, a set of questions t = 1..n and languages i = 1..L (ans_i(t) its answer to
question t asked in language i, gold_i(t) the gold answers in language i):

xAC (accuracy consistency)
    acc_i(t) = chrF(ans_i(t), gold_i(t)), sacrebleu ``CHRF(lowercase=True)`` (character
    order 6, word order 0, beta 2), computed as ``corpus_score([ans], [[g] for g in golds])``:
    one hypothesis with each gold answer as one reference stream. sacrebleu scores a
    segment against several references by taking the statistics of the reference with the
    best F-score, so acc is the **maximum chrF over the gold answers** (the test suite
    checks this). Scores are on sacrebleu's 0-100 scale (Spearman does not care).
    C^A_ij = Spearman(acc_i, acc_j) over the questions (``scipy.stats.spearmanr``
    semantics: average ranks for ties, Pearson of the ranks); xAC is the mean of C^A_ij
    over ordered pairs i != j. Spearman is symmetric, so that equals the mean over
    unordered pairs. A NaN correlation (a constant accuracy vector, e.g. a language that
    is always wrong, or fewer than two shared questions) counts as 0.
xTC (timeliness consistency; the timeliness domain)
    For each candidate y_{t,r} (the release lists them oldest first) s_r = chrF(ans, y_{t,r});
    the best-matching candidate is argmax_r s_r, Tscore = max_r s_r / rank(best). Ranking
    ``recency`` (the paper's text, the default): rank 1 = the most recent candidate, the
    last listed; ``list_position`` (the released code, which reproduces the published
    0.5078): rank 1 = the first listed, i.e. the oldest. When several candidates tie for
    the best chrF the one with the better (smaller) rank is taken, in either mode; in
    ``list_position`` mode that is the first listed, numpy's argmax, and what reproduces
    the published number. An answer matching nothing (chrF 0) scores 0. Then Spearman
    across language pairs and the mean over pairs, as for xAC.
xSC (semantic consistency)
    Every distinct answer text is embedded once with ``embed(texts) -> array`` (LaBSE in
    the paper; rows are L2-normalised here again); C_ij = mean over questions of
    cos(emb(ans_i), emb(ans_j)); xSC = mean over ordered pairs. **Oracle** (the paper's
    0.849): the same on the gold answers, the gold list joined with ", " (all of them,
    which is the whole ground truth; ``oracle_answers="first"`` takes the first only);
    for timeliness the most recent candidate (the current answer). Like xAC and xTC, the
    oracle counts only the (question, language) cells with gold answers: in a set that gives
    them for some items, the others are not its questions (not zeros), and its ``n_items``
    counts the questions with gold answers.
xC
    The harmonic mean of the overall xSC, xAC and xTC of a variant. Missing if a component
    is missing (no embedder, no timeliness questions, ...): NaN, never 0. A component <= 0
    (possible for correlations) makes xC 0, the harmonic mean's limit.

Domains and pooling: every metric is reported per domain, and under domain ``all``:
xSC and xAC on the six non-timeliness domains **pooled** (their questions stacked into one
set, which is what reproduces the published 0.4893; the mean of the six domain scores is
0.4705), xTC on timeliness. A subset run pools the non-timeliness domains it has.

Empty and missing answers
    An empty answer (blank text, or ``finish_reason`` ``empty``/``refused``; the stage writes
    "No answer" for those, which is not scored as text) is a real, wrong answer: chrF 0,
    Tscore 0, and its embedding counts as cosine 0 against every other answer. It is counted
    in ``n_empty``. A missing answer (no response row, or ``finish_reason`` ``error`` or
    ``prompt_too_long``: no answer of the model's) is left
    out: correlations and C_ij of a pair use the questions both languages answered, and it is
    counted in ``n_excluded``. GPT-3.5's release has one empty answer and none missing.

Prompt variants (``variant:`` item-id prefixes of :mod:`xlcons.datasets.makqa`) are scored
separately; the default variant has no prefix.

Other data sets
    Nothing here is tied to MAKQA but its item ids. Any data set with parallel items (the
    same item id in several languages) gets xSC; one with gold answers (``references``)
    also gets xAC, and xTC when it has a ``timeliness`` category. Items are grouped by their
    ``category`` (``uncategorised`` without one), all non-timeliness groups pooled under
    ``all``. MultiQ has no gold answers, so it gets xSC only, and xC stays missing.

This module scores one model (`score_knowledge`); the measures it is made of (chrF,
Spearman, Tscore, cosine, harmonic mean) are in :mod:`xlcons.evaluators.knowledge.measures`,
and the answers' (question x language) grids in :mod:`xlcons.evaluators.knowledge.grids`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from xlcons.datasets.makqa import TIMELINESS
from xlcons.embeddings import Embedder
from xlcons.evaluators.knowledge.grids import (
    EMPTY,
    MISSING,
    OK,
    STATUS_NAMES,
    Grid,
    build_grids,
    gold_cells,
    has_gold,
    oracle_text,
    score_chrf,
)
from xlcons.evaluators.knowledge.measures import (
    DEFAULT_RANKING,
    RANKINGS,
    ChrF,
    embed_unique,
    harmonic_mean,
    mean_over_pairs,
    semantic_matrix,
    spearman_matrix,
)
from xlcons.evaluators.knowledge.tables import KNOWLEDGE_ITEMS, KNOWLEDGE_PAIRS, KNOWLEDGE_SCORES

OVERALL = "all"
ORACLE_ANSWERS = ("joined", "first")


@dataclass
class KnowledgeResult:
    scores: pa.Table  # KNOWLEDGE_SCORES
    pairs: pa.Table  # KNOWLEDGE_PAIRS
    items: pa.Table  # KNOWLEDGE_ITEMS
    languages: list[str]
    matrices: dict[tuple[str, str, str], np.ndarray]  # (variant, metric, domain) -> (L, L)

    def value(self, metric: str, domain: str = OVERALL, variant: str | None = None) -> float:
        rows = [
            r
            for r in self.scores.to_pylist()
            if r["metric"] == metric and r["domain"] == domain and (variant is None or r["variant"] == variant)
        ]
        if len(rows) != 1:
            raise KeyError(f"{len(rows)} score rows for metric {metric!r}, domain {domain!r}, variant {variant!r}")
        return float("nan") if rows[0]["value"] is None else rows[0]["value"]


def _as_rows(table: Any) -> list[dict]:
    if isinstance(table, pa.Table):
        return table.to_pylist()
    if hasattr(table, "to_dicts"):  # polars
        return table.to_dicts()
    return [dict(row) for row in table]


def _one_value(rows: list[dict], column: str, given: str | None, what: str) -> str:
    if given is not None:
        return given
    values = {row.get(column) for row in rows} - {None}
    if len(values) != 1:
        raise ValueError(
            f"{what}: expected one {column} in the rows, found {sorted(values)}; pass {column}= explicitly"
        )
    return values.pop()


def score_knowledge(
    responses: Any,
    prompts: Any,
    *,
    model: str | None = None,
    dataset: str | None = None,
    embed: Embedder | None = None,
    ranking: str = DEFAULT_RANKING,
    oracle: bool = True,
    oracle_answers: str = "joined",
) -> KnowledgeResult:
    """Score one model's responses (rows with item_id, lang, response[, finish_reason]).

    `prompts` are the PROMPTS rows the responses answer (references and domains come from
    them); every (item, language) of the prompts without a usable response is counted as
    excluded. Without `embed`, xSC is not computed and xC is NaN. MAKQA (the default data
    set) groups items by its item ids; any other data set by category.
    """
    if ranking not in RANKINGS:
        raise ValueError(f"unknown timeliness ranking {ranking!r}; choose one of {RANKINGS}")
    if oracle_answers not in ORACLE_ANSWERS:
        raise ValueError(f"oracle_answers must be one of {ORACLE_ANSWERS}, not {oracle_answers!r}")
    response_rows, prompt_rows = _as_rows(responses), _as_rows(prompts)
    model = _one_value(response_rows, "model", model, "responses")
    if dataset is None:
        dataset = (
            _one_value(prompt_rows, "dataset", None, "prompts")
            if any(r.get("dataset") for r in prompt_rows)
            else "makqa"
        )
    languages, grids = build_grids(response_rows, prompt_rows, makqa=dataset == "makqa")
    scorer = ChrF()
    for grid in grids:
        score_chrf(grid, scorer, ranking)

    vectors: dict[str, np.ndarray] = {}
    if embed is not None:
        texts = [text for grid in grids for row in grid.answers for text in row]
        if oracle:
            texts += [
                oracle_text(refs, grid.domain, oracle_answers)
                for grid in grids
                for row in grid.references
                for refs in row
            ]
        vectors = embed_unique(embed, texts)
    dim = next(iter(vectors.values())).shape[0] if vectors else 0

    def grid_vectors(grid: Grid, gold: bool) -> tuple[np.ndarray, np.ndarray]:
        n, k = grid.status.shape
        out = np.zeros((n, k, dim))
        if gold:  # the oracle answers where there are gold answers; the other questions are not its
            present = gold_cells(grid)
        else:
            present = grid.status != MISSING
        for t in range(n):
            for j in range(k):
                if present[t, j]:
                    text = (
                        oracle_text(grid.references[t][j], grid.domain, oracle_answers) if gold else grid.answers[t][j]
                    )
                    if text in vectors:
                        out[t, j] = vectors[text]
        return out, present

    score_rows: list[dict] = []
    pair_rows: list[dict] = []
    matrices: dict[tuple[str, str, str], np.ndarray] = {}

    def counts(status: np.ndarray, prompted: np.ndarray, scored: np.ndarray | None) -> dict:
        """`n_items`: the questions that entered the score, those with a score in some language
        (`scored`: for xAC and xTC a finite chrF / Tscore, so only questions with gold answers;
        else an answer)."""
        return {
            "n_items": int((status != MISSING if scored is None else scored).any(axis=1).sum()),
            "n_excluded": int(((status == MISSING) & prompted).sum()),
            "n_empty": int((status == EMPTY).sum()),
        }

    def emit(variant, metric, domain, matrix, shared, status, prompted, value, rank=None, scored=None):
        matrices[(variant, metric, domain)] = matrix
        score_rows.append(
            {
                "variant": variant,
                "metric": metric,
                "domain": domain,
                "value": value,
                "ranking": rank,
                **counts(status, prompted, scored),
            }
        )
        if value is None or np.isnan(value):
            score_rows[-1]["n_items"] = 0  # an undefined score rests on no question
        for i, lang_i in enumerate(languages):
            for j, lang_j in enumerate(languages):
                if i != j:
                    pair_rows.append(
                        {
                            "variant": variant,
                            "metric": metric,
                            "domain": domain,
                            "lang_i": lang_i,
                            "lang_j": lang_j,
                            "value": None if np.isnan(matrix[i, j]) else float(matrix[i, j]),
                            "n_items": int(shared[i, j]),
                        }
                    )

    variants = list(dict.fromkeys(grid.variant for grid in grids))
    for variant in variants:
        mine = [grid for grid in grids if grid.variant == variant]
        pooled = [grid for grid in mine if grid.domain != TIMELINESS]
        graded = [grid for grid in pooled if grid.acc is not None]
        headline: dict[str, float | None] = {"xSC": None, "xAC": None, "xTC": None}
        # xAC per domain and pooled
        for grid in mine:
            if grid.acc is None:
                continue
            rho, shared = spearman_matrix(grid.acc)
            scored = np.isfinite(grid.acc)
            emit(
                variant, "xAC", grid.domain, rho, shared, grid.status, grid.prompted, mean_over_pairs(rho), None, scored
            )
        if graded:
            acc = np.vstack([grid.acc for grid in graded])
            status = np.vstack([grid.status for grid in graded])
            prompted = np.vstack([grid.prompted for grid in graded])
            rho, shared = spearman_matrix(acc)
            headline["xAC"] = mean_over_pairs(rho)
            emit(variant, "xAC", OVERALL, rho, shared, status, prompted, headline["xAC"], None, np.isfinite(acc))
        # xTC
        for grid in mine:
            if grid.domain == TIMELINESS and grid.tscore is not None:
                rho, shared = spearman_matrix(grid.tscore)
                headline["xTC"] = mean_over_pairs(rho)
                scored = np.isfinite(grid.tscore)
                for domain in (TIMELINESS, OVERALL):
                    emit(
                        variant,
                        "xTC",
                        domain,
                        rho,
                        shared,
                        grid.status,
                        grid.prompted,
                        headline["xTC"],
                        ranking,
                        scored,
                    )
        # xSC and its oracle
        if embed is not None:
            with_oracle = oracle and all(has_gold(grid) for grid in mine)
            for metric, gold in (("xSC", False), ("xSC_oracle", True)) if with_oracle else (("xSC", False),):
                blocks = {}
                for grid in mine:
                    v, present = grid_vectors(grid, gold)
                    blocks[grid.domain] = (v, present)
                    matrix, shared = semantic_matrix(v, present)
                    status = np.where(present, OK, MISSING) if gold else grid.status
                    asked = present if gold else grid.prompted
                    value = mean_over_pairs(matrix, nan_as_zero=False)
                    emit(variant, metric, grid.domain, matrix, shared, status, asked, value)
                if pooled:
                    v = np.concatenate([blocks[g.domain][0] for g in pooled])
                    present = np.concatenate([blocks[g.domain][1] for g in pooled])
                    prompted = present if gold else np.vstack([g.prompted for g in pooled])
                    matrix, shared = semantic_matrix(v, present)
                    status = np.where(present, OK, MISSING) if gold else np.vstack([g.status for g in pooled])
                    value = mean_over_pairs(matrix, nan_as_zero=False)
                    if metric == "xSC":
                        headline["xSC"] = value
                    emit(variant, metric, OVERALL, matrix, shared, status, prompted, value)
        xc = harmonic_mean([headline["xSC"], headline["xAC"], headline["xTC"]])
        # xC's questions are those of xSC (xAC's are among them) and of xTC (timeliness, apart):
        # counted where xC is defined, null where it is not (no question entered it).
        behind = [
            row
            for row in score_rows
            if row["variant"] == variant and row["domain"] == OVERALL and row["metric"] in ("xSC", "xTC")
        ]
        score_rows.append(
            {
                "variant": variant,
                "metric": "xC",
                "domain": OVERALL,
                "value": None if np.isnan(xc) else xc,
                "ranking": ranking,
                **{
                    name: None if np.isnan(xc) else sum(row[name] for row in behind)
                    for name in ("n_items", "n_excluded", "n_empty")
                },
            }
        )

    for row in score_rows:
        if row["value"] is not None and np.isnan(row["value"]):
            row["value"] = None
    item_rows = []
    for grid in grids:
        for t, item in enumerate(grid.item_ids):
            for j, lang in enumerate(languages):
                if not grid.prompted[t, j]:
                    continue
                state = int(grid.status[t, j])
                timeliness = grid.tscore is not None
                item_rows.append(
                    {
                        "variant": grid.variant,
                        "domain": grid.domain,
                        "item_id": item,
                        "lang": lang,
                        "status": STATUS_NAMES[state],
                        "chrf": None
                        if state == MISSING or grid.acc is None or np.isnan(grid.acc[t, j])
                        else float(grid.acc[t, j]),
                        "tscore": float(grid.tscore[t, j]) if timeliness and state != MISSING else None,
                        "best_rank": int(grid.best_rank[t, j])
                        if timeliness and state != MISSING and grid.best_rank[t, j]
                        else None,
                    }
                )
    stamp = {"dataset": dataset, "model": model}
    return KnowledgeResult(
        scores=pa.Table.from_pylist([{**stamp, **row} for row in score_rows], schema=KNOWLEDGE_SCORES),
        pairs=pa.Table.from_pylist([{**stamp, **row} for row in pair_rows], schema=KNOWLEDGE_PAIRS),
        items=pa.Table.from_pylist([{**stamp, **row} for row in item_rows], schema=KNOWLEDGE_ITEMS),
        languages=languages,
        matrices=matrices,
    )


__all__ = [
    "OVERALL",
    "KnowledgeResult",
    "score_knowledge",
]
