"""QE backend `comet`: reference-free COMET through unbabel-comet (envs/qe-comet.yaml, whose pins
clash with the other envs'). Its registry entry is `QE_BACKEND`; standard library only at the
top (comet is imported by the scorer): the registry imports this while the Snakefile builds the DAG."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from xlcons.translation.backend_info import QEBackend, Scorer

QE_BACKEND = QEBackend(
    "comet",
    "Unbabel/wmt22-cometkiwi-da",
    0.5,
    "qe-comet",
    gated=True,
    summary="a reference-free COMET model through unbabel-comet; CometKiwi is gated on the Hub",
    other_models="its XL/XXL variants by hf_id",
    position=20,
)


def comet_checkpoint(model: str | Path) -> Path:
    """The checkpoint file of a COMET model: the path itself, or `checkpoints/model.ckpt` in its folder."""
    path = Path(model)
    if path.is_file():
        return path
    checkpoint = path / "checkpoints" / "model.ckpt"
    if not checkpoint.is_file():
        raise FileNotFoundError(
            f"{path}: no COMET checkpoint (expected {checkpoint}); fetch the QE model "
            f"(translator.qe.model) or point it at a COMET model folder"
        )
    return checkpoint


def comet_scorer(model: str | Path, *, batch_size: int = 64, gpus: int = 0) -> Scorer:
    """Reference-free COMET (`src`, `mt`): the model is loaded once and predicts in batches."""
    import comet  # unbabel-comet, in envs/qe-comet.yaml (its pins clash with the other envs')

    loaded = comet.load_from_checkpoint(str(comet_checkpoint(model)))

    def score(sources: Sequence[str], translations: Sequence[str]) -> list[float]:
        if not sources:
            return []
        samples = [{"src": s, "mt": t} for s, t in zip(sources, translations)]
        prediction = loaded.predict(samples, batch_size=batch_size, gpus=gpus, progress_bar=False)
        return [float(value) for value in prediction.scores]

    return score


scorer = comet_scorer  # the backend's entry (xlcons.translation.quality.make_scorer)
