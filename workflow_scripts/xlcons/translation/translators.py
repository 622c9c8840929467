"""Sequence-to-sequence translators behind one interface: transformers (dense and MoE) and CTranslate2.

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

Backends register by name (``@register``), each with its entry in
:mod:`xlcons.translation.registry` naming its module; ``load_translator(spec)`` builds the
one a spec names. ``TranslatorSpec.identity()`` is what makes two translations comparable (the
cache key of the translation stage): model, backend, numeric type, device kind and every
decoding parameter (and the family, when it is not ``nllb``, so NLLB keys stay as they
were), never the directory the files happen to lie in.

``convert(hf_dir, out_dir, quantization)`` turns a dense NLLB or a MADLAD (T5) checkpoint
into a CTranslate2 model once (the workflow keeps it under ``resources/``), atomically, with
the tokenizer files copied in so the converted directory is self-contained.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import shutil
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

from xlcons.translation.registry import TRANSLATOR_BACKENDS
from xlcons.translation.spec import (
    CT2_MARKER,
    SamplingSpec,
    TranslationError,
    TranslatorSpec,
    device_kind,
)

log = logging.getLogger(__name__)

# Tokenizer files copied into a converted CTranslate2 model (those the checkpoint has).
TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "sentencepiece.bpe.model",
    "spiece.model",
    "special_tokens_map.json",
    "added_tokens.json",
)


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


# --------------------------------------------------------------------------------------
# The shared base
# --------------------------------------------------------------------------------------


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


TRANSLATORS: dict[str, type[Translator]] = {}  # filled by @register as each backend's module is imported


def register(cls: type[Translator]) -> type[Translator]:
    """Class decorator: make a translator available under its ``name``."""
    TRANSLATORS[cls.name] = cls
    return cls


def translator_class(name: str) -> type[Translator]:
    """The class of a translator backend, its module (its registry entry's) imported first."""
    if name not in TRANSLATORS:
        if name not in TRANSLATOR_BACKENDS:
            raise TranslationError(
                f"unknown translator backend {name!r}; known: {', '.join(sorted(TRANSLATOR_BACKENDS))}"
            )
        importlib.import_module(TRANSLATOR_BACKENDS[name].module)
    return TRANSLATORS[name]


def load_translator(spec: TranslatorSpec) -> Translator:
    """The translator a spec names (loads the model)."""
    return translator_class(spec.backend)(spec)


# --------------------------------------------------------------------------------------
# transformers
# --------------------------------------------------------------------------------------


@register
class TransformersTranslator(Translator):
    """NLLB through ``AutoModelForSeq2SeqLM``: dense M2M100 checkpoints and the NllbMoe ones (and MADLAD's T5).

    On several GPUs (``gpus`` > 1 and as many visible) the model is spread over them with
    ``device_map="auto"`` (accelerate), which the 54B MoE needs; otherwise it sits on one
    device. ``dtype: auto`` is bfloat16 on a GPU that has it and float32 elsewhere.
    """

    name = "transformers"

    def __init__(self, spec: TranslatorSpec):
        super().__init__(spec)
        import torch
        from transformers import AutoModelForSeq2SeqLM

        self.torch = torch
        if spec.location is None or not Path(spec.location).is_dir():
            raise TranslationError(
                f"translator: no checkpoint directory at {spec.location!r}; fetch the model or fix its path"
            )
        device = device_kind(spec.device)
        if device == "cuda" and not torch.cuda.is_available():
            raise TranslationError("translator: device cuda asked for, but no CUDA device is available")
        if spec.threads:
            torch.set_num_threads(spec.threads)
        dtype = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}.get(spec.dtype)
        if dtype is None:  # auto
            dtype = torch.bfloat16 if device == "cuda" and torch.cuda.is_bf16_supported() else torch.float32
        kwargs: dict[str, Any] = {"dtype": dtype, "local_files_only": True}
        spread = device == "cuda" and spec.gpus > 1 and torch.cuda.device_count() > 1
        if spread:
            kwargs["device_map"] = "auto"
        try:
            model = AutoModelForSeq2SeqLM.from_pretrained(spec.location, **kwargs)
        except (OSError, ValueError) as error:
            raise TranslationError(
                f"translator: cannot load a sequence-to-sequence model from {spec.location}: {error}"
            ) from error
        if not spread:
            model = model.to(device)
        self.model = model.eval()
        self.input_device = self.model.get_input_embeddings().weight.device
        self.start_id = self.model.generation_config.decoder_start_token_id
        if self.start_id is None:
            self.start_id = self.model.config.decoder_start_token_id
        self.pad_id = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else self.eos_id
        log.info(
            "translator: %s (%s) on %s, %s%s",
            type(self.model).__name__,
            spec.location,
            device,
            dtype,
            f", spread over {torch.cuda.device_count()} GPUs" if spread else "",
        )

    def _generate(self, batch, tgt, tgt_id, sampling):
        torch = self.torch
        width = max(len(ids) for ids in batch)
        input_ids = torch.full((len(batch), width), self.pad_id, dtype=torch.long)
        attention = torch.zeros((len(batch), width), dtype=torch.long)
        for row, ids in enumerate(batch):
            input_ids[row, : len(ids)] = torch.tensor(ids, dtype=torch.long)
            attention[row, : len(ids)] = 1
        # NLLB: the target tag is forced, and is a new token too. MADLAD: nothing forced (None
        # also overrides a forced token a checkpoint's generation config might carry).
        kwargs: dict[str, Any] = {
            "forced_bos_token_id": tgt_id,
            "max_new_tokens": self.spec.max_new_tokens + (tgt_id is not None),
        }
        if sampling is None:
            kwargs.update(do_sample=False, num_beams=self.spec.beam_size)
        else:
            # top_k off: only temperature and top_p shape the draw (a checkpoint's own
            # sampling defaults must not change what the cache key describes).
            kwargs.update(do_sample=True, num_beams=1, temperature=sampling.temperature, top_p=sampling.top_p, top_k=0)
            torch.manual_seed(sampling.seed)
        with torch.inference_mode():
            out = self.model.generate(
                input_ids=input_ids.to(self.input_device), attention_mask=attention.to(self.input_device), **kwargs
            )
        return [self.content_ids(row, tgt_id, self.start_id) for row in out.tolist()]

    def close(self) -> None:
        del self.model
        if self.torch.cuda.is_available():
            self.torch.cuda.empty_cache()


# --------------------------------------------------------------------------------------
# CTranslate2
# --------------------------------------------------------------------------------------


@register
class CTranslate2Translator(Translator):
    """Dense NLLB or MADLAD converted to CTranslate2 (see ``convert``): fast on CPU and GPU, int8 or float16.

    Runs on one device (``device_index`` 0): the batches come one at a time from the base,
    so further devices would idle; the MoE, which needs several GPUs, runs on transformers.
    Sampling draws from one stream per loaded model (see the module docstring).
    """

    name = "ctranslate2"
    seeds_each_sentence = False
    STREAM_SEED = 0

    def __init__(self, spec: TranslatorSpec):
        if spec.ct2_location is None or not (Path(spec.ct2_location) / "model.bin").is_file():
            raise TranslationError(
                f"translator: no CTranslate2 model at {spec.ct2_location!r}; convert the checkpoint first "
                "(xlcons.translation.translators.convert)"
            )
        # The converted directory carries the tokenizer; the checkpoint's is used when given.
        if spec.location is None or not Path(spec.location).is_dir():
            spec = replace(spec, location=None)
        super().__init__(spec)
        import ctranslate2

        self.ct2 = ctranslate2
        device = device_kind(spec.device)
        if device == "cuda" and ctranslate2.get_cuda_device_count() == 0:
            raise TranslationError("translator: device cuda asked for, but CTranslate2 sees no CUDA device")
        if spec.gpus > 1:
            log.warning(
                "translator: the ctranslate2 backend uses one GPU; gpus=%d is for the transformers MoE", spec.gpus
            )
        ctranslate2.set_random_seed(self.STREAM_SEED)  # read by the worker thread at its first draw
        try:
            self.model = ctranslate2.Translator(
                spec.ct2_location,
                device=device,
                device_index=0,
                compute_type=spec.compute_type,
                inter_threads=1,
                intra_threads=spec.threads,
            )
        except (RuntimeError, ValueError) as error:
            raise TranslationError(
                f"translator: cannot load the CTranslate2 model {spec.ct2_location}: {error}"
            ) from error
        log.info(
            "translator: CTranslate2 %s on %s, compute type %s", spec.ct2_location, device, self.model.compute_type
        )

    def _generate(self, batch, tgt, tgt_id, sampling):
        source = [self.tokenizer.convert_ids_to_tokens(list(ids)) for ids in batch]
        kwargs: dict[str, Any] = {
            # NLLB: the target tag starts the output (and counts in the length); MADLAD: no prefix.
            "target_prefix": None if tgt_id is None else [[tgt]] * len(source),
            "max_batch_size": self.spec.max_batch_tokens,
            "batch_type": "tokens",
            "max_input_length": 0,  # the base has cut already
            "max_decoding_length": self.spec.max_new_tokens + (tgt_id is not None),
        }
        if sampling is None:
            kwargs["beam_size"] = self.spec.beam_size
        else:
            kwargs.update(
                beam_size=1, sampling_topk=0, sampling_topp=sampling.top_p, sampling_temperature=sampling.temperature
            )
        results = self.model.translate_batch(source, **kwargs)
        outputs = []
        for result in results:
            ids = self.tokenizer.convert_tokens_to_ids(result.hypotheses[0])
            outputs.append(self.content_ids(ids, tgt_id))
        return outputs

    def close(self) -> None:
        self.model.unload_model()
        del self.model


# --------------------------------------------------------------------------------------
# Conversion (the workflow does it once per checkpoint and quantization)
# --------------------------------------------------------------------------------------


def quantization_for(compute_type: str) -> str | None:
    """How to store converted weights for a compute type: small enough, no precision lost.

    int8 compute types get int8 weights, float16/bfloat16 their own; float32, default and
    auto keep the checkpoint's weights (None), so float32 runs match transformers exactly.
    """
    if compute_type.startswith("int8"):
        return "int8"
    if compute_type in ("float16", "bfloat16", "int16"):
        return compute_type
    return None


def convert(hf_dir: Path | str, out_dir: Path | str, quantization: str | None = None) -> Path:
    """Convert a dense NLLB or a MADLAD (T5) checkpoint to CTranslate2 in ``out_dir``, atomically.

    The model is written into a temporary directory beside ``out_dir`` and renamed into
    place, so an interrupted conversion never leaves something that looks finished. An
    existing ``out_dir`` is replaced. The tokenizer files are copied along, and a marker
    records the source, the quantization and the CTranslate2 version.
    """
    import ctranslate2
    from ctranslate2.converters import TransformersConverter

    hf_dir, out_dir = Path(hf_dir), Path(out_dir)
    if not (hf_dir / "config.json").is_file():
        raise TranslationError(f"convert: {hf_dir} is not a Hugging Face checkpoint (no config.json)")
    config = json.loads((hf_dir / "config.json").read_text())
    if config.get("model_type") == "nllb-moe":
        raise TranslationError("convert: CTranslate2 cannot run the NLLB MoE; use translator.backend: transformers")
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.", dir=out_dir.parent))
    try:
        target = staging / "model"
        copy = [name for name in TOKENIZER_FILES if (hf_dir / name).is_file()]
        load_as_float16 = quantization is not None and ("float16" in quantization or "bfloat16" in quantization)
        _t5_aware(TransformersConverter)(str(hf_dir), copy_files=copy, load_as_float16=load_as_float16).convert(
            str(target), quantization=quantization, force=True
        )
        marker = {"source": str(hf_dir.resolve()), "quantization": quantization, "ctranslate2": ctranslate2.__version__}
        (target / CT2_MARKER).write_text(json.dumps(marker, indent=1) + "\n")
        if out_dir.exists():
            shutil.rmtree(out_dir)
        os.replace(target, out_dir)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return out_dir


def _t5_aware(base: type) -> type:
    """``TransformersConverter`` that keeps a T5 v1.1 model's unscaled outputs (MADLAD-400).

    CTranslate2 multiplies a T5 decoder's output by ``d_model ** -0.5`` when
    ``config.tie_word_embeddings`` is set, which is how transformers 4 told original T5
    (scaled) from T5 v1.1 (not scaled). transformers 5 reports every T5 as tied and keeps
    the distinction in ``scale_decoder_outputs``, so without this a converted MADLAD would
    keep its greedy output but get other scores (beam search, sampling, log-probabilities).
    """

    class Converter(base):
        def load_model(self, model_class, model_name_or_path, **kwargs):
            model = super().load_model(model_class, model_name_or_path, **kwargs)
            config = model.config
            if getattr(config, "model_type", None) == "t5" and getattr(config, "scale_decoder_outputs", True) is False:
                config.tie_word_embeddings = False  # read by CTranslate2's T5 loader only
            return model

    return Converter
