"""The translator interface: the shared base ``Translator``, the backends' registration, ``load_translator``.

``Translator.translate(sentences, src, tgt, sampling=None)`` turns sentences in the NLLB
language ``src`` (``deu_Latn``) into ``tgt`` (``eng_Latn``). Two model families
(``TranslatorSpec.family``) differ only in how the model is told the languages:

- ``nllb`` (NLLB-200, M2M100/NllbMoe): the source starts with the source code
  (``[deu_Latn] + pieces + [</s>]``) and the decoder is fed the target code as its first
  token (``forced_bos_token_id`` / ``target_prefix``).
- ``madlad`` (MADLAD-400, T5): the source starts with the target's ``<2xx>`` tag
  (``[<2en>] + pieces + [</s>]``, what the tokenizer makes of ``"<2en> Das ist gut."``),
  there is no source tag, and the decoder starts from T5's decoder start token (pad) with
  nothing forced. ``madlad_tags`` lists the tags tried for an NLLB code (from the language
  registry: its codes, script-specific first, then the NLLB code's ISO 639-3 part); the
  first one in the tokenizer's vocabulary is used, and a target with none of them is a
  ``TranslationError``.

Everything that does not depend on the engine lives in the base class, so the two backends
cannot drift apart in what they feed the model or how they read its output:

- **Tokenisation** with the checkpoint's Hugging Face tokenizer, ``[tag] + pieces + [</s>]``
  (the tag as above), built by hand rather than through ``tokenizer.src_lang`` (whose
  post-processor state is easy to get wrong); sentences longer than
  ``max_input_tokens`` (tag and ``</s>`` included) lose their tail pieces (counted in
  ``truncated``, logged).
- **Deduplication**: identical sentences within one call are translated once.
- **Batching**: sentences are sorted by token length (longest first, so a batch that does
  not fit in memory fails at once) and packed while ``batch size × longest source`` stays
  within ``max_batch_tokens`` (source tokens, padding included; a sentence longer than the
  budget goes alone). An NLLB decoder is fed the target tag as its first token
  (``forced_bos_token_id`` in transformers, ``target_prefix`` in CTranslate2); either family
  may then add up to ``max_new_tokens`` tokens, the same cap for every sentence, so a
  sentence's output does not depend on which sentences share its batch.
- **Decoding the output**: the engine returns token ids without the start token, the
  (NLLB) target tag and the end token; the base turns them into text with the tokenizer
  (special tokens skipped, outer whitespace stripped).
- **Sampling** (degeneration repair), nucleus sampling with top-k off. transformers decodes
  every sentence on its own after seeding torch with ``sampling.seed``, so a sampled
  translation depends only on the sentence and the seed, not on what else was repaired in
  the same call (which changes between an interrupted run and a clean one). CTranslate2
  cannot do that: its random generator lives in its worker thread and is seeded once, when
  the thread first draws, and ``set_random_seed`` does not reset it. So the ctranslate2
  backend seeds that stream once per loaded model (seed 0, set just before loading),
  samples in ordinary batches, and ignores ``sampling.seed``: its repairs are reproducible
  for a job run from scratch (the same calls in the same order), not sentence by sentence.

Greedy decoding in float32 gives the same tokens in both backends (tested on the tiny
NLLB and the tiny MADLAD); beam search (``beam_size`` > 1) is close but not guaranteed
identical, because the two libraries stop and normalise beams differently.

Backends register by name (``@register``), each with its entry (``BACKEND`` of
``<name>_translator_entry.py``, collected by :mod:`xlcons.translation.registry`) beside its module
(:mod:`~xlcons.translation.transformers_translator`,
:mod:`~xlcons.translation.ctranslate2_translator`,
:mod:`~xlcons.translation.llm_translator`); ``load_translator(spec)`` builds the one a spec
names. ``TranslatorSpec.identity()`` is what makes two translations comparable (the cache
key of the translation stage): model, backend, numeric type, device kind and every decoding
parameter (and the family, when it is not ``nllb``, so NLLB keys stay as they were), never
the directory the files happen to lie in.

``convert`` (:mod:`xlcons.translation.ctranslate2_conversion`) makes the CTranslate2 model
of a checkpoint once.
"""

from __future__ import annotations

import importlib
import logging
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import ClassVar, Protocol

from xlcons.translation.registry import TRANSLATOR_BACKENDS
from xlcons.translation.spec import SamplingSpec, TranslationError, TranslatorSpec
from xlcons.usage import record

log = logging.getLogger(__name__)


def madlad_tags(code: str) -> list[str]:
    """The MADLAD-400 target tags that may stand for the NLLB code ``code``, most specific first.

    From the language registry, each language with that NLLB code (canonical codes first):
    ``<2{code}_{Script}>`` (``<2zh_Hant>`` for ``zho_Hant``; MADLAD's plain tag is the
    language's usual script, and romanised variants are ``<2hi_Latn>`` and the like), then
    ``<2{code}>`` (``<2en>``, ``<2zh-TW>``, ``<2zh_TW>``). Then forms of the NLLB code itself:
    ``<2eng_Latn>``, and its ISO 639-3 part, ``<2eng>``. The translator uses the first one
    its tokenizer has.
    """
    from xlcons.languages import LanguageRegistry

    iso, _, script = code.partition("_")
    candidates: list[str] = []
    languages = [language for language in LanguageRegistry.load() if language.nllb == code]
    for language in sorted(languages, key=lambda language: language.code != language.canonical):
        primary = language.code.split("-")[0]
        if script:
            candidates.append(f"<2{primary}_{script}>")
        candidates += [f"<2{language.code}>", f"<2{language.code.replace('-', '_')}>"]
    candidates.append(f"<2{code}>")
    if script:
        candidates.append(f"<2{iso}_{script}>")
    candidates.append(f"<2{iso}>")
    return list(dict.fromkeys(candidates))


class Translator(ABC):
    """Translates sentences with one loaded model; one instance per job (loads in __init__)."""

    name: ClassVar[str]
    # Whether sampling can be seeded per sentence (then each sampled sentence is decoded alone).
    seeds_each_sentence: ClassVar[bool] = True

    def __init__(self, spec: TranslatorSpec):
        from transformers import AutoTokenizer

        self.spec = spec
        where = spec.tokenizer_location
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(where, local_files_only=True)
        except (OSError, ValueError) as error:
            raise TranslationError(f"translator: cannot load a tokenizer from {where}: {error}") from error
        self.eos_id = self.tokenizer.eos_token_id
        self.special_ids = frozenset(self.tokenizer.all_special_ids)
        self.ledger_name = spec.ledger_name()  # its name in the job's usage ledger (xlcons.usage)
        self.truncated = 0  # sentences cut to max_input_tokens so far
        self.calls = 0  # engine calls (batches) so far

    # -- the interface

    def translate(
        self, sentences: Sequence[str], src: str, tgt: str, *, sampling: SamplingSpec | None = None
    ) -> list[str]:
        """One translation per sentence, in order. ``src``/``tgt`` are NLLB codes."""
        sentences = [str(sentence) for sentence in sentences]
        src_id, tgt_id = self.language_tags(src, tgt)
        unique = list(dict.fromkeys(sentence for sentence in sentences if sentence.strip()))
        done: dict[str, str] = {}
        if unique:
            encoded = self.encode(unique, src_id)
            if sampling is not None and self.seeds_each_sentence:
                # One sentence per call, each seeded alike (see the module docstring).
                batches = [[index] for index in range(len(unique))]
            else:
                batches = self.batches(encoded)
            for batch in batches:
                outputs = self._generate([encoded[index] for index in batch], tgt, tgt_id, sampling)
                self.calls += 1
                for index, ids in zip(batch, outputs):
                    done[unique[index]] = self.decode(ids)
                # The usage ledger: source tokens (tag and </s> included) and the tokens written.
                record(
                    self.ledger_name,
                    "translate",
                    prompt_tokens=sum(len(encoded[index]) for index in batch),
                    completion_tokens=sum(len(ids) for ids in outputs),
                )
        return [done.get(sentence, "") for sentence in sentences]

    def close(self) -> None:  # noqa: B027 - an optional hook: a translator with nothing to free keeps this one
        """Free the model; called once at the end of the job."""

    # -- shared steps (public for tests and the benchmark)

    def language_tags(self, src: str, tgt: str) -> tuple[int, int | None]:
        """(the tag that starts every source, the tag forced as the output's first token or None).

        NLLB: the source code and the target code. MADLAD: the target's ``<2xx>`` tag and
        nothing forced (the source language is not told to the model).
        """
        if self.spec.family == "madlad":
            return self.language_id(tgt), None
        return self.language_id(src), self.language_id(tgt)

    def language_id(self, code: str) -> int:
        """The token that names the NLLB language ``code``: the code itself (NLLB) or its ``<2xx>`` tag (MADLAD)."""
        unknown = self.tokenizer.unk_token_id
        if self.spec.family == "madlad":
            tried = madlad_tags(code)
            for tag in tried:
                token_id = self.tokenizer.convert_tokens_to_ids(tag)
                if token_id is not None and token_id != unknown:
                    return token_id
            raise TranslationError(
                "the MADLAD translator's tokenizer has no target-language tag "
                f"for {code!r} (tried {', '.join(tried)}): MADLAD-400 does not "
                "cover it under these names; translate it with an NLLB translator"
            )
        token_id = self.tokenizer.convert_tokens_to_ids(code)
        if token_id is None or token_id == unknown:
            raise TranslationError(
                f"the translator's tokenizer has no language code {code!r} (is it an NLLB-200 code?)"
            )
        return token_id

    def encode(self, sentences: Sequence[str], src_id: int) -> list[list[int]]:
        """Source ids, ``[tag] + pieces + [</s>]``, cut to ``max_input_tokens``; the tag is
        ``src_id``, the first of ``language_tags`` (NLLB: the source code, MADLAD: the target tag)."""
        # verbose=False: the length warning is about the untruncated pieces; they are cut just below.
        pieces = self.tokenizer(list(sentences), add_special_tokens=False, verbose=False)["input_ids"]
        room = self.spec.max_input_tokens - 2
        encoded = [[src_id, *ids[:room], self.eos_id] for ids in pieces]
        cut = sum(1 for ids in pieces if len(ids) > room)
        self.truncated += cut
        if cut:
            log.warning("%d of %d sentences cut to max_input_tokens=%d", cut, len(pieces), self.spec.max_input_tokens)
        return encoded

    def batches(self, encoded: Sequence[Sequence[int]]) -> list[list[int]]:
        """Indices of ``encoded`` packed into batches: longest first, padded size within the budget."""
        order = sorted(range(len(encoded)), key=lambda index: (-len(encoded[index]), index))
        budget = self.spec.max_batch_tokens
        batches: list[list[int]] = []
        current: list[int] = []
        width = 0  # longest source in the current batch (the first one, as lengths fall)
        for index in order:
            length = len(encoded[index])
            if current and (len(current) + 1) * max(width, length) > budget:
                batches.append(current)
                current, width = [], 0
            current.append(index)
            width = max(width, length)
        if current:
            batches.append(current)
        return batches

    def decode(self, ids: Sequence[int]) -> str:
        return self.tokenizer.decode(list(ids), skip_special_tokens=True).strip()

    def content_ids(self, ids: Sequence[int], tgt_id: int | None, start_id: int | None = None) -> list[int]:
        """An engine's output without the start token, the target tag (NLLB; None for MADLAD,
        whose output starts with the translation) and what follows the end."""
        ids = list(ids)
        if start_id is not None and ids and ids[0] == start_id:
            ids = ids[1:]
        if ids and ids[0] == tgt_id:
            ids = ids[1:]
        if self.eos_id in ids:
            ids = ids[: ids.index(self.eos_id)]
        return ids

    # -- what a backend implements

    @abstractmethod
    def _generate(
        self, batch: Sequence[Sequence[int]], tgt: str, tgt_id: int | None, sampling: SamplingSpec | None
    ) -> list[list[int]]:
        """Decode one batch of source ids; return each output's content ids (``content_ids``).
        ``tgt_id`` is the tag to force as the output's first token, None when nothing is (MADLAD)."""


class TranslatorBackend(Protocol):
    """What the translation stage uses of a registered translator: a ``Translator`` subclass, or
    one that shares none of its steps (``LLMTranslator``, which prompts a chat model)."""

    name: ClassVar[str]

    def __init__(self, spec: TranslatorSpec) -> None: ...

    def translate(
        self, sentences: Sequence[str], src: str, tgt: str, *, sampling: SamplingSpec | None = None
    ) -> list[str]: ...

    def close(self) -> None: ...


TRANSLATORS: dict[str, type[TranslatorBackend]] = {}  # filled by @register as each backend's module is imported


def register(cls: type[TranslatorBackend]) -> type[TranslatorBackend]:
    """Class decorator: make a translator available under its ``name``."""
    TRANSLATORS[cls.name] = cls
    return cls


def translator_class(name: str) -> type[TranslatorBackend]:
    """The class of a translator backend, its module (its registry entry's) imported first."""
    if name not in TRANSLATORS:
        if name not in TRANSLATOR_BACKENDS:
            raise TranslationError(
                f"unknown translator backend {name!r}; known: {', '.join(sorted(TRANSLATOR_BACKENDS))}"
            )
        importlib.import_module(TRANSLATOR_BACKENDS[name].module)
    return TRANSLATORS[name]


def load_translator(spec: TranslatorSpec) -> TranslatorBackend:
    """The translator a spec names (loads the model)."""
    return translator_class(spec.backend)(spec)


__all__ = [
    "TRANSLATORS",
    "Translator",
    "TranslatorBackend",
    "load_translator",
    "madlad_tags",
    "register",
    "translator_class",
]
