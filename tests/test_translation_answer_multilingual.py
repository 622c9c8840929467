"""The FLORES extraction (`answer: answer`) in every language, not just the 12 of Xing et al. 2024:
chat answers written for these tests in 30+ languages (tests/data/translation_answers) come out
exactly, and faithful text (FLORES references, MultiQ's prompts) passes through unchanged, bare or
wrapped in a typical preamble."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import polars as pl
import pytest
import yaml

from builders import FLORES_SAMPLE
from xlcons.evaluators.translation_answer import extract_answer
from xlcons.languages import XING2024_LANGUAGES, LanguageRegistry

CASES_PATH = Path(__file__).parent / "data" / "translation_answers" / "chat_answers.yaml"
CASES = yaml.safe_load(CASES_PATH.read_text(encoding="utf-8"))["cases"]
REGISTRY = LanguageRegistry.load()
# What the outside test found missed, one kind of case each (tests/data/translation_answers).
MISS_KINDS = {
    "native_preamble",  # a preamble in the target language ("إليك الترجمة إلى العربية:")
    "native_label",  # a label naming the language in its own name ("Polski: …")
    "english_chat",  # "Sure, here you go: …", "Here it is in Russian — …"
    "multi_line",  # a translation over two lines
    "romanisation",  # a romanisation after it, same line or next
    "explanation",  # an English explanation after it
    "alternatives",  # numbered or bulleted alternatives
    "refusal",  # a refusal: status `refused`, never scored
}


def _status(answer: str, lang: str) -> tuple[str, str]:
    extraction = extract_answer(answer, lang, REGISTRY[lang].name)
    return extraction.text, "refused" if extraction.refused else "ok" if extraction.text else "empty"


def test_the_cases_cover_20_languages_8_beyond_xing_et_al_and_every_kind_of_miss():
    languages = {case["lang"] for case in CASES}
    assert all(lang in REGISTRY for lang in languages)
    assert len(languages) >= 20
    assert len(languages - set(XING2024_LANGUAGES)) >= 8
    assert MISS_KINDS <= {case["kind"] for case in CASES}


def test_at_least_95_percent_of_the_chat_answers_come_out_exactly(figures):
    exact: Counter[str] = Counter()
    total: Counter[str] = Counter()
    missed = []
    for case in CASES:
        got = _status(case["answer"], case["lang"])
        expected = (case["expected"], case.get("status", "ok"))
        total[case["kind"]] += 1
        if got == expected:
            exact[case["kind"]] += 1
        else:
            missed.append(f"{case['lang']} {case['kind']}: {got!r}, expected {expected!r}")
    share = sum(exact.values()) / len(CASES)
    figure = f"{sum(exact.values())}/{len(CASES)} ({share:.1%}); " + ", ".join(
        f"{kind} {exact[kind]}/{total[kind]}" for kind in sorted(total)
    )
    figures["FLORES extraction, multilingual chat answers exact"] = figure
    print(figure)
    assert share >= 0.95, "\n".join(missed)


@pytest.mark.parametrize("nllb", sorted(FLORES_SAMPLE))
def test_flores_references_pass_through_unchanged_bare_and_wrapped(nllb):
    code = next(language.code for language in REGISTRY if language.nllb == nllb)
    name = REGISTRY[code].name
    for sentence in FLORES_SAMPLE[nllb]:
        for answer in (
            sentence,
            f"Here is the translation into {name}:\n\n{sentence}",
            f'Sure! Here\'s the {name} translation:\n\n"{sentence}"\n\nI hope this helps!',
            f"{name}: {sentence}",
            f"**{name}:**\n{sentence}\n\nNote: a literal translation.",
        ):
            assert _status(answer, code) == (sentence, "ok"), answer


def test_multiq_prompts_in_every_language_pass_through_unchanged(shared_data):
    """Faithful text in 137 languages (MultiQ's prompts, 20 per language) as a bare answer
    and after a preamble: nothing of it is taken for wrapping, none is a refusal."""
    prompts = (
        pl.read_csv(shared_data / "multiq" / "MultiQ.csv")
        .filter(pl.col("language").is_in([language.code for language in REGISTRY]))
        .group_by("language", maintain_order=True)
        .head(20)
    )
    changed = []
    for lang, prompt in prompts.select("language", "prompt").iter_rows():
        text, name = prompt.strip(), REGISTRY[lang].name
        for answer in (text, f"Here is the translation into {name}:\n\n{text}", f"{name}: {text}"):
            if _status(answer, lang) != (text, "ok"):
                changed.append((lang, answer))
    assert prompts["language"].n_unique() >= 100
    assert not changed, changed[:10]


def test_refusals_are_told_from_sentences_that_apologise():
    assert _status("I'm sorry, but I can't translate this.", "en") == ("", "refused")
    assert _status("I'm sorry, but I can't help with that.", "en") == (
        "I'm sorry, but I can't help with that.",
        "ok",
    ), "into English, an apology is what a sentence may say: only one that speaks of translating is a refusal"
    assert _status("Sorry, I cannot help with that.", "de") == ("", "refused")
    assert _status("Sorry seemed to be the hardest word.", "de") == ("Sorry seemed to be the hardest word.", "ok")
    # An apology that goes on to give a translation is no refusal.
    hedged = "I'm sorry, I can't translate this word for word, but here is a close version:\n\nDer Fluss fror früh."
    assert _status(hedged, "de") == ("Der Fluss fror früh.", "ok")


def test_structure_rules_keep_what_belongs_to_the_sentence():
    # A bracket inside the sentence (before its full stop) stays; one after its end goes.
    assert _status("Das Museum (seit 1998) öffnet um neun.", "de")[0] == "Das Museum (seit 1998) öffnet um neun."
    assert _status("Das Museum öffnet um neun. (wörtlich)", "de")[0] == "Das Museum öffnet um neun."
    # A dash inside the sentence stays; a tail in Latin letters after a Cyrillic sentence goes.
    assert _status("Музей — старейший в городе.", "ru")[0] == "Музей — старейший в городе."
    assert _status("Музей открыт. — Muzey otkryt.", "ru")[0] == "Музей открыт."
    # A bare answer keeps its first line only (a base model's continuation), a preambled one its paragraph.
    assert _status("Das Museum öffnet um neun.\nEs liegt", "de")[0] == "Das Museum öffnet um neun."
    assert _status("Deutsch:\nDas Museum öffnet um neun.\nEs liegt am Fluss.", "de")[0] == (
        "Das Museum öffnet um neun.\nEs liegt am Fluss."
    )
    # One numbered line is no list of alternatives.
    assert _status("1. FC Köln gewann das Spiel.", "de")[0] == "1. FC Köln gewann das Spiel."
