"""Download one URL into a ``.part`` file, hashing it on the way, with retries and exponential
backoff for the answers worth another try; FetchError, with what to do, when it fails."""

from __future__ import annotations

import hashlib
import http.client
import logging
import os
import urllib.error
import urllib.request
from pathlib import Path
from typing import BinaryIO

import tenacity

from xlcons.fetch.disk import CHUNK
from xlcons.fetch.errors import FetchError

log = logging.getLogger(__name__)

# HTTP answers worth another try: the server (or a proxy) is busy, not saying "no".
TRANSIENT_HTTP_CODES = frozenset({408, 425, 429, 500, 502, 503, 504})


def copy_stream(src: BinaryIO, part: Path) -> tuple[str, int]:
    """Copy to ``part`` and hash on the way, so a large file is read only once."""
    h = hashlib.sha256()
    size = 0
    part.parent.mkdir(parents=True, exist_ok=True)
    with open(part, "wb") as out:
        for chunk in iter(lambda: src.read(CHUNK), b""):
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


def download(url: str, part: Path, *, attempts: int, backoff_s: float, timeout_s: float) -> tuple[str, int]:
    """Stream ``url`` into ``part`` with retries and exponential backoff; FetchError at the end."""

    def once() -> tuple[str, int]:
        request = urllib.request.Request(url, headers={"User-Agent": "xlcons-fetch"})
        try:
            with urllib.request.urlopen(request, timeout=timeout_s) as response:
                return copy_stream(response, part)
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
