"""What a fetch raises: ``FetchError`` (something could not be put on disk; the message says
what to do) and ``DataVerificationError`` (a file is not the released one)."""

from __future__ import annotations


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
