"""The QE backends, one entry each: every fact the workflow needs about a backend
(xlcons.translation.quality scores with them): what it is, its default model and threshold,
the conda env of the QE job and the module of its scorer.

The config schema offers them from here: xlcons.config.load_schema adds the
`translator.qe.backend` enum and its description, and each backend's default model and
threshold to the descriptions of `model` and `threshold`. Adding a backend is an entry here,
its scorer module (`translation/quality_<name>.py`) and its tests (docs/extending.md).
Standard library only: the plan reads it while the Snakefile builds the DAG."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# The results rule's input, beside the QE tables (evaluators.registry.QE_INPUT), of the
# TRANSLATIONS tables of the same (data set, model, translator) files: the translation path of
# every answer, so that an untranslatable one, which has no sentence to score, fails QE.
QE_PATHS_INPUT = "translation_paths"

# A QE backend's scorer: (sources, translations) -> one score per pair.
Scorer = Callable[[Sequence[str], Sequence[str]], list[float]]


@dataclass(frozen=True)
class QEBackend:
    name: str
    default_model: str  # Hub id of the default model
    threshold: float  # documented default threshold (translator.qe.threshold: null)
    env: str  # envs/<env>.yaml of the QE job
    module: str  # holds `scorer(model, *, batch_size, gpus)`, imported by name in that env
    gated: bool = False
    summary: str = ""  # what it is, in the description of the schema's `translator.qe.backend`
    other_models: str = ""  # other models it runs, named after the default in the description of `model`


QE_BACKENDS = {
    backend.name: backend
    for backend in (
        QEBackend(
            "embedding",
            "sentence-transformers/LaBSE",
            0.7,
            "evaluate",
            "xlcons.translation.quality_embedding",
            summary="cosine similarity of cross-lingual sentence embeddings: cheap, ungated",
        ),
        QEBackend(
            "comet",
            "Unbabel/wmt22-cometkiwi-da",
            0.5,
            "qe-comet",
            "xlcons.translation.quality_comet",
            gated=True,
            summary="a reference-free COMET model through unbabel-comet; CometKiwi is gated on the Hub",
            other_models="its XL/XXL variants by hf_id",
        ),
    )
}

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
