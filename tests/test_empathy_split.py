"""EPITOME reading, joining and the seeker-post-level train/dev/test split."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from xlcons.datasets import epitome
from xlcons.datasets.epitome import (
    DEFAULT_SPLIT_FILE,
    FILES,
    MECHANISMS,
    EpitomeError,
    join_mechanisms,
    make_split,
    mechanism_examples,
    read_mechanism,
    read_pairs,
    read_split,
    split_sizes,
    split_text,
)


@pytest.fixture(scope="module")
def epitome_dir(shared_data: Path) -> Path:
    folder = shared_data / "epitome"
    if not all((folder / name).is_file() for name in FILES.values()):
        pytest.fail(f"EPITOME CSVs not found under {folder}")
    return folder


@pytest.fixture(scope="module")
def examples(epitome_dir):
    return {mechanism: mechanism_examples(epitome_dir, mechanism) for mechanism in MECHANISMS}


def write_csv(path: Path, rows, columns=epitome.COLUMNS) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        writer.writerows(rows)


def tiny_release(folder: Path, pairs_per_mechanism=None) -> Path:
    base = [("s1", "r1", "I feel alone", "I'm sorry", "1", ""), ("s1", "r2", "I feel alone", "Why?", "0", ""),
            ("s2", "r3", "Nobody cares", "I understand", "2", "")]  # fmt: skip
    for mechanism, name in FILES.items():
        rows = (pairs_per_mechanism or {}).get(mechanism, base)
        write_csv(folder / name, rows)
    return folder


# -- reading and joining --------------------------------------------------------------------


def test_release_joins_into_3084_pairs_with_the_same_keys(epitome_dir):
    pairs, report = join_mechanisms({m: read_mechanism(epitome_dir, m) for m in MECHANISMS})
    assert report.consistent and report.n_joined == 3084
    assert report.n_rows == {"ER": 3084, "IP": 3084, "EX": 3084}
    assert report.repeated_pairs == 60  # repeated (sp_id, rp_id) rows are kept, keyed by occurrence
    assert len({(p.sp_id, p.rp_id, p.occurrence) for p in pairs}) == 3084
    assert len({p.sp_id for p in pairs}) == 2979
    assert all(set(p.labels.values()) <= {0, 1} for p in pairs)


def test_levels_are_binarised_as_level_above_zero(tmp_path):
    tiny_release(tmp_path)
    assert [e.label for e in read_mechanism(tmp_path, "ER")] == [1, 0, 1]
    assert [p.combination for p in read_pairs(tmp_path)] == ["ER1-IP1-EX1", "ER0-IP0-EX0", "ER1-IP1-EX1"]


def test_missing_file_and_column_are_named(tmp_path):
    with pytest.raises(EpitomeError, match="emotional-reactions-reddit.csv"):
        read_mechanism(tmp_path, "ER")
    write_csv(
        tmp_path / FILES["IP"],
        [("s1", "r1", "x", "y", "0")],
        columns=("sp_id", "rp_id", "seeker_post", "response_post", "label"),
    )
    with pytest.raises(EpitomeError, match=r"interpretations-reddit\.csv: missing column\(s\) level, rationales"):
        read_mechanism(tmp_path, "IP")


def test_bad_level_is_reported_with_file_and_line(tmp_path):
    write_csv(tmp_path / FILES["EX"], [("s1", "r1", "x", "y", "0", ""), ("s2", "r2", "x", "y", "3", "")])
    with pytest.raises(EpitomeError, match=r"explorations-reddit\.csv, line 3: column 'level' is '3'"):
        read_mechanism(tmp_path, "EX")


def test_files_covering_different_pairs_fail_or_are_intersected(tmp_path):
    rows = [("s1", "r1", "a", "b", "1", ""), ("s2", "r2", "c", "d", "0", "")]
    tiny_release(tmp_path, {"ER": rows, "IP": rows, "EX": rows[:1]})
    with pytest.raises(EpitomeError, match=r"explorations-reddit\.csv lacks 1"):
        read_pairs(tmp_path)
    pairs = read_pairs(tmp_path, on_mismatch="inner")
    assert [(p.sp_id, p.rp_id) for p in pairs] == [("s1", "r1")]


# -- the split ------------------------------------------------------------------------------


def test_split_sizes_are_75_5_20_of_the_seeker_posts():
    assert split_sizes(2979) == {"train": 2234, "dev": 149, "test": 596}
    for n in (1, 7, 20, 101, 2979):
        sizes = split_sizes(n)
        assert sum(sizes.values()) == n
        for name, fraction in epitome.SPLIT_FRACTIONS.items():
            assert abs(sizes[name] - fraction * n) <= 1


def test_committed_split_covers_every_post_once_with_the_sizes(epitome_dir):
    split = read_split()
    posts = {p.sp_id for p in read_pairs(epitome_dir)}
    assert set(split) == posts
    counts = {name: sum(1 for value in split.values() if value == name) for name in epitome.SPLITS}
    assert counts == split_sizes(len(posts))


def test_no_seeker_post_in_two_splits_and_the_same_split_for_all_mechanisms(examples):
    for grouped in examples.values():
        ids = {name: {e.sp_id for e in rows} for name, rows in grouped.items()}
        assert not (ids["train"] & ids["dev"]) and not (ids["train"] & ids["test"]) and not (ids["dev"] & ids["test"])
        assert sum(len(rows) for rows in grouped.values()) == 3084
    for name in epitome.SPLITS:
        keys = [[e.key for e in examples[m][name]] for m in MECHANISMS]
        assert keys[0] == keys[1] == keys[2]


def test_split_is_reproducible_from_its_seed():
    ids = [f"p{i}" for i in range(500)]
    assert make_split(ids, 42) == make_split(reversed(ids), 42)
    assert make_split(ids, 42) != make_split(ids, 43)


def test_regenerating_with_seed_42_reproduces_the_committed_file(epitome_dir, tmp_path):
    written = tmp_path / "split.tsv"
    assert epitome.main(["--data", str(epitome_dir), "--write", str(written), "--check", str(DEFAULT_SPLIT_FILE)]) == 0
    assert written.read_bytes() == DEFAULT_SPLIT_FILE.read_bytes()
    assert DEFAULT_SPLIT_FILE.read_bytes() == split_text(epitome.generate_split(epitome_dir, 42)).encode()
    assert DEFAULT_SPLIT_FILE.read_text().splitlines()[0] == "sp_id\tsplit"  # ids only, no text


def test_split_file_errors(tmp_path):
    bad = tmp_path / "split.tsv"
    bad.write_text("sp_id\tsplit\na\ttrain\nb\tvalid\n")
    with pytest.raises(EpitomeError, match="line 3"):
        read_split(bad)
    with pytest.raises(EpitomeError, match="not found"):
        read_split(tmp_path / "none.tsv")


def test_positive_rates_are_reported_next_to_the_papers(epitome_dir):
    rows = epitome.positive_rates(epitome_dir)
    assert [(r["mechanism"], r["split"]) for r in rows] == [(m, s) for m in MECHANISMS for s in epitome.SPLITS]
    for row in rows:
        assert (
            row["paper_positive_rate"]
            == epitome.PAPER_POSITIVE_RATES[row["mechanism"]][epitome.SPLITS.index(row["split"])]
        )
        if row["split"] == "train":  # the large split is close to the paper's rates
            assert abs(row["positive_rate"] - row["paper_positive_rate"]) < 2
    assert "paper %" in epitome.format_rates(rows)
