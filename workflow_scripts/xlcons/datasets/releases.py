"""Outputs that the papers released, as recorded responses: the release formats.

The ``file`` generation backend (:mod:`xlcons.generation.backends.recorded`) serves a file of
plain records (``item_id``, ``language``, ``response``; optional ``finish_reason``, ``error``)
as a model, and knows no data set. A data set whose authors released model outputs in a format
of their own declares a reader of it here, next to the other facts about the data sets, and
the backend asks these readers first:

- ``folder``: ``function(folder) -> table | None``, the records of a release folder, or None
  when the folder is not in this format (MAKQA's ``result_<domain>.json`` files);
- ``table``: ``function(table) -> table | None``, a file's table turned into records, or None
  when its columns are not this format's (the Language Confusion Benchmark's
  ``outputs/<model>.csv``).

Readers are named ``"module:function"`` and imported when a release is read, so this module
imports nothing heavy. Adding a format is an entry here and a function in its data set's module.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa


@dataclass(frozen=True)
class ReleaseFormat:
    name: str
    dataset: str  # the built-in data set whose items the records answer
    description: str
    folder: str | None = None  # "module:function" (folder) -> records table | None
    table: str | None = None  # "module:function" (table) -> records table | None


RELEASE_FORMATS = (
    ReleaseFormat(
        "makqa",
        "makqa",
        "a folder of MAKQA's result_<domain>.json",
        folder="xlcons.datasets.makqa_released:recorded_folder",
    ),
    ReleaseFormat(
        "lcb",
        "lcb_monolingual",
        "the Language Confusion Benchmark's completions (outputs/<model>.csv)",
        table="xlcons.datasets.lcb:recorded_table",
    ),
)


def _function(reference: str) -> Any:
    module, _, name = reference.partition(":")
    return getattr(importlib.import_module(module), name)


def read_release_folder(folder: Path) -> pa.Table | None:
    """The records of the first release format that reads `folder`; None if none does."""
    for release in RELEASE_FORMATS:
        if release.folder:
            table = _function(release.folder)(folder)
            if table is not None:
                return table
    return None


def release_records(table: pa.Table) -> pa.Table:
    """`table` as records when a release format has its columns, else `table` unchanged."""
    for release in RELEASE_FORMATS:
        if release.table:
            converted = _function(release.table)(table)
            if converted is not None:
                return converted
    return table


def folder_formats() -> str:
    """The release folders the readers know, for a message."""
    return "; ".join(release.description for release in RELEASE_FORMATS if release.folder)
