"""What a data source and its released files are: ``DataFile`` and ``DataSource``, with the
checks that refuse a malformed entry (a hash that is not one, a root not pinned to a commit,
a path that leaves its folder) when the catalog is built."""

from __future__ import annotations

import re
from dataclasses import dataclass

FILE_KINDS = ("csv", "json", "tar", "zip")
JSON_TYPES = ("dict", "list")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_COMMIT_IN_URL = re.compile(r"/[0-9a-f]{40}/")


@dataclass(frozen=True)
class DataFile:
    """One released file: where it lives inside the data set, where to get it, what it must be.

    ``upstream`` is its path in the upstream repository, below the source's pinned root
    (so a mirror can serve it under the same path). ``columns`` (csv) and ``json_type``
    (json) are the structural checks run after the hash check: they catch a wrong table
    here, not a wrong download.
    """

    relpath: str
    upstream: str
    sha256: str
    size: int
    kind: str
    columns: tuple[str, ...] = ()
    json_type: str | None = None
    members: tuple[str, ...] = ()  # tar, zip: members that must be in the archive

    def __post_init__(self) -> None:
        if self.kind not in FILE_KINDS:
            raise ValueError(f"{self.relpath}: kind must be one of {FILE_KINDS}, not {self.kind!r}")
        if not _SHA256.fullmatch(self.sha256):
            raise ValueError(f"{self.relpath}: sha256 must be 64 lowercase hex digits")
        if self.size < 0:
            raise ValueError(f"{self.relpath}: size must not be negative")
        if self.json_type is not None and self.json_type not in JSON_TYPES:
            raise ValueError(f"{self.relpath}: json_type must be one of {JSON_TYPES}")
        for path in (self.relpath, self.upstream):
            if path.startswith("/") or ".." in path.split("/"):
                raise ValueError(f"{self.relpath}: {path!r} must be a relative path that stays inside its folder")


@dataclass(frozen=True)
class DataSource:
    """A data set: its files plus what a reader of the results needs to know about it."""

    name: str
    root: str  # the upstream repository's files at one commit, ending in "/"
    files: tuple[DataFile, ...]
    license: str
    homepage: str | None
    citation: str
    dataset: str  # the config's data set whose `source_url` and `path` stand for this source
    # A release served at a fixed URL without a commit in it (FLORES-200's tarball): the
    # recorded sha256 alone pins the bytes, and a changed file fails the fetch.
    unversioned: bool = False

    def __post_init__(self) -> None:
        pinned = self.unversioned or _COMMIT_IN_URL.search(self.root)
        if not (self.root.startswith("https://") and self.root.endswith("/") and pinned):
            raise ValueError(f"{self.name}: root must be an https URL pinned to a commit, ending in '/'")

    def url(self, f: DataFile, mirror: str | None = None) -> str:
        """Where to download ``f``: below the pinned root, or below a mirror with the same layout."""
        base = mirror.rstrip("/") + "/" if mirror else self.root
        return base + f.upstream

    @property
    def source_url_key(self) -> str:
        """The config key that names a mirror of the upstream files."""
        return f"datasets.{self.dataset}.source_url"

    def file(self, relpath: str) -> DataFile:
        for f in self.files:
            if f.relpath == relpath:
                return f
        raise KeyError(f"{self.name} has no file {relpath!r}")
