"""The information evaluator's scoring pass: the facts of both sides of each pair, checked both ways.

For every compared pair (item x, language l; :mod:`~xlcons.evaluators.information.pairs`),
`score_pairs`

1. splits both sides into sentences (`xlcons.segmentation.split_sentences`, English
   rules: both sides are English text) and asks the evaluator LLM for the atomic facts of
   each sentence, with the whole side as context (`prompts.extraction_prompt`);
2. asks, for every fact of one side, whether the other side supports it
   (`prompts.verification_prompt`), only where both sides have facts;
3. scores the pair (`scores.score_item`, with the written rule for sides without facts)
   and writes one INFORMATION_ITEMS row per pair and one INFORMATION_FACTS row per fact.

All LLM calls go through the generation machinery (`xlcons.generation.base.build_requests`
and `xlcons.generation.stage.generate_missing`) with the evaluator's ModelSpec and one
JSON-lines cache owned by the job, keyed by the evaluator's identity, its decoding and the
prompt text. So a killed job resumes where it stopped, a rerun makes no call, and an
identical prompt is answered once: the English response's extraction prompts are the same
for every language, so a job given several languages (a sequence of translation files)
extracts the English facts once; jobs with separate caches each extract them once.
The backend is loaded at most once per job (extraction and verification share it), and
only if something is missing from the cache.

Request order: extraction requests of one text are consecutive (they share the
instruction, demonstrations and text as a prefix), and verification requests are grouped
by context (the text facts are checked against), in first-seen order, so all facts checked
against one context are consecutive: vLLM's prefix cache then reuses the context.

Decoding is the evaluator spec's (the config default is greedy, temperature 0; a
sampling spec is allowed but logged as a warning). Token caps: the spec's
``decoding.max_new_tokens`` when set (it applies to both kinds of request), else
`EXTRACTION_MAX_NEW_TOKENS` / `VERIFICATION_MAX_NEW_TOKENS` or the values passed in.

Facts are deduplicated within a side (`parsing.fact_key`), so a response that repeats a
fact in two sentences is not counted twice. Each row's ``n_llm_calls`` counts the distinct
prompts its scores rest on; the log has one line per row and a summary.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from xlcons.evaluators.information.answerer import Answerer, evaluator_model_name
from xlcons.evaluators.information.pairs import Pair
from xlcons.evaluators.information.parsing import fact_key, parse_facts, parse_verdict
from xlcons.evaluators.information.prompts import extraction_prompt, verification_prompt
from xlcons.evaluators.information.scores import (
    UNTRANSLATABLE,
    VERIFICATION_FAILED,
    needs_verification,
    pre_extraction_status,
    score_item,
    side_status,
)
from xlcons.evaluators.information.tables import INFORMATION_FACTS, INFORMATION_ITEMS
from xlcons.generation.base import Backend, ModelSpec, load_backend
from xlcons.schemas import NO_TEXT_REASONS
from xlcons.segmentation import split_sentences

log = logging.getLogger(__name__)

EXTRACTION_MAX_NEW_TOKENS = 256  # one sentence's facts
VERIFICATION_MAX_NEW_TOKENS = 32  # "Supported" / "Not supported", with room for a short preamble
MAX_FACTS_PER_SENTENCE = 24  # a runaway extraction answer cannot flood verification
FAILED = NO_TEXT_REASONS  # a prompt too long for the evaluator model too
ENGLISH = "english"
TRANSLATED = "translated"
UNCHECKED = "unchecked"


@dataclass
class _Fact:
    sentence_index: int
    sentence: str
    text: str
    verdict: str = UNCHECKED
    response: str | None = None
    finish_reason: str | None = None


@dataclass
class _Side:
    text: str
    sentences: list[str] = field(default_factory=list)
    facts: list[_Fact] = field(default_factory=list)
    n_failed: int = 0
    status: str = ""
    keys: set[str] = field(default_factory=set)
    fixed: bool = False  # its status is set before extraction, which it never reaches


def _group_by_context(entries: Sequence[tuple[str, str, Any]]) -> list[tuple[str, str, Any]]:
    """(context, fact, ref) entries with all entries of one context consecutive, contexts in first-seen order."""
    groups: dict[str, list[tuple[str, str, Any]]] = {}
    for entry in entries:
        groups.setdefault(entry[0], []).append(entry)
    return [entry for group in groups.values() for entry in group]


def score_pairs(
    llm_spec: ModelSpec,
    pairs: Sequence[Pair],
    cache_path: Path | str,
    backend_factory: Callable[[ModelSpec], Backend] = load_backend,
    *,
    extraction_max_new_tokens: int = EXTRACTION_MAX_NEW_TOKENS,
    verification_max_new_tokens: int = VERIFICATION_MAX_NEW_TOKENS,
    max_facts_per_sentence: int = MAX_FACTS_PER_SENTENCE,
    max_failed_share: float | None = None,
    refusals: str = "count",
) -> tuple[pa.Table, pa.Table]:
    """(INFORMATION_ITEMS, INFORMATION_FACTS) for the pairs, in pair order, asking the LLM only what the cache lacks.
    With `max_failed_share`, more failed requests (finish reason ``error``) than that share raise
    FailedRequests once every request was made, instead of scoring the items as failed extractions."""
    if not llm_spec.decoding.greedy:
        log.warning(
            "%s: the information evaluator samples (temperature %s); "
            "extraction and verification are then not deterministic",
            llm_spec.name,
            llm_spec.decoding.temperature,
        )
    evaluator = evaluator_model_name(llm_spec)
    answerer = Answerer(llm_spec, cache_path, backend_factory)
    try:
        sides = [(_Side(pair.english), _translated_side(pair)) for pair in pairs]
        _extract(answerer, pairs, sides, extraction_max_new_tokens, max_facts_per_sentence)
        _verify(answerer, pairs, sides, verification_max_new_tokens)
    finally:
        answerer.close()
    answerer.check_failures(max_failed_share)
    items: list[dict[str, Any]] = []  # rows of INFORMATION_ITEMS
    facts: list[dict[str, Any]] = []  # rows of INFORMATION_FACTS
    for pair, (english, translated) in zip(pairs, sides):
        keys = (pair.dataset, pair.model, pair.item_id, pair.lang)
        score = score_item(
            english.status,
            translated.status,
            [f.verdict for f in english.facts if f.verdict != UNCHECKED],
            [f.verdict for f in translated.facts if f.verdict != UNCHECKED],
            pair.failed_request,
            refusals,
        )
        n_calls = len(english.keys | translated.keys)
        log.info(
            "%s/%s %s [%s]: %d LLM calls, %d + %d facts, P=%s R=%s%s",
            pair.item_id,
            pair.lang,
            pair.model,
            pair.comparison,
            n_calls,
            len(english.facts),
            len(translated.facts),
            _fmt(score.precision),
            _fmt(score.recall),
            f" (excluded: {score.excluded_reason})" if score.excluded_reason else "",
        )
        items.append(
            dict(
                zip(("dataset", "model", "item_id", "lang"), keys),
                comparison=pair.comparison,
                evaluator_model=evaluator,
                translation_path=pair.translation_path,
                english_status=english.status,
                translated_status=translated.status,
                n_sentences_english=len(english.sentences),
                n_sentences_translated=len(translated.sentences),
                n_facts_english=len(english.facts),
                n_facts_translated=len(translated.facts),
                n_supported_english=score.n_supported_english,
                n_supported_translated=score.n_supported_translated,
                n_unparseable=score.n_unparseable,
                n_extraction_failed=english.n_failed + translated.n_failed,
                precision=score.precision,
                recall=score.recall,
                f1=score.f1,
                one_sided=score.one_sided,
                excluded_reason=score.excluded_reason,
                n_llm_calls=n_calls,
            )
        )
        for side_name, side in ((ENGLISH, english), (TRANSLATED, translated)):
            for index, fact in enumerate(side.facts):
                facts.append(
                    dict(
                        zip(("dataset", "model", "item_id", "lang"), keys),
                        comparison=pair.comparison,
                        evaluator_model=evaluator,
                        side=side_name,
                        sentence_index=fact.sentence_index,
                        sentence=fact.sentence,
                        fact_index=index,
                        fact=fact.text,
                        verdict=fact.verdict,
                        verifier_response=fact.response,
                        verifier_finish_reason=fact.finish_reason,
                    )
                )
    calls = [row["n_llm_calls"] for row in items]
    if calls:
        log.info(
            "%s: %d comparisons, %d distinct LLM prompts, %d generated in "
            "this run; LLM calls per comparison min %d, mean %.1f, max %d",
            llm_spec.name,
            len(items),
            len(answerer.requested),
            answerer.generated,
            min(calls),
            sum(calls) / len(calls),
            max(calls),
        )
    return pa.Table.from_pylist(items, schema=INFORMATION_ITEMS), pa.Table.from_pylist(facts, schema=INFORMATION_FACTS)


def _translated_side(pair: Pair) -> _Side:
    """The translated side; an untranslatable answer's (the answer as it was, not English) is
    never sent to the English fact extractor."""
    if pair.translation_path == UNTRANSLATABLE:
        return _Side(pair.translated, status=UNTRANSLATABLE, fixed=True)
    return _Side(pair.translated)


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _extract(
    answerer: Answerer,
    pairs: Sequence[Pair],
    sides: Sequence[tuple[_Side, _Side]],
    max_new_tokens: int,
    max_facts: int,
) -> None:
    """Fill in sentences, facts and status of every side; each distinct text's sentences are
    asked once, consecutively."""
    sentences_of: dict[str, list[str]] = {}
    prompts: list[tuple[str, str, str]] = []
    slots: dict[tuple[str, int], int] = {}
    for pair, pair_sides in zip(pairs, sides):
        for side in pair_sides:
            if side.fixed or pre_extraction_status(side.text) is not None:
                continue
            if side.text not in sentences_of:
                sentences_of[side.text] = split_sentences(side.text, "en")
                for index, sentence in enumerate(sentences_of[side.text]):
                    slots[(side.text, index)] = len(prompts)
                    prompts.append((pair.item_id, pair.lang, extraction_prompt(side.text, sentence)))
            side.sentences = sentences_of[side.text]
    results = answerer.answer(prompts, max_new_tokens, "extraction")
    for pair_sides in sides:
        for side in pair_sides:
            if side.fixed:
                continue
            seen: set[str] = set()
            for index, sentence in enumerate(side.sentences):
                result = results[slots[(side.text, index)]]
                side.keys.add(result.key)
                if result.finish_reason in FAILED:
                    side.n_failed += 1
                    continue
                for text in parse_facts(
                    result.response, truncated=result.finish_reason == "length", max_facts=max_facts
                ):
                    if fact_key(text) not in seen:
                        seen.add(fact_key(text))
                        side.facts.append(_Fact(index, sentence, text))
            side.status = side_status(side.text, len(side.facts), side.n_failed)


def _verify(
    answerer: Answerer, pairs: Sequence[Pair], sides: Sequence[tuple[_Side, _Side]], max_new_tokens: int
) -> None:
    """Verdicts for every fact of the pairs with facts on both sides; facts sharing a context
    are asked consecutively."""
    entries: list[tuple[str, str, Any]] = []
    for pair, (english, translated) in zip(pairs, sides):
        if not needs_verification(english.status, translated.status):
            continue
        for fact in translated.facts:  # precision: the translated side's facts against the English text
            entries.append((english.text, fact.text, (pair, translated, fact)))
        for fact in english.facts:  # recall: the English side's facts against the translated text
            entries.append((translated.text, fact.text, (pair, english, fact)))
    ordered = _group_by_context(entries)
    prompts = [(ref[0].item_id, ref[0].lang, verification_prompt(context, text)) for context, text, ref in ordered]
    results = answerer.answer(prompts, max_new_tokens, "verification")
    for (_, _, (_, side, fact)), result in zip(ordered, results):
        side.keys.add(result.key)
        fact.response = result.response
        fact.finish_reason = result.finish_reason
        fact.verdict = VERIFICATION_FAILED if result.finish_reason in FAILED else parse_verdict(result.response)


__all__ = [
    "EXTRACTION_MAX_NEW_TOKENS",
    "MAX_FACTS_PER_SENTENCE",
    "VERIFICATION_MAX_NEW_TOKENS",
    "score_pairs",
]
