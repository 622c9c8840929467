"""The sentence cache of one translation job (an append-only JSON-lines file, xlcons.jsonl_cache).

A key hashes everything
that shapes a translation (``sentence_key``): the translator's identity (model, backend,
numeric type, device kind, beam size, token caps), the source and target NLLB codes, the
decoding (greedy, or the sampling parameters and seed of a repair attempt) and the
sentence itself. A changed parameter misses the cache; nothing is ever overwritten.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from xlcons.jsonl_cache import CacheFormat, JsonLinesCache

GREEDY = "search"  # greedy or beam search, as the translator's identity says


def identity_digest(identity: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(dict(identity), sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def decoding_tag(sampling=None) -> str:
    """``search``, or the sampling parameters with the seed: ``sample:t=0.7:p=0.95:seed=1``."""
    if sampling is None:
        return GREEDY
    return f"sample:t={sampling.temperature!r}:p={sampling.top_p!r}:seed={sampling.seed}"


def sentence_key(identity: str, src: str, tgt: str, decoding: str, sentence: str) -> str:
    """The cache key of one translation; ``identity`` is ``identity_digest`` of the translator."""
    payload = "\x1f".join((identity, src, tgt, decoding, sentence))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class TranslationCache(JsonLinesCache):
    FORMAT = CacheFormat("translations", version=1, fields=("translation",))

    def __init__(self, path: Path | str, *, flush_every: int = 256):
        super().__init__(path, flush_every=flush_every)

    def get(self, key: str) -> str | None:
        record = self.record(key)
        return None if record is None else record["translation"]

    def put(self, key: str, translation: str) -> None:
        if key not in self:
            self.add({"key": key, "translation": translation})
