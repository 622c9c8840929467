"""Fetch a released data set into a folder and verify it: every file of a
:class:`~xlcons.data_sources.spec.DataSource` kept, copied from a local copy or downloaded,
checked against its recorded size, sha256 and structure, and listed in ``MANIFEST.json``."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from xlcons.data_sources.spec import DataFile, DataSource
from xlcons.fetch.disk import now, part_path, read_json, sha256_of, write_json_atomic
from xlcons.fetch.download import copy_stream, download
from xlcons.fetch.errors import DataVerificationError
from xlcons.fetch.structure import check_structure

log = logging.getLogger(__name__)

MANIFEST_NAME = "MANIFEST.json"


# --- planning --------------------------------------------------------------------------------


def _is_released_copy(path: Path, f: DataFile) -> bool:
    """Cheap size test first, so a wrong file of another size costs no hashing."""
    return path.is_file() and path.stat().st_size == f.size and sha256_of(path) == f.sha256


@dataclass(frozen=True)
class _Step:
    """How one file gets into dest: kept as it is, copied from a local copy, or downloaded."""

    file: DataFile
    action: str  # "keep" | "copy" | "download"
    origin: str | None  # local path or URL; None for keep


def _plan(source: DataSource, dest: Path, mirror: str | None, local_copy: Path | None) -> list[_Step]:
    steps = []
    for f in source.files:
        if _is_released_copy(dest / f.relpath, f):
            steps.append(_Step(f, "keep", None))
        elif local_copy is not None and (local_copy / f.relpath).is_file():
            steps.append(_Step(f, "copy", str(local_copy / f.relpath)))
        else:
            steps.append(_Step(f, "download", source.url(f, mirror)))
    return steps


# --- transfer --------------------------------------------------------------------------------


def _mismatch(f: DataFile, origin: str, sha256: str, size: int) -> DataVerificationError:
    return DataVerificationError(
        f"{f.relpath} from {origin} is not the released file: sha256 expected {f.sha256}, "
        f"got {sha256} (size expected {f.size}, got {size}). It was not kept; if upstream "
        f"changed the file on purpose, update xlcons/data_sources/ (hashes.py, or the entry in catalog.py).",
        relpath=f.relpath,
        expected_sha256=f.sha256,
        actual_sha256=sha256,
        origin=origin,
    )


def _transfer(step: _Step, dest: Path, *, attempts: int, backoff_s: float, timeout_s: float) -> None:
    """Put one file at its final path via ``<file>.part``; only a verified file is renamed in."""
    f, final = step.file, dest / step.file.relpath
    part = part_path(final)
    # A stale, wrong file at the final path goes first: the final path only ever holds
    # a verified file, or nothing.
    final.unlink(missing_ok=True)
    try:
        if step.action == "copy":
            with open(step.origin, "rb") as src:
                sha256, size = copy_stream(src, part)
        else:
            sha256, size = download(step.origin, part, attempts=attempts, backoff_s=backoff_s, timeout_s=timeout_s)
        if size != f.size or sha256 != f.sha256:
            raise _mismatch(f, step.origin, sha256, size)
        check_structure(part, f)
        os.replace(part, final)
    except BaseException:
        part.unlink(missing_ok=True)
        raise


# --- entry points ----------------------------------------------------------------------------


def _previous_entries(manifest: Path, source: DataSource) -> dict[str, dict]:
    data = read_json(manifest)
    if not isinstance(data, dict) or data.get("source") != source.name:
        return {}
    return {e["relpath"]: e for e in data.get("files", []) if isinstance(e, dict) and "relpath" in e}


def _entry(step: _Step, previous: dict[str, dict]) -> dict:
    f = step.file
    entry = {"relpath": f.relpath, "sha256": f.sha256, "size": f.size}
    if step.action == "keep":
        old = previous.get(f.relpath)
        if old and old.get("sha256") == f.sha256:
            # Kept from an earlier fetch: its origin is still the one that fetch recorded.
            entry.update({k: old[k] for k in ("origin", "url", "local_path", "fetched_at") if k in old})
            return entry
        entry.update(origin="pre-seeded", fetched_at=now())
    elif step.action == "copy":
        entry.update(origin="local_copy", local_path=step.origin, fetched_at=now())
    else:
        entry.update(origin="download", url=step.origin, fetched_at=now())
    return entry


def _same_files(entries: Iterable[dict], previous: dict[str, dict]) -> bool:
    key = lambda e: (e["relpath"], e.get("sha256"), e.get("size"))  # noqa: E731
    return sorted(map(key, entries)) == sorted(map(key, previous.values()))


def fetch_dataset(
    source: DataSource,
    dest: Path,
    *,
    mirror: str | None = None,
    local_copy: Path | None = None,
    attempts: int = 5,
    backoff_s: float = 1.0,
    timeout_s: float = 60.0,
) -> Path:
    """Make ``dest`` hold every released file of ``source`` and return ``dest/MANIFEST.json``.

    Files already in ``dest`` with the recorded hash are kept (no network); then files in
    ``local_copy`` (same relative layout) are copied; the rest are downloaded from the
    source's pinned URLs, or from ``mirror``, a base URL with the upstream layout. A second
    call with everything in place changes nothing, the manifest included, so Snakemake
    sees no new output.
    """
    dest = Path(dest)
    local_copy = Path(local_copy) if local_copy is not None else None
    dest.mkdir(parents=True, exist_ok=True)
    manifest = dest / MANIFEST_NAME

    steps = _plan(source, dest, mirror, local_copy)
    for step in steps:
        if step.action != "keep":
            log.info("%s: %s %s <- %s", source.name, step.action, step.file.relpath, step.origin)
            _transfer(step, dest, attempts=attempts, backoff_s=backoff_s, timeout_s=timeout_s)

    previous = _previous_entries(manifest, source)
    entries = [_entry(s, previous) for s in steps]
    if all(s.action == "keep" for s in steps) and previous and _same_files(entries, previous):
        return manifest
    return write_json_atomic(
        manifest,
        {
            "source": source.name,
            "license": source.license,
            "homepage": source.homepage,
            "citation": source.citation,
            "fetched_at": now(),
            "files": entries,
        },
    )


def verify_dataset(dest: Path, source: DataSource) -> None:
    """Re-check a fetched directory: manifest present and current, every file the released one.

    Run before compute jobs so that a file edited or truncated after the fetch stops the
    workflow with the file's name instead of skewing a score. Raises DataVerificationError
    listing every problem found.
    """
    dest = Path(dest)
    manifest = dest / MANIFEST_NAME
    data = read_json(manifest)
    if not isinstance(data, dict):
        raise DataVerificationError(f"{manifest} is missing or unreadable; run the fetch for {source.name} first")
    if data.get("source") != source.name:
        raise DataVerificationError(f"{manifest} is for {data.get('source')!r}, not {source.name!r}")

    recorded = _previous_entries(manifest, source)
    problems = []
    for f in source.files:
        entry = recorded.get(f.relpath)
        if entry is None or entry.get("sha256") != f.sha256 or entry.get("size") != f.size:
            problems.append(f"{f.relpath}: the manifest does not record the released file; fetch again")
        path = dest / f.relpath
        if not path.is_file():
            problems.append(f"{f.relpath}: missing from {dest}")
            continue
        size, sha256 = path.stat().st_size, sha256_of(path)
        if size != f.size or sha256 != f.sha256:
            problems.append(
                f"{f.relpath}: sha256 expected {f.sha256}, got {sha256} (size expected {f.size}, got {size})"
            )
            continue
        try:
            check_structure(path, f)
        except DataVerificationError as exc:
            problems.append(str(exc))
    if problems:
        raise DataVerificationError(f"{dest} does not hold the released {source.name}:\n  " + "\n  ".join(problems))
