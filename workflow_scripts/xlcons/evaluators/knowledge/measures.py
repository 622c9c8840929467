"""The measures knowledge consistency is made of: chrF, Spearman over questions, Tscore, cosine matrices.

Each is defined in :mod:`xlcons.evaluators.knowledge.metrics` (xAC, xTC, xSC, xC), which
applies them to one model's answers:

- `ChrF` / `chrf`: sacrebleu chrF (lowercased), the maximum over the gold answers;
- `spearman_matrix` and `mean_over_pairs`: the language-pair correlations and their mean;
- `timeliness_scores`: Tscore, the best candidate's chrF over its rank (``recency`` or
  ``list_position``);
- `embed_unique` and `semantic_matrix`: each distinct answer embedded once, the mean cosine
  of every language pair;
- `harmonic_mean`: xC from the three headline scores.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from sacrebleu.metrics import CHRF
from scipy.stats import rankdata

from xlcons.embeddings import Embedder

RANKINGS = ("recency", "list_position")
DEFAULT_RANKING = "recency"


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
    candidate_scores: Sequence[Sequence[float] | np.ndarray], ranking: str = DEFAULT_RANKING
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


__all__ = [
    "ChrF",
    "DEFAULT_RANKING",
    "RANKINGS",
    "candidate_ranks",
    "chrf",
    "embed_unique",
    "harmonic_mean",
    "mean_over_pairs",
    "normalise_rows",
    "semantic_matrix",
    "spearman_matrix",
    "timeliness_scores",
]
