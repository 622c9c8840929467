"""Sentence embeddings, for any stage that compares texts by meaning.

An `Embedder` turns texts into one unit-length vector each (rows of a numpy array). The
knowledge evaluator's xSC (:mod:`xlcons.evaluators.knowledge.metrics`) and the embedding QE
backend (:mod:`xlcons.translation.qe_embedding`) both use
:func:`sentence_transformer_embedder`. Importing this module loads nothing heavy;
sentence-transformers is loaded when an embedder is built.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

Embedder = Callable[[Sequence[str]], "np.ndarray"]


def sentence_transformer_embedder(model: str, *, device: str | None = None, batch_size: int = 64) -> Embedder:
    """An `embed(texts)` over a sentence-transformers model folder (LaBSE, MiniLM, ...)."""
    from sentence_transformers import SentenceTransformer

    encoder = SentenceTransformer(str(model), device=device, local_files_only=True)

    def embed(texts: Sequence[str]) -> np.ndarray:
        return encoder.encode(list(texts), batch_size=batch_size, convert_to_numpy=True, normalize_embeddings=True)

    embed.tokenizer = encoder.tokenizer  # type: ignore[attr-defined]  # what the QE scorer counts tokens with
    return embed
