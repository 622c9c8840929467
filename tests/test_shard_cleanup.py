"""`xlcons clean-shards`: after a shard count changes, the files of the shard jobs the config no
longer plans are listed, and removed with --delete; the current shards' files, the item
caches and the usage ledgers stay."""

from __future__ import annotations

from pathlib import Path

import pytest

from xlcons.cli import main as xlcons

REPO = Path(__file__).resolve().parent.parent
MODEL = "qwen2.5-0.5b-instruct"  # a model of config/config.yaml


def touch(root: Path, *names: str) -> list[Path]:
    paths = [root / name for name in names]
    for path in paths:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
    return paths


@pytest.fixture
def run_with_three_shards_then_two(tmp_path, monkeypatch):
    """A results folder and logs as a run with `generation.shards: 3`, then one with 2, leave
    them (MultiQ's generation of one model): (the files of the 3 shards that only the old count
    wrote, the files that must stay)."""
    monkeypatch.chdir(tmp_path)
    old = [
        *touch(tmp_path, *(f"results/responses/multiq/{MODEL}.shard-{k}-of-3.parquet" for k in (1, 2, 3))),
        *touch(tmp_path, *(f"logs/generate/multiq/{MODEL}.shard-{k}-of-3.log" for k in (1, 2, 3))),
        *touch(tmp_path, f"logs/generate/multiq/{MODEL}.shard-2-of-3.progress.json"),
        *touch(tmp_path, f"results/benchmarks/generate/multiq/{MODEL}.shard-1-of-3.tsv"),
    ]
    kept = [
        *touch(tmp_path, *(f"results/responses/multiq/{MODEL}.shard-{k}-of-2.parquet" for k in (1, 2))),
        *touch(tmp_path, f"logs/generate/multiq/{MODEL}.shard-1-of-2.log"),
        *touch(tmp_path, f"logs/generate/multiq/{MODEL}.shard-1-of-2.progress.json"),
        *touch(tmp_path, f"results/responses/multiq/{MODEL}.parquet"),  # the merge's (the unsharded job's) file
        *touch(tmp_path, f"results/cache/generate/multiq/{MODEL}.shard-3-of-3.jsonl"),  # read by every shard job
        *touch(tmp_path, f"results/usage/generate/multiq/{MODEL}.shard-3-of-3.json"),  # spent: the budget counts it
    ]
    return old, kept


ARGS = ["clean-shards", "--snakefile", str(REPO / "Snakefile"), "--configfile", str(REPO / "config" / "config.yaml")]


@pytest.fixture
def two_shards(tmp_path) -> list[str]:
    """A second config file, merged over config.yaml: `generation.shards: 2`."""
    (tmp_path / "two-shards.yaml").write_text("generation:\n  shards: 2\n")
    return [str(tmp_path / "two-shards.yaml")]


def test_the_files_of_shards_the_config_no_longer_plans_are_listed_then_deleted(
    run_with_three_shards_then_two, two_shards, tmp_path, capsys
):
    old, kept = run_with_three_shards_then_two
    assert xlcons([*ARGS, *two_shards]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:-1] == [str(path.relative_to(tmp_path)) for path in sorted(old)]
    assert out[-1].startswith(f"xlcons clean-shards: {len(old)} files (") and "add --delete to remove them" in out[-1]
    assert all(path.exists() for path in old + kept), "listing removes nothing"

    assert xlcons([*ARGS, *two_shards, "--delete"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith(f"xlcons clean-shards: removed {len(old)} files")
    assert not any(path.exists() for path in old) and all(path.exists() for path in kept)


def test_back_to_one_job_every_shard_file_but_the_caches_and_ledgers_is_stale(
    run_with_three_shards_then_two, tmp_path, capsys
):
    old, kept = run_with_three_shards_then_two
    assert xlcons(ARGS) == 0  # config.yaml: shards 1
    listed = capsys.readouterr().out.splitlines()[:-1]
    shard_files = [path for path in kept if ".shard-" in path.name and {"cache", "usage"}.isdisjoint(path.parts)]
    assert listed == [str(path.relative_to(tmp_path)) for path in sorted(old + shard_files)]


def test_nothing_left_from_another_count_says_so(two_shards, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    touch(tmp_path, f"results/responses/multiq/{MODEL}.shard-1-of-2.parquet")
    assert xlcons([*ARGS, *two_shards, "--delete"]) == 0
    assert capsys.readouterr().out == "xlcons clean-shards: no shard file is left from another shard count\n"
    assert (tmp_path / f"results/responses/multiq/{MODEL}.shard-1-of-2.parquet").exists()
