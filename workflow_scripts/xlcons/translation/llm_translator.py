"""An instruction-tuned LLM as the translator (``translator.backend: llm``).

The translation stage asks a translator for sentences, NLLB codes in and out
(``xlcons.translation.sentence_translator.SentenceTranslator``); ``LLMTranslator`` answers by prompting a
chat model through the generation backends (``xlcons.generation``): transformers (``hf``) or
any OpenAI-compatible endpoint in the workflow, whose translation env holds no vLLM (the
config check says so; vLLM works here where it is installed), configured exactly like an evaluator's LLM
(``TranslatorSpec.llm``: the model's config fields plus ``location`` and ``content``).
Recorded responses (backend ``file``) cannot translate and are refused.

**One request per sentence.** Each distinct non-blank sentence of a call becomes one chat
request (the model's system prompt, if it has one, then the filled-in template), never a
batch of sentences in one prompt: the stage caches, repairs and scores (QE) translations
sentence by sentence, so one sentence's translation must not depend on what else was in the
prompt, and a model that merges, drops or reorders sentences of a list could not be matched
back to them. Identical sentences within a call are asked once; blank ones give "" unasked.

**The prompt.** ``DEFAULT_PROMPT`` unless the spec has its own (``TranslatorSpec.prompt``).
A template is a ``str.format`` string whose only fields are ``{source_language}``,
``{target_language}`` (English names from the language registry, ``config/languages.tsv``)
and ``{text}`` (the sentence); ``{text}`` is required, a literal brace is written twice.
Anything else is a ``TranslationError`` naming the field.

**Decoding.** The model's own ``decoding`` section (greedy unless configured otherwise);
a repair attempt (``sampling``) replaces its temperature, top_p and seed with the attempt's
and is sent as a request of its own, so a sampled translation depends on the sentence and
the seed only (the ``hf`` backend seeds once per batch). The token cap of an answer is the
model's ``decoding.max_new_tokens`` when set, else the translator's ``max_new_tokens``
(the generation stage's rule: a model's own cap wins).

**Cleaning the answer.** Outer whitespace is stripped. Then two things chat models add are
removed, each only when it cannot be part of the translation:

- a leading label, ``Translation:``, ``<target> translation:``, ``Translation into <target>:``
  or ``<target>:`` (any case, ``**bold**`` or not), when text follows it and the source
  sentence does not begin with a label of its own (a few words and a colon), which the
  translation would then rightly begin with too;
- one pair of quotation marks around the whole answer (``"…"``, ``“…”``, ``„…“``, ``«…»``,
  ``「…」``, ``'…'`` and the like), when the source does not begin with a quotation mark
  and neither mark occurs inside the answer (``"A" and "B"`` is left alone).

Commentary a model adds despite the prompt (a note after the translation) is not cut: there
is no safe rule for it; the stage's degeneration check flags a translation much longer than
its source, and repairs it.

**Failures.** A request the backend could not answer (``error``), a refusal and an empty
answer give "" for that sentence; they are counted in ``failed``, the call's are listed in
``failed_sentences`` (which the stage does not cache), and each call logs a warning with the
first reason. ``calls`` counts requests sent, ``truncated`` answers that ran
into the token cap (logged too).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import ClassVar

from xlcons.generation.base import (
    Backend,
    Decoding,
    GenerationError,
    ModelSpec,
    Request,
    build_requests,
    finalize,
    load_backend,
)
from xlcons.languages import LanguageRegistry
from xlcons.schemas import NO_TEXT_REASONS
from xlcons.translation.spec import (
    LLM_BACKEND,
    SamplingSpec,
    TranslationError,
    TranslatorSpec,
    llm_label,
    max_new_tokens,
    model_spec,
    prompt_template,
)
from xlcons.translation.translators import register
from xlcons.usage import record

log = logging.getLogger(__name__)

FAILED = NO_TEXT_REASONS  # a sentence too long for the translator model is one it failed


def language_name(nllb: str, registry: LanguageRegistry | None = None) -> str:
    """The registry's English name of the language an NLLB code stands for (its canonical row's)."""
    registry = registry or LanguageRegistry.load()
    matches = [language for language in registry if language.nllb == nllb]
    if not matches:
        raise TranslationError(
            f"no language of the registry has the NLLB code {nllb!r}, so the LLM cannot be told its name"
        )
    canonical = [language for language in matches if language.code == language.canonical]
    return (canonical or matches)[0].name


# --------------------------------------------------------------------------------------
# Cleaning an answer
# --------------------------------------------------------------------------------------

# A source sentence that starts with a label of its own: up to 40 characters, then a colon.
_SOURCE_LABEL = re.compile(r"^\s*[^\s:：][^:：\n]{0,39}[:：]")
QUOTE_PAIRS = {
    '"': ('"',),
    "'": ("'",),
    "“": ("”",),
    "”": ("”",),
    "‘": ("’",),
    "„": ("“", "”"),
    "‚": ("‘", "’"),
    "«": ("»",),
    "»": ("«",),
    "‹": ("›",),
    "「": ("」",),
    "『": ("』",),
}
QUOTE_MARKS = frozenset(QUOTE_PAIRS) | {mark for closers in QUOTE_PAIRS.values() for mark in closers}


def _label_pattern(target: str) -> re.Pattern[str]:
    name = re.escape(target)
    label = rf"(?:(?:{name}\s+)?translation(?:\s+(?:in|into|to)\s+{name})?|{name})"
    return re.compile(rf"^\**\s*{label}\s*\**\s*[:：]\s*\**\s*", re.IGNORECASE)


def _without_label(answer: str, source: str, target: str) -> str:
    if _SOURCE_LABEL.match(source):
        return answer
    found = _label_pattern(target).match(answer)
    if found is None or not answer[found.end() :].strip():
        return answer
    return answer[found.end() :].strip()


def _without_quotes(answer: str, source: str) -> str:
    if len(answer) < 3 or source.strip()[:1] in QUOTE_MARKS:
        return answer
    opening, closing = answer[0], answer[-1]
    if closing not in QUOTE_PAIRS.get(opening, ()):
        return answer
    inner = answer[1:-1]
    if opening in inner or closing in inner or not inner.strip():
        return answer
    return inner.strip()


def clean_answer(answer: str, source: str, target: str) -> str:
    """An LLM's answer as a translation of ``source`` into the language named ``target``
    (see the module docstring: whitespace, a leading label, wrapping quotation marks)."""
    text = answer.strip()
    text = _without_label(text, source, target)
    return _without_quotes(text, source)


# --------------------------------------------------------------------------------------
# The translator
# --------------------------------------------------------------------------------------


@register
class LLMTranslator:
    """Translates sentences by prompting a chat model; one instance per job (loads in __init__)."""

    name: ClassVar[str] = LLM_BACKEND

    def __init__(self, spec: TranslatorSpec, registry: LanguageRegistry | None = None):
        self.spec = spec
        self.template = prompt_template(spec)
        self.model = model_spec(spec)
        self.max_new_tokens = max_new_tokens(spec, self.model)
        self.registry = registry or LanguageRegistry.load()
        self.ledger_name = spec.ledger_name()  # its name in the job's usage ledger (xlcons.usage)
        self.calls = 0  # requests sent to the model so far
        self.failed = 0  # requests without a translation (error, refused, empty): "" for the sentence
        # The sentences of the last call whose request failed: the stage does not cache their "",
        # so a rerun asks again.
        self.failed_sentences: set[str] = set()
        self.truncated = 0  # answers that ran into the token cap
        try:
            self.backend: Backend = load_backend(self.model)
        except GenerationError as error:
            raise TranslationError(f"translator llm: {error}") from error
        log.info("translator: %s through the %s backend, one request per sentence", llm_label(spec), self.model.backend)

    # -- the interface of the translation stage

    def translate(
        self, sentences: Sequence[str], src: str, tgt: str, *, sampling: SamplingSpec | None = None
    ) -> list[str]:
        """One translation per sentence, in order. ``src``/``tgt`` are NLLB codes."""
        sentences = [str(sentence) for sentence in sentences]
        self.failed_sentences = set()
        unique = list(dict.fromkeys(sentence for sentence in sentences if sentence.strip()))
        if not unique:
            return ["" for _ in sentences]
        source_name, target_name = language_name(src, self.registry), language_name(tgt, self.registry)
        decoding = self.decoding(sampling)
        spec = replace(self.model, decoding=decoding)
        rows = [
            {"item_id": f"sentence-{index}", "lang": tgt, "prompt": self.prompt(sentence, source_name, target_name)}
            for index, sentence in enumerate(unique)
        ]
        requests = build_requests(spec, rows, self.max_new_tokens)
        sentence_of = {request.key: sentence for request, sentence in zip(requests, unique, strict=True)}
        # Sampled requests go one at a time (each seeded alike); greedy ones in the backend's chunks.
        size = 1 if sampling is not None else max(1, self.backend.chunk_size)
        done: dict[str, str] = {}
        failures: list[str] = []
        cut = 0
        with self._decoding(spec):
            for start in range(0, len(requests), size):
                chunk = requests[start : start + size]
                self.calls += len(chunk)
                for result in self._answers(chunk):
                    result = finalize(result)
                    record(  # its tokens and failures; the requests are the sentence stage's to count
                        self.ledger_name,
                        "translate",
                        prompt_tokens=result.prompt_tokens,
                        completion_tokens=result.completion_tokens,
                        failures=result.finish_reason == "error",
                    )
                    sentence = sentence_of[result.key]
                    if result.finish_reason in FAILED:
                        done[sentence] = ""
                        self.failed_sentences.add(sentence)
                        failures.append(f"{result.finish_reason}: {result.error}")
                        continue
                    if result.finish_reason == "length":
                        cut += 1
                    done[sentence] = clean_answer(result.response, sentence, target_name)
        self.failed += len(failures)
        self.truncated += cut
        if failures:
            log.warning(
                '%s→%s: %d of %d requests without a translation (given as ""); first: %s',
                src,
                tgt,
                len(failures),
                len(requests),
                failures[0],
            )
        if cut:
            log.warning(
                "%s→%s: %d of %d translations ran into the token cap (%d)",
                src,
                tgt,
                cut,
                len(requests),
                self.max_new_tokens,
            )
        return [done.get(sentence, "") for sentence in sentences]

    def close(self) -> None:
        """Free the model; called once at the end of the job."""
        from xlcons.generation.stage import log_engine_stats

        backend, self.backend = self.backend, None
        if backend is not None:
            log_engine_stats(self.model, backend, "translate")
            backend.close()

    # -- the steps (public for tests)

    def prompt(self, sentence: str, source_name: str, target_name: str) -> str:
        return self.template.format(source_language=source_name, target_language=target_name, text=sentence)

    def decoding(self, sampling: SamplingSpec | None) -> Decoding:
        """The model's decoding, or for a repair attempt its temperature, top_p and seed."""
        if sampling is None:
            return self.model.decoding
        return replace(self.model.decoding, temperature=sampling.temperature, top_p=sampling.top_p, seed=sampling.seed)

    @contextmanager
    def _decoding(self, spec: ModelSpec) -> Iterator[None]:
        """The backend reads ``self.spec.decoding`` on every generate call: lend it this call's."""
        loaded = self.backend.spec
        self.backend.spec = spec
        try:
            yield
        finally:
            self.backend.spec = loaded

    def _answers(self, requests: Sequence[Request]):
        """The backend's results for ``requests``, checked to be one per request."""
        results = list(self.backend.generate(requests))
        keys = {request.key for request in requests}
        if len(results) != len(requests) or {result.key for result in results} != keys:
            raise TranslationError(
                f"translator llm: the {self.model.backend} backend returned "
                f"{len(results)} results for {len(requests)} requests"
            )
        return results
