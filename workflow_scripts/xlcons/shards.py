"""One model job's items split over N shard jobs, and the shards' rows put back together.

A (data set, model) job of generation, the judge or the information evaluator can run as N
jobs, each on its own GPUs (`generation.shards`, `evaluators.<name>.shards`). An item belongs
to shard ``1 + int(sha256(item_id)[:8]) % N``: the same shard on every run, machine and Python
version (never ``hash()``, which Python salts per process). The key is the item, not the
(item, language) row: every language of an item is in one shard, so the information
evaluator extracts an item's English facts once, as the unsharded job does.

A shard job writes its rows beside the unsharded job's output (``<name>.shard-<k>-of-<N>.<ext>``)
and keeps its own item cache there too. Every job of a (stage, data set, model) reads, besides
its own cache, the caches of the unsharded job and of every shard of any N (`related_caches`):
an answer is found whichever job asked for it, so changing N generates nothing again. The
merge (`merge_rows`) puts the shards' rows back in the unsharded job's order, read from the
job's input table, so what follows the merge gets the very tables an unsharded run writes.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import Path

import pyarrow as pa

ITEM = "item_id"  # the column whose value decides an item's shard
ORDER_KEYS = ("item_id", "lang")  # what ties an output row to its input row
SHARD_FILE = re.compile(r"\.shard-(\d+)-of-(\d+)(?:\.[^.]*)?$")  # a shard job's file name ends so


class ShardError(ValueError):
    """A shard count that is not a whole number of at least 1, or shard rows that do not fit the job's input."""


def check_count(count: object, key: str) -> int:
    """`count` when it is an integer of at least 1; otherwise the error names the config `key`."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ShardError(f"{key} must be an integer of at least 1 (1: one job, no shards), not {count!r}")
    return count


def shard_of(key: str, count: int) -> int:
    """The shard (1 to `count`) of an item key: the first 8 bytes of its UTF-8 sha256, modulo `count`."""
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return 1 + int.from_bytes(digest[:8], "big") % count


def shard_rows(table: pa.Table, shard: int, count: int) -> pa.Table:
    """The rows of `table` whose item is in `shard` of `count`, in their order."""
    if not 1 <= shard <= count:
        raise ShardError(f"shard {shard} of {count}: shards are numbered 1 to {count}")
    mask = [shard_of(item, count) == shard for item in table[ITEM].to_pylist()]
    return table.filter(pa.array(mask, pa.bool_()))


def shard_name(name: str, shard: int | str, count: int) -> str:
    """A shard's file name from the unsharded job's: ``model.parquet`` -> ``model.shard-2-of-3.parquet``
    (`shard` may be a wildcard, ``{shard}``)."""
    stem, dot, suffix = name.rpartition(".")
    if not dot:
        stem, suffix = name, ""
    return f"{stem}.shard-{shard}-of-{count}{dot}{suffix}"


def shard_path(path: str, shard: int | str, count: int) -> str:
    """`path` with its file name made a shard's (`shard_name`)."""
    folder, slash, name = path.rpartition("/")
    return f"{folder}{slash}{shard_name(name, shard, count)}"


def related_caches(path: Path | str) -> list[Path]:
    """The other caches of the same (stage, data set, model) as the cache at `path`: the
    unsharded job's and every shard's of any count, that exist, in name order."""
    path = Path(path)
    own = SHARD_FILE.sub("", path.stem)
    pattern = re.compile(rf"{re.escape(own)}(?:\.shard-\d+-of-\d+)?{re.escape(path.suffix)}")
    if not path.parent.is_dir():
        return []
    return sorted(
        candidate
        for candidate in path.parent.iterdir()
        if candidate != path and pattern.fullmatch(candidate.name) and candidate.is_file()
    )


def file_shard(path: Path | str) -> tuple[int, int] | None:
    """(shard, count) of a shard job's file (`shard_name`), None for an unsharded job's."""
    match = SHARD_FILE.search(Path(path).name)
    return (int(match.group(1)), int(match.group(2))) if match else None


def job_shard(smk) -> tuple[int, int] | None:
    """(shard, count) of a Snakemake job, as its first output's name says; None for an unsharded job."""
    return file_shard(smk.output[0])


def merge_rows(shards: Sequence[pa.Table], order: pa.Table, schema: pa.Schema) -> pa.Table:
    """The shards' rows in the unsharded job's order: by the position of their (item_id, lang)
    among the rows of `order` (the job's input), the rows of one (item_id, lang) in the order
    their shard wrote them. Every row's (item_id, lang) must be one of `order`'s."""
    position: dict[tuple, int] = {}
    for index, key in enumerate(zip(*(order[name].to_pylist() for name in ORDER_KEYS))):
        position.setdefault(key, index)
    table = pa.concat_tables([shard.select(schema.names).cast(schema) for shard in shards]) if shards else None
    if table is None or table.num_rows == 0:
        return schema.empty_table()
    keys = list(zip(*(table[name].to_pylist() for name in ORDER_KEYS)))
    unknown = [key for key in keys if key not in position]
    if unknown:
        raise ShardError(
            f"{len(unknown)} shard rows belong to no input row, first (item_id, lang) {unknown[0]}: the shards were "
            "written from other inputs; run the shard jobs again"
        )
    ranks = [position[key] for key in keys]
    # sorted() is stable: the rows of one (item_id, lang), all from one shard, keep their order
    return table.take(pa.array(sorted(range(len(ranks)), key=ranks.__getitem__), pa.int64()))


__all__ = [
    "ITEM",
    "ShardError",
    "check_count",
    "file_shard",
    "job_shard",
    "merge_rows",
    "related_caches",
    "shard_name",
    "shard_of",
    "shard_path",
    "shard_rows",
]
