"""What a local model *is*, as one digest of its files' content: how caches name a `path` model.

A folder's name says nothing about what is in it: two checkpoints called `model` in
different folders, or one retrained in place, must not share cached answers. The digest is
a sha256 over every file's path (relative to the folder) and fingerprint, leaving out the
download bookkeeping of the Hub (`.cache/`) and xlcons's own markers and manifests, which
change when a copy is fetched again, not when the model does.

A file's fingerprint is its sha256 up to 64 MiB (configs, tokenizers, small models, recorded
responses). A larger file (weights) is not read whole, which for a 100 GB checkpoint on a
shared file system would take many minutes: its fingerprint is the sha256 of its size and
of 18 slices of 1 MiB, the first, the last and 16 evenly spaced between them. Training
changes the weights everywhere, so a retrained checkpoint changes every slice; a copy
elsewhere keeps them. Each fingerprint is remembered per (absolute path, size,
modification time) in a small file under the user's cache directory (``$XLCONS_CACHE_DIR``,
else ``$XDG_CACHE_HOME/xlcons``, else ``~/.cache/xlcons``), so a file is read once until it
changes.
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path

from xlcons.atomic import atomic_path

_CHUNK = 1 << 20
WHOLE_FILE_LIMIT = 64 << 20  # larger files are sampled, not read whole
_SLICES = 16  # evenly spaced 1 MiB slices between the first and the last one
# Written by the Hub's local-dir downloads, by xlcons's fetch rules (xlcons.fetch), the
# CTranslate2 conversion (xlcons.translation.ctranslate2_conversion) and the offline-model builder
# (devtools.offline_models): not the model. Named here so that this module imports nothing
# heavy (and nothing from the development tools); a test holds the names to those modules' own.
BOOKKEEPING_DIRS = {".cache"}
BOOKKEEPING_FILES = {
    "MANIFEST.json",
    ".xlcons-fetched.json",
    ".xlcons-fetch-incomplete",
    "xlcons-ctranslate2.json",
    "xlcons-offline-model.json",
}
# The stamp the offline-model builder writes into each model it builds, and the models it
# builds with random weights (`ModelSpec.random_weights` there; a test holds the two together):
# their answers and translations are noise, so a run that loads one tests the plumbing, and
# its numbers say nothing about any model (the summary and the HTML report say so).
OFFLINE_MODEL_STAMP = "xlcons-offline-model.json"
RANDOM_WEIGHT_OFFLINE_MODELS = frozenset({"tiny-llm", "tiny-madlad", "tiny-nllb", "tiny-nllb-b"})


def random_weight_model(location: Path | str | None) -> str | None:
    """The offline model's name when `location` (a model's folder, or a file in it) holds one
    that the offline-model builder made with random weights, as its stamp says; else None."""
    if location is None:
        return None
    path = Path(location)
    for folder in (path, path.parent):
        try:
            name = json.loads((folder / OFFLINE_MODEL_STAMP).read_text(encoding="utf-8")).get("name")
        except (OSError, ValueError, AttributeError):
            continue
        return name if name in RANDOM_WEIGHT_OFFLINE_MODELS else None
    return None


def memo_dir() -> Path:
    base = (
        os.environ.get("XLCONS_CACHE_DIR")
        or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "xlcons"
    )
    return Path(base) / "file-sha256"


def _file_sha256(path: Path) -> str:
    """sha256 of the whole file, or, above WHOLE_FILE_LIMIT, of its size and 18 slices."""
    h = hashlib.sha256()
    size = path.stat().st_size
    with open(path, "rb") as handle:
        if size <= WHOLE_FILE_LIMIT:
            for chunk in iter(lambda: handle.read(_CHUNK), b""):
                h.update(chunk)
            return h.hexdigest()
        h.update(f"sampled:{size}".encode())
        last = size - _CHUNK
        for offset in [0, *(last * (i + 1) // (_SLICES + 1) for i in range(_SLICES)), last]:
            handle.seek(offset)
            h.update(handle.read(_CHUNK))
    return h.hexdigest()


def file_sha256(path: Path | str) -> str:
    """A file's fingerprint (see the module), remembered per (absolute path, size, mtime) so an
    unchanged file is read once."""
    path = Path(path).resolve()
    stat = path.stat()
    key = hashlib.sha256(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}".encode()).hexdigest()
    memo = memo_dir() / key[:2] / f"{key}.json"
    try:
        return json.loads(memo.read_text(encoding="utf-8"))["sha256"]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    digest = _file_sha256(path)
    try:
        with atomic_path(memo) as temporary:
            temporary.write_text(
                json.dumps({"path": str(path), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": digest})
            )
    except OSError:
        pass  # a read-only home: the digest is still right, only not remembered
    return digest


def _model_files(folder: Path) -> list[Path]:
    files = []
    for path in folder.rglob("*"):
        relative = path.relative_to(folder)
        if relative.parts[0] in BOOKKEEPING_DIRS or relative.name in BOOKKEEPING_FILES or not path.is_file():
            continue
        files.append(path)
    return sorted(files)


def content_digest(location: Path | str) -> str:
    """The fingerprint of a model file, or the sha256 of a folder's files (each file's relative
    path and fingerprint)."""
    location = Path(location)
    if location.is_file():
        return file_sha256(location)
    if not location.is_dir():
        raise FileNotFoundError(f"no model file or folder at {location}")
    return _folder_digest(str(location.resolve()), _signature(location))


def _signature(folder: Path) -> tuple[tuple[str, int, int], ...]:
    """What the folder holds now, cheaply (names, sizes, mtimes): the in-process memo's key."""
    return tuple(
        (path.relative_to(folder).as_posix(), (stat := path.stat()).st_size, stat.st_mtime_ns)
        for path in _model_files(folder)
    )


@lru_cache(maxsize=64)
def _folder_digest(folder: str, signature: tuple[tuple[str, int, int], ...]) -> str:
    entries = [[relative, file_sha256(Path(folder) / relative)] for relative, _, _ in signature]
    return hashlib.sha256(json.dumps(entries, ensure_ascii=False).encode()).hexdigest()


def local_content(location: Path | str | None) -> str | None:
    """``content_digest`` of a location that exists, else None (a model that is not on disk has
    nothing to digest; loading it fails with its own message)."""
    return content_digest(location) if location and Path(location).exists() else None
