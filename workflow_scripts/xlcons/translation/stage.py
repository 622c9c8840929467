"""The translation stage: responses to English, English prompts to other languages, round trips.

Everything here goes through one job-level engine, ``SentenceTranslator``: it owns the
job's sentence cache and the degeneration repair, loads the translator only when the cache
lacks something, and translates every sentence of the job together (identical sentences
once, longest first, in chunks that are flushed to the cache, so a killed job loses at most
one chunk). Texts are cut into sentences by ``xlcons.segmentation`` (the
language's own splitter) and put back together with their layout.

**Which language a response is translated from** (``translation_path`` per response):

``no_answer``
    the response is "No answer" (failed, refused or empty generation): it passes through.
``passthrough_english``
    the response is in English (by language ID, or because the prompt was): passes through.
``prompt_language``
    the response is in the prompt's language (language ID agrees with the prompt, with the
    registry's labels as in MultiQ's fidelity; or detection is off): translated from it.
``other_language``
    language ID names another registry language that NLLB covers: translated from that
    language (Gupta et al. 2025 would have translated it "from" the prompt language).
``untranslatable``
    language ID names a language without an NLLB code (Latin, Hawaiian, …), or a label that
    stands for no registry language, or the prompt language itself has no NLLB code. The
    response is **kept untranslated** (``translation`` is the response, verbatim) and
    flagged; it is not translated "from" the prompt language, which would be exactly the
    silent assumption this stage exists to avoid. Evaluators see the path and can leave
    such rows out; ``translation_counts`` counts them per (model, language).

The decision, the detected language (``source_lang_detected``, a registry code) and the raw
label (``lid_label``) are recorded per response.

**Degeneration repair**: every sentence's translation is checked with
``degeneration.is_degenerate``; a degenerate one is translated again by sampling
(temperature and top_p from the config, seeds 0, 1, …, ``tries`` - 1, each attempt of a
sentence decoded on its own so its result does not depend on the other sentences): the
first attempt that is not degenerate is kept (``repaired``), else the last attempt, still
flagged. Each attempt is cached like a greedy translation.

Outputs: a ``TRANSLATIONS`` table (one row per response, in input order) and a
``TRANSLATED_SENTENCES`` table (one row per translated sentence); ``translation_counts``
sums both per (data set, model, language). Prompt translation (en → l, for data sets that
exist only in English) writes ``PROMPTS`` rows in l with ``source_lang`` en and a review
TSV; the round trip (en → l → en, the translationese check) writes ``ROUND_TRIPS``.
"""

from __future__ import annotations

import csv
import logging
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from xlcons.atomic import atomic_path
from xlcons.languages import LanguageRegistry
from xlcons.schemas import (
    NO_ANSWER,
    NO_TEXT_REASONS,
    PROMPTS,
    RESPONSES,
    REVIEW_COLUMNS,
    ROUND_TRIPS,
    TRANSLATED_SENTENCES,
    TRANSLATION_COUNTS,
    TRANSLATION_PATHS,
    TRANSLATIONS,
)
from xlcons.segmentation import Segmented, split
from xlcons.tables import read_table, write_table
from xlcons.translation.cache import TranslationCache, decoding_tag, identity_digest, sentence_key
from xlcons.translation.degeneration import is_degenerate
from xlcons.translation.spec import SamplingSpec, TranslatorSpec
from xlcons.translation.translators import Translator, load_translator

log = logging.getLogger(__name__)

ENGLISH = "en"
NO_ANSWER_REASONS = frozenset(NO_TEXT_REASONS)
DEFAULT_CHUNK_SIZE = 512


# --------------------------------------------------------------------------------------
# The job-level engine
# --------------------------------------------------------------------------------------


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
    cache has everything). ``model_calls`` counts sentences sent to the translator.
    """

    def __init__(
        self,
        spec: TranslatorSpec,
        cache: TranslationCache | None = None,
        degeneration: DegenerationSpec = DegenerationSpec(),
        factory: Callable[[TranslatorSpec], Translator] = load_translator,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
    ):
        self.spec = spec
        self.cache = cache if cache is not None else _MemoryCache()
        self.degeneration = degeneration
        self.factory = factory
        self.chunk_size = chunk_size
        self.identity = identity_digest(spec.identity())
        self.label = spec.label()
        self._translator: Translator | None = None
        self.model_calls = 0

    @property
    def translator(self) -> Translator:
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
        uncached: dict[str, str] = {}
        # Longest first across the whole job, so each chunk's batches hold similar lengths.
        missing.sort(key=len, reverse=True)
        for start in range(0, len(missing), self.chunk_size):
            chunk = missing[start : start + self.chunk_size]
            translations = self.translator.translate(chunk, src, tgt, sampling=sampling)
            failed = getattr(
                self.translator, "failed_sentences", ()
            )  # an LLM translator's failed requests of this call
            for sentence, translation in zip(chunk, translations):
                if sentence in failed:  # not cached: a rerun asks again
                    uncached[sentence] = translation
                else:
                    self.cache.put(keys[sentence], translation)
            self.cache.flush()
            self.model_calls += len(chunk)
        return {
            sentence: uncached[sentence] if sentence in uncached else self.cache.get(key)
            for sentence, key in keys.items()
        }

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


# --------------------------------------------------------------------------------------
# Responses → English
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SourceDecision:
    path: str
    response_lang: str | None  # the registry language to translate from (or en / None)
    detected: str | None = None
    label: str | None = None


def is_no_answer(row: Mapping[str, Any]) -> bool:
    return row.get("finish_reason") in NO_ANSWER_REASONS or row["response"] == NO_ANSWER or not row["response"].strip()


def decide_source(
    row: Mapping[str, Any], registry: LanguageRegistry, detection: tuple[str | None, str | None, bool] | None
) -> SourceDecision:
    """The translation path of one response (see the module docstring).

    ``detection`` is (label, registry code, same-as-prompt) from language ID, or None when
    detection is off.
    """
    prompt_lang = row["lang"]
    if is_no_answer(row):
        return SourceDecision("no_answer", None)
    if detection is None:
        if registry[prompt_lang].canonical == ENGLISH:
            return SourceDecision("passthrough_english", ENGLISH)
        if not registry[prompt_lang].translatable:
            return SourceDecision("untranslatable", None)
        return SourceDecision("prompt_language", prompt_lang)
    label, detected, same = detection
    if detected is not None and registry[detected].canonical == ENGLISH:
        return SourceDecision("passthrough_english", ENGLISH, detected, label)
    if same:
        if registry[prompt_lang].canonical == ENGLISH:
            return SourceDecision("passthrough_english", ENGLISH, detected, label)
        if registry[prompt_lang].translatable:
            return SourceDecision("prompt_language", prompt_lang, detected, label)
        return SourceDecision("untranslatable", None, detected, label)
    if detected is not None and registry[detected].translatable:
        return SourceDecision("other_language", detected, detected, label)
    return SourceDecision("untranslatable", None, detected, label)


def detect_languages(identifier, rows: Sequence[Mapping[str, Any]]) -> list[tuple[str | None, str | None, bool] | None]:
    """(label, registry code, same as the prompt language) per row; None for rows not identified (No answer).

    ``identifier`` is a ``xlcons.lid.LanguageIdentifier`` or anything with its ``predict``,
    ``to_registry_code`` and ``is_language`` methods.
    """
    todo = [index for index, row in enumerate(rows) if not is_no_answer(row)]
    predictions = identifier.predict([rows[index]["response"] for index in todo]) if todo else []
    out: list[tuple[str | None, str | None, bool] | None] = [None] * len(rows)
    for index, (label, _) in zip(todo, predictions):
        out[index] = (label, identifier.to_registry_code(label), identifier.is_language(label, rows[index]["lang"]))
    return out


def translate_responses(
    responses: pa.Table,
    engine: SentenceTranslator,
    *,
    identifier=None,
    detect: bool = True,
    registry: LanguageRegistry | None = None,
) -> tuple[pa.Table, pa.Table]:
    """(TRANSLATIONS, TRANSLATED_SENTENCES) for RESPONSES rows, all translated to English."""
    registry = registry or LanguageRegistry.load()
    rows = responses.to_pylist()
    if detect and identifier is None:
        raise ValueError("detect_response_language is on, but no language identifier was given")
    detections = detect_languages(identifier, rows) if detect else [None] * len(rows)
    decisions = [
        decide_source(row, registry, detection if detect else None) for row, detection in zip(rows, detections)
    ]
    # One engine call per source language: every sentence of that language in the job at once.
    by_source: dict[str, list[int]] = {}
    for index, decision in enumerate(decisions):
        if decision.path in ("prompt_language", "other_language"):
            by_source.setdefault(decision.response_lang, []).append(index)
    translated: dict[int, TextTranslation] = {}
    for lang, indices in by_source.items():
        texts = translate_texts(engine, [rows[index]["response"] for index in indices], lang, ENGLISH, registry)
        translated.update(zip(indices, texts))

    records, sentences = [], []
    for index, (row, decision) in enumerate(zip(rows, decisions)):
        done = translated.get(index)
        if done is None:
            text = NO_ANSWER if decision.path == "no_answer" else row["response"]
        else:
            text = done.text
            for number, (source, result) in enumerate(zip(done.segmented.sentences, done.results)):
                sentences.append(
                    {
                        "dataset": row["dataset"],
                        "model": row["model"],
                        "item_id": row["item_id"],
                        "lang": row["lang"],
                        "sentence_index": number,
                        "source_lang": decision.response_lang,
                        "source": source,
                        "translation": result.translation,
                        "degenerate_reason": result.degenerate_reason,
                        "repaired": result.repaired,
                        "attempts": result.attempts,
                    }
                )
        records.append(
            {
                "dataset": row["dataset"],
                "model": row["model"],
                "item_id": row["item_id"],
                "lang": row["lang"],
                "response": row["response"],
                "translation_path": decision.path,
                "source_lang_detected": decision.detected,
                "lid_label": decision.label,
                "response_lang": decision.response_lang if decision.path != "untranslatable" else None,
                "translation": text,
                "n_sentences": len(done.results) if done else 0,
                "n_degenerate": done.n_degenerate if done else 0,
                "n_repaired": done.n_repaired if done else 0,
                "splitter": done.segmented.splitter if done else None,
                "translator": engine.label,
            }
        )
    counts = {path: sum(decision.path == path for decision in decisions) for path in TRANSLATION_PATHS}
    log.info("translation paths: %s", ", ".join(f"{path} {count}" for path, count in counts.items() if count))
    return (
        pa.Table.from_pylist(records, schema=TRANSLATIONS),
        pa.Table.from_pylist(sentences, schema=TRANSLATED_SENTENCES),
    )


def translation_counts(translations: pa.Table) -> pa.Table:
    """TRANSLATION_COUNTS: per (data set, model, language), paths and degeneration counts."""
    groups: dict[tuple[str, str, str], dict[str, int]] = {}
    for row in translations.to_pylist():
        group = groups.setdefault(
            (row["dataset"], row["model"], row["lang"]),
            dict.fromkeys(
                ("n_responses", *TRANSLATION_PATHS, "n_sentences", "n_degenerate", "n_repaired", "n_unrepaired"), 0
            ),
        )
        group["n_responses"] += 1
        group[row["translation_path"]] += 1
        group["n_sentences"] += row["n_sentences"]
        group["n_degenerate"] += row["n_degenerate"]
        group["n_repaired"] += row["n_repaired"]
        group["n_unrepaired"] += row["n_degenerate"] - row["n_repaired"]
    records = [{"dataset": d, "model": m, "lang": lang, **counts} for (d, m, lang), counts in groups.items()]
    return pa.Table.from_pylist(records, schema=TRANSLATION_COUNTS)


def _paths(value) -> list[Path]:
    return [Path(value)] if isinstance(value, (str, os.PathLike)) else [Path(item) for item in value]


def run_translation_job(
    spec: TranslatorSpec,
    responses: Path | str | Sequence[Path | str],
    translations: Path | str | Sequence[Path | str],
    sentences: Path | str | Sequence[Path | str],
    cache_path: Path | str,
    *,
    degeneration: DegenerationSpec = DegenerationSpec(),
    detect_response_language: bool = True,
    language_id_model: Path | str | None = None,
    label_scheme: str = "glotlid",
    identifier=None,
    translator_factory: Callable[[TranslatorSpec], Translator] = load_translator,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
) -> None:
    """The rule's job: RESPONSES files in, one TRANSLATIONS and one TRANSLATED_SENTENCES file each.

    Several (model, language) files may share one job (and one model load, which matters for
    the MoE); the cache belongs to the job.
    """
    inputs, outputs, sentence_outputs = _paths(responses), _paths(translations), _paths(sentences)
    if not len(inputs) == len(outputs) == len(sentence_outputs):
        raise ValueError("one translations file and one sentences file per responses file")
    if detect_response_language and identifier is None:
        if language_id_model is None:
            raise ValueError("detect_response_language is on: give the language-ID model")
        from xlcons.lid import LanguageIdentifier

        identifier = LanguageIdentifier(language_id_model, label_scheme)
    engine = SentenceTranslator(spec, TranslationCache(cache_path), degeneration, translator_factory, chunk_size)
    with engine:
        for source, out, sentence_out in zip(inputs, outputs, sentence_outputs):
            table, sentence_table = translate_responses(
                read_table(source, RESPONSES), engine, identifier=identifier, detect=detect_response_language
            )
            write_table(table, out, TRANSLATIONS)
            write_table(sentence_table, sentence_out, TRANSLATED_SENTENCES)
    log.info("%d sentences translated by the model (the rest came from the cache)", engine.model_calls)


def job_translator(params, threads: int) -> tuple[TranslatorSpec, DegenerationSpec]:
    """The translator and repair settings of a translation rule, from its params (translator
    section, checkpoint, converted CTranslate2 folder)."""
    section = params.translator
    spec = TranslatorSpec.from_config(section, params.checkpoint, params.converted, threads=threads)
    return spec, DegenerationSpec.from_config(section.get("degeneration"))


# --------------------------------------------------------------------------------------
# English prompts → language l
# --------------------------------------------------------------------------------------


def translate_prompts(
    prompts: pa.Table, lang: str, engine: SentenceTranslator, registry: LanguageRegistry | None = None
) -> tuple[pa.Table, list[dict[str, Any]]]:
    """(PROMPTS rows in ``lang`` with source_lang en, review rows) for English PROMPTS rows."""
    rows = prompts.to_pylist()
    wrong = sorted({row["lang"] for row in rows} - {ENGLISH})
    if wrong:
        raise ValueError(f"prompt translation starts from English prompts; these rows are in {wrong}")
    done = translate_texts(engine, [row["prompt"] for row in rows], ENGLISH, lang, registry)
    out = [{**row, "lang": lang, "prompt": text.text, "source_lang": ENGLISH} for row, text in zip(rows, done)]
    review = [
        {
            "dataset": row["dataset"],
            "item_id": row["item_id"],
            "lang": lang,
            "source": row["prompt"],
            "translation": text.text,
            "n_sentences": len(text.results),
            "n_degenerate": text.n_degenerate,
            "n_repaired": text.n_repaired,
        }
        for row, text in zip(rows, done)
    ]
    return pa.Table.from_pylist(out, schema=PROMPTS), review


def write_review(rows: Iterable[Mapping[str, Any]], path: Path | str) -> Path:
    """The review file of a prompt translation: a TSV (quoted where a text holds a tab or line break), atomically."""
    path = Path(path)
    with atomic_path(path) as temporary, open(temporary, "w", encoding="utf-8", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=REVIEW_COLUMNS, dialect="excel-tab", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return path


def run_prompt_translation_job(
    spec: TranslatorSpec,
    prompts: Path | str,
    langs: Sequence[str],
    prompts_out: Sequence[Path | str],
    review_out: Sequence[Path | str],
    cache_path: Path | str,
    *,
    degeneration: DegenerationSpec = DegenerationSpec(),
    translator_factory: Callable[[TranslatorSpec], Translator] = load_translator,
) -> None:
    """The rule's job: an English PROMPTS file in; per language, its PROMPTS and review TSV out.

    One job serves every language, so the translator is loaded once; the sentence cache makes
    a language added later cost only its own sentences.
    """
    if not len(langs) == len(prompts_out) == len(review_out):
        raise ValueError("one prompts file and one review file per language")
    english = read_table(prompts, PROMPTS)
    engine = SentenceTranslator(spec, TranslationCache(cache_path), degeneration, translator_factory)
    with engine:
        for lang, table_out, review_path in zip(langs, prompts_out, review_out):
            table, review = translate_prompts(english, lang, engine)
            write_table(table, table_out, PROMPTS)
            write_review(review, review_path)
            log.info("prompts en -> %s: %d translated", lang, table.num_rows)


# --------------------------------------------------------------------------------------
# Round trip en → l → en (translationese check)
# --------------------------------------------------------------------------------------


def round_trip(
    responses: pa.Table, lang: str, engine: SentenceTranslator, registry: LanguageRegistry | None = None
) -> pa.Table:
    """ROUND_TRIPS for English RESPONSES rows through ``lang``.

    The way back is what the stage does to a response in ``lang``: the pivot text is split
    with ``lang``'s splitter and translated from ``lang`` (no language ID: it is known).
    """
    registry = registry or LanguageRegistry.load()
    rows = responses.to_pylist()
    wrong = sorted({row["lang"] for row in rows} - {ENGLISH})
    if wrong:
        raise ValueError(f"the round trip starts from English responses; these rows are in {wrong}")
    todo = [index for index, row in enumerate(rows) if not is_no_answer(row)]
    forward = translate_texts(engine, [rows[index]["response"] for index in todo], ENGLISH, lang, registry)
    back = translate_texts(engine, [text.text for text in forward], lang, ENGLISH, registry)
    done = {index: (there, home) for index, there, home in zip(todo, forward, back)}
    records = []
    for index, row in enumerate(rows):
        there, home = done.get(index, (None, None))
        records.append(
            {
                "dataset": row["dataset"],
                "model": row["model"],
                "item_id": row["item_id"],
                "lang": lang,
                "response": row["response"],
                "translation_path": "round_trip" if there else "no_answer",
                "pivot": there.text if there else NO_ANSWER,
                "round_trip": home.text if home else NO_ANSWER,
                "n_sentences": len(there.results) if there else 0,
                "n_degenerate": there.n_degenerate + home.n_degenerate if there else 0,
                "n_repaired": there.n_repaired + home.n_repaired if there else 0,
                "translator": engine.label,
            }
        )
    return pa.Table.from_pylist(records, schema=ROUND_TRIPS)


def run_round_trip_job(
    spec: TranslatorSpec,
    responses: Path | str,
    langs: Sequence[str],
    outs: Sequence[Path | str],
    cache_path: Path | str,
    *,
    degeneration: DegenerationSpec = DegenerationSpec(),
    translator_factory: Callable[[TranslatorSpec], Translator] = load_translator,
) -> None:
    """The rule's job: an English RESPONSES file in, its ROUND_TRIPS through each language out."""
    if len(langs) != len(outs):
        raise ValueError("one round-trip file per language")
    english = read_table(responses, RESPONSES)
    engine = SentenceTranslator(spec, TranslationCache(cache_path), degeneration, translator_factory)
    with engine:
        for lang, out in zip(langs, outs):
            table = round_trip(english, lang, engine)
            write_table(table, out, ROUND_TRIPS)
            log.info("round trip en -> %s -> en: %d responses", lang, table.num_rows)
