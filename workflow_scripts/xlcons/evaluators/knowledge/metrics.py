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
    for timeliness the most recent candidate (the current answer).
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
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
from sacrebleu.metrics import CHRF
from scipy.stats import rankdata

from xlcons.datasets.makqa import TIMELINESS, parse_item_id
from xlcons.embeddings import Embedder
from xlcons.evaluators.knowledge.tables import KNOWLEDGE_ITEMS, KNOWLEDGE_PAIRS, KNOWLEDGE_SCORES
from xlcons.schemas import UNANSWERED_REASONS

RANKINGS = ("recency", "list_position")
DEFAULT_RANKING = "recency"
OVERALL = "all"
UNCATEGORISED = "uncategorised"
GENERIC_VARIANT = "default"  # the prompts as the data set gives them (MAKQA names its variants)
ORACLE_ANSWERS = ("joined", "first")
EMPTY_REASONS = frozenset({"empty", "refused"})
MISSING_REASONS = frozenset(UNANSWERED_REASONS)  # a failed request, a prompt too long for the model
# cell status codes
MISSING, OK, EMPTY = 0, 1, 2
STATUS_NAMES = {MISSING: "missing", OK: "ok", EMPTY: "empty"}


# -- chrF ----------------------------------------------------------------------------------
class ChrF:
    """sacrebleu chrF (char order 6, word order 0, beta 2, lowercased), with a cache of pairs."""

    def __init__(self) -> None:
        self.metric = CHRF(lowercase=True)
        self._multi: dict[tuple[str, tuple[str, ...]], float] = {}
        self._single: dict[tuple[str, str], float] = {}

    def score(self, hypothesis: str, references: Sequence[str]) -> float:
        """chrF of one answer against the gold answers as multiple references (their maximum)."""
        references = tuple(references)
        if not references:
            raise ValueError("chrF needs at least one reference")
        key = (hypothesis, references)
        if key not in self._multi:
            self._multi[key] = self.metric.corpus_score([hypothesis], [[g] for g in references]).score
        return self._multi[key]

    def per_reference(self, hypothesis: str, references: Sequence[str]) -> np.ndarray:
        """chrF of one answer against each reference separately."""
        out = np.empty(len(references))
        for index, reference in enumerate(references):
            key = (hypothesis, reference)
            if key not in self._single:
                self._single[key] = self.metric.sentence_score(hypothesis, [reference]).score
            out[index] = self._single[key]
        return out


def chrf(hypothesis: str, references: Sequence[str]) -> float:
    """chrF of `hypothesis` against `references` (multi-reference: the best one), 0-100."""
    return ChrF().score(hypothesis, references)


# -- correlations --------------------------------------------------------------------------
def _pearson_columns(values: np.ndarray) -> np.ndarray:
    """Pearson correlation between the columns of `values`; NaN where a column is constant."""
    centred = values - values.mean(axis=0)
    norms = np.sqrt((centred * centred).sum(axis=0))
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = (centred.T @ centred) / np.outer(norms, norms)
    corr[(norms == 0)[:, None] | (norms == 0)[None, :]] = np.nan
    return np.clip(corr, -1.0, 1.0)


def spearman_matrix(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Spearman correlation of every pair of columns (languages) over the rows (questions).

    NaN entries are missing answers: a pair uses the rows both columns have. Returns the
    (L, L) correlations (NaN where undefined and on the diagonal) and the (L, L) counts of
    shared rows. Columns without missing values are done in one matrix product.
    """
    values = np.asarray(values, dtype=float)
    if values.ndim != 2:
        raise ValueError(f"expected a (questions, languages) matrix, got shape {values.shape}")
    present = ~np.isnan(values)
    counts = present.T.astype(np.int64) @ present.astype(np.int64)
    k = values.shape[1]
    rho = np.full((k, k), np.nan)
    complete = np.flatnonzero(present.all(axis=0))
    if values.shape[0] >= 2 and complete.size:
        rho[np.ix_(complete, complete)] = _pearson_columns(rankdata(values[:, complete], axis=0))
    full = present.all(axis=0)
    for i in range(k):
        for j in range(i + 1, k):
            if full[i] and full[j]:
                continue
            rows = present[:, i] & present[:, j]
            if rows.sum() >= 2:
                rho[i, j] = rho[j, i] = _pearson_columns(rankdata(values[rows][:, [i, j]], axis=0))[0, 1]
    np.fill_diagonal(rho, np.nan)
    return rho, counts


def mean_over_pairs(matrix: np.ndarray, nan_as_zero: bool = True) -> float:
    """Mean of the off-diagonal entries (ordered pairs i != j).

    `nan_as_zero`: a NaN entry counts as 0 (the correlations, as METHODS says); otherwise
    NaN entries (pairs without a shared question, for xSC) are left out of the mean.
    """
    matrix = np.asarray(matrix, dtype=float)
    k = matrix.shape[0]
    if k < 2:
        return float("nan")
    off = matrix[~np.eye(k, dtype=bool)]
    if nan_as_zero:
        return float(np.nan_to_num(off, nan=0.0).mean())
    return float(off[~np.isnan(off)].mean()) if (~np.isnan(off)).any() else float("nan")


# -- timeliness ----------------------------------------------------------------------------
def candidate_ranks(n_candidates: int, ranking: str) -> np.ndarray:
    """Rank of each candidate, in release order (oldest first)."""
    if ranking == "recency":
        return np.arange(n_candidates, 0, -1)
    if ranking == "list_position":
        return np.arange(1, n_candidates + 1)
    raise ValueError(f"unknown timeliness ranking {ranking!r}; choose one of {RANKINGS}")


def timeliness_scores(
    candidate_scores: Sequence[Sequence[float]], ranking: str = DEFAULT_RANKING
) -> tuple[np.ndarray, np.ndarray]:
    """Tscore = best chrF / rank of the best candidate, for each answer; and that rank (0: no match).

    `candidate_scores[t]` holds the chrF of answer t against each candidate, in release order.
    Ties go to the smaller rank.
    """
    n = len(candidate_scores)
    width = max((len(s) for s in candidate_scores), default=0)
    scores = np.full((n, max(width, 1)), -np.inf)
    ranks = np.full((n, max(width, 1)), np.inf)
    for row, values in enumerate(candidate_scores):
        if len(values) == 0:
            raise ValueError(f"answer {row} has no timeliness candidates")
        scores[row, : len(values)] = values
        ranks[row, : len(values)] = candidate_ranks(len(values), ranking)
    best = scores.max(axis=1) if n else np.zeros(0)
    rank = np.where(scores == best[:, None], ranks, np.inf).min(axis=1) if n else np.zeros(0)
    matched = best > 0
    tscore = np.where(matched, best / np.where(matched, rank, 1.0), 0.0)
    return tscore, np.where(matched, rank, 0).astype(np.int64)


# -- semantic ------------------------------------------------------------------------------
def normalise_rows(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


def embed_unique(embed: Embedder, texts: Iterable[str]) -> dict[str, np.ndarray]:
    """Embed every distinct non-blank text once; text -> unit vector."""
    unique = list(dict.fromkeys(text for text in texts if text and text.strip()))
    if not unique:
        return {}
    vectors = normalise_rows(np.asarray(embed(unique)))
    if vectors.shape[0] != len(unique):
        raise ValueError(f"the embedder returned {vectors.shape[0]} vectors for {len(unique)} texts")
    return dict(zip(unique, vectors))


def semantic_matrix(vectors: np.ndarray, present: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """C_ij = mean over the questions both languages answered of cos(v_i, v_j).

    `vectors` (n, L, d) holds unit vectors, zero for an empty answer (cosine 0 with
    anything); `present` (n, L) says which (question, language) has an answer at all.
    """
    vectors = np.asarray(vectors, dtype=np.float64) * np.asarray(present, dtype=np.float64)[..., None]
    n, k, d = vectors.shape
    stacked = vectors.transpose(1, 0, 2).reshape(k, n * d)
    sums = stacked @ stacked.T
    counts = present.T.astype(np.int64) @ present.astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        matrix = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    np.fill_diagonal(matrix, np.nan)
    return matrix, counts


def harmonic_mean(values: Sequence[float | None]) -> float:
    """xC: NaN if a component is missing; 0 if one is <= 0; else the harmonic mean."""
    if any(v is None or not np.isfinite(v) for v in values):
        return float("nan")
    if any(v <= 0 for v in values):
        return 0.0
    return len(values) / sum(1.0 / v for v in values)


# -- scoring a model -----------------------------------------------------------------------
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


def _group_of(row: dict, makqa: bool) -> tuple[str, str]:
    """(variant, domain) of a prompt row: MAKQA's come from its item ids, others' from the category."""
    if makqa:
        variant, domain, _ = parse_item_id(row["item_id"])
        return variant, row.get("category") or domain
    return GENERIC_VARIANT, row.get("category") or UNCATEGORISED


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
        status = np.zeros((len(ids), len(languages)), dtype=np.int8)
        texts = [["" for _ in languages] for _ in ids]
        references = [[None for _ in languages] for _ in ids]
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


def _score_chrf(grid: Grid, scorer: ChrF, ranking: str) -> None:
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


def _oracle_text(golds: list[str] | None, domain: str, mode: str) -> str:
    if not golds:
        return ""
    if domain == TIMELINESS:
        return golds[-1]
    return golds[0] if mode == "first" else ", ".join(golds)


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
        _score_chrf(grid, scorer, ranking)

    vectors: dict[str, np.ndarray] = {}
    if embed is not None:
        texts = [text for grid in grids for row in grid.answers for text in row]
        if oracle:
            texts += [
                _oracle_text(refs, grid.domain, oracle_answers)
                for grid in grids
                for row in grid.references
                for refs in row
            ]
        vectors = embed_unique(embed, texts)
    dim = next(iter(vectors.values())).shape[0] if vectors else 0

    def grid_vectors(grid: Grid, gold: bool) -> tuple[np.ndarray, np.ndarray]:
        n, k = grid.status.shape
        out = np.zeros((n, k, dim))
        if gold:
            present = grid.prompted
        else:
            present = grid.status != MISSING
        for t in range(n):
            for j in range(k):
                if present[t, j]:
                    text = (
                        _oracle_text(grid.references[t][j], grid.domain, oracle_answers) if gold else grid.answers[t][j]
                    )
                    if text in vectors:
                        out[t, j] = vectors[text]
        return out, present

    score_rows: list[dict] = []
    pair_rows: list[dict] = []
    matrices: dict[tuple[str, str, str], np.ndarray] = {}

    def counts(status: np.ndarray, prompted: np.ndarray) -> dict:
        return {
            "n_items": int((status != MISSING).any(axis=1).sum()),
            "n_excluded": int(((status == MISSING) & prompted).sum()),
            "n_empty": int((status == EMPTY).sum()),
        }

    def emit(variant, metric, domain, matrix, shared, status, prompted, value, rank=None):
        matrices[(variant, metric, domain)] = matrix
        score_rows.append(
            {
                "variant": variant,
                "metric": metric,
                "domain": domain,
                "value": value,
                "ranking": rank,
                **counts(status, prompted),
            }
        )
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
            emit(variant, "xAC", grid.domain, rho, shared, grid.status, grid.prompted, mean_over_pairs(rho))
        if graded:
            acc = np.vstack([grid.acc for grid in graded])
            status = np.vstack([grid.status for grid in graded])
            prompted = np.vstack([grid.prompted for grid in graded])
            rho, shared = spearman_matrix(acc)
            headline["xAC"] = mean_over_pairs(rho)
            emit(variant, "xAC", OVERALL, rho, shared, status, prompted, headline["xAC"])
        # xTC
        for grid in mine:
            if grid.domain == TIMELINESS and grid.tscore is not None:
                rho, shared = spearman_matrix(grid.tscore)
                headline["xTC"] = mean_over_pairs(rho)
                for domain in (TIMELINESS, OVERALL):
                    emit(variant, "xTC", domain, rho, shared, grid.status, grid.prompted, headline["xTC"], ranking)
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
                    value = mean_over_pairs(matrix, nan_as_zero=False)
                    emit(variant, metric, grid.domain, matrix, shared, status, grid.prompted, value)
                if pooled:
                    v = np.concatenate([blocks[g.domain][0] for g in pooled])
                    present = np.concatenate([blocks[g.domain][1] for g in pooled])
                    prompted = np.vstack([g.prompted for g in pooled])
                    matrix, shared = semantic_matrix(v, present)
                    status = np.where(present, OK, MISSING) if gold else np.vstack([g.status for g in pooled])
                    value = mean_over_pairs(matrix, nan_as_zero=False)
                    if metric == "xSC":
                        headline["xSC"] = value
                    emit(variant, metric, OVERALL, matrix, shared, status, prompted, value)
        xc = harmonic_mean([headline["xSC"], headline["xAC"], headline["xTC"]])
        score_rows.append(
            {
                "variant": variant,
                "metric": "xC",
                "domain": OVERALL,
                "value": None if np.isnan(xc) else xc,
                "ranking": ranking,
                "n_items": None,
                "n_excluded": None,
                "n_empty": None,
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
    "ChrF",
    "DEFAULT_RANKING",
    "KnowledgeResult",
    "OVERALL",
    "RANKINGS",
    "chrf",
    "embed_unique",
    "harmonic_mean",
    "mean_over_pairs",
    "score_knowledge",
    "semantic_matrix",
    "spearman_matrix",
    "timeliness_scores",
]
