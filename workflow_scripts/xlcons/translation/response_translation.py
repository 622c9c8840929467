"""Responses to English, the translation stage's main job: ``translate_responses``, ``run_translation_job``.

Each response's sentences go through the job's ``SentenceTranslator``
(:mod:`xlcons.translation.sentence_translator`: the sentence cache, deduplication and the
degeneration repair).

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

Outputs: a ``TRANSLATIONS`` table (one row per response, in input order) and a
``TRANSLATED_SENTENCES`` table (one row per translated sentence); ``translation_counts``
sums both per (data set, model, language). Prompt translation (en → l) is in
:mod:`xlcons.translation.prompt_translation`, the round trip (en → l → en) in
:mod:`xlcons.translation.round_trip`.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from xlcons.languages import LanguageRegistry
from xlcons.progress import table_owners
from xlcons.schemas import (
    NO_ANSWER,
    NO_TEXT_REASONS,
    RESPONSES,
    TRANSLATED_SENTENCES,
    TRANSLATION_COUNTS,
    TRANSLATION_PATHS,
    TRANSLATIONS,
)
from xlcons.tables import read_table, write_table
from xlcons.translation.cache import TranslationCache
from xlcons.translation.sentence_translator import (
    DEFAULT_CHUNK_SIZE,
    DegenerationSpec,
    SentenceTranslator,
    TextTranslation,
    translate_texts,
)
from xlcons.translation.spec import TranslatorSpec
from xlcons.translation.translators import TranslatorBackend, load_translator

log = logging.getLogger(__name__)

ENGLISH = "en"
NO_ANSWER_REASONS = frozenset(NO_TEXT_REASONS)


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
    translator_factory: Callable[[TranslatorSpec], TranslatorBackend] = load_translator,
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
            responses_table = read_table(source, RESPONSES)
            engine.job = f"translate {table_owners(responses_table)}"
            table, sentence_table = translate_responses(
                responses_table, engine, identifier=identifier, detect=detect_response_language
            )
            write_table(table, out, TRANSLATIONS)
            write_table(sentence_table, sentence_out, TRANSLATED_SENTENCES)
    log.info("%d sentences translated by the model (the rest came from the cache)", engine.model_calls)


__all__ = [
    "ENGLISH",
    "SourceDecision",
    "decide_source",
    "detect_languages",
    "is_no_answer",
    "run_translation_job",
    "translate_responses",
    "translation_counts",
]
