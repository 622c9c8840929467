"""The information-seeking prompts (Gupta et al. 2025, information consistency) and their loader.

The paper's 150 prompts from eight MMLU subjects are not public; the project ships its
own English set. What the set must be: 150 long-form, factual, time-proof questions in
eight categories, without duplicates, in plain text that machine translation handles.
What the loader must do: English rows in the PROMPTS schema, the file's order, and
selections (ids, limit, categories) that fail loudly.
"""

from __future__ import annotations

import itertools
import re
from importlib import resources

import pytest

from xlcons.datasets.information import (
    DATA_FILE,
    InformationPromptsError,
    categories,
    load,
    read_prompts,
    select_items,
)
from xlcons.schemas import PROMPTS

ALL = {"ids": None, "limit": None, "domains": None}
ID_PATTERN = re.compile(r"^info-(?P<category>[a-z_]+)-(?P<number>\d{3})$")
IMPERATIVES = ("Explain", "Describe", "Outline", "Summarize", "Compare")
QUESTION_WORDS = ("What", "How", "Why", "Which", "Who", "Where", "When")

# Words and phrases whose answer depends on when the question is asked.
TIME_SENSITIVE = (
    "current",
    "currently",
    "today",
    "todays",
    "tonight",
    "now",
    "nowadays",
    "latest",
    "newest",
    "recent",
    "recently",
    "upcoming",
    "ongoing",
    "presently",
    "still",
    "this year",
    "last year",
    "these days",
    "so far",
    "as of",
    "at the moment",
    "at present",
    "right now",
    "how much does",
    "world record",
    "up to date",
)
# Words that ask for an opinion, advice, a conversation or a hypothetical instead of facts.
NOT_INFORMATION_SEEKING = (
    "you",
    "your",
    "i",
    "me",
    "my",
    "we",
    "opinion",
    "think",
    "feel",
    "favorite",
    "favourite",
    "best",
    "worst",
    "should",
    "would",
    "imagine",
    "suppose",
    "if",
    "recommend",
    "advice",
)
# Frame words every prompt may share ("Explain the main ..."); they say nothing of the topic.
STOPWORDS = frozenset(
    """a an the and or of in on at to for from by with as into onto over under between among about across
    along through during within without against is are was were be been being do does did has have had how
    what which who whom whose why where when whether that this these those it its their them they each can
    could may might must should would will shall explain describe main key including include such also both
    other different differ differences difference role roles his her he she than then so not no more most
    some any all one two three first use used using part""".split()
)
NEAR_DUPLICATE_JACCARD = 0.4


def words(text: str) -> list[str]:
    return re.findall(r"[^\W\d_]+(?:'[^\W\d_]+)*", text.lower())


def content_words(text: str) -> set[str]:
    """Lower-cased words without frame words, a plural `s` cut off (crude, but enough to match forms)."""
    return {
        word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word
        for word in words(text)
        if word not in STOPWORDS
    }


def jaccard(a: str, b: str) -> float:
    left, right = content_words(a), content_words(b)
    return len(left & right) / len(left | right)


@pytest.fixture(scope="module")
def prompts():
    return read_prompts()


# -- the set


def test_the_set_has_150_prompts_in_8_categories_of_at_least_15(prompts):
    counts = {category: sum(prompt.category == category for prompt in prompts) for category in categories()}
    assert len(prompts) == 150
    assert len(counts) == 8, counts
    assert min(counts.values()) >= 15, counts


def test_the_data_file_ships_inside_the_package():
    path = resources.files("xlcons.datasets").joinpath(DATA_FILE)
    assert path.is_file()
    assert path.read_text(encoding="utf-8").splitlines()[0].split("\t") == ["item_id", "category", "prompt"]


def test_ids_are_unique_and_spell_out_category_and_number_in_file_order(prompts):
    ids = [prompt.item_id for prompt in prompts]
    assert len(set(ids)) == len(ids)
    for category in categories():
        numbers = []
        for prompt in prompts:
            if prompt.category == category:
                match = ID_PATTERN.match(prompt.item_id)
                assert match, prompt.item_id
                assert match["category"] == category, prompt.item_id
                numbers.append(int(match["number"]))
        assert numbers == list(range(1, len(numbers) + 1)), f"{category}: ids must run 001, 002, ... without gaps"


def test_categories_are_contiguous_in_the_file(prompts):
    runs = [category for category, _ in itertools.groupby(prompt.category for prompt in prompts)]
    assert runs == categories()


def test_no_two_prompts_are_the_same_text(prompts):
    normalized = [" ".join(words(prompt.prompt)) for prompt in prompts]
    assert len(set(normalized)) == len(normalized)


def test_no_two_prompts_share_40_percent_of_their_content_words_by_jaccard(prompts):
    close = [
        (a.item_id, b.item_id, round(jaccard(a.prompt, b.prompt), 2))
        for a, b in itertools.combinations(prompts, 2)
        if jaccard(a.prompt, b.prompt) >= NEAR_DUPLICATE_JACCARD
    ]
    assert not close, f"near-duplicate prompts: {close}"


def test_the_near_duplicate_measure_catches_a_paraphrase():
    original = "Describe the causes of the Protestant Reformation and the main teachings of Martin Luther."
    paraphrase = "What were the causes of the Protestant Reformation, and what did Martin Luther teach?"
    assert jaccard(original, paraphrase) >= NEAR_DUPLICATE_JACCARD
    assert jaccard(original, "Explain how photosynthesis converts light energy into chemical energy.") == 0


@pytest.mark.parametrize("term", TIME_SENSITIVE)
def test_no_prompt_depends_on_when_it_is_asked(prompts, term):
    pattern = re.compile(rf"\b{re.escape(term)}\b", re.IGNORECASE)
    assert not [prompt.item_id for prompt in prompts if pattern.search(prompt.prompt)]


def test_no_prompt_mentions_a_year_after_2015(prompts):
    late = [
        prompt.item_id for prompt in prompts for year in re.findall(r"\b(\d{4})\b", prompt.prompt) if int(year) > 2015
    ]
    assert not late, "events must be settled history"


def test_no_prompt_asks_for_an_opinion_advice_or_a_hypothetical(prompts):
    found = {
        prompt.item_id: sorted(set(words(prompt.prompt)) & set(NOT_INFORMATION_SEEKING))
        for prompt in prompts
        if set(words(prompt.prompt)) & set(NOT_INFORMATION_SEEKING)
    }
    assert not found


def test_every_prompt_is_a_question_or_an_imperative_request(prompts):
    for prompt in prompts:
        text = prompt.prompt
        first = text.split()[0]
        if text.endswith("?"):
            assert first in QUESTION_WORDS, prompt.item_id
        else:
            assert first in IMPERATIVES and text.endswith("."), prompt.item_id


def test_every_prompt_is_one_or_two_sentences_of_plain_text(prompts):
    for prompt in prompts:
        text = prompt.prompt
        assert text == text.strip() and "  " not in text, prompt.item_id
        assert not re.search(r"[\n\t*#`_\[\]<>|\"]", text), f"{prompt.item_id}: markup or quotes"
        assert 40 <= len(text) <= 250, prompt.item_id
        sentences = re.findall(r"[.?!](?:\s|$)", text)
        assert 1 <= len(sentences) <= 2, prompt.item_id


def test_every_prompt_names_at_least_four_topic_words(prompts):
    """A crude guard against one-fact questions ("What is the capital of Peru?" names two)."""
    short = [prompt.item_id for prompt in prompts if len(content_words(prompt.prompt)) < 4]
    assert not short


# -- the loader


def test_all_items_load_as_english_rows_in_the_prompts_schema():
    table = load(None, ["en"], ALL)
    assert table.schema == PROMPTS
    assert table.num_rows == 150
    assert set(table["dataset"].to_pylist()) == {"information"}
    assert set(table["lang"].to_pylist()) == {"en"}
    assert set(table["source_lang"].to_pylist()) == {"en"}
    assert table["references"].null_count == 150
    assert table["category"].null_count == 0
    assert table["item_id"].to_pylist() == [prompt.item_id for prompt in read_prompts()], "file order"


def test_the_folder_is_ignored_because_the_set_ships_with_the_project(tmp_path):
    assert load(tmp_path, ["en"], ALL).equals(load(None, ["en"], ALL))


def test_other_languages_are_not_produced_by_the_loader_but_by_translation_later():
    table = load(None, ["de", "en", "zh"], {**ALL, "limit": 2})
    assert table.equals(load(None, ["en"], {**ALL, "limit": 2}))
    assert table["lang"].to_pylist() == ["en", "en"]


def test_a_limit_takes_the_first_items_of_the_file():
    table = load(None, ["en"], {**ALL, "limit": 3})
    assert table["item_id"].to_pylist() == [
        "info-college_chemistry-001",
        "info-college_chemistry-002",
        "info-college_chemistry-003",
    ]


def test_no_selection_at_all_means_every_item():
    assert load(None, ["en"], None).num_rows == load(None, ["en"], {}).num_rows == 150


def test_ids_keep_the_configured_order():
    ids = ["info-prehistory-003", "info-astronomy-007", "info-world_religions-001"]
    table = load(None, ["en"], {**ALL, "ids": ids})
    assert table["item_id"].to_pylist() == ids
    assert table["category"].to_pylist() == ["prehistory", "astronomy", "world_religions"]


def test_domains_select_categories_before_the_limit():
    table = load(None, ["en"], {**ALL, "domains": ["astronomy", "prehistory"], "limit": 20})
    assert table["category"].to_pylist() == ["astronomy"] * 19 + ["prehistory"]


def test_domains_filter_the_given_ids():
    selection = {**ALL, "ids": ["info-astronomy-001", "info-prehistory-001"], "domains": ["prehistory"]}
    assert [prompt.item_id for prompt in select_items(selection)] == ["info-prehistory-001"]


def test_the_same_selection_gives_the_same_table():
    assert load(None, ["en"], {**ALL, "limit": 7}).equals(load(None, ["en"], {**ALL, "limit": 7}))


@pytest.mark.parametrize(
    ("selection", "message"),
    [
        ({**ALL, "ids": ["info-astronomy-001", "info-astronomy-999", "gpt-1"]}, r"info-astronomy-999.*gpt-1"),
        ({**ALL, "domains": ["astronomy", "cooking"]}, r"cooking.*college_chemistry"),
    ],
)
def test_a_bad_selection_names_what_is_wrong(selection, message):
    with pytest.raises(InformationPromptsError, match=message):
        load(None, ["en"], selection)
