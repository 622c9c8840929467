"""The translation stage's job-level engine, ``SentenceTranslator``: every sentence of a job translated together.

Every translation job (responses to English, English prompts to other languages, round
trips) goes through one ``SentenceTranslator``: it owns the job's sentence cache and the
degeneration repair, loads the translator only when the cache lacks something, and
translates every sentence of the job together (identical sentences once, longest first, in
chunks that are flushed to the cache, so a killed job loses at most one chunk). Texts are
cut into sentences by ``xlcons.segmentation`` (the language's own splitter) and put back
together with their layout (``translate_texts``).

**Degeneration repair**: every sentence's translation is checked with
``degeneration.is_degenerate``; a degenerate one is translated again by sampling
(temperature and top_p from the config, seeds 0, 1, …, ``tries`` - 1, each attempt of a
sentence decoded on its own so its result does not depend on the other sentences): the
first attempt that is not degenerate is kept (``repaired``), else the last attempt, still
flagged. Each attempt is cached like a greedy translation.

``job_translator`` reads a translation rule's translator and repair settings from its params.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from xlcons import budget
from xlcons.languages import LanguageRegistry
from xlcons.progress import Progress
from xlcons.segmentation import Segmented, split
from xlcons.translation.cache import TranslationCache, decoding_tag, identity_digest, sentence_key
from xlcons.translation.degeneration import is_degenerate
from xlcons.translation.spec import SamplingSpec, TranslatorSpec
from xlcons.translation.translators import TranslatorBackend, load_translator
from xlcons.usage import ledger, record

log = logging.getLogger(__name__)

DEFAULT_CHUNK_SIZE = 512


@dataclass(frozen=True)
class DegenerationSpec:
    """The config's ``translator.degeneration`` section."""

    repair: bool = True
    max_length_ratio: float = 3.0
    max_ngram_repeats: int = 4
    temperature: float = 0.7
    top_p: float = 0.95
    tries: int = 3

    @classmethod
    def from_config(cls, section: Mapping[str, Any] | None) -> DegenerationSpec:
        return cls(**{name: value for name, value in (section or {}).items() if name in cls.__dataclass_fields__})

    def check(self, source: str, translation: str) -> str | None:
        return is_degenerate(
            source, translation, max_length_ratio=self.max_length_ratio, max_ngram_repeats=self.max_ngram_repeats
        )

    def attempts(self) -> list[SamplingSpec]:
        return [SamplingSpec(self.temperature, self.top_p, seed) for seed in range(self.tries)]


@dataclass(frozen=True)
class SentenceResult:
    translation: str
    degenerate_reason: str | None = None  # of the first translation
    repaired: bool = False
    attempts: int = 0


class _MemoryCache(dict):
    """A cache for calls that do not keep one (tests, the benchmark)."""

    def put(self, key: str, translation: str) -> None:
        self[key] = translation

    def flush(self) -> None:
        pass


class SentenceTranslator:
    """Translates the sentences of one job: cached, deduplicated, chunked, repaired.

    ``factory`` builds the translator from the spec on the first cache miss (never, when the
    cache has everything). ``model_calls`` counts sentences sent to the translator. ``job``
    names the progress lines (xlcons.progress) of each batch of sentences sent to the model;
    a job may set it per input (``translate <data set>/<model>``).
    """

    def __init__(
        self,
        spec: TranslatorSpec,
        cache: TranslationCache | None = None,
        degeneration: DegenerationSpec = DegenerationSpec(),
        factory: Callable[[TranslatorSpec], TranslatorBackend] = load_translator,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
        job: str = "translate",
    ):
        self.spec = spec
        self.job = job
        self.cache = cache if cache is not None else _MemoryCache()
        self.degeneration = degeneration
        self.factory = factory
        self.chunk_size = chunk_size
        self.identity = identity_digest(spec.identity())
        self.label = spec.label()
        self.ledger_name = spec.ledger_name()  # its name in the job's usage ledger (xlcons.usage)
        self._translator: TranslatorBackend | None = None
        self.model_calls = 0

    @property
    def translator(self) -> TranslatorBackend:
        if self._translator is None:
            started = time.perf_counter()
            self._translator = self.factory(self.spec)
            log.info("translator loaded in %.1f s", time.perf_counter() - started)
        return self._translator

    def close(self) -> None:
        self.cache.flush()
        if self._translator is not None:
            self._translator.close()
            self._translator = None

    def __enter__(self) -> SentenceTranslator:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _lookup(self, sentences: Sequence[str], src: str, tgt: str, sampling: SamplingSpec | None) -> dict[str, str]:
        """Translations of distinct ``sentences`` from the cache, translating what it lacks."""
        tag = decoding_tag(sampling)
        keys = {sentence: sentence_key(self.identity, src, tgt, tag, sentence) for sentence in sentences}
        missing = [sentence for sentence, key in keys.items() if key not in self.cache]
        # The usage ledger: each distinct sentence is one request (its tokens are the translator's to count).
        record(self.ledger_name, "translate", cached_requests=len(keys) - len(missing))
        uncached = self._translate_missing(missing, keys, src, tgt, sampling) if missing else {}
        return {
            sentence: uncached[sentence] if sentence in uncached else self.cache.get(key)
            for sentence, key in keys.items()
        }

    def _translate_missing(
        self, missing: list[str], keys: Mapping[str, str], src: str, tgt: str, sampling: SamplingSpec | None
    ) -> dict[str, str]:
        """Translate and cache ``missing`` chunk by chunk; returns the translations not cached (failed requests)."""
        uncached: dict[str, str] = {}
        # Longest first across the whole job, so each chunk's batches hold similar lengths.
        missing.sort(key=len, reverse=True)
        translator = self.translator  # loaded before the progress clock starts
        attempt = "" if sampling is None else f" (repair, seed {sampling.seed})"
        written_before = ledger().written(self.ledger_name, "translate")
        with Progress(f"{self.job} {src}→{tgt}{attempt}", len(missing), unit="sentences") as progress:
            for start in range(0, len(missing), self.chunk_size):
                chunk = missing[start : start + self.chunk_size]
                budget.check()  # the run's limits (xlcons.budget); the cache holds every chunk before
                translations = translator.translate(chunk, src, tgt, sampling=sampling)
                failed = getattr(translator, "failed_sentences", ())  # an LLM translator's failed requests of this call
                for sentence, translation in zip(chunk, translations):
                    if sentence in failed:  # not cached: a rerun asks again
                        uncached[sentence] = translation
                    else:
                        self.cache.put(keys[sentence], translation)
                self.cache.flush()
                self.model_calls += len(chunk)
                record(self.ledger_name, "translate", requests=len(chunk))
                written = ledger().written(self.ledger_name, "translate")  # the translator's own count
                progress.update(len(chunk), tokens=written - written_before)
                written_before = written
        return uncached

    def translate(self, sentences: Sequence[str], src: str, tgt: str) -> list[SentenceResult]:
        """One result per sentence (NLLB codes ``src`` → ``tgt``), degenerate ones repaired."""
        unique = list(dict.fromkeys(sentences))
        first = self._lookup(unique, src, tgt, None)
        results: dict[str, SentenceResult] = {}
        broken: dict[str, str] = {}  # sentence -> reason of its first translation
        for sentence in unique:
            reason = self.degeneration.check(sentence, first[sentence])
            results[sentence] = SentenceResult(first[sentence], reason)
            if reason is not None and self.degeneration.repair:
                broken[sentence] = reason
        pending = list(broken)
        for number, sampling in enumerate(self.degeneration.attempts() if pending else [], start=1):
            sampled = self._lookup(pending, src, tgt, sampling)
            still = []
            for sentence in pending:
                fixed = self.degeneration.check(sentence, sampled[sentence]) is None
                results[sentence] = SentenceResult(sampled[sentence], broken[sentence], fixed, number)
                if not fixed:
                    still.append(sentence)
            pending = still
            if not pending:
                break
        if broken:
            log.info(
                "%s→%s: %d of %d distinct sentences degenerate, %d repaired",
                src,
                tgt,
                len(broken),
                len(unique),
                len(broken) - len(pending),
            )
        return [results[sentence] for sentence in sentences]


@dataclass(frozen=True)
class TextTranslation:
    segmented: Segmented
    results: tuple[SentenceResult, ...]
    text: str

    @property
    def n_degenerate(self) -> int:
        return sum(result.degenerate_reason is not None for result in self.results)

    @property
    def n_repaired(self) -> int:
        return sum(result.repaired for result in self.results)


def translate_texts(
    engine: SentenceTranslator, texts: Sequence[str], lang: str, tgt_lang: str, registry: LanguageRegistry | None = None
) -> list[TextTranslation]:
    """Split texts in registry language ``lang``, translate every sentence into ``tgt_lang``, reassemble."""
    registry = registry or LanguageRegistry.load()
    src, tgt = registry.nllb_code(lang), registry.nllb_code(tgt_lang)
    segmented = [split(text, lang) for text in texts]
    flat = [sentence for segments in segmented for sentence in segments.sentences]
    results = engine.translate(flat, src, tgt)
    out, start = [], 0
    for segments in segmented:
        mine = tuple(results[start : start + len(segments.sentences)])
        start += len(mine)
        out.append(TextTranslation(segments, mine, segments.reassemble([result.translation for result in mine])))
    return out


def job_translator(params, threads: int) -> tuple[TranslatorSpec, DegenerationSpec]:
    """The translator and repair settings of a translation rule, from its params (translator
    section, checkpoint, converted CTranslate2 folder)."""
    section = params.translator
    spec = TranslatorSpec.from_config(section, params.checkpoint, params.converted, threads=threads)
    return spec, DegenerationSpec.from_config(section.get("degeneration"))


__all__ = [
    "DEFAULT_CHUNK_SIZE",
    "DegenerationSpec",
    "SentenceResult",
    "SentenceTranslator",
    "TextTranslation",
    "job_translator",
    "translate_texts",
]
