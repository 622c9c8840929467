"""The QE backends, one entry each, collected from the backends themselves: every fact the
workflow needs about a backend (xlcons.translation.quality scores with them): what it is, its
default model and threshold, the conda env of the QE job and the module of its scorer.

Each backend declares its entry (`QEBackend`, xlcons.translation.backend_info) as `QE_BACKEND`
of its scorer module, `translation/qe_<name>.py`, which also holds its
`scorer(model, *, batch_size, gpus)`. This module only finds the scorer modules by their file
names and collects them, ordered by each entry's `position`.

The config schema offers them from here: xlcons.config.load_schema adds the
`translator.qe.backend` enum and its description, and each backend's default model and
threshold to the descriptions of `model` and `threshold`. Adding a backend is its scorer
module, its tests, its row in docs/translation.md's table (and an env file if it needs
packages); nothing here changes (docs/extending.md). Standard library only: the plan reads it
while the Snakefile builds the DAG, and the scorer modules import their packages in their
functions."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from xlcons.translation.backend_info import QEBackend, Scorer, collect, find_modules

__all__ = [
    "DEFAULT_KEY",
    "NO_QE",
    "QE_BACKENDS",
    "QE_MODULES",
    "QE_PATHS_INPUT",
    "QEBackend",
    "Scorer",
    "collect_backends",
    "describe_backends",
    "describe_default_models",
    "describe_default_thresholds",
    "qe_modules",
    "qe_threshold",
    "threshold_for",
]

# The results rule's input, beside the QE tables (evaluators.registry.QE_INPUT), of the
# TRANSLATIONS tables of the same (data set, model, translator) files: the translation path of
# every answer, so that an untranslatable one, which has no sentence to score, fails QE.
QE_PATHS_INPUT = "translation_paths"


def qe_modules(root: Path = Path(__file__).parent, package: str = __package__) -> tuple[str, ...]:
    """The QE backends' scorer modules (`qe_<name>.py`), found by their file names without
    importing anything, in the order of the names."""
    return find_modules(root, "qe_*.py", package)


QE_MODULES = qe_modules()


def collect_backends(modules: tuple[str, ...] = QE_MODULES) -> dict[str, QEBackend]:
    """Every scorer module's `QE_BACKEND` by name, ordered by `position`, then by module name;
    each entry's `module` is the module that declares it."""
    return collect(modules, "QE_BACKEND", QEBackend, lambda module: module)


QE_BACKENDS: dict[str, QEBackend] = collect_backends()

NO_QE = "none"  # translator.qe.backend that turns QE off


def describe_backends() -> str:
    """The description of `translator.qe.backend`: each backend with its summary, then `none`."""
    named = [f"`{info.name}` ({info.summary})" for info in QE_BACKENDS.values()]
    return ", ".join(named) + f", or `{NO_QE}` (no QE)."


def describe_default_models() -> str:
    """Each backend's default model (and what else it runs), for the description of `translator.qe.model`."""
    return "; ".join(
        f"`{info.name}`: {info.default_model}" + (f", or {info.other_models}" if info.other_models else "")
        for info in QE_BACKENDS.values()
    )


def describe_default_thresholds() -> str:
    """Each backend's default threshold, for the description of `translator.qe.threshold`."""
    return ", ".join(f"{info.name} {info.threshold}" for info in QE_BACKENDS.values())


DEFAULT_KEY = "default"  # translator.qe.threshold as a mapping: the threshold of the languages it does not list


def qe_threshold(section: Mapping[str, Any], lang: str | None = None) -> float:
    """translator.qe.threshold for `lang`: the number, or the mapping's entry for the language,
    else its `default`; null (a null `default`, too): the backend's default."""
    value = section.get("threshold")
    if isinstance(value, Mapping):
        value = value[lang] if lang is not None and value.get(lang) is not None else value.get(DEFAULT_KEY)
    return float(value) if value is not None else QE_BACKENDS[section["backend"]].threshold


def threshold_for(thresholds: float | Mapping[str, float], lang: str) -> float:
    """The threshold of `lang` from a number (every language) or a mapping with a `default`
    (what Plan.qe_threshold gives the results stage)."""
    if isinstance(thresholds, Mapping):
        return float(thresholds[lang] if lang in thresholds else thresholds[DEFAULT_KEY])
    return float(thresholds)
