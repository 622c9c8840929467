"""The Language Confusion Benchmark's prompts as data sets (xlcons.datasets.lcb) and its
released completions as recorded answers, read from the copies in ../shared/data/lcb."""

from __future__ import annotations

from pathlib import Path

import pytest

from xlcons.datasets import BUILT_IN, lcb_crosslingual, lcb_monolingual
from xlcons.datasets.item_ids import lcb_crosslingual as crosslingual_ids
from xlcons.datasets.lcb import LCBError
from xlcons.generation.backends.recorded import read_recorded


@pytest.fixture(scope="module")
def lcb(shared_data) -> Path:
    return shared_data / "lcb"


def test_monolingual_prompts_are_in_their_answer_language_with_ids_per_source_and_row(lcb):
    rows = lcb_monolingual.load(lcb, ["de", "ja"], {}).to_pylist()
    assert len(rows) == 200  # German: Okapi's 100; Japanese: the native prompts' 100
    first = rows[0]
    assert (first["dataset"], first["item_id"], first["lang"], first["source_lang"], first["category"]) == (
        "lcb-monolingual",
        "monolingual/okapi/0",
        "de",
        "de",
        "okapi",
    )
    assert first["prompt"].startswith("Erklären Sie ein häufiges Missverständnis")
    assert {row["category"] for row in rows if row["lang"] == "ja"} == {"native_prompts"}


def test_crosslingual_prompts_are_english_asking_for_the_row_language(lcb):
    rows = lcb_crosslingual.load(lcb, ["de"], {"limit": 2}).to_pylist()
    assert [row["item_id"] for row in rows] == [
        "crosslingual/complex_prompts/0",
        "crosslingual/complex_prompts/1",
        "crosslingual/okapi/0",
        "crosslingual/okapi/1",
        "crosslingual/sharegpt/0",
        "crosslingual/sharegpt/1",
    ]
    assert {row["source_lang"] for row in rows} == {"en"} and {row["lang"] for row in rows} == {"de"}
    assert "German" in rows[2]["prompt"]


def test_sources_select_items_and_unknown_ones_are_named(lcb):
    rows = lcb_crosslingual.load(lcb, ["ko"], {"domains": ["sharegpt"]}).to_pylist()
    assert len(rows) == 100 and {row["category"] for row in rows} == {"sharegpt"}
    with pytest.raises(LCBError, match=r"items.domains: \['reddit'\] are not sources of the crosslingual task"):
        lcb_crosslingual.load(lcb, ["ko"], {"domains": ["reddit"]})


def test_a_language_the_task_does_not_have_is_named(lcb):
    with pytest.raises(LCBError, match=r"datasets.lcb-crosslingual.languages: .* no prompts in \['en'\]"):
        lcb_crosslingual.load(lcb, ["en"], {})


def test_the_config_check_reads_the_same_ids_as_the_loader(lcb):
    loaded = {
        row["item_id"]
        for row in lcb_crosslingual.load(lcb, list(BUILT_IN["lcb-crosslingual"].languages), {}).to_pylist()
    }
    assert set(crosslingual_ids(lcb, {})) == loaded


def test_released_completions_answer_the_prompts_by_task_source_and_row(lcb):
    records = read_recorded(lcb / "outputs" / "command-r-plus.csv")
    assert len(records) == 6586
    answer = records[("monolingual/okapi/1", "de")]["response"]
    assert answer.startswith("Der Gini-Index")  # the prompt: "Erklären Sie, wie der Gini-Index berechnet wird."
    prompts = {(row["item_id"], row["lang"]) for row in lcb_monolingual.load(lcb, ["de", "ja"], {}).to_pylist()}
    assert prompts <= set(records)
    # answers spanning several lines are read whole
    assert any("\n" in record["response"] for record in records.values())
