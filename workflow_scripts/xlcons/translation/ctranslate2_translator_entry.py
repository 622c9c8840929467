"""The registry entry of the ``ctranslate2`` translator backend (its class:
:mod:`xlcons.translation.ctranslate2_translator`). Standard library only: the registry
imports it while the Snakefile builds the DAG."""

from __future__ import annotations

from xlcons.translation.backend_info import TranslatorBackendInfo

BACKEND = TranslatorBackendInfo(
    "ctranslate2",
    summary="fast, dense NLLB converted once into resources/",
    position=20,
    converted=True,
)
