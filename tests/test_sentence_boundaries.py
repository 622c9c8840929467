"""Three classes of sentence-boundary error, fixed as classes on every splitter's output
(xlcons.segmentation.boundaries), on text written for these tests: an ordinal number with a
period taken for a sentence end, an abbreviation before a number cut, and a sentence ending
in an ellipsis or combined marks not cut."""

from __future__ import annotations

import pytest

from xlcons.segmentation import split, split_sentences, splitter_name
from xlcons.segmentation.boundaries import repair


@pytest.mark.parametrize(
    "lang, text, expected",
    [
        (
            "cs",
            "Republika vznikla 28. října 1918 v Praze. Bylo to důležité.",
            ["Republika vznikla 28. října 1918 v Praze.", "Bylo to důležité."],
        ),
        (
            "pl",
            "Konstytucję uchwalono 3. maja 1791 roku. Była pierwsza w Europie.",
            ["Konstytucję uchwalono 3. maja 1791 roku.", "Była pierwsza w Europie."],
        ),
        (
            "fi",
            "Se tapahtui 6. joulukuuta 1917. Suomi itsenäistyi.",
            ["Se tapahtui 6. joulukuuta 1917.", "Suomi itsenäistyi."],
        ),
        (
            "hr",
            "To se dogodilo 25. lipnja 1991. Hrvatska je neovisna.",
            ["To se dogodilo 25. lipnja 1991.", "Hrvatska je neovisna."],
        ),
        ("sv", "Det hände den 5. maj i Stockholm. Alla firade.", ["Det hände den 5. maj i Stockholm.", "Alla firade."]),
        ("cs", "Karel IV. zemřel v roce 1378. Byl to císař.", ["Karel IV. zemřel v roce 1378.", "Byl to císař."]),
        (
            "hu",
            "A forradalom 1848. március 15. napján kezdődött. Ez ünnep.",
            ["A forradalom 1848. március 15. napján kezdődött.", "Ez ünnep."],
        ),
        ("de", "Er kam am 3. Oktober an. Danach blieb er.", ["Er kam am 3. Oktober an.", "Danach blieb er."]),
    ],
)
def test_an_ordinal_with_a_period_is_not_a_sentence_end(lang, text, expected):
    assert split_sentences(text, lang) == expected, splitter_name(lang)


@pytest.mark.parametrize(
    "lang, text, expected",
    [
        ("ta", "இதன் விலை ரூ. 500 ஆகும். இது மலிவானது.", ["இதன் விலை ரூ. 500 ஆகும்.", "இது மலிவானது."]),
        ("mr", "याची किंमत Rs. 500 आहे. हे स्वस्त आहे.", ["याची किंमत Rs. 500 आहे.", "हे स्वस्त आहे."]),
        ("ur", "اس کی قیمت Rs. 500 ہے۔ یہ سستا ہے۔", ["اس کی قیمت Rs. 500 ہے۔", "یہ سستا ہے۔"]),
        ("id", "Harganya Rp. 15000 saja. Murah sekali.", ["Harganya Rp. 15000 saja.", "Murah sekali."]),
        ("ro", "Costă Rs. 500 în India. E ieftin.", ["Costă Rs. 500 în India.", "E ieftin."]),
        ("sw", "Bei ni Rs. 500 tu. Ni rahisi.", ["Bei ni Rs. 500 tu.", "Ni rahisi."]),
        ("ru", "Это стоит Rs. 500 в Индии. Это дешево.", ["Это стоит Rs. 500 в Индии.", "Это дешево."]),
        ("de", "Das kostet ca. 300 Euro. Nr. 5 ist besser.", ["Das kostet ca. 300 Euro.", "Nr. 5 ist besser."]),
    ],
)
def test_an_abbreviation_before_a_number_is_not_a_sentence_end(lang, text, expected):
    assert split_sentences(text, lang) == expected, splitter_name(lang)


@pytest.mark.parametrize(
    "lang, text, expected",
    [
        ("cs", "Je to pravda... Opravdu?! Ano!! Konec.", ["Je to pravda...", "Opravdu?!", "Ano!!", "Konec."]),
        ("tr", "Bilmiyorum… Gerçekten mi?! Evet!! Son.", ["Bilmiyorum…", "Gerçekten mi?!", "Evet!!", "Son."]),
        ("sv", "Det var sent... Sedan?! Inget!! Slut.", ["Det var sent...", "Sedan?!", "Inget!!", "Slut."]),
        ("id", "Murah... Benarkah?! Ya!! Selesai.", ["Murah...", "Benarkah?!", "Ya!!", "Selesai."]),
        ("ru", "Дешево... Правда?! Да!! Конец.", ["Дешево...", "Правда?!", "Да!!", "Конец."]),
        ("hi", "क्या सच में?! हाँ!! अंत।", ["क्या सच में?!", "हाँ!!", "अंत।"]),
        ("es", "No lo sé... ¿De verdad?! Sí.", ["No lo sé...", "¿De verdad?!", "Sí."]),
    ],
)
def test_an_ellipsis_or_combined_marks_end_a_sentence_before_the_next(lang, text, expected):
    assert split_sentences(text, lang) == expected, splitter_name(lang)


class TestWhatStaysAsItWas:
    def test_an_ellipsis_before_lower_case_is_a_pause(self):
        assert split_sentences("Wait... what? I see.", "en") == ["Wait... what?", "I see."]

    def test_an_ellipsis_in_a_script_without_case_is_left_to_the_splitter(self):
        assert split_sentences("मुझे नहीं पता... क्या सच में?!", "hi") == ["मुझे नहीं पता... क्या सच में?!"]

    def test_a_word_before_a_number_still_ends_a_sentence(self):
        assert split_sentences("I liked it a lot. 5 people came.", "en") == ["I liked it a lot.", "5 people came."]

    def test_a_year_before_a_capital_still_ends_a_sentence(self):
        assert split_sentences("Es geschah 1989. Dann kam die Einheit.", "de") == [
            "Es geschah 1989.",
            "Dann kam die Einheit.",
        ]

    def test_the_line_is_kept_byte_for_byte(self):
        text = "Karel IV. zemřel 29. listopadu 1378... Opravdu?!  Ano."
        segmented = split(text, "cs")
        assert segmented.reassemble(segmented.sentences) == text
        assert segmented.sentences == ["Karel IV. zemřel 29. listopadu 1378...", "Opravdu?!", "Ano."]


def test_repair_merges_and_cuts_the_spans_a_splitter_gives():
    text = "Stalo se 28. října. Pak?! Nic."
    # a naive splitter cut after every period: the ordinal's cut goes, one after "?!" comes
    # (the whitespace after it begins the next span; the builder trims it into layout)
    assert repair(text, [(0, 12), (13, 19), (20, 30)]) == [(0, 19), (20, 25), (25, 30)]
