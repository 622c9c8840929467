"""The translator backends, one entry each, collected from the backends themselves: every fact
the workflow needs about a backend.

Each backend declares its entry (`TranslatorBackendInfo`, xlcons.translation.backend_info) as
`BACKEND` of its entry module, `translation/<name>_translator_entry.py`, beside its module
`translation/<name>_translator.py` (a `Translator` subclass decorated with `@register`), which
the entry's `module` names. This module only finds the entry modules by their file names and
collects them, ordered by each entry's `position`.

The config schema offers them from here (xlcons.config.load_schema adds the `backend` enum
and its description of `translator` and of a `translators.<name>` entry, and an LLM
translator's own keys), the config checks read an entry's keys, and the translation job
finds a backend's class by the entry's module (xlcons.translation.translators.translator_class).
Adding a backend is its module, its entry module and its tests; nothing here changes
(docs/extending.md). Standard library only: the config checks import it while the Snakefile
builds the DAG, and the entry modules are as light (a backend's own module is not: it loads
the translation spec, and with it xlcons.schemas and pyarrow).
"""

from __future__ import annotations

from pathlib import Path

from xlcons.translation.backend_info import TranslatorBackendInfo, collect, find_modules

# The backend that prompts a generation model: its name, which the plan and the config checks use.
from xlcons.translation.llm_translator_entry import LLM_TRANSLATOR

__all__ = [
    "ENTRY_MODULES",
    "LLM_TRANSLATOR",
    "TRANSLATOR_BACKENDS",
    "TranslatorBackendInfo",
    "backend_module",
    "checkpoint_backends",
    "collect_backends",
    "entry_modules",
]

ENTRY_SUFFIX = "_entry"


def entry_modules(root: Path = Path(__file__).parent, package: str = __package__) -> tuple[str, ...]:
    """The translator backends' entry modules (`<name>_translator_entry.py`), found by their
    file names without importing anything, in the order of the names."""
    return find_modules(root, f"*_translator{ENTRY_SUFFIX}.py", package)


def backend_module(entry_module: str) -> str:
    """The module of a backend's class: the one beside its entry module (`<name>_translator`)."""
    return entry_module.removesuffix(ENTRY_SUFFIX)


ENTRY_MODULES = entry_modules()


def collect_backends(modules: tuple[str, ...] = ENTRY_MODULES) -> dict[str, TranslatorBackendInfo]:
    """Every entry module's `BACKEND` by name, ordered by `position`, then by module name; each
    entry's `module` is the module beside its entry module."""
    return collect(modules, "BACKEND", TranslatorBackendInfo, backend_module)


TRANSLATOR_BACKENDS: dict[str, TranslatorBackendInfo] = collect_backends()


def checkpoint_backends() -> list[str]:
    """The backends of a sequence-to-sequence checkpoint: those `translator.backend` offers."""
    return [name for name, info in TRANSLATOR_BACKENDS.items() if not info.generation]
