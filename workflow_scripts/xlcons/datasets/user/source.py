"""Where a user set's prompts come from: the config facts (file types, set types, column keys),
the file or Hugging Face split its config section names, and the raw table read from it
before any value is checked."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FILE_SUFFIXES = (".csv", ".tsv", ".jsonl", ".parquet", ".txt")
TYPES = ("parallel", "translated")
DEFAULT_COLUMNS = {"id": "id", "lang": "lang", "prompt": "prompt"}
OPTIONAL_COLUMN_KEYS = ("reference", "category", "question_en", "target_lang")
# A .txt file has no header; its two columns get these names in messages.
TXT_COLUMNS = {"id": "(line number)", "prompt": "(line)"}
ENGLISH = "en"


@dataclass(frozen=True)
class Source:
    label: str  # how messages name it: the configured path, or the hub id and split
    path: Path | None = None
    hf_dataset: str | None = None
    split: str = "test"

    @property
    def suffix(self) -> str:
        return self.path.suffix.lower() if self.path is not None else ".parquet"


def configured_source(name: str, spec: Mapping[str, Any], base_dir: Path | str) -> tuple[Source | None, list[str]]:
    if spec.get("type", "parallel") not in TYPES:
        return None, [f"datasets.{name}.type: {spec.get('type')!r} is not one of {', '.join(TYPES)}"]
    path, hub = spec.get("path"), spec.get("hf_dataset")
    if path and hub:
        return None, [f"datasets.{name}: give path or hf_dataset, not both"]
    if not path and not hub:
        return None, [f"datasets.{name}: give path (a .csv, .tsv, .jsonl, .parquet or .txt file) or hf_dataset"]
    if hub:
        split = spec.get("split") or "test"
        return Source(f"hf_dataset {hub!r} (split {split!r})", hf_dataset=hub, split=split), []
    resolved = Path(path) if Path(path).is_absolute() else Path(base_dir) / path
    source = Source(str(path), path=resolved)
    if source.suffix not in FILE_SUFFIXES:
        return None, [
            f"datasets.{name}.path: {path}: unsupported file type "
            f"{source.suffix or '(none)'!r}; use one of {', '.join(FILE_SUFFIXES)}"
        ]
    if source.suffix == ".txt" and spec.get("type", "parallel") != "translated":
        return None, [
            f"datasets.{name}.path: {path}: a .txt file holds English prompts only, so it needs "
            "type translated; a parallel set needs a table with id, lang and prompt columns"
        ]
    if not resolved.is_file():
        return None, [f"datasets.{name}.path: file {path} does not exist"]
    return source, []


@dataclass
class QuotedSpan:
    """A quoted CSV/TSV field that runs over several lines, and those lines as the file has them."""

    column: str
    opens: int  # the line of its opening quote
    closes: int  # the line of its closing quote
    lines: list[tuple[int, str]]  # (number, text) of the lines after the first it runs over


@dataclass
class RawTable:
    columns: list[str]
    records: list[tuple[str, dict]]  # (where, the record's values by file column name)
    delimited: bool  # values are the text of CSV/TSV/TXT cells, not typed JSON/Arrow values
    quoted_spans: list[QuotedSpan] = field(default_factory=list)  # CSV/TSV only
    delimiter: str | None = None
