"""QE backend `embedding`: cosine of cross-lingual sentence embeddings (envs/evaluate.yaml). Its
registry entry is `QE_BACKEND`; standard library only at the top (sentence-transformers is
imported by the scorer): the registry imports this while the Snakefile builds the DAG."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from xlcons.translation.backend_info import QEBackend, Scorer

QE_BACKEND = QEBackend(
    "embedding",
    "sentence-transformers/LaBSE",
    0.7,
    "evaluate",
    summary="cosine similarity of cross-lingual sentence embeddings: cheap, ungated",
    position=10,
)


def embedding_scorer(model: str | Path, *, batch_size: int = 64, device: str | None = None) -> Scorer:
    """Cosine similarity of source and translation embeddings (each distinct text embedded once)."""
    from xlcons.embeddings import sentence_transformer_embedder

    embed = sentence_transformer_embedder(str(model), device=device, batch_size=batch_size)
    tokenizer = getattr(embed, "tokenizer", None)

    def score(sources: Sequence[str], translations: Sequence[str]) -> list[float]:
        texts = list(dict.fromkeys([*sources, *translations]))
        if not texts:
            return []
        vectors = embed(texts)  # normalised, so a dot product is the cosine
        index = {text: row for row, text in enumerate(texts)}
        return [float(vectors[index[s]] @ vectors[index[t]]) for s, t in zip(sources, translations)]

    def tokens_of(texts: Sequence[str]) -> int:
        """The tokens the encoder reads for the distinct texts (for the usage ledger)."""
        if tokenizer is None or not texts:
            return 0
        return sum(len(ids) for ids in tokenizer(list(dict.fromkeys(texts)), truncation=True)["input_ids"])

    score.tokens_of = tokens_of  # type: ignore[attr-defined]
    return score


def scorer(model: str | Path, *, batch_size: int = 64, gpus: int = 0):
    """The backend's entry (xlcons.translation.quality.make_scorer)."""
    return embedding_scorer(model, batch_size=batch_size, device="cuda" if gpus else None)
