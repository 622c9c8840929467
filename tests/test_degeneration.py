"""Degenerate translations: loops, runaway length and empty output are caught; normal text is not."""

from __future__ import annotations

import pytest

from xlcons.translation.degeneration import REASONS, is_degenerate, longest_repeat

# (source, a plausible translation) in several scripts, both directions: none is degenerate.
NORMAL = [
    ("Wie lautet die chemische Formel für Wasser?", "What is the chemical formula for water?"),
    ("Какая самая высокая гора в мире?", "What is the highest mountain in the world?"),
    ("世界上最高的山是哪座？", "Which is the highest mountain in the world?"),
    ("日本の首都はどこですか？", "Where is the capital of Japan?"),
    ("भारत की राजधानी क्या है?", "What is the capital of India?"),
    ("ما هي عاصمة مصر؟", "What is the capital of Egypt?"),
    ("เมืองหลวงของประเทศไทยคืออะไร", "What is the capital of Thailand?"),
    ("What is the capital of China?", "中国的首都是哪里？"),
    ("What is the capital of Thailand?", "เมืองหลวงของประเทศไทยคืออะไร"),
    ("Wie viel kostet das?", "It costs 1,000,000 euros... or 1000000 in figures!!!"),
    ("Mississippi ist ein Fluss.", "The Mississippi is a river."),
    ("Ok.", "All right, then."),  # short sources may grow up to MIN_LENGTH × ratio
    ("Er sagte: sehr, sehr, sehr gut.", "He said: very, very, very good."),  # 3 repeats are allowed
    ("Das ist -------- eine Linie.", "That is -------- a line."),
]


@pytest.mark.parametrize("source, translation", NORMAL)
def test_normal_translations_are_not_degenerate(source, translation):
    assert is_degenerate(source, translation) is None


@pytest.mark.parametrize(
    "translation",
    [
        "the the the the the",  # a word five times in a row
        "The, the. THE the; the!",  # case and punctuation do not hide it
        "It is a good a good a good a good a good idea",  # a 2-gram
        "one two three four one two three four one two three four one two three four one two three four",
        "ßßßßßßß",  # a character loop inside a word
        "的的的的的的",  # ... in a script without spaces
        "ดีดีดีดีดีดี",  # Thai: a two-character syllable looping
        "研究研究研究研究研究",
    ],
)
def test_repeated_ngrams_are_degenerate(translation):
    assert is_degenerate("Eine ganz normale Frage zum Thema?", translation) == "repeated n-gram"


def test_the_repeat_threshold_is_more_than_max_ngram_repeats():
    four, five = " ".join(["go"] * 4), " ".join(["go"] * 5)
    assert is_degenerate("Los!", four, max_ngram_repeats=4) is None
    assert is_degenerate("Los!", five, max_ngram_repeats=4) == "repeated n-gram"
    assert is_degenerate("Los!", five, max_ngram_repeats=5) is None


@pytest.mark.parametrize(
    "translation",
    [
        "Paris is the capital of France, Paris is the capital of France, Paris is the capital of France",
        "北京是中国的首都。北京是中国的首都。北京是中国的首都。",
    ],
)
def test_a_clause_in_a_loop_is_a_repeated_pattern(translation):
    assert (
        is_degenerate("Was ist die Hauptstadt von Frankreich und warum ist sie das?", translation) == "repeated pattern"
    )


def test_a_repetition_the_source_already_has_is_not_the_translations_fault():
    source = "Ja ja ja ja ja ja ja, das stimmt."
    assert is_degenerate(source, "Yes yes yes yes yes yes yes, that is right.") is None
    assert is_degenerate(source, "yes " * 12) == "repeated n-gram"


def test_runaway_length_is_too_long():
    source = "Wie geht es dir heute?"
    assert (
        is_degenerate(source, "How are you today? " + "And what else happened in the meantime, tell me " * 2)
        == "too long"
    )
    assert is_degenerate(source, "How are you today?", max_length_ratio=3.0) is None


def test_length_is_measured_in_columns_so_cjk_to_english_is_not_too_long():
    # 9 characters of Chinese honestly become 40 of English: 18 columns × 3 allows 54.
    source = "中国的首都是哪里呢？"
    assert is_degenerate(source, "Where, then, is the capital city of China?") is None


def test_empty_output_for_a_real_source_is_empty():
    assert is_degenerate("Hallo Welt.", "") == "empty"
    assert is_degenerate("Hallo Welt.", "   ") == "empty"
    assert is_degenerate("1947", "") == "empty"
    assert is_degenerate("...", "") is None  # nothing to translate


def test_reasons_are_the_documented_ones():
    assert set(REASONS) == {"empty", "repeated n-gram", "repeated pattern", "too long"}


def test_longest_repeat_reports_both_kinds():
    assert longest_repeat("a b a b a b") == (3, 1)
    ngram, pattern = longest_repeat("one two three four five one two three four five one two three four five")
    assert pattern == 3 and ngram == 2  # the 'ee' of 'three' is the longest short repeat


def test_a_clause_the_source_repeats_may_repeat_as_often_in_the_translation():
    source = "Paris ist die Hauptstadt von Frankreich, " * 3
    assert is_degenerate(source, "Paris is the capital of France, " * 3) is None
    assert is_degenerate(source, "Paris is the capital of France, " * 4) == "repeated pattern"


def test_a_looping_source_does_not_make_a_plain_translation_degenerate():
    assert is_degenerate("ja " * 10 + "das stimmt. " * 4, "Yes, that is right.") is None
