"""Language confusion (xlcons.evaluators.language_confusion): line-level and word-level checks.

Most tests use a fake language identifier that labels a line by the script most of its
letters are in (Cyrillic → ru, Devanagari → hi, Latin → en, or the label a test gives it),
so every expected value below is worked out by hand from the rules in the module
docstring. One test at the end runs the real lid.176 model.
"""

from __future__ import annotations

import unicodedata

import numpy as np
import polars as pl
import pyarrow as pa
import pytest

from builders import response_rows
from xlcons.evaluators.language_confusion import (
    DERIVED_METRICS,
    LANGUAGE_CONFUSION,
    LANGUAGE_CONFUSION_LINES,
    LCPR,
    english_words,
    language_confusion_pass_rate,
    line_tokens,
    pass_rates,
    score_language_confusion,
    split_lines,
    to_item_scores,
)
from xlcons.evaluators.language_id import run_language_confusion
from xlcons.languages import LanguageRegistry, UnknownLanguageError
from xlcons.lid import is_language
from xlcons.reports.results import results_table
from xlcons.schemas import ITEM_SCORES, NO_ANSWER, RESPONSES
from xlcons.tables import read_table, write_table

REGISTRY = LanguageRegistry.load()


class FakeLID:
    """Top-1 label by majority script (probability 0.99), unless `labels` names the line's label and probability."""

    SCRIPTS = {"CYRILLIC": "ru", "DEVANAGARI": "hi", "LATIN": "en"}

    def __init__(self, labels: dict[str, tuple[str, float]] | None = None, unsupported: tuple[str, ...] = ()):
        self.labels = labels or {}
        self.unsupported = set(unsupported)
        self.registry = REGISTRY
        self.seen: list[str] = []

    def predict(self, texts):
        texts = list(texts)
        self.seen += texts
        return [self._one(text) for text in texts]

    def _one(self, text: str):
        if text.strip() in self.labels:
            return self.labels[text.strip()]
        counts: dict[str, int] = {}
        for char in text:
            if unicodedata.category(char)[0] in "LM":  # letters and the vowel signs of Indic scripts
                script = unicodedata.name(char, "?").split()[0]
                counts[script] = counts.get(script, 0) + 1
        if not counts:
            return (None, None)
        return (self.SCRIPTS.get(max(counts, key=counts.get), "xx"), 0.99)

    def is_language(self, label, lang):
        return is_language(label, REGISTRY[lang], "lid176")

    def supports(self, lang):
        return lang not in self.unsupported


def score(rows, identifier=None, **options) -> list[dict]:
    return score_language_confusion(response_rows(rows), identifier or FakeLID(), REGISTRY, **options).to_pylist()


RUSSIAN_SWITCHING = (
    "Столица Германии — Берлин, крупный город на востоке страны.\n"
    "В нём живёт около трёх миллионов семьсот тысяч человек.\n"
    "It is also known for its history, museums and nightlife.\n"
    "Many tourists visit the city every year to see the wall."
)
RUSSIAN_CLEAN = "Столица Германии — Берлин, крупный город на востоке страны.\nВ нём живёт около трёх миллионов человек."
HINDI_MIXED = "मशीन learning कृत्रिम बुद्धिमत्ता का एक भाग है, जिसे artificial intelligence भी कहते हैं, और यह डेटा से सीखता है।"
HINDI_CLEAN = (
    "भारत की जनसंख्या 2023 में लगभग 1.4 अरब थी।\n"
    "DNA और API जैसे शब्द संक्षिप्त रूप हैं, और 5 km की दूरी छोटी है।\n"
    "अधिक जानकारी के लिए https://example.org/population देखें।"
)
GERMAN = (
    "Die Hauptstadt von Deutschland ist Berlin, eine große "
    "Stadt.\nSie hat etwa 3,7 Millionen Einwohner und viele Museen."
)


# --------------------------------------------------------------------------------------
# Helpers: lines, tokens, English words
# --------------------------------------------------------------------------------------


def test_split_lines_keeps_non_empty_stripped_lines_outside_fenced_code():
    text = "  Первая строка  \n\n\t\n```python\nprint('hello world')\n```\nВторая строка\r\n~~~\ncode\n~~~\nТретья"
    assert split_lines(text) == ["Первая строка", "Вторая строка", "Третья"]
    assert split_lines("") == []


def test_line_tokens_count_pieces_with_a_letter_and_each_letter_of_scripts_without_spaces():
    assert line_tokens("- Да, это так 1.") == 3  # "-" and "1." hold no letter
    assert line_tokens("** 42 ** !!") == 0
    assert line_tokens("这是一个测试") == 6  # one token per Han character
    assert line_tokens("使用Python编程") == 5  # 使 用 Python 编 程


def test_english_words_in_a_hindi_answer_are_the_ascii_words_in_order():
    assert english_words(HINDI_MIXED) == ["learning", "artificial", "intelligence"]
    assert english_words("यह test है, यह भी test है") == ["test", "test"]  # repeats kept
    assert english_words("Googleपर खोजें और don't भूलें, e-mail करें") == ["Google", "don't", "e-mail"]


@pytest.mark.parametrize(
    "text",
    [
        "वर्ष 2024 में 3.14 और 1,000 रुपये",  # numbers
        "DNA, API, NASA और URLs, XVIII सदी",  # acronyms (2 to 5 capitals, plural s), capital Roman numerals
        "(i) पहला (ii) दूसरा (iv) चौथा",  # single letters and lower-case Roman numerals
        "iPhone, JavaScript, mRNA और pH",  # mixed case: identifiers, brands, symbols
        "दूरी 5 km, वज़न 10 kg, समय 3 pm, गति 60 mph",  # unit symbols after a number
        "H2O, CO2, x86, 10kg, COVID-19, snake_case",  # touching a digit or an underscore
        "देखें https://example.com/a?b=c, www.google.com, info@example.org और example.com.",  # URLs, mail, domains
        "कोड `print(hello)` और\n```\nfor item in items:\n    print(item)\n```\nऊपर",  # inline and fenced code
        "सूत्र $\\sin x + \\cos y$ और \\frac{1}{2}, तथा <br> टैग",  # LaTeX math and commands, HTML tags
        "café और naïve",  # Latin letters outside ASCII: not English
    ],
)
def test_english_words_leave_out_numbers_acronyms_urls_code_units_and_identifiers(text):
    assert english_words(text) == []


def test_english_words_count_a_unit_symbol_only_after_a_number_and_keep_long_capitals():
    assert english_words("शब्द pm अकेला") == ["pm"]
    assert english_words("संगठन UNESCO और ABCDEF") == ["UNESCO", "ABCDEF"]  # six capitals: not an acronym here
    assert english_words("कीमत $5 और $10 है, not math") == ["not", "math"]  # prices are not math spans


# --------------------------------------------------------------------------------------
# Line level
# --------------------------------------------------------------------------------------


def test_a_russian_answer_switching_to_english_half_way_fails_the_line_check():
    (row,) = score([("q1", "ru", RUSSIAN_SWITCHING)])
    assert (row["n_lines"], row["n_judged_lines"], row["n_confused_lines"]) == (4, 4, 2)
    assert row["line_pass"] is False and row["line_excluded_reason"] is None
    # Its English lines are English words in a Cyrillic-script answer too.
    assert row["word_pass"] is False
    assert row["english_words"][:4] == ["It", "is", "also", "known"]


def test_a_clean_russian_answer_passes_both_checks():
    (row,) = score([("q1", "ru", RUSSIAN_CLEAN)])
    assert (row["n_lines"], row["n_judged_lines"], row["n_confused_lines"]) == (2, 2, 0)
    assert row["line_pass"] is True and row["word_pass"] is True
    assert row["english_words"] == [] and row["word_excluded_reason"] is None


def test_lines_under_min_line_tokens_are_not_judged_nor_sent_to_the_model():
    text = "Да.\nКонечно, это так.\nThis is fine.\nСтолица Германии — Берлин, крупный город."
    lid = FakeLID()
    (row,) = score([("q1", "ru", text)], lid)
    # 1, 3, 3 and 5 tokens: only the last line is judged (the short English one is skipped).
    assert lid.seen == ["Столица Германии — Берлин, крупный город."]
    assert (row["n_lines"], row["n_judged_lines"], row["n_confused_lines"], row["line_pass"]) == (4, 1, 0, True)
    # With a threshold of 3 tokens the English line is judged, and confused.
    (row,) = score([("q1", "ru", text)], min_line_tokens=3)
    assert (row["n_judged_lines"], row["n_confused_lines"], row["line_pass"]) == (3, 1, False)


def test_each_line_sent_to_language_id_is_listed_with_its_label_and_whether_it_counted():
    mixed = "Берлин is the capital, столица и крупнейший город"
    text = RUSSIAN_SWITCHING.split("\n")[0] + "\nДа.\n" + RUSSIAN_SWITCHING.split("\n")[2] + "\n" + mixed
    lines: list[dict] = []
    score_language_confusion(
        response_rows([("q1", "ru", text)]), FakeLID({mixed: ("en", 0.4)}), REGISTRY, line_rows=lines
    )
    assert [(r["line_index"], r["label"], r["judged"], r["confused"]) for r in lines] == [
        (0, "ru", True, False),
        (1, "en", True, True),
        (2, "en", False, None),  # below min_confidence: sent, not counted
    ], "the short line is not sent at all"
    assert lines[1]["line"] == "It is also known for its history, museums and nightlife."
    assert {(r["dataset"], r["model"], r["item_id"], r["lang"]) for r in lines} == {("multiq", "m", "q1", "ru")}
    assert pa.Table.from_pylist(lines, schema=LANGUAGE_CONFUSION_LINES).num_rows == 3


def test_a_response_of_short_lines_only_has_no_judged_line_but_is_still_checked_for_words():
    (row,) = score([("q1", "hi", "हाँ, यह OK है।\nनहीं।")])
    assert (row["n_lines"], row["n_judged_lines"]) == (2, 0)
    assert row["line_pass"] is None and row["line_excluded_reason"] == "no_judged_line"
    assert row["word_pass"] is True


def test_a_low_confidence_line_is_unknown_neither_pass_nor_fail():
    mixed = "Берлин is the capital, столица и крупнейший город"
    lid = FakeLID({mixed: ("en", 0.4)})
    (row,) = score([("q1", "ru", RUSSIAN_CLEAN + "\n" + mixed)], lid)
    assert (row["n_lines"], row["n_judged_lines"], row["n_confused_lines"], row["line_pass"]) == (3, 2, 0, True)
    # Only that line: no judged line at all.
    (row,) = score([("q1", "ru", mixed)], FakeLID({mixed: ("en", 0.4)}))
    assert row["line_excluded_reason"] == "no_judged_line"
    # A lower min_confidence judges it, and it is confused.
    (row,) = score([("q1", "ru", mixed)], FakeLID({mixed: ("en", 0.4)}), min_confidence=0.3)
    assert (row["n_judged_lines"], row["n_confused_lines"], row["line_pass"]) == (1, 1, False)
    # A probability exactly at the threshold counts as confident.
    (row,) = score([("q1", "ru", mixed)], FakeLID({mixed: ("en", 0.5)}))
    assert row["line_pass"] is False


def test_lines_are_judged_without_their_urls_and_code():
    line = "Подробнее здесь: https://example.com/a/b/c `some_code()` www.example.org"
    lid = FakeLID()
    (row,) = score([("q1", "ru", line)], lid)
    assert row["line_excluded_reason"] == "no_judged_line"  # two words of prose left
    assert lid.seen == []


def test_a_label_the_registry_accepts_for_the_language_passes():
    # lid.176's Serbo-Croatian label `sh` is one the registry accepts for Serbian.
    line = "Ово је дуга реченица на српском језику."
    (row,) = score([("q1", "sr", line)], FakeLID({line: ("sh", 0.9)}))
    assert row["line_pass"] is True


def test_a_language_the_model_cannot_recognise_is_excluded_at_line_level_only():
    lid = FakeLID(unsupported=("hi",))
    (row,) = score([("q1", "hi", HINDI_MIXED)], lid)
    assert row["line_pass"] is None and row["line_excluded_reason"] == "lid_unsupported_language"
    assert lid.seen == []
    assert row["word_pass"] is False  # the word check needs no model


# --------------------------------------------------------------------------------------
# Word level, exclusions
# --------------------------------------------------------------------------------------


def test_a_hindi_answer_with_english_words_fails_the_word_check_but_not_the_line_check():
    mixed, clean = score([("q1", "hi", HINDI_MIXED), ("q2", "hi", HINDI_CLEAN)])
    assert mixed["line_pass"] is True  # mostly Devanagari: the line is Hindi
    assert mixed["word_pass"] is False and mixed["english_words"] == ["learning", "artificial", "intelligence"]
    assert clean["word_pass"] is True and clean["english_words"] == []  # numbers, acronyms, a unit, a URL
    assert clean["line_pass"] is True and clean["n_judged_lines"] == 3


def test_latin_script_languages_have_no_word_check():
    english_text = "The capital of Germany is Berlin, a large city."
    german, english, german_in_english = score(
        [("q1", "de", GERMAN), ("q2", "en", english_text), ("q3", "de", english_text)]
    )
    for row in (german, english, german_in_english):
        assert row["word_pass"] is None and row["word_excluded_reason"] == "latin_script"
        assert row["english_words"] is None
    assert english["line_pass"] is True  # English is the prompted language of an English prompt
    assert german_in_english["line_pass"] is False
    assert german["line_pass"] is False  # the fake calls all Latin text English...
    (row,) = score([("q1", "de", GERMAN)], FakeLID({line: ("de", 0.99) for line in split_lines(GERMAN)}))
    assert row["line_pass"] is True  # ...a German label passes


def test_no_answer_is_excluded_on_both_levels():
    (row,) = score([("q1", "ru", NO_ANSWER)])
    assert row["line_pass"] is None and row["line_excluded_reason"] == "no_answer"
    assert row["word_pass"] is None and row["word_excluded_reason"] == "no_answer"
    assert (row["n_lines"], row["n_judged_lines"], row["response_chars"]) == (0, 0, 0)
    assert row["english_words"] is None
    (row,) = score([("q1", "de", NO_ANSWER)])
    assert (row["line_excluded_reason"], row["word_excluded_reason"]) == ("no_answer", "latin_script")


def test_an_empty_response_has_no_judged_line_and_no_word_check():
    (row,) = score([("q1", "ru", "  \n ")])
    assert row["line_excluded_reason"] == "no_judged_line"
    assert row["word_excluded_reason"] == "empty_response"


def test_one_row_per_response_in_order_with_the_schema():
    rows = [("q2", "ru", RUSSIAN_CLEAN), ("q1", "hi", HINDI_MIXED), ("q3", "de", GERMAN), ("q1", "ru", NO_ANSWER)]
    table = score_language_confusion(response_rows(rows, model="m1", dataset="d"), FakeLID())
    assert table.schema == LANGUAGE_CONFUSION
    assert list(zip(table["item_id"].to_pylist(), table["lang"].to_pylist())) == [
        (item, lang) for item, lang, _ in rows
    ]
    assert set(table["model"].to_pylist()) == {"m1"} and set(table["dataset"].to_pylist()) == {"d"}
    assert table["response_chars"].to_pylist() == [len(RUSSIAN_CLEAN), len(HINDI_MIXED), len(GERMAN), 0]
    assert score_language_confusion(RESPONSES.empty_table(), FakeLID()).num_rows == 0


def test_an_unknown_language_and_bad_thresholds_are_refused():
    with pytest.raises(UnknownLanguageError):
        score([("q1", "xx-Nope", "text")])
    with pytest.raises(ValueError, match="min_line_tokens"):
        score([("q1", "ru", RUSSIAN_CLEAN)], min_line_tokens=0)
    with pytest.raises(ValueError, match="min_confidence"):
        score([("q1", "ru", RUSSIAN_CLEAN)], min_confidence=1.5)


# --------------------------------------------------------------------------------------
# Rates: LPR, WPR, LCPR
# --------------------------------------------------------------------------------------


def test_lcpr_is_the_harmonic_mean_of_lpr_and_wpr_or_lpr_alone():
    assert language_confusion_pass_rate(0.75, 0.5) == pytest.approx(0.6)  # 2·0.75·0.5 / 1.25
    assert language_confusion_pass_rate(1.0, 1.0) == pytest.approx(1.0)
    assert language_confusion_pass_rate(0.8, 0.0) == 0.0
    assert language_confusion_pass_rate(0.75, None) == 0.75  # Latin script: LCPR = LPR
    assert language_confusion_pass_rate(0.75, float("nan")) == 0.75
    assert np.isnan(language_confusion_pass_rate(None, 0.5))
    values = language_confusion_pass_rate(np.array([0.75, 0.5, np.nan]), np.array([0.5, np.nan, 0.5]))
    assert values[:2] == pytest.approx([0.6, 0.5]) and np.isnan(values[2])


# Four Russian responses: three pass the line check (LPR 3/4), two have no English word
# (WPR 2/4), so LCPR = 2·0.75·0.5/1.25 = 0.6; one "No answer" is left out of both. Two
# German responses, one passing (LPR 1/2 = LCPR, no WPR).
RU_LINE_ONLY_ENGLISH_WORD = "Это длинная строка на русском языке, и здесь есть слово computer внутри."
SMALL_TABLE = [
    ("q1", "ru", RUSSIAN_CLEAN),  # line pass, word pass
    ("q2", "ru", RUSSIAN_CLEAN),  # line pass, word pass
    ("q3", "ru", RU_LINE_ONLY_ENGLISH_WORD),  # line pass, word fail
    ("q4", "ru", RUSSIAN_SWITCHING),  # line fail, word fail
    ("q5", "ru", NO_ANSWER),  # excluded
    ("q1", "de", GERMAN),  # line pass (labelled de below)
    ("q2", "de", "The capital of Germany is Berlin, a large city."),  # line fail
]


@pytest.fixture()
def small_table() -> pa.Table:
    lid = FakeLID({line: ("de", 0.99) for line in split_lines(GERMAN)})
    return score_language_confusion(response_rows(SMALL_TABLE), lid, REGISTRY)


def test_pass_rates_of_a_small_table_by_hand(small_table):
    rates = {row["lang"]: row for row in pass_rates(small_table).to_dicts()}
    ru, de = rates["ru"], rates["de"]
    assert (ru["n_responses"], ru["n_line_judged"], ru["n_word_checked"]) == (5, 4, 4)
    assert ru["lpr"] == pytest.approx(0.75) and ru["wpr"] == pytest.approx(0.5) and ru["lcpr"] == pytest.approx(0.6)
    assert (de["n_line_judged"], de["n_word_checked"]) == (2, 0)
    assert de["lpr"] == pytest.approx(0.5) and de["wpr"] is None and de["lcpr"] == pytest.approx(0.5)


def test_item_scores_have_one_line_and_one_word_row_per_response_with_statuses(small_table):
    scores = to_item_scores(small_table)
    assert scores.columns == ITEM_SCORES.names
    assert scores.height == 2 * small_table.num_rows
    assert set(scores["evaluator"]) == {"language_confusion"}
    by_key = {(row["lang"], row["item_id"], row["metric"]): (row["status"], row["value"]) for row in scores.to_dicts()}
    assert by_key[("ru", "q1", "line_pass")] == ("ok", 1.0)
    assert by_key[("ru", "q3", "word_pass")] == ("ok", 0.0)
    assert by_key[("ru", "q4", "line_pass")] == ("ok", 0.0)
    assert by_key[("ru", "q5", "line_pass")] == ("no_answer", None)
    assert by_key[("ru", "q5", "word_pass")] == ("no_answer", None)
    assert by_key[("de", "q1", "word_pass")] == ("latin_script", None)
    counts = scores.group_by("metric", "status").len().sort("metric", "status").rows()
    assert counts == [
        ("line_pass", "no_answer", 1),
        ("line_pass", "ok", 6),
        ("word_pass", "latin_script", 2),
        ("word_pass", "no_answer", 1),
        ("word_pass", "ok", 4),
    ]
    assert to_item_scores(LANGUAGE_CONFUSION.empty_table()).height == 0


def test_the_results_table_derives_lcpr_from_the_two_means(small_table):
    assert DERIVED_METRICS == (LCPR,) and LCPR.name == "lcpr" and LCPR.inputs == ("line_pass", "word_pass")
    results = results_table(to_item_scores(small_table), derived=DERIVED_METRICS, n_resamples=200)
    value = {(row["lang"], row["metric"]): row for row in results.to_dicts()}
    assert value[("ru", "line_pass")]["value"] == pytest.approx(0.75)
    assert value[("ru", "word_pass")]["value"] == pytest.approx(0.5)
    ru = value[("ru", "lcpr")]
    assert ru["kind"] == "derived" and ru["value"] == pytest.approx(0.6)
    assert (ru["n_items"], ru["n_excluded"], ru["excluded_reasons"]) == (4, 1, "no_answer:1")
    assert 0.0 <= ru["ci_low"] <= 0.6 <= ru["ci_high"] <= 1.0
    de = value[("de", "lcpr")]
    assert de["value"] == pytest.approx(0.5)  # = LPR: German has no word check
    assert (
        value[("de", "word_pass")]["value"] is None
        and value[("de", "word_pass")]["excluded_reasons"] == "latin_script:2"
    )
    assert de["ci_low"] is not None  # resamples of a Latin-script cell are LPR resamples, not dropped


# --------------------------------------------------------------------------------------
# The real model
# --------------------------------------------------------------------------------------


def test_run_language_confusion_with_lid176_on_a_german_and_a_russian_answer(offline_models, tmp_path):
    responses = response_rows([("q1", "de", GERMAN), ("q1", "ru", RUSSIAN_SWITCHING), ("q2", "ru", RUSSIAN_CLEAN)])
    source = write_table(responses, tmp_path / "responses.parquet", RESPONSES)
    out = run_language_confusion([source], tmp_path / "out" / "confusion.parquet", offline_models["lid176"], "lid176")
    german, switching, clean = read_table(out, LANGUAGE_CONFUSION).to_pylist()
    assert (german["n_judged_lines"], german["line_pass"], german["word_excluded_reason"]) == (2, True, "latin_script")
    assert (switching["n_judged_lines"], switching["n_confused_lines"], switching["line_pass"]) == (4, 2, False)
    assert switching["word_pass"] is False
    assert (clean["line_pass"], clean["word_pass"]) == (True, True)
    frame = pl.from_arrow(read_table(out, LANGUAGE_CONFUSION))
    assert frame.height == 3
    lines_path = tmp_path / "out" / "lines.parquet"
    run_language_confusion(
        [source], tmp_path / "out" / "again.parquet", offline_models["lid176"], "lid176", lines_path=lines_path
    )
    lines = read_table(lines_path, LANGUAGE_CONFUSION_LINES).to_pylist()
    assert len(lines) == 2 + 4 + 2 and sum(bool(r["confused"]) for r in lines) == 2
    assert {r["label"] for r in lines if r["lang"] == "de"} == {"de"}


def test_serbian_in_latin_letters_is_not_checked_for_english_words_by_the_strict_rule():
    latin, cyrillic = (
        "Beograd je glavni grad Srbije i najveći grad u zemlji.",
        "Београд је главни град Србије, capital city.",
    )
    rows = score([("1", "sr", latin), ("2", "sr", cyrillic)])
    assert (rows[0]["word_pass"], rows[0]["word_excluded_reason"]) == (None, "latin_script")
    assert (rows[1]["english_words"], rows[1]["word_pass"]) == (["capital", "city"], False)
