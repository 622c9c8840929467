"""The empathy prompt set: stratified seeker posts from EPITOME's test split, in English."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from xlcons.datasets import empathy
from xlcons.datasets.epitome import read_pairs, read_split
from xlcons.schemas import PROMPTS
from xlcons.tables import conform


@pytest.fixture(scope="module")
def epitome_dir(shared_data: Path) -> Path:
    return shared_data / "epitome"


@pytest.fixture(scope="module")
def posts(epitome_dir):
    return empathy.post_labels(read_pairs(epitome_dir))


@pytest.fixture(scope="module")
def prompts(epitome_dir):
    return empathy.load(epitome_dir, ["en"], {})


def test_100_english_prompts_from_the_test_split(prompts, posts):
    assert conform(prompts, PROMPTS, what="empathy").num_rows == 100
    rows = prompts.to_pylist()
    split = read_split()
    assert len({row["item_id"] for row in rows}) == 100
    assert all(split[row["item_id"]] == "test" for row in rows)
    assert {(row["dataset"], row["lang"], row["source_lang"]) for row in rows} == {("empathy", "en", "en")}
    assert all(row["prompt"] == posts[row["item_id"]]["seeker_post"] and row["references"] is None for row in rows)
    assert all(row["category"] == posts[row["item_id"]]["category"] for row in rows)


def test_selection_is_stratified_over_the_label_combinations(prompts, posts):
    split = read_split()
    population = Counter(post["category"] for sp_id, post in posts.items() if split[sp_id] == "test")
    drawn = Counter(prompts["category"].to_pylist())
    assert set(drawn) == set(population) and len(population) == 8
    total = sum(population.values())
    for category, count in population.items():
        assert abs(drawn[category] - 100 * count / total) <= 1, (category, drawn[category], count)


def test_selection_is_seeded(epitome_dir, prompts):
    assert empathy.load(epitome_dir, ["en"], {}).equals(prompts)
    other = empathy.load(epitome_dir, ["en"], {}, seed=7)
    assert set(other["item_id"].to_pylist()) != set(prompts["item_id"].to_pylist())


def test_limit_ids_and_domains(epitome_dir, prompts):
    ids = prompts["item_id"].to_pylist()
    first = empathy.load(epitome_dir, ["en"], {"limit": 12})
    assert first["item_id"].to_pylist() == ids[:12]
    assert len(set(first["category"].to_pylist())) >= 5  # a prefix is spread over the combinations too
    chosen = [ids[5], ids[1]]
    assert empathy.load(epitome_dir, ["en"], {"ids": chosen})["item_id"].to_pylist() == chosen
    only = empathy.load(epitome_dir, ["en"], {"domains": ["ER1-IP1-EX1"]})
    assert (
        set(only["category"].to_pylist()) == {"ER1-IP1-EX1"}
        and only.num_rows == Counter(prompts["category"].to_pylist())["ER1-IP1-EX1"]
    )
    with pytest.raises(empathy.EmpathyPromptsError, match="not EPITOME seeker posts"):
        empathy.load(epitome_dir, ["en"], {"ids": ["nope"]})
    with pytest.raises(empathy.EmpathyPromptsError, match="unknown label combinations"):
        empathy.load(epitome_dir, ["en"], {"domains": ["ER2"]})


def test_other_languages_come_from_translation(epitome_dir):
    with pytest.raises(empathy.EmpathyPromptsError, match="translat"):
        empathy.load(epitome_dir, ["de"], {})


def test_allocation_is_proportional_with_one_per_stratum():
    assert empathy.allocate({"a": 50, "b": 30, "c": 20}, 10) == {"a": 5, "b": 3, "c": 2}
    assert empathy.allocate({"a": 1, "b": 1, "c": 100}, 3) == {"a": 1, "b": 1, "c": 1}
    assert empathy.allocate({"a": 2, "b": 3}, 10) == {"a": 2, "b": 3}
    shares = empathy.allocate({"a": 214, "b": 9, "c": 55}, 100)
    assert sum(shares.values()) == 100 and shares["b"] >= 1
