"""Sentence splitting for translation: the right sentences, and the layout kept exactly.

The translation stage sends a response to NLLB one sentence at a time and puts the
English back in place of the originals (xlcons.segmentation). These tests are
its specification:

- joining N MultiQ questions of a language gives N sentences, for Gupta et al. 2025's 30
  languages and English, and putting the originals back gives the input byte for byte;
- abbreviations, decimals, list markers, numbering, headings, bold, code blocks and
  blank lines are handled as a translator needs them;
- translated sentences land where the originals were, with the layout untouched;
- each language is served by the splitter the registry names (or a reported fallback),
  and an installed trained spaCy pipeline takes over;
- nothing touches the network, even with the libraries imported for the first time.
"""

from __future__ import annotations

import csv
import os
import random
import re
import socket
import subprocess
import sys
import textwrap
from collections import defaultdict
from pathlib import Path

import pytest

from xlcons import segmentation
from xlcons.languages import GUPTA2025_LANGUAGES, LanguageRegistry
from xlcons.segmentation import (
    Segment,
    split,
    split_sentences,
    splitter_info,
    splitter_name,
    splitters,
    urdu_sentence_spans,
)

CHECKOUT = Path(__file__).resolve().parent.parent / "workflow_scripts"
LANGUAGES = (*GUPTA2025_LANGUAGES, "en")
QUESTIONS_PER_PARAGRAPH = 5


def roundtrip(text: str, lang: str) -> list[str]:
    """Split, check that the originals reassemble to the input exactly, return the sentences."""
    segmented = split(text, lang)
    assert segmented.reassemble(segmented.sentences) == text
    assert segmented.text == text
    assert segmented.fallbacks == 0, f"{lang}: the splitter's output did not align"
    return segmented.sentences


@pytest.fixture
def fresh_splitters():
    """Forget built splitters before and after (tests that patch spaCy or the network)."""
    segmentation.clear_cache()
    yield
    segmentation.clear_cache()


# --------------------------------------------------------------------------------------
# MultiQ questions: N questions in, N sentences out, for every language of Gupta et al. 2025
# --------------------------------------------------------------------------------------

# What ends a question in MultiQ: '?' in most languages, '؟' in Arabic script, fullwidth
# '？' in Chinese and Japanese, and ';' (the Greek question mark, U+037E, which NFC turns
# into U+003B) in Greek.
_QUESTION_ENDS = "?？؟!！。।"
_INTERNAL_END = re.compile(r"[?？؟!！。।॥۔]|\.(?!\d)|(?<!\d)\.")


def _final_marks(lang: str) -> str:
    return _QUESTION_ENDS + (";" if lang == "el" else "")


def _one_sentence(prompt: str, lang: str) -> bool:
    """A prompt that is exactly one sentence: it ends with the language's sentence mark
    and has no other sentence mark (a '.' only inside a decimal number). In Thai a space
    can end a sentence (Thai has no sentence punctuation of its own; MultiQ adds '?'),
    so a Thai prompt is one sentence by construction only without a space."""
    if prompt != prompt.strip() or "\n" in prompt or prompt[-1] not in _final_marks(lang):
        return False
    if lang == "th" and " " in prompt:
        return False
    inner = prompt[:-1]
    if lang == "el" and ";" in inner:
        return False
    return not _INTERNAL_END.search(inner)


@pytest.fixture(scope="session")
def multiq_questions(shared_data: Path) -> dict[str, list[str]]:
    """The one-sentence MultiQ prompts of each language, in file order."""
    by_language: dict[str, list[str]] = defaultdict(list)
    with open(shared_data / "multiq" / "MultiQ.csv", encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            if row["language"] in LANGUAGES and _one_sentence(row["prompt"], row["language"]):
                by_language[row["language"]].append(row["prompt"])
    return dict(by_language)


def _paragraphs(questions: list[str], joiner: str) -> list[str]:
    n = QUESTIONS_PER_PARAGRAPH
    return [joiner.join(questions[i : i + n]) for i in range(0, len(questions) - n + 1, n)]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_multiq_paragraph_splits_into_its_questions(lang, multiq_questions):
    questions = multiq_questions.get(lang, [])
    # All 200 MultiQ prompts end with a sentence mark except 25 Thai ones, and a few
    # have two sentences; Thai keeps the 131 prompts without a space (Thai without
    # punctuation has its own test below).
    assert len(questions) >= (130 if lang == "th" else 170), f"{lang}: {len(questions)} prompts"
    joiners = [" "]
    if lang in ("zh", "ja"):
        joiners.append("")  # how Chinese and Japanese are written: no space between sentences
    for joiner in joiners:
        for paragraph in _paragraphs(questions, joiner):
            sentences = roundtrip(paragraph, lang)
            assert len(sentences) == QUESTIONS_PER_PARAGRAPH, (lang, paragraph, sentences)
            assert joiner.join(sentences) == paragraph


@pytest.mark.parametrize("lang", LANGUAGES)
def test_multiq_questions_as_a_markdown_answer(lang, multiq_questions):
    questions = multiq_questions[lang][:6]
    text = (
        f"## {questions[0]}\n\n"
        f"{questions[1]} {questions[2]}\n\n"
        f"- {questions[3]}\n"
        f"2. **{questions[4]}** {questions[5]}\n"
    )
    assert roundtrip(text, lang) == questions
    english = split(text, lang).reassemble([f"Q{i}?" for i in range(6)])
    assert english == "## Q0?\n\nQ1? Q2?\n\n- Q3?\n2. **Q4?** Q5?\n"


THAI_WITHOUT_PUNCTUATION = (
    # "The weather is very nice today. I want to go to the sea, but my friend has to work."
    "วันนี้อากาศดีมาก ฉันอยากไปเที่ยวทะเล แต่เพื่อนของฉันต้องทำงาน\n\n"
    # "Thailand has four regions: the North, the Centre, the Northeast and the South.
    #  Thai food is famous all over the world."
    "ประเทศไทยมีสี่ภาค ได้แก่ ภาคเหนือ ภาคกลาง ภาคอีสาน และภาคใต้ อาหารไทยมีชื่อเสียงไปทั่วโลก"
)


def test_thai_without_sentence_punctuation_is_split_by_the_crf():
    # Thai marks sentence ends with a space, which it also uses inside sentences (before
    # "but", between list items); pythainlp's crfcut model tells them apart.
    assert roundtrip(THAI_WITHOUT_PUNCTUATION, "th") == [
        "วันนี้อากาศดีมาก",
        "ฉันอยากไปเที่ยวทะเล แต่เพื่อนของฉันต้องทำงาน",
        "ประเทศไทยมีสี่ภาค ได้แก่ ภาคเหนือ ภาคกลาง ภาคอีสาน และภาคใต้",
        "อาหารไทยมีชื่อเสียงไปทั่วโลก",
    ]


# --------------------------------------------------------------------------------------
# Abbreviations, decimals and layout
# --------------------------------------------------------------------------------------

RESPONSE = """\
## Water, briefly

Dr. Smith moved to the U.S. in 1999. He says pi is about 3.14, e.g. in class! Is he right?

**Water boils at 100 °C.** It freezes at 0 °C.

- First, e.g. when heated. It evaporates.
* Then it rains
1. **Clouds** form.
2) Rain falls.
   a) Rivers fill up.

```python
print("Not. A. Sentence.")

x = 3.14
```

> A quote. Another one.

| Phase | Example. |
|---|---|
| Solid | Ice. |

Trailing spaces.  \r
Last line without a line break"""


def test_abbreviations_decimals_and_layout():
    assert roundtrip(RESPONSE, "en") == [
        "Water, briefly",
        "Dr. Smith moved to the U.S. in 1999.",
        "He says pi is about 3.14, e.g. in class!",
        "Is he right?",
        "Water boils at 100 °C.",
        "It freezes at 0 °C.",
        "First, e.g. when heated.",
        "It evaporates.",
        "Then it rains",
        "**Clouds** form.",  # emphasis inside a sentence stays in it
        "Rain falls.",
        "Rivers fill up.",
        "A quote.",
        "Another one.",
        "Phase",
        "Example.",
        "Solid",
        "Ice.",
        "Trailing spaces.",
        "Last line without a line break",
    ]


def test_code_block_is_one_verbatim_segment():
    segmented = split(RESPONSE, "en")
    code = [segment for segment in segmented.segments if segment.kind == "code"]
    assert code == [Segment('```python\nprint("Not. A. Sentence.")\n\nx = 3.14\n```\n', False, "code")]


def test_reassembly_keeps_markers_numbering_blank_lines_and_headings():
    text = (
        "# Título\n"
        "\n"
        "Primera frase. Segunda frase.\n"
        "\n"
        "\n"
        "1. **Uno.** Dos.\n"
        "   - Tres\n"
        "2) Cuatro.\n"
        "> *Cinco.*\n"
        "\n"
        "```\n"
        "no traducir. nunca.\n"
        "```\n"
        "  Seis.  \n"
    )
    segmented = split(text, "es")
    assert segmented.sentences == [
        "Título",
        "Primera frase.",
        "Segunda frase.",
        "Uno.",
        "Dos.",
        "Tres",
        "Cuatro.",
        "Cinco.",
        "Seis.",
    ]
    english = segmented.reassemble(
        ["Title", "First sentence.", "Second sentence.", "One.", "Two.", "Three", "Four.", "Five.", "Six."]
    )
    assert english == (
        "# Title\n"
        "\n"
        "First sentence. Second sentence.\n"
        "\n"
        "\n"
        "1. **One.** Two.\n"
        "   - Three\n"
        "2) Four.\n"
        "> *Five.*\n"
        "\n"
        "```\n"
        "no traducir. nunca.\n"
        "```\n"
        "  Six.  \n"
    )


def test_list_marker_styles_are_layout():
    text = "\n".join(
        [
            "- dash item",
            "* star item",
            "+ plus item",
            "• bullet item",
            "1. dotted number",
            "10) paren number",
            "(3) parenthesised number",
            "a) letter item",
            "b. letter item",
            "iv. roman item",
            "- [ ] open task",
            "- [x] done task",
            "### Heading three ###",
            "> > nested quote",
            "1、中文编号",
            "一、中文编号",
        ]
    )
    segmented = split(text, "en")
    assert segmented.reassemble(["S"] * len(segmented.sentences)) == "\n".join(
        [
            "- S",
            "* S",
            "+ S",
            "• S",
            "1. S",
            "10) S",
            "(3) S",
            "a) S",
            "b. S",
            "iv. S",
            "- [ ] S",
            "- [x] S",
            "### S ###",
            "> > S",
            "1、S",
            "一、S",
        ]
    )


def test_emphasis_around_sentences_is_layout_inside_them_is_not():
    segmented = split("**One. Two.** *Three.* Four with **bold** words. __Five.__", "en")
    assert segmented.sentences == ["One.", "Two.", "Three.", "Four with **bold** words.", "Five."]
    assert segmented.reassemble(["1.", "2.", "3.", "4 **b**.", "5."]) == "**1. 2.** *3.* 4 **b**. __5.__"


def test_text_without_letters_is_not_translated():
    text = "1. 42\n2. 3 + 4 = 7\n---\n😀\n`x = 1`\nhttps://example.org/a.b?c=d\n"
    segmented = split(text, "en")
    assert segmented.sentences == []
    assert segmented.reassemble([]) == text


def test_inline_code_and_urls_do_not_end_sentences():
    text = "Call `os.path.join()` first. See https://example.org/a.b?x=1 for more. Done."
    assert roundtrip(text, "en") == [
        "Call `os.path.join()` first.",
        "See https://example.org/a.b?x=1 for more.",
        "Done.",
    ]


def test_sentences_written_without_spaces_get_one_when_translated():
    text = "东京是日本的首都。大阪呢？**我不知道！**"
    segmented = split(text, "zh")
    assert segmented.sentences == ["东京是日本的首都。", "大阪呢？", "我不知道！"]
    assert segmented.reassemble(segmented.sentences) == text
    assert segmented.reassemble(["Tokyo is the capital.", "And Osaka?", "I don't know!"]) == (
        "Tokyo is the capital. And Osaka? **I don't know!**"
    )


def test_reassemble_needs_one_translation_per_sentence():
    segmented = split("One. Two.", "en")
    with pytest.raises(ValueError, match="2 sentences"):
        segmented.reassemble(["Only one."])


def test_translations_are_stripped_of_surrounding_whitespace():
    assert split("- Eins. Zwei.\n", "de").reassemble([" One.\n", "Two. "]) == "- One. Two.\n"


def test_empty_and_whitespace_only_responses():
    for text in ("", " ", "\n\n", " \t\r\n "):
        segmented = split(text, "en")
        assert segmented.sentences == [] and segmented.reassemble([]) == text


# Text made of pieces that stress the layout rules, in several scripts.
_FUZZ_PIECES = (
    "Dr.",
    "Smith",
    "U.S.",
    "3.14",
    "e.g.",
    "word",
    "Wort",
    "слово",
    "東京",
    "首都",
    "हिंदी",
    "पता",
    "ہے",
    "پانی",
    "ภาษาไทย",
    "tiếng",
    "Việt",
    "물",
    "نعم",
    ".",
    "?",
    "!",
    "。",
    "？",
    "؟",
    "۔",
    "।",
    "...",
    "…",
    ";",
    ":",
    ",",
    '"',
    "'",
    "(",
    ")",
    "*",
    "**",
    "_",
    "__",
    "~~",
    "`",
    "```",
    "~~~",
    "$$",
    "#",
    "## ",
    "- ",
    "* ",
    "1. ",
    "a) ",
    "> ",
    "|",
    "---",
    "http://x.y/z.w",
    " ",
    "  ",
    "\t",
    "\u3000",
    "\u00a0",
    "\n",
    "\n\n",
    "\r\n",
    "\r",
    "\u2028",
    "\x0c",
    "😀",
    "٣٫١٤",
)
_FUZZ_LANGUAGES = ("en", "zh", "ja", "hi", "ur", "th", "vi", "pt", "ko", "ar")


@pytest.mark.parametrize("lang", _FUZZ_LANGUAGES)
def test_any_text_reassembles_byte_for_byte(lang):
    rng = random.Random(f"xlcons-splitting-{lang}")
    for _ in range(120):
        text = "".join(rng.choice(_FUZZ_PIECES) for _ in range(rng.randint(0, 40)))
        if rng.random() < 0.3:
            text = rng.choice(("", " ", "\n")) + text + rng.choice(("", " ", "\n", "  \n"))
        segmented = split(text, lang)
        assert segmented.reassemble(segmented.sentences) == text, repr(text)
        for sentence in segmented.sentences:
            assert sentence and sentence == sentence.strip(), repr(text)
            assert len(sentence.splitlines()) == 1, repr(text)
        # Replacing every sentence keeps every layout segment, in order.
        replaced = segmented.reassemble(["<s>"] * len(segmented.sentences))
        layout = [s.text for s in segmented.segments if not s.translate and s.text]
        position = 0
        for piece in layout:
            found = replaced.find(piece, position)
            assert found >= 0, (repr(text), piece)
            position = found + len(piece)


# --------------------------------------------------------------------------------------
# Urdu rules
# --------------------------------------------------------------------------------------


def _urdu(text: str) -> list[str]:
    return [text[start:end] for start, end in urdu_sentence_spans(text)]


def test_urdu_ends_sentences_at_its_marks():
    assert _urdu("پانی کیا ہے؟ یہ مائع ہے۔ واہ! کیا? ہاں") == ["پانی کیا ہے؟", "یہ مائع ہے۔", "واہ!", "کیا?", "ہاں"]


def test_urdu_without_a_space_after_the_full_stop():
    assert _urdu("یہ پانی ہے۔یہ برف ہے۔") == ["یہ پانی ہے۔", "یہ برف ہے۔"]


def test_urdu_keeps_abbreviations_decimals_and_ellipses_together():
    assert _urdu("ڈاکٹر اے۔ خان نے کہا کہ پائی 3.14 ہے۔") == ["ڈاکٹر اے۔ خان نے کہا کہ پائی 3.14 ہے۔"]
    assert _urdu("انہوں نے ایم۔اے اور پی۔ایچ۔ڈی کی۔") == ["انہوں نے ایم۔اے اور پی۔ایچ۔ڈی کی۔"]
    assert _urdu("یہ ۵۰۰ ق۔م کی بات ہے۔") == ["یہ ۵۰۰ ق۔م کی بات ہے۔"]
    assert _urdu("Dr. Khan اور U.S. کا ذکر، e.g. یہاں۔") == ["Dr. Khan اور U.S. کا ذکر، e.g. یہاں۔"]
    assert _urdu("قیمت ۳٫۵ اور 2.5 ہے۔ بس۔۔۔ ٹھیک ہے۔") == ["قیمت ۳٫۵ اور 2.5 ہے۔", "بس۔۔۔ ٹھیک ہے۔"]


def test_urdu_closing_quotes_stay_with_their_sentence_and_urls_are_not_split():
    assert _urdu("اس نے کہا: ”ٹھیک ہے۔“ پھر گیا۔") == ["اس نے کہا: ”ٹھیک ہے۔“", "پھر گیا۔"]
    assert _urdu("دیکھیں https://ur.wikipedia.org/wiki/پانی?x=1 یہاں۔") == [
        "دیکھیں https://ur.wikipedia.org/wiki/پانی?x=1 یہاں۔"
    ]


# --------------------------------------------------------------------------------------
# Which splitter serves which language
# --------------------------------------------------------------------------------------

# Every registry choice is served as named (Bhojpuri, Dogri and Maithili by indic-nlp's
# Hindi rules; Meetei Mayek by spaCy), so nothing falls back.
EXPECTED_FALLBACKS: set[str] = set()

GUPTA2025_SPLITTERS = {
    "pysbd:ar": "ar",
    "indicnlp:bn": "bn",
    "spacy:blank-cs+sentencizer": "cs",
    "pysbd:de": "de",
    "pysbd:el": "el",
    "pysbd:es": "es",
    "pysbd:fa": "fa",
    "pysbd:fr": "fr",
    "indicnlp:gu": "gu",
    "indicnlp:hi": "hi",
    "spacy:blank-id+sentencizer": "id",
    "pysbd:it": "it",
    "spacy:blank-he+sentencizer": "iw",
    "pysbd:ja": "ja",
    "indicnlp:kn": "kn",
    "spacy:blank-ko+sentencizer": "ko",
    "indicnlp:ml": "ml",
    "pysbd:nl": "nl",
    "indicnlp:pa": "pa",
    "pysbd:pl": "pl",
    "spacy:blank-pt+sentencizer": "pt",
    "spacy:blank-ro+sentencizer": "ro",
    "pysbd:ru": "ru",
    "indicnlp:ta": "ta",
    "indicnlp:te": "te",
    "pythainlp:crfcut": "th",
    "spacy:blank-tr+sentencizer": "tr",
    "urdu:ur": "ur",
    "underthesea:vi": "vi",
    "pysbd:zh": "zh",
    "pysbd:en": "en",
}


@pytest.fixture
def no_trained_pipelines(fresh_splitters, monkeypatch):
    """What the registry alone decides, whatever spaCy pipelines this machine has."""
    monkeypatch.setattr(splitters, "_is_package", lambda name: False)


def test_paper_languages_get_the_expected_splitters(no_trained_pipelines):
    assert {splitter_name(lang): lang for lang in LANGUAGES} == GUPTA2025_SPLITTERS


def test_every_language_is_served_by_its_registry_splitter_or_a_reported_fallback(
    no_trained_pipelines,
):
    registry = LanguageRegistry.load()
    fallbacks = set()
    for language in registry:
        info = splitter_info(language.code)
        assert info.registry == language.splitter
        if info.matches_registry:
            assert info.note is None, language.code
        else:
            assert info.kind == "spacy" and info.note, language.code
            fallbacks.add(language.code)
    assert fallbacks == EXPECTED_FALLBACKS


def test_segmented_records_its_splitter(no_trained_pipelines):
    assert split("Wie spät ist es?", "de").splitter == "pysbd:de"
    assert split("Que horas são?", "pt").splitter == "spacy:blank-pt+sentencizer"


def test_near_duplicate_codes_share_their_splitter(no_trained_pipelines):
    assert splitter_name("zh-CN") == splitter_name("zh-TW") == "pysbd:zh"
    assert splitter_name("iw") == splitter_name("he")


def test_splitters_are_built_once_per_language(fresh_splitters, monkeypatch):
    import pysbd

    built = []
    real = pysbd.Segmenter

    def counting(*args, **kwargs):
        built.append(kwargs.get("language"))
        return real(*args, **kwargs)

    monkeypatch.setattr(pysbd, "Segmenter", counting)
    for _ in range(3):
        split("Eins. Zwei.", "de")
        split("Un. Deux.", "fr")
        split("东京。大阪。", "zh-CN")
        split("東京。大阪。", "zh-TW")
    assert sorted(built) == ["de", "fr", "zh"]


def _fake_trained_pipeline(monkeypatch, installed: set[str]):
    """Pretend trained pipelines ``installed`` exist: a blank pipeline cutting only at '|'."""
    import spacy

    loaded = []

    def load(name, **kwargs):
        loaded.append(name)
        nlp = spacy.blank("xx")
        nlp.add_pipe("sentencizer", config={"punct_chars": ["|"]})
        return nlp

    monkeypatch.setattr(splitters, "_is_package", lambda name: name in installed)
    monkeypatch.setattr(spacy, "load", load)
    return loaded


def test_an_installed_trained_pipeline_takes_over(fresh_splitters, monkeypatch):
    loaded = _fake_trained_pipeline(monkeypatch, {"de_core_news_sm"})
    info = splitter_info("de")
    assert (info.registry, info.kind, info.name) == ("pysbd", "spacy-trained", "spacy:de_core_news_sm")
    assert "de_core_news_sm" in info.note
    segmented = split("Erster Satz. Zweiter Satz. | Dritter", "de")
    assert segmented.sentences == ["Erster Satz. Zweiter Satz. |", "Dritter"]
    assert segmented.splitter == "spacy:de_core_news_sm"
    assert loaded == ["de_core_news_sm"]
    assert splitter_name("fr") == "pysbd:fr"  # other languages are untouched


def test_the_multilingual_pipeline_only_replaces_blank_spacy(fresh_splitters, monkeypatch):
    _fake_trained_pipeline(monkeypatch, {"xx_sent_ud_sm"})
    assert splitter_name("pt") == "spacy:xx_sent_ud_sm"  # registry: spacy
    assert splitter_name("mni-Mtei") == "spacy:xx_sent_ud_sm"  # registry: spacy, no blank class
    assert splitter_name("de") == "pysbd:de"  # a dedicated library stays


def test_a_squatted_pipeline_name_is_ignored(fresh_splitters, monkeypatch):
    from importlib import metadata

    loaded = _fake_trained_pipeline(monkeypatch, {"de_core_news_sm"})
    real_version = metadata.version
    monkeypatch.setattr(metadata, "version", lambda name: "999.9.9" if "core_news" in name else real_version(name))
    assert splitter_name("de") == "pysbd:de"
    split("Eins. Zwei.", "de")
    assert loaded == []


# --------------------------------------------------------------------------------------
# No network, no downloads
# --------------------------------------------------------------------------------------

OFFLINE_TEXTS = {
    "th": "สูตรเคมีของน้ำคืออะไร? จุดเดือดของน้ำคือเท่าใด? " + THAI_WITHOUT_PUNCTUATION,
    "vi": "Công thức hóa học của nước là gì? Tôi không biết. Dr. Nam nói 3.14!",
    "hi": "जल का रासायनिक सूत्र क्या है? मुझे नहीं पता। डॉ. शर्मा जानते हैं।",
    "ur": "پانی کا کیمیائی فارمولا کیا ہے؟ مجھے نہیں معلوم۔ ڈاکٹر اے۔ خان جانتے ہیں۔",
    "ja": "水の化学式は何ですか?海面での水の沸点は何度ですか？知りません。",
    "zh": "水的化学式是什么？海平面处水的沸点是多少？我不知道。",
}
OFFLINE_COUNTS = {"th": 6, "vi": 3, "hi": 3, "ur": 3, "ja": 3, "zh": 3}


def _refuse(*args, **kwargs):
    raise OSError("network access attempted while splitting sentences (must work offline)")


def test_splitters_work_with_the_network_disabled(fresh_splitters, monkeypatch):
    monkeypatch.setattr(socket.socket, "connect", _refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", _refuse)
    monkeypatch.setattr(socket, "create_connection", _refuse)
    for lang, text in OFFLINE_TEXTS.items():
        assert len(roundtrip(text, lang)) == OFFLINE_COUNTS[lang], lang


def test_first_use_in_a_fresh_process_downloads_nothing(tmp_path):
    """Import and first use of every library, sockets refused, an empty home directory:
    nothing may connect, hang, or write a data directory (pythainlp would create
    ~/pythainlp-data)."""
    home = tmp_path / "home"
    home.mkdir()
    script = textwrap.dedent(
        f"""
        import socket
        def refuse(*args, **kwargs):
            raise OSError("network access attempted")
        socket.socket.connect = refuse
        socket.socket.connect_ex = refuse
        socket.create_connection = refuse
        from xlcons.segmentation import split
        texts = {OFFLINE_TEXTS!r}
        for lang, text in texts.items():
            segmented = split(text, lang)
            assert segmented.reassemble(segmented.sentences) == text, lang
            assert len(segmented.sentences) == {OFFLINE_COUNTS!r}[lang], (lang, segmented.sentences)
        print("ok")
        """
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHAINLP_")}
    env.update(HOME=str(home), HF_HUB_OFFLINE="1", XDG_CACHE_HOME=str(home / ".cache"))
    # The checkout under test, not whichever copy the venv installed.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(CHECKOUT), env.get("PYTHONPATH")]))
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip() == "ok"
    assert list(home.iterdir()) == [], "a splitter wrote to the home directory"


def test_split_sentences_is_the_translatable_text():
    assert split_sentences("- Eins. Zwei.\n\n**Drei.**", "de") == ["Eins.", "Zwei.", "Drei."]
