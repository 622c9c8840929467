"""A model source of the config (`hf_id`, `path`, `url`, `released` or a served model): its
folder name under resources/models, and its checks."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from xlcons.data_sources.names import url_file_name
from xlcons.generation.registry import backend_info


def resource_name(key: str, source: Mapping[str, Any]) -> str:
    """Folder name of a model under resources/models: the config name, else the Hub id's last part."""
    if source.get("name"):
        return source["name"]
    if key.startswith("models."):
        return key.removeprefix("models.")
    if source.get("url"):
        return url_file_name(source["url"])
    if source.get("hf_id"):
        return source["hf_id"].rstrip("/").split("/")[-1]
    return Path(source["path"]).name


def check_model_source(key: str, source: Mapping[str, Any], base_dir: Path) -> Iterator[str]:
    """One source at config key `key`: exactly one of url (with its sha256), released, hf_id or
    path (or a served model's api.model), and a local path that exists."""
    has_hub, has_path = bool(source.get("hf_id")), bool(source.get("path"))
    if source.get("url") or source.get("sha256"):
        if not source.get("url"):
            yield f"config key '{key}.sha256': only meaningful together with url"
        elif not source.get("sha256"):
            yield (
                f"config key '{key}.url': give the file's sha256 too (64 "
                "hexadecimal digits), so that other bytes are refused"
            )
        elif has_hub or has_path:
            yield f"config key '{key}': give url or {'hf_id' if has_hub else 'path'}, not both"
        elif not url_file_name(source["url"]):
            yield f"config key '{key}.url': '{source['url']}' names no file"
        return
    remote = "backend" in source and not backend_info(source["backend"]).local_files
    if source.get("released"):
        if not backend_info(source["backend"]).recorded:
            yield f"config key '{key}.released': released outputs are answers already given; set backend: file"
        if has_hub or has_path:
            yield f"config key '{key}': give released or {'hf_id' if has_hub else 'path'}, not both"
        return
    if has_hub and has_path:
        yield f"config key '{key}': give hf_id or path, not both"
    elif not (has_hub or has_path) and not (remote and source.get("api", {}).get("model")):
        yield f"config key '{key}': give hf_id (a Hugging Face id) or path (a local model)"
    if has_path:
        path = Path(source["path"])
        if not (path if path.is_absolute() else base_dir / path).exists():
            yield f"config key '{key}.path': local model path '{source['path']}' does not exist"
    if source.get("hf_file") and not has_hub:
        yield f"config key '{key}.hf_file': only meaningful together with hf_id"
