"""Fetch a Hugging Face model (or one file of it), or a single pinned file at a URL, into a
folder, with a marker (``.xlcons-fetched.json``) as the fetch rule's output; and the environment
that keeps compute jobs off the network."""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

from xlcons.data_sources.names import url_file_name
from xlcons.fetch.disk import now, part_path, read_json, sha256_of, write_json_atomic
from xlcons.fetch.download import download
from xlcons.fetch.errors import FetchError
from xlcons.job import HF_OFFLINE

log = logging.getLogger(__name__)

MODEL_MARKER_NAME = ".xlcons-fetched.json"
# Present while a model download is under way: a half-downloaded directory that already
# holds config.json must not pass for a pre-seeded copy on the next try.
MODEL_INCOMPLETE_NAME = ".xlcons-fetch-incomplete"
_COMMIT = re.compile(r"[0-9a-f]{40}")


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
            "fetched_at": now(),
            "files": _model_files(dest),
        },
    )


def _causes(exc: BaseException) -> list[BaseException]:
    """The error and those it was raised from, outermost first."""
    chain: list[BaseException] = []
    found: BaseException | None = exc
    while found is not None and found not in chain:
        chain.append(found)
        found = found.__cause__ or found.__context__
    return chain


def _why(exc: BaseException, hf_id: str, revision: str | None, hf_file: str | None) -> tuple[str, str, BaseException]:
    """(why the Hub gave nothing, in words a user acts on: no network, not found, gated,
    unauthorised; what to do; the error that says it), from the error and those it was raised from."""
    from huggingface_hub import errors

    try:
        from httpx2 import TransportError  # what the hub's HTTP client raises for no connection, DNS, timeouts
    except ImportError:  # another client in another hub version: its errors are ConnectionError or TimeoutError
        TransportError = ConnectionError  # noqa: N806
    network = (
        "Run the fetch on a machine with internet access (e.g. a login node), "
        "or set `path:` for this model in the config to a local copy."
    )
    login = "log in on the machine that fetches (`hf auth login`, or set HF_TOKEN)"
    for cause in _causes(exc):
        status = getattr(getattr(cause, "response", None), "status_code", None)
        if isinstance(cause, errors.GatedRepoError):
            return "gated", f"accept its terms at https://huggingface.co/{hf_id}, then {login}.", cause
        if isinstance(cause, errors.RevisionNotFoundError):
            return "not found", f"{hf_id} has no revision {revision!r}; check `revision` in the config.", cause
        if isinstance(cause, errors.RemoteEntryNotFoundError):
            return "not found", f"{hf_id} has no file {hf_file!r}; check `hf_file` in the config.", cause
        if isinstance(cause, errors.RepositoryNotFoundError):
            return (
                "not found",
                f"the Hub has no model {hf_id!r} that this machine may see: check `hf_id` in the config "
                f"(a private model also needs you to {login}).",
                cause,
            )
        if isinstance(cause, errors.HfHubHTTPError) and status in (401, 403):
            return "unauthorised", f"the Hub refused the token (HTTP {status}); {login}.", cause
        if isinstance(cause, errors.OfflineModeIsEnabled):
            return "no network", "HF_HUB_OFFLINE is set in this environment; unset it for the fetch.", cause
        if isinstance(cause, (TransportError, ConnectionError, TimeoutError)):
            return "no network", network, cause
    hint = ""
    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in {"1", "true", "yes", "on"}:
        hint = " HF_HUB_OFFLINE is set in this environment; unset it for the fetch."
    return "the Hub failed", network + " Gated models also need `hf auth login`." + hint, exc


def _hub_error(hf_id: str, revision: str | None, hf_file: str | None, exc: BaseException) -> FetchError:
    """The error a failed download stops the job with: why first (no network, not found,
    gated, unauthorised), then the model, the Hub's own words and what to do."""
    what = hf_id + (f" (revision {revision})" if revision else "") + (f", file {hf_file}" if hf_file else "")
    why, remedy, cause = _why(exc, hf_id, revision, hf_file)
    said = " ".join(str(cause).split())  # the hub's message (often several lines) on one
    return FetchError(
        f"{why}: could not fetch model {what} from the Hugging Face Hub ({type(cause).__name__}: {said}). {remedy}"
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
    previous = read_json(marker)

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
            # A dry run first: with files in `dest` (the marker above, a download cut short) the hub
            # answers an unreachable, unknown or refused repository by returning `dest` as it is,
            # with a warning; the dry run raises the reason instead, and lists files, nothing more.
            huggingface_hub.snapshot_download(
                hf_id, revision=revision, local_dir=dest, allow_patterns=allow_patterns, dry_run=True
            )
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
        part = part_path(target)
        actual, size = download(url, part, attempts=attempts, backoff_s=backoff_s, timeout_s=timeout_s)
        if actual != sha256:
            part.unlink(missing_ok=True)
            raise FetchError(
                f"{url} is not the pinned file: sha256 expected {sha256}, got {actual} ({size} bytes); it was not kept"
            )
        os.replace(part, target)
    elif (
        isinstance(previous := read_json(marker), dict)
        and previous.get("url") == url
        and previous.get("sha256") == sha256
    ):
        return marker
    return write_json_atomic(
        marker,
        {"url": url, "sha256": sha256, "pre_seeded": pre_seeded, "fetched_at": now(), "files": _model_files(dest)},
    )
