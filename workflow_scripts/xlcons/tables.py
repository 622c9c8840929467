"""Reading and writing the stage tables: schema-checked, written atomically."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from xlcons.atomic import atomic_path


class SchemaError(ValueError):
    """A table does not have the columns or types its schema demands."""


def conform(table: pa.Table, schema: pa.Schema, *, what: str) -> pa.Table:
    """Select and cast the schema's columns, or say which are missing or unconvertible."""
    missing = [name for name in schema.names if name not in table.column_names]
    if missing:
        raise SchemaError(f"{what}: missing columns {missing} (has {table.column_names})")
    columns = []
    for field in schema:
        column = table.column(field.name)
        try:
            column = column.cast(field.type)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as error:
            raise SchemaError(f"{what}: column '{field.name}' cannot be read as {field.type}: {error}") from None
        if not field.nullable and column.null_count:
            raise SchemaError(f"{what}: column '{field.name}' has {column.null_count} empty values")
        columns.append(column)
    return pa.Table.from_arrays(columns, schema=schema)


def write_table(table: pa.Table, path: Path | str, schema: pa.Schema) -> Path:
    """Write `table` as Parquet at `path` via a temporary file and a rename (never half a file)."""
    path = Path(path)
    table = conform(table, schema, what=str(path))
    with atomic_path(path) as temporary:
        pq.write_table(table, temporary)
    return path


def read_table(path: Path | str, schema: pa.Schema, columns: list[str] | None = None) -> pa.Table:
    """Read a stage table and check it against its schema; with `columns`, only those
    (read from the file alone, without its text columns)."""
    if columns is None:
        return conform(pq.read_table(path), schema, what=str(path))
    present = set(pq.read_schema(path).names)
    table = pq.read_table(path, columns=[name for name in columns if name in present])
    return conform(table, pa.schema([schema.field(name) for name in columns]), what=str(path))


def concat_table_files(paths, out_path: Path | str, schema: pa.Schema) -> Path:
    """Several stage tables of one schema, in order, as one (written atomically)."""
    tables = [read_table(path, schema) for path in paths]
    return write_table(pa.concat_tables(tables) if tables else schema.empty_table(), out_path, schema)
