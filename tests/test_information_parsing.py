"""Reading the evaluator LLM's answers (xlcons.evaluators.information.parsing).

The fixtures are answers of the kind instruction models give to the extraction and the
verification prompt, written for these tests: the requested format, and the usual
deviations (numbering, headers, chatter, quotes, repeats, refusals, run-on examples).
"""

from __future__ import annotations

import pytest

from xlcons.evaluators.information.parsing import (
    NOT_SUPPORTED,
    SUPPORTED,
    UNPARSEABLE,
    VERDICTS,
    fact_key,
    parse_facts,
    parse_verdict,
)
from xlcons.evaluators.information.prompts import (
    EXTRACTION_DEMONSTRATIONS,
    extraction_prompt,
    verification_prompt,
)

BALTIC = ["The Baltic Sea is brackish.", "The Baltic Sea is connected to the North Sea."]

FACT_LISTS = {
    "requested format": ("- The Baltic Sea is brackish.\n- The Baltic Sea is connected to the North Sea.", BALTIC),
    "star bullets": ("* The Baltic Sea is brackish.\n* The Baltic Sea is connected to the North Sea.", BALTIC),
    "round bullets, indented": (
        "  • The Baltic Sea is brackish.\n  • The Baltic Sea is connected to the North Sea.\n",
        BALTIC,
    ),
    "numbered with dots": ("1. The Baltic Sea is brackish.\n2. The Baltic Sea is connected to the North Sea.", BALTIC),
    "mixed numbering": ("1) The Baltic Sea is brackish.\n(2) The Baltic Sea is connected to the North Sea.", BALTIC),
    "fact labels": (
        "Fact 1: The Baltic Sea is brackish.\nFact 2: The Baltic Sea is connected to the North Sea.",
        BALTIC,
    ),
    "plain lines": ("The Baltic Sea is brackish.\nThe Baltic Sea is connected to the North Sea.", BALTIC),
    "facts header": ("Facts:\n- The Baltic Sea is brackish.\n- The Baltic Sea is connected to the North Sea.", BALTIC),
    "header with the fact on its line": ("Facts: The Baltic Sea is brackish.", BALTIC[:1]),
    "chatter around a list": (
        "Sure! Here are the atomic facts stated in the marked sentence:\n\n"
        "- The Baltic Sea is brackish.\n- The Baltic Sea is connected to the North Sea.\n\n"
        "These facts are taken only from the marked sentence. Let me know if you need more!",
        BALTIC,
    ),
    "chatter around plain lines": (
        "Here are the facts:\nThe Baltic Sea is brackish.\nThe Baltic "
        "Sea is connected to the North Sea.\nI hope this helps!",
        BALTIC,
    ),
    "quoted and bold": ('- "The Baltic Sea is brackish."\n- **The Baltic Sea is connected to the North Sea.**', BALTIC),
    "curly quotes": (
        "- \u201cThe Baltic Sea is brackish.\u201d\n- The Baltic Sea is connected to the North Sea.",
        BALTIC,
    ),
    "repeated facts": (
        "- The Baltic Sea is brackish.\n- The Baltic Sea is connected to the North Sea.\n- the baltic sea is brackish\n"
        "- The Baltic Sea is brackish.",
        BALTIC,
    ),
    "code fence": ("```\n- The Baltic Sea is brackish.\n- The Baltic Sea is connected to the North Sea.\n```", BALTIC),
    "runs on into an invented example": (
        "- The Baltic Sea is brackish.\n- The Baltic Sea is connected to the North Sea.\n\n"
        "Response:\nMount Fuji is in Japan.\n\nMarked sentence: >>> Mount "
        "Fuji is in Japan. <<<\n\nFacts:\n- Mount Fuji is in Japan.",
        BALTIC,
    ),
    "numbers that are not markers": (
        "3.5 million people live in Riga.\n-5 °C is a usual January temperature in Riga.",
        ["3.5 million people live in Riga.", "-5 °C is a usual January temperature in Riga."],
    ),
    "bullet without text and a rule": (
        "- The Baltic Sea is brackish.\n-\n---\n- The Baltic Sea is connected to the North Sea.",
        BALTIC,
    ),
}

NO_FACTS = {
    "empty": "",
    "whitespace": "  \n\t ",
    "none": "None",
    "none with a dot": "None.",
    "bulleted none": "- None",
    "none with a reason": "None, because the sentence is a greeting.",
    "no facts": "No facts.",
    "no atomic facts": "No atomic facts.",
    "there are no facts": "There are no atomic facts in this sentence; it is a greeting.",
    "the sentence states no fact": "The marked sentence states no fact.",
    "n/a": "N/A",
    "header then none": "Facts:\nNone",
    "refusal": "I cannot extract facts from this sentence.",
    "apology": "I'm sorry, but this sentence does not contain any information.",
    "only a header": "Here are the atomic facts:",
}


@pytest.mark.parametrize("answer, facts", FACT_LISTS.values(), ids=FACT_LISTS.keys())
def test_fact_lists_are_read_in_every_usual_shape(answer, facts):
    assert parse_facts(answer) == facts


@pytest.mark.parametrize("answer", NO_FACTS.values(), ids=NO_FACTS.keys())
def test_answers_without_facts_give_none(answer):
    assert parse_facts(answer) == []


def test_none_as_a_word_inside_a_fact_is_a_fact():
    assert parse_facts("- None of the Baltic states uses the rouble.") == ["None of the Baltic states uses the rouble."]


def test_prose_with_a_stray_chatter_line_keeps_the_facts():
    answer = "Okay.\nRiga is the capital of Latvia.\nRiga lies on the Daugava river.\nNote: the sentence is short."
    assert parse_facts(answer) == ["Riga is the capital of Latvia.", "Riga lies on the Daugava river."]


def test_a_cut_off_last_fact_is_dropped_only_when_truncated():
    answer = "- The Baltic Sea is brackish.\n- The Baltic Sea is connected to the"
    assert parse_facts(answer, truncated=True) == ["The Baltic Sea is brackish."]
    assert parse_facts(answer) == ["The Baltic Sea is brackish.", "The Baltic Sea is connected to the"]
    assert parse_facts("- The Baltic Sea is brackish.", truncated=True) == ["The Baltic Sea is brackish."]


def test_max_facts_caps_a_runaway_answer():
    answer = "\n".join(f"- Fact number {index} is here." for index in range(100))
    assert len(parse_facts(answer, max_facts=24)) == 24
    assert parse_facts(answer, max_facts=2) == ["Fact number 0 is here.", "Fact number 1 is here."]


def test_fact_key_ignores_case_quotes_spacing_and_final_punctuation():
    assert fact_key("The  Baltic Sea is \u201cbrackish\u201d.") == fact_key('the baltic sea is "brackish"')
    assert fact_key("Riga is in Latvia.") != fact_key("Riga is in Lithuania.")


VERDICT_ANSWERS = {
    "Supported": SUPPORTED,
    "Supported.": SUPPORTED,
    "supported": SUPPORTED,
    "**Supported**": SUPPORTED,
    "Answer: Supported": SUPPORTED,
    "Verdict - supported.": SUPPORTED,
    "Supported. The text gives the same year.": SUPPORTED,
    "Yes": SUPPORTED,
    "True": SUPPORTED,
    "The text states that penicillin was found in 1928, so the statement is supported.": SUPPORTED,
    "The text says Fleming found it in 1928. Supported.": SUPPORTED,
    "The context supports the statement.": SUPPORTED,
    "Not supported": NOT_SUPPORTED,
    "Not Supported.": NOT_SUPPORTED,
    "not_supported": NOT_SUPPORTED,
    "Unsupported": NOT_SUPPORTED,
    "**Not supported** - the text gives another year.": NOT_SUPPORTED,
    "Answer: Not supported": NOT_SUPPORTED,
    "Partially supported: the year is right, the place is not.": NOT_SUPPORTED,
    "No.": NOT_SUPPORTED,
    "False": NOT_SUPPORTED,
    "The statement is not supported by the text.": NOT_SUPPORTED,
    "The text does not mention the river.": NOT_SUPPORTED,
    "The text contradicts this: it names 1929.": NOT_SUPPORTED,
    "The statement isn't supported.": NOT_SUPPORTED,
    "The text mentions a date. Not supported.": NOT_SUPPORTED,
    "": UNPARSEABLE,
    "   ": UNPARSEABLE,
    "Supported, Not supported": UNPARSEABLE,
    "Supported or not supported.": UNPARSEABLE,
    "I cannot determine this from the text.": UNPARSEABLE,
    "It is unclear.": UNPARSEABLE,
    "The Baltic Sea is a sea in northern Europe.": UNPARSEABLE,
    "ĠtheĠ ĊĊ 47 zx": UNPARSEABLE,
    "The first part is supported but the second is not mentioned.": UNPARSEABLE,
}


@pytest.mark.parametrize("answer, verdict", VERDICT_ANSWERS.items(), ids=[repr(text) for text in VERDICT_ANSWERS])
def test_parse_verdict(answer, verdict):
    assert parse_verdict(answer) == verdict
    assert verdict in VERDICTS


def test_parse_verdict_of_nothing_is_unparseable():
    assert parse_verdict(None) == UNPARSEABLE


# -- the prompts (their shape, not their wording) -------------------------------------------


def test_extraction_prompts_of_one_response_share_everything_but_the_sentence():
    response = "Riga is the capital of Latvia.\n\nIt lies on the Daugava."
    first = extraction_prompt(response, "Riga is the capital of Latvia.")
    second = extraction_prompt(response, "It lies on the Daugava.")
    assert first.endswith(">>> Riga is the capital of Latvia. <<<\n\nFacts:")
    prefix = first[: first.rindex("Marked sentence:")]
    assert second.startswith(prefix) and response in prefix
    # the demonstrations come first and are in the format the parser reads
    for demo_response, _, facts in EXTRACTION_DEMONSTRATIONS:
        assert demo_response in first
        assert first.index(demo_response) < first.index(response)
        answer = "\n".join(f"- {fact}" for fact in facts) if facts else "None"
        assert parse_facts(answer) == list(facts)


def test_a_sentence_with_line_breaks_cannot_break_the_layout():
    assert ">>> two lines <<<" in extraction_prompt("two\nlines", "two\nlines")
    assert verification_prompt("ctx", "a\nfact").endswith("Statement: a fact\nAnswer:")


def test_verification_prompts_put_the_context_first_and_the_fact_last():
    context = "Penicillin was discovered by Alexander Fleming in 1928."
    first = verification_prompt(context, "Fleming discovered penicillin.")
    second = verification_prompt(context, "Penicillin was discovered in 1928.")
    assert first.endswith("Statement: Fleming discovered penicillin.\nAnswer:")
    shared = first[: first.rindex("Statement:")]
    assert second.startswith(shared)
    assert shared.index(context) < shared.index("Supported")
