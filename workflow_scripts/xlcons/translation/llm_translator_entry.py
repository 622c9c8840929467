"""The registry entry of the ``llm`` translator backend (its class:
:mod:`xlcons.translation.llm_translator`). Standard library only: the registry imports it
while the Snakefile builds the DAG."""

from __future__ import annotations

from xlcons.translation.backend_info import TranslatorBackendInfo

LLM_TRANSLATOR = "llm"  # the backend that prompts a generation model (its config key is `llm` too)

BACKEND = TranslatorBackendInfo(
    LLM_TRANSLATOR,
    summary="a generation model (`llm`) translates, sentence by sentence, with `prompt`",
    position=30,
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
)
