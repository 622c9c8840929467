"""Released outputs as models: `released_outputs` (a local folder of one model's outputs or of
several models' folders) and `released_model` (Xing et al. 2024's models by name, fetched) join
`models` as recorded-responses models (backend `file`)."""

from __future__ import annotations

import re
from pathlib import Path

from xlcons.config.schema import load_schema
from xlcons.config.validation import ConfigError
from xlcons.data_sources.catalog import RELEASED_MODELS


def holds_released_outputs(folder: Path) -> bool:
    """A folder of one model's released MAKQA outputs (`result_<domain>.json`)."""
    return folder.is_dir() and any(folder.glob("result_*.json"))


def is_recorded_responses(path: Path) -> bool:
    """What backend `file` reads at `path`: a responses file, or a folder of released outputs."""
    return path.is_file() or holds_released_outputs(path)


def released_folders(folder: Path) -> list[Path]:
    """The model folders of a folder of released outputs (Xing et al. 2024's `result/`): its
    subfolders that hold `result_<domain>.json`, by name; empty when it is one model's folder."""
    if not folder.is_dir() or holds_released_outputs(folder):
        return []
    return sorted(sub for sub in folder.iterdir() if holds_released_outputs(sub))


def add_released_model(config: dict, base_dir: Path = Path(".")) -> None:
    """Released outputs join the models as recorded-responses models: a local folder of one
    model's outputs or of several models' folders (`released_outputs`), or paper models'
    outputs fetched by their names (`released_model`: a name, a list, or `all`)."""
    names = config.get("released_model")
    names = [names] if isinstance(names, str) else list(names or [])
    if config.get("released_outputs"):
        given = Path(config["released_outputs"])
        models = released_folders(given if given.is_absolute() else base_dir / given)
        if not models:
            if len(names) > 1:
                raise ConfigError(
                    "config key 'released_model': released_outputs holds one model's outputs; give it one name"
                )
            config["models"][names[0] if names else "released"] = {
                "backend": "file",
                "path": config["released_outputs"],
            }
            return
        if names:
            raise ConfigError(
                f"config key 'released_model': released_outputs '{given}' holds the outputs of {len(models)} models "
                f"({', '.join(m.name for m in models)}), each named after its folder; leave released_model unset"
            )
        for model in models:
            if not re.fullmatch(load_schema()["$defs"]["name"]["pattern"], model.name):
                raise ConfigError(
                    f"config key 'released_outputs': folder '{model.name}' is not "
                    "a model name (letters, digits, '.', '_', '-'); rename it"
                )
            config["models"][model.name] = {
                "backend": "file",
                "path": str(Path(config["released_outputs"]) / model.name),
            }
        return
    if names == ["all"]:
        names = list(RELEASED_MODELS)
    unknown = [name for name in names if name not in RELEASED_MODELS]
    if unknown:
        raise ConfigError(
            f"config key 'released_model': {', '.join(repr(n) for n in unknown)} not "
            f"among Xing et al. 2024's released models ({', '.join(RELEASED_MODELS)}, or "
            "all); to score outputs of your own, set released_outputs to their folder"
        )
    for name in names:
        config["models"][name] = {"backend": "file", "released": name}
