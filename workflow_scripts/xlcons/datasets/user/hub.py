"""Reading a user set from a Hugging Face split into the raw table that files give
(xlcons.datasets.user.reading); the one reader that needs the `datasets` package."""

from __future__ import annotations

from xlcons.datasets.user.problems import Problems
from xlcons.datasets.user.reading import read_raw, rows_table
from xlcons.datasets.user.source import RawTable, Source


def read_source(source: Source, problems: Problems) -> RawTable:
    """A user set's raw table, from its file or its Hugging Face split."""
    return read_raw(source, problems) if source.path is not None else read_hub(source, problems)


def read_hub(source: Source, problems: Problems) -> RawTable:
    """The raw table of a Hugging Face split (`hf_dataset`, `split`); a failure is a problem of the source."""
    try:
        from datasets import load_dataset
    except ImportError:
        problems.of_file("loading a Hugging Face data set needs the `datasets` package: pip install datasets")
        return RawTable([], [], delimited=False)
    try:
        dataset = load_dataset(source.hf_dataset, split=source.split)
    except Exception as error:  # noqa: BLE001 - the hub raises many kinds; the user needs the text
        problems.of_file(f"could not be loaded: {type(error).__name__}: {error}")
        return RawTable([], [], delimited=False)
    records = [dict(record) for record in dataset]
    columns = list(getattr(dataset, "column_names", None) or dict.fromkeys(key for record in records for key in record))
    return rows_table(columns, records)
