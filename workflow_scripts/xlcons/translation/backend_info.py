"""What a translator backend's or a QE backend's entry says (`TranslatorBackendInfo`,
`QEBackend`), and a QE scorer's type.

Each backend declares its entry beside its code and the registries collect them
(xlcons.translation.registry, xlcons.translation.quality_backends). Standard library only:
the entries import this while the Snakefile builds the DAG.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

# An entry without a position comes after the built-in ones (then in the order of its module's name).
LAST = 1000


@dataclass(frozen=True)
class TranslatorBackendInfo:
    """A translator backend's entry: `BACKEND` of `translation/<name>_translator_entry.py`."""

    name: str
    summary: str  # what it is, in the description of the schema's `backend` key
    # Its place among the backends: the order of the schema's `backend` enums and descriptions.
    position: int = LAST
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
    # Defines and registers (@register) the Translator subclass; imported by the translation job
    # only. The registry sets it: the module beside the entry's (`<name>_translator`).
    module: str = ""


# A QE backend's scorer: (sources, translations) -> one score per pair. A scorer may also have
# `tokens_of(texts) -> int`, the input tokens its model reads for the texts (the usage ledger's count).
Scorer = Callable[[Sequence[str], Sequence[str]], list[float]]


@dataclass(frozen=True)
class QEBackend:
    """A QE backend's entry: `QE_BACKEND` of its scorer module, `translation/qe_<name>.py`."""

    name: str
    default_model: str  # Hub id of the default model
    threshold: float  # documented default threshold (translator.qe.threshold: null)
    env: str  # envs/<env>.yaml of the QE job
    gated: bool = False
    summary: str = ""  # what it is, in the description of the schema's `translator.qe.backend`
    other_models: str = ""  # other models it runs, named after the default in the description of `model`
    # Its place among the backends: the order of the schema's `translator.qe.backend` enum.
    position: int = LAST
    # Holds `scorer(model, *, batch_size, gpus)`, imported by name in that env. The registry
    # sets it: the module that declares the entry.
    module: str = ""


Entry = TypeVar("Entry", TranslatorBackendInfo, QEBackend)


def find_modules(root: Path, pattern: str, package: str) -> tuple[str, ...]:
    """The modules of `root` whose file names match `pattern`, in the order of their names.
    Nothing is imported to find them: adding a backend adds its module and edits no list."""
    return tuple(f"{package}.{path.stem}" for path in sorted(root.glob(pattern)))


def collect(
    modules: Sequence[str], attribute: str, kind: type[Entry], module_of: Callable[[str], str]
) -> dict[str, Entry]:
    """The entry (`attribute`, a `kind`) of each module by name, ordered by `position`, then by
    module name, with its `module` set to `module_of(<the module that declares it>)`; a name
    declared twice fails."""
    found: dict[str, tuple[tuple[int, int], Entry]] = {}
    for rank, module in enumerate(sorted(modules)):
        info = getattr(importlib.import_module(module), attribute)
        if not isinstance(info, kind):
            raise TypeError(f"{module}.{attribute} is not a {kind.__name__}")
        if info.name in found:
            raise ValueError(f"backend '{info.name}' is declared twice (again in {module})")
        found[info.name] = ((info.position, rank), replace(info, module=module_of(module)))
    return {name: info for name, (_, info) in sorted(found.items(), key=lambda item: item[1][0])}
