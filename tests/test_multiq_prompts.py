"""The MultiQ prompt loader: every language, the release's order, selections that fail loudly."""

from __future__ import annotations

import pytest

from xlcons.datasets import BUILT_IN, load_prompts
from xlcons.datasets.multiq import MultiQError, load
from xlcons.languages import LanguageRegistry
from xlcons.schemas import PROMPTS

ALL = {"ids": None, "limit": None, "domains": None}


@pytest.fixture(scope="module")
def multiq(shared_data):
    return shared_data / "multiq"


def test_all_137_languages_and_200_items_load(multiq):
    languages = list(LanguageRegistry.load().codes)
    table = load(multiq, languages, ALL)
    assert table.schema == PROMPTS
    assert table.num_rows == 137 * 200
    assert set(table["lang"].to_pylist()) == set(languages)


def test_rows_follow_the_configured_language_order_then_the_release_order(multiq):
    table = load(multiq, ["de", "en"], {**ALL, "limit": 3})
    assert list(zip(table["lang"].to_pylist(), table["item_id"].to_pylist())) == [
        ("de", "gpt-1"),
        ("de", "gpt-2"),
        ("de", "gpt-3"),
        ("en", "gpt-1"),
        ("en", "gpt-2"),
        ("en", "gpt-3"),
    ]
    assert table["prompt"].to_pylist()[3] == "What is the chemical formula for water?"
    assert table["source_lang"].to_pylist() == table["lang"].to_pylist()


def test_domains_filter_before_the_limit(multiq):
    table = load(multiq, ["en"], {**ALL, "domains": ["astronomy"], "limit": 2})
    assert table["category"].to_pylist() == ["astronomy", "astronomy"]
    assert table.num_rows == 2


def test_lmsys_questions_have_no_category(multiq):
    table = load(multiq, ["en"], {**ALL, "ids": ["lmsys-1", "gpt-1"]})
    assert table["item_id"].to_pylist() == ["lmsys-1", "gpt-1"], "ids keep the configured order"
    assert table["category"].to_pylist() == [None, "chemistry"]


def test_the_same_selection_gives_the_same_table(multiq):
    assert load(multiq, ["fr", "ja"], {**ALL, "limit": 7}).equals(load(multiq, ["fr", "ja"], {**ALL, "limit": 7}))


def test_near_duplicate_codes_carry_the_same_prompts(multiq):
    he, iw = (load(multiq, [code], {**ALL, "limit": 5})["prompt"].to_pylist() for code in ("he", "iw"))
    assert he == iw


@pytest.mark.parametrize(
    ("selection", "languages", "message"),
    [
        ({**ALL, "ids": ["gpt-1", "gpt-999"]}, ["en"], "gpt-999"),
        ({**ALL, "domains": ["cooking"]}, ["en"], "cooking"),
        (ALL, ["en", "xx"], "xx"),
    ],
)
def test_a_bad_selection_names_what_is_wrong(multiq, selection, languages, message):
    with pytest.raises(MultiQError, match=message):
        load(multiq, languages, selection)


def test_a_missing_release_says_where_it_looked(tmp_path):
    with pytest.raises(MultiQError, match="datasets.multiq.path"):
        load(tmp_path, ["en"], ALL)


def test_multiq_is_registered_with_the_papers_token_cap(multiq):
    assert BUILT_IN["multiq"].max_new_tokens == 256
    assert load_prompts("multiq", multiq, ["en"], {**ALL, "limit": 1}).num_rows == 1


def _edited_release(tmp_path, shared_data, edit):
    """A copy of MultiQ.csv with `edit` applied to its lines (line 1 is the header)."""
    import csv

    with open(shared_data / "multiq" / "MultiQ.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    rows = edit(rows)
    path = tmp_path / "MultiQ.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    return path


ALL = {"ids": None, "limit": None, "domains": None}


def test_a_duplicated_row_is_an_error_naming_both_lines(tmp_path, shared_data):
    first = {}

    def duplicate(rows):
        header = rows[0]
        first.update(item=rows[1][header.index("id")], lang=rows[1][header.index("language")])
        return rows + [rows[1]]

    path = _edited_release(tmp_path, shared_data, duplicate)
    with pytest.raises(
        MultiQError,
        match=r"MultiQ\.csv, line \d+: a second row for item "
        rf"{first['item']} in {first['lang']} \(the first is on line 2\)",
    ):
        load(path, [first["lang"]], ALL)


def test_a_blank_prompt_is_an_error_naming_line_and_column(tmp_path, shared_data):
    def blank(rows):
        header = rows[0]
        rows[5][header.index("prompt")] = "   "
        return rows

    path = _edited_release(tmp_path, shared_data, blank)
    with open(path, encoding="utf-8") as handle:
        lang = handle.read().splitlines()[4].split(",")[1]
    with pytest.raises(MultiQError, match=r"line 6, column prompt: the prompt of item \S+ in \S+ is blank"):
        load(path, [lang], ALL)


def test_a_missing_row_names_the_item_and_the_language(tmp_path, shared_data):
    removed = {}

    def drop(rows):
        header = rows[0]
        removed.update(item=rows[3][header.index("id")], lang=rows[3][header.index("language")])
        return rows[:3] + rows[4:]

    path = _edited_release(tmp_path, shared_data, drop)
    with pytest.raises(MultiQError, match=rf"no row for {removed['item']} in {removed['lang']}$"):
        load(path, [removed["lang"]], ALL)
