"""The registry entry of the ``transformers`` translator backend (its class:
:mod:`xlcons.translation.transformers_translator`). Standard library only: the registry
imports it while the Snakefile builds the DAG. The entry sits apart from the backend's module
because that one is not as light: it loads the translation spec, and with it xlcons.schemas
(pyarrow)."""

from __future__ import annotations

from xlcons.translation.backend_info import TranslatorBackendInfo

BACKEND = TranslatorBackendInfo(
    "transformers",
    summary="any NLLB, including the MoE, spread over the job's GPUs",
    position=10,
)
