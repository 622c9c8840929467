"""Fetch data sets and models, once, on a machine with internet (a login node).

Compute jobs run offline (see :func:`hf_offline_env`), so everything they read must be
on disk before they start. The fetch rules call the two entry points here:

* :func:`fetch_dataset` makes a directory hold every released file of a
  :class:`~xlcons.data_sources.DataSource`, verified against the recorded size and
  sha256, and writes ``MANIFEST.json`` as the rule's output.
* :func:`fetch_model` downloads a Hugging Face model (or one file of it) and writes
  ``.xlcons-fetched.json`` as the rule's output.

Both accept copies that are already there ("pre-seeded"), so clusters without internet
anywhere can be fed by hand. Every output is written atomically (temporary file, then
``os.replace``): a killed job never leaves a file that looks complete.
"""

from __future__ import annotations

import csv
import hashlib
import http.client
import json
import logging
import os
import re
import urllib.error
import urllib.request
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, BinaryIO

import tenacity

from xlcons.atomic import atomic_path
from xlcons.data_sources import DataFile, DataSource, url_file_name
from xlcons.job import HF_OFFLINE

log = logging.getLogger(__name__)

MANIFEST_NAME = "MANIFEST.json"
MODEL_MARKER_NAME = ".xlcons-fetched.json"
# Present while a model download is under way: a half-downloaded directory that already
# holds config.json must not pass for a pre-seeded copy on the next try.
MODEL_INCOMPLETE_NAME = ".xlcons-fetch-incomplete"

# HTTP answers worth another try: the server (or a proxy) is busy, not saying "no".
TRANSIENT_HTTP_CODES = frozenset({408, 425, 429, 500, 502, 503, 504})
_CHUNK = 1 << 20
_COMMIT = re.compile(r"[0-9a-f]{40}")


class FetchError(RuntimeError):
    """Something the workflow needs could not be put on disk; the message says what to do."""


class DataVerificationError(FetchError):
    """A file is not the released one (size, sha256 or structure differ)."""

    def __init__(
        self,
        message: str,
        *,
        relpath: str | None = None,
        expected_sha256: str | None = None,
        actual_sha256: str | None = None,
        origin: str | None = None,
    ) -> None:
        super().__init__(message)
        self.relpath = relpath
        self.expected_sha256 = expected_sha256
        self.actual_sha256 = actual_sha256
        self.origin = origin


# --- small helpers ---------------------------------------------------------------------------


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def write_json_atomic(path: Path, obj: Any) -> Path:
    """Write JSON so that readers see the old file or the new one, never a partial one."""
    path = Path(path)
    with atomic_path(path) as temporary, open(temporary, "w", encoding="utf-8") as fh:
        json.dump(obj, fh, indent=2, ensure_ascii=False)
        fh.write("\n")
        fh.flush()
        os.fsync(fh.fileno())
    return path


def _read_json(path: Path) -> Any | None:
    """The parsed file, or None when it is missing or unreadable (treated as absent)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def _is_released_copy(path: Path, f: DataFile) -> bool:
    """Cheap size test first, so a wrong file of another size costs no hashing."""
    return path.is_file() and path.stat().st_size == f.size and sha256_of(path) == f.sha256


def _part_path(final: Path) -> Path:
    return final.with_name(final.name + ".part")


# --- structural checks -----------------------------------------------------------------------


def check_structure(path: Path, f: DataFile) -> None:
    """Check that a file has the shape the workflow reads (columns, JSON top-level type).

    The hash already proves it is the released file; this catches a wrong entry in the
    table of released files, before a compute job fails on it hours later.
    """
    if f.kind == "csv":
        _check_csv(path, f)
    elif f.kind == "json":
        _check_json(path, f)
    elif f.kind == "tar":
        _check_tar(path, f)
    elif f.kind == "zip":
        _check_zip(path, f)


def _check_csv(path: Path, f: DataFile) -> None:
    with open(path, newline="", encoding="utf-8-sig") as fh:
        reader = csv.reader(fh)
        header = next(reader, None)
        first_row = next(reader, None)
    if header is None or first_row is None:
        raise DataVerificationError(f"{f.relpath}: CSV has no header or no rows", relpath=f.relpath)
    missing = [c for c in f.columns if c not in header]
    if missing:
        raise DataVerificationError(
            f"{f.relpath}: CSV lacks the columns {missing} (header: {header})", relpath=f.relpath
        )


def _check_json(path: Path, f: DataFile) -> None:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except ValueError as exc:
        raise DataVerificationError(f"{f.relpath}: not valid JSON ({exc})", relpath=f.relpath) from exc
    wanted = {"dict": dict, "list": list}.get(f.json_type or "")
    if wanted is not None and not isinstance(data, wanted):
        raise DataVerificationError(
            f"{f.relpath}: JSON top level is {type(data).__name__}, expected {f.json_type}",
            relpath=f.relpath,
        )


def _check_zip(path: Path, f: DataFile) -> None:
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError) as exc:
        raise DataVerificationError(f"{f.relpath}: not a readable zip archive ({exc})", relpath=f.relpath) from exc
    missing = [member for member in f.members if member not in names]
    if missing:
        raise DataVerificationError(f"{f.relpath}: the archive lacks {missing}", relpath=f.relpath)


def _check_tar(path: Path, f: DataFile) -> None:
    import tarfile

    try:
        with tarfile.open(path) as archive:
            names = {name.removeprefix("./") for name in archive.getnames()}
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise DataVerificationError(f"{f.relpath}: not a readable tar archive ({exc})", relpath=f.relpath) from exc
    missing = [member for member in f.members if member not in names]
    if missing:
        raise DataVerificationError(f"{f.relpath}: the archive lacks {missing}", relpath=f.relpath)


# --- datasets: planning ----------------------------------------------------------------------


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


# --- datasets: transfer ----------------------------------------------------------------------


def _copy_stream(src: BinaryIO, part: Path) -> tuple[str, int]:
    """Copy to ``part`` and hash on the way, so a large file is read only once."""
    h = hashlib.sha256()
    size = 0
    part.parent.mkdir(parents=True, exist_ok=True)
    with open(part, "wb") as out:
        for chunk in iter(lambda: src.read(_CHUNK), b""):
            out.write(chunk)
            h.update(chunk)
            size += len(chunk)
        out.flush()
        os.fsync(out.fileno())
    return h.hexdigest(), size


def _is_transient(exc: BaseException) -> bool:
    """Busy servers, resets and timeouts are worth retrying; 404s and bad URLs are not."""
    if isinstance(exc, urllib.error.HTTPError):
        return exc.code in TRANSIENT_HTTP_CODES
    if isinstance(exc, urllib.error.URLError):
        return not isinstance(exc.reason, (FileNotFoundError, ValueError))
    return isinstance(exc, (TimeoutError, ConnectionError, http.client.HTTPException))


def _download(url: str, part: Path, *, attempts: int, backoff_s: float, timeout_s: float) -> tuple[str, int]:
    """Stream ``url`` into ``part`` with retries and exponential backoff; FetchError at the end."""

    def once() -> tuple[str, int]:
        request = urllib.request.Request(url, headers={"User-Agent": "xlcons-fetch"})
        try:
            with urllib.request.urlopen(request, timeout=timeout_s) as response:
                return _copy_stream(response, part)
        except urllib.error.HTTPError as exc:
            exc.close()  # an HTTP error holds the connection open until closed
            raise

    def before_sleep(state: tenacity.RetryCallState) -> None:
        log.warning(
            "download of %s failed (%s); try %d of %d",
            url,
            state.outcome.exception(),
            state.attempt_number,
            attempts,
        )

    retrying = tenacity.Retrying(
        stop=tenacity.stop_after_attempt(attempts),
        wait=tenacity.wait_exponential(multiplier=backoff_s, max=60),
        retry=tenacity.retry_if_exception(_is_transient),
        before_sleep=before_sleep,
        reraise=True,
    )
    try:
        return retrying(once)
    except (OSError, http.client.HTTPException, ValueError) as exc:
        part.unlink(missing_ok=True)
        raise FetchError(
            f"could not download {url}: {exc}. Check the network (run the fetch on a machine with "
            f"internet, e.g. a login node), or put a copy of the file at {part.with_suffix('')} "
            f"(pre-seeded files are verified and used as they are)."
        ) from exc


def _mismatch(f: DataFile, origin: str, sha256: str, size: int) -> DataVerificationError:
    return DataVerificationError(
        f"{f.relpath} from {origin} is not the released file: sha256 expected {f.sha256}, "
        f"got {sha256} (size expected {f.size}, got {size}). It was not kept; if upstream "
        f"changed the file on purpose, update xlcons/data_sources.py.",
        relpath=f.relpath,
        expected_sha256=f.sha256,
        actual_sha256=sha256,
        origin=origin,
    )


def _transfer(step: _Step, dest: Path, *, attempts: int, backoff_s: float, timeout_s: float) -> None:
    """Put one file at its final path via ``<file>.part``; only a verified file is renamed in."""
    f, final = step.file, dest / step.file.relpath
    part = _part_path(final)
    # A stale, wrong file at the final path goes first: the final path only ever holds
    # a verified file, or nothing.
    final.unlink(missing_ok=True)
    try:
        if step.action == "copy":
            with open(step.origin, "rb") as src:
                sha256, size = _copy_stream(src, part)
        else:
            sha256, size = _download(step.origin, part, attempts=attempts, backoff_s=backoff_s, timeout_s=timeout_s)
        if size != f.size or sha256 != f.sha256:
            raise _mismatch(f, step.origin, sha256, size)
        check_structure(part, f)
        os.replace(part, final)
    except BaseException:
        part.unlink(missing_ok=True)
        raise


# --- datasets: entry points ------------------------------------------------------------------


def _previous_entries(manifest: Path, source: DataSource) -> dict[str, dict]:
    data = _read_json(manifest)
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
        entry.update(origin="pre-seeded", fetched_at=_now())
    elif step.action == "copy":
        entry.update(origin="local_copy", local_path=step.origin, fetched_at=_now())
    else:
        entry.update(origin="download", url=step.origin, fetched_at=_now())
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
            "fetched_at": _now(),
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
    data = _read_json(manifest)
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


# --- models ----------------------------------------------------------------------------------


def hf_offline_env() -> dict[str, str]:
    """Environment for compute jobs: the Hugging Face libraries must not reach for the network.

    Compute nodes usually have no internet; without these a missing file turns into a
    long hang on retries instead of an immediate, readable error. Every compute job's
    script sets them (:func:`xlcons.job.start_job`).
    """
    return dict(HF_OFFLINE)


def _holds_usable_model(dest: Path, hf_file: str | None) -> bool:
    return (dest / hf_file).is_file() if hf_file else (dest / "config.json").is_file()


def _model_files(dest: Path) -> list[dict]:
    """Files of the model, without the hub's download bookkeeping and our own markers."""
    skip = {MODEL_MARKER_NAME, MODEL_INCOMPLETE_NAME}
    files = []
    for path in sorted(dest.rglob("*")):
        rel = path.relative_to(dest)
        if path.is_file() and rel.parts[0] != ".cache" and rel.name not in skip:
            files.append({"path": rel.as_posix(), "size": path.stat().st_size})
    return files


def _resolved_commit(dest: Path, revision: str | None) -> str | None:
    """The commit the files came from, when it can be known without asking the hub.

    A full commit hash as revision is its own answer; otherwise the hub's local-dir
    download metadata (first line: commit hash) is read, if it names a single commit.
    """
    if revision and _COMMIT.fullmatch(revision):
        return revision
    commits = set()
    for meta in (dest / ".cache" / "huggingface" / "download").rglob("*.metadata"):
        try:
            first = meta.read_text(encoding="utf-8").splitlines()[0].strip()
        except (OSError, IndexError, UnicodeDecodeError):
            continue
        if _COMMIT.fullmatch(first):
            commits.add(first)
    return commits.pop() if len(commits) == 1 else None


def _write_marker(
    dest: Path,
    *,
    hf_id: str,
    revision: str | None,
    hf_file: str | None,
    allow_patterns: list[str] | None,
    pre_seeded: bool,
) -> Path:
    return write_json_atomic(
        dest / MODEL_MARKER_NAME,
        {
            "hf_id": hf_id,
            "revision": revision,
            "commit": _resolved_commit(dest, revision),
            "hf_file": hf_file,
            "allow_patterns": allow_patterns,
            "pre_seeded": pre_seeded,
            "fetched_at": _now(),
            "files": _model_files(dest),
        },
    )


def _hub_error(hf_id: str, revision: str | None, hf_file: str | None, exc: BaseException) -> FetchError:
    what = hf_id + (f" (revision {revision})" if revision else "") + (f", file {hf_file}" if hf_file else "")
    hint = ""
    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in {"1", "true", "yes", "on"}:
        hint = " HF_HUB_OFFLINE is set in this environment; unset it for the fetch."
    return FetchError(
        f"could not fetch model {what} from the Hugging Face Hub: {type(exc).__name__}: {exc}. "
        f"Run the fetch on a machine with internet access (e.g. a login node; gated models also "
        f"need `hf auth login`), or set `path:` for this model in the config to a local copy.{hint}"
    )


def fetch_model(
    dest: Path,
    *,
    hf_id: str,
    revision: str | None = None,
    hf_file: str | None = None,
    allow_patterns: list[str] | None = None,
) -> Path:
    """Put a Hugging Face model (or the single file ``hf_file``) in ``dest``; return the marker.

    A directory that already holds a usable model (``config.json``, or ``hf_file``) and
    was not left half-downloaded by an earlier try is used as it is, without network
    access; the marker records it as pre-seeded. A marker from an earlier fetch of the
    same model means there is nothing to do. Hub errors become FetchError.
    """
    dest = Path(dest)
    marker = dest / MODEL_MARKER_NAME
    incomplete = dest / MODEL_INCOMPLETE_NAME
    previous = _read_json(marker)

    if isinstance(previous, dict) and not incomplete.exists():
        if previous.get("hf_id") != hf_id:
            raise FetchError(
                f"{dest} holds {previous.get('hf_id')!r}, not {hf_id!r}; remove the directory "
                f"or point this model at another one"
            )
        unchanged = all(
            previous.get(k) == v
            for k, v in (("revision", revision), ("hf_file", hf_file), ("allow_patterns", allow_patterns))
        )
        if previous.get("pre_seeded") or unchanged:
            return marker

    if not incomplete.exists() and not isinstance(previous, dict) and _holds_usable_model(dest, hf_file):
        log.info("%s: using the pre-seeded copy in %s", hf_id, dest)
        return _write_marker(
            dest, hf_id=hf_id, revision=revision, hf_file=hf_file, allow_patterns=allow_patterns, pre_seeded=True
        )

    import huggingface_hub  # heavy and only needed here; looked up at call time so tests can fake it

    dest.mkdir(parents=True, exist_ok=True)
    incomplete.touch()
    try:
        if hf_file:
            huggingface_hub.hf_hub_download(hf_id, filename=hf_file, revision=revision, local_dir=dest)
        else:
            huggingface_hub.snapshot_download(hf_id, revision=revision, local_dir=dest, allow_patterns=allow_patterns)
    except Exception as exc:  # the hub raises many types (HTTP, offline, gated, validation), by version
        raise _hub_error(hf_id, revision, hf_file, exc) from exc
    if not _holds_usable_model(dest, hf_file) and not _model_files(dest):
        raise FetchError(f"fetching {hf_id} into {dest} produced no files; check allow_patterns {allow_patterns}")
    path = _write_marker(
        dest, hf_id=hf_id, revision=revision, hf_file=hf_file, allow_patterns=allow_patterns, pre_seeded=False
    )
    incomplete.unlink(missing_ok=True)
    return path


def fetch_url_file(
    dest: Path, *, url: str, sha256: str, attempts: int = 4, backoff_s: float = 5.0, timeout_s: float = 120.0
) -> Path:
    """Put the single file at ``url`` in ``dest`` (checked against ``sha256``); return the marker.

    A file already there with the recorded sha256 (fetched before, or pre-seeded by hand) is
    used without network access. A download with other bytes is refused and not kept.
    """
    dest = Path(dest)
    target = dest / url_file_name(url)
    marker = dest / MODEL_MARKER_NAME
    pre_seeded = target.is_file() and sha256_of(target) == sha256
    if not pre_seeded:
        dest.mkdir(parents=True, exist_ok=True)
        part = _part_path(target)
        actual, size = _download(url, part, attempts=attempts, backoff_s=backoff_s, timeout_s=timeout_s)
        if actual != sha256:
            part.unlink(missing_ok=True)
            raise FetchError(
                f"{url} is not the pinned file: sha256 expected {sha256}, got {actual} ({size} bytes); it was not kept"
            )
        os.replace(part, target)
    elif (
        isinstance(previous := _read_json(marker), dict)
        and previous.get("url") == url
        and previous.get("sha256") == sha256
    ):
        return marker
    return write_json_atomic(
        marker,
        {"url": url, "sha256": sha256, "pre_seeded": pre_seeded, "fetched_at": _now(), "files": _model_files(dest)},
    )
