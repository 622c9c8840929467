"""The QE backends' facts (xlcons.translation.quality scores with them): default model,
default threshold, the conda env of the QE job. Standard library only: the plan reads it
while the Snakefile builds the DAG."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

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


QE_BACKENDS = {
    backend.name: backend
    for backend in (
        QEBackend("embedding", "sentence-transformers/LaBSE", 0.7, "evaluate", "xlcons.translation.quality_embedding"),
        QEBackend("comet", "Unbabel/wmt22-cometkiwi-da", 0.5, "qe-comet", "xlcons.translation.quality_comet", gated=True),
    )
}


def qe_threshold(section: Mapping[str, Any]) -> float:
    """translator.qe.threshold, or its backend's default."""
    value = section.get("threshold")
    return float(value) if value is not None else QE_BACKENDS[section["backend"]].threshold
