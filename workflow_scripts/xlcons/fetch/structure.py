"""The structural checks of a released file, run after its hash check: a CSV's columns, a JSON
file's top-level type, the members an archive must hold."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from xlcons.data_sources.spec import DataFile
from xlcons.fetch.errors import DataVerificationError


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
