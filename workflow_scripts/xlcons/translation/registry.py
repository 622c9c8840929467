"""The translator backends, one entry each: every fact the workflow needs about a backend.

The config schema offers them from here (xlcons.config.load_schema adds the `backend` enum
and its description of `translator` and of a `translators.<name>` entry, and an LLM
translator's own keys), the config checks read an entry's keys, and the translation job
finds a backend's class by the entry's module (xlcons.translation.translators.translator_class).
Adding a backend is an entry here, its module (a `Translator` subclass decorated with
`@register`) and its tests (docs/extending.md). Standard library only: the config checks
import it while the Snakefile builds the DAG.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

LLM_TRANSLATOR = "llm"  # the backend that prompts a generation model (its config key is `llm` too)


@dataclass(frozen=True)
class TranslatorBackendInfo:
    name: str
    module: str  # defines and registers (@register) the Translator subclass; imported by the translation job only
    summary: str  # what it is, in the description of the schema's `backend` key
    # It prompts a generation model (configured under `model_key`, an LLM's config) rather than
    # running a sequence-to-sequence checkpoint (`model`). Such a backend is offered under
    # `translators` only, not as `translator.backend` (the primary translator also translates
    # the prompts, with an NLLB or MADLAD checkpoint).
    generation: bool = False
    model_key: str = "model"  # the key of its model in a `translators.<name>` entry
    # generation: the generation backends (xlcons.generation.registry) that run inside the
    # translation job's env; another one is a config error that names these.
    generation_backends: tuple[str, ...] = ()
    # Keys of its own in a `translators.<name>` entry, each a JSON schema with a description
    # (no default: an unset key is None); a key here set for another backend is a config error.
    options: Mapping[str, Any] = field(default_factory=dict)
    # The checkpoint is converted once (into resources/ctranslate2/) before it translates.
    converted: bool = False


TRANSLATOR_BACKENDS: dict[str, TranslatorBackendInfo] = {
    info.name: info
    for info in (
        TranslatorBackendInfo(
            "transformers",
            "xlcons.translation.transformers_translator",
            summary="any NLLB, including the MoE, spread over the job's GPUs",
        ),
        TranslatorBackendInfo(
            "ctranslate2",
            "xlcons.translation.ctranslate2_translator",
            summary="fast, dense NLLB converted once into resources/",
            converted=True,
        ),
        TranslatorBackendInfo(
            LLM_TRANSLATOR,
            "xlcons.translation.llm_translator",
            summary="a generation model (`llm`) translates, sentence by sentence, with `prompt`",
            generation=True,
            model_key="llm",
            # The translation env holds no vLLM: a vLLM model is served and reached through openai.
            generation_backends=("hf", "openai"),
            options={
                "prompt": {
                    "description": "The LLM translator's prompt template, with {source_language}, "
                    "{target_language} and {text}; null: the documented default (docs/translation.md).",
                    "type": ["string", "null"],
                },
            },
        ),
    )
}


def checkpoint_backends() -> list[str]:
    """The backends of a sequence-to-sequence checkpoint: those `translator.backend` offers."""
    return [name for name, info in TRANSLATOR_BACKENDS.items() if not info.generation]
