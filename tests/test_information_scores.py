"""Precision, recall, F1 and the rule for sides without facts (xlcons.evaluators.information.scores).

The rule, as the module docstring states it: a side is no_answer / refusal /
extraction_failed / no_facts / facts; an item with a failed extraction or with facts on
neither side is excluded (counted by reason, null scores); an item with facts on one side
only scores P = R = F1 = 0; unparseable verdicts count as not supported and are counted.
"""

from __future__ import annotations

import math

import pyarrow as pa
import pytest

from xlcons.evaluators.information.scores import (
    EXCLUSION_REASONS,
    EXTRACTION_FAILED,
    FACTS,
    NO_ANSWER_STATUS,
    NO_FACTS,
    REFUSAL,
    SIDE_STATUSES,
    f1_score,
    format_reasons,
    is_no_answer,
    is_refusal,
    language_scores,
    score_item,
    side_status,
)
from xlcons.evaluators.information.tables import (
    INFORMATION_EXCLUSIONS,
    INFORMATION_ITEMS,
    INFORMATION_SCORES,
    INFORMATION_SIDE_STATUSES,
)
from xlcons.schemas import NO_ANSWER

S, N, U = "supported", "not_supported", "unparseable"


def test_the_schema_lists_the_statuses_and_reasons_the_rule_uses():
    assert INFORMATION_SIDE_STATUSES == SIDE_STATUSES
    assert INFORMATION_EXCLUSIONS == EXCLUSION_REASONS


# -- one item ------------------------------------------------------------------------------


def test_precision_recall_and_f1_of_an_item_by_hand():
    # English: 4 facts, 1 supported by the translation; translation: 3 facts, 2 supported by the English.
    score = score_item(FACTS, FACTS, english_verdicts=[S, N, N, N], translated_verdicts=[S, S, N])
    assert score.precision == pytest.approx(2 / 3)
    assert score.recall == pytest.approx(1 / 4)
    # 2·(2/3)(1/4) / (2/3 + 1/4) = (1/3) / (11/12) = 4/11
    assert score.f1 == pytest.approx(4 / 11)
    assert (score.n_supported_english, score.n_supported_translated, score.n_unparseable) == (1, 2, 0)
    assert score.scored and not score.one_sided


def test_identical_sides_score_one_and_disjoint_sides_zero():
    assert score_item(FACTS, FACTS, [S, S], [S]).f1 == 1.0
    disjoint = score_item(FACTS, FACTS, [N, N], [N])
    assert (disjoint.precision, disjoint.recall, disjoint.f1) == (0.0, 0.0, 0.0)


def test_unparseable_verdicts_count_as_not_supported_and_are_counted():
    score = score_item(FACTS, FACTS, english_verdicts=[S, U], translated_verdicts=[U, U, S, S])
    assert score.recall == pytest.approx(1 / 2)
    assert score.precision == pytest.approx(2 / 4)
    assert score.n_unparseable == 3


@pytest.mark.parametrize(
    "english, translated, reason",
    [
        (NO_ANSWER_STATUS, NO_ANSWER_STATUS, "no_answer"),
        (NO_ANSWER_STATUS, NO_FACTS, "no_answer"),
        (REFUSAL, NO_ANSWER_STATUS, "no_answer"),
        (REFUSAL, REFUSAL, "refusal"),
        (NO_FACTS, REFUSAL, "refusal"),
        (NO_FACTS, NO_FACTS, "no_facts"),
        (EXTRACTION_FAILED, FACTS, "extraction_failed"),
        (FACTS, EXTRACTION_FAILED, "extraction_failed"),
        (EXTRACTION_FAILED, NO_ANSWER_STATUS, "extraction_failed"),
    ],
)
def test_items_without_facts_on_either_side_or_with_a_failed_extraction_are_excluded(english, translated, reason):
    score = score_item(english, translated, [], [])
    assert score.excluded_reason == reason and not score.scored
    assert (score.precision, score.recall, score.f1) == (None, None, None)


@pytest.mark.parametrize("without", [NO_ANSWER_STATUS, REFUSAL, NO_FACTS])
def test_facts_on_one_side_only_score_zero(without):
    for english, translated in ((FACTS, without), (without, FACTS)):
        score = score_item(english, translated, [], [])
        assert score.scored and score.one_sided
        assert (score.precision, score.recall, score.f1) == (0.0, 0.0, 0.0)


def test_an_unknown_status_is_an_error():
    with pytest.raises(ValueError, match="unknown side status"):
        score_item("empty", FACTS, [], [S])


def test_f1_of_zero_and_zero_is_zero_not_nan():
    assert f1_score(0.0, 0.0) == 0.0
    assert f1_score(1.0, 0.5) == pytest.approx(2 / 3)


# -- sides -----------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [None, "", "   \n", NO_ANSWER, f"  {NO_ANSWER}\n"])
def test_no_answer_texts(text):
    assert is_no_answer(text)
    assert side_status(text, n_facts=0, n_extraction_failed=0) == NO_ANSWER_STATUS


@pytest.mark.parametrize(
    "text",
    [
        "I'm sorry, but I can't help with that.",
        "I’m sorry, I cannot provide information on that topic.",
        "Sorry, I am not able to answer this question.",
        "I cannot answer that.",
        "As an AI language model, I do not have personal opinions.",
        "**I am unable to help with this request.**",
        "Unfortunately, I don't have information about this.",
    ],
)
def test_short_refusals(text):
    assert is_refusal(text)
    assert side_status(text, n_facts=0, n_extraction_failed=0) == REFUSAL


@pytest.mark.parametrize(
    "text",
    [
        "Photosynthesis turns light into chemical energy. Sorry if this is brief.",
        "I'm sorry for the confusion earlier. " + "Photosynthesis takes place in the chloroplasts of plant cells. " * 6,
        "The Industrial Revolution began in Britain.",
        NO_ANSWER,
    ],
)
def test_answers_are_not_refusals(text):
    assert not is_refusal(text)


def test_side_status_after_extraction():
    text = "Riga is the capital of Latvia."
    assert side_status(text, n_facts=2, n_extraction_failed=0) == FACTS
    assert side_status(text, n_facts=2, n_extraction_failed=1) == FACTS  # partial failure: scored, counted
    assert side_status(text, n_facts=0, n_extraction_failed=1) == EXTRACTION_FAILED
    assert side_status(text, n_facts=0, n_extraction_failed=0) == NO_FACTS


# -- languages ---------------------------------------------------------------------------------


def item(lang, precision=None, recall=None, *, reason=None, one_sided=False, item_id="q", n_unparseable=0, model="m"):
    f1 = None if precision is None else f1_score(precision, recall)
    return {
        "dataset": "information",
        "model": model,
        "item_id": item_id,
        "lang": lang,
        "comparison": "translation",
        "evaluator_model": "judge-llm",
        "translation_path": "prompt_language",
        "english_status": FACTS,
        "translated_status": FACTS if reason is None else NO_FACTS,
        "n_sentences_english": 2,
        "n_sentences_translated": 2,
        "n_facts_english": 4,
        "n_facts_translated": 3,
        "n_supported_english": 0,
        "n_supported_translated": 0,
        "n_unparseable": n_unparseable,
        "n_extraction_failed": 0,
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "one_sided": one_sided,
        "excluded_reason": reason,
        "n_llm_calls": 9,
    }


def items_table(rows):
    return pa.Table.from_pylist(rows, schema=INFORMATION_ITEMS)


def test_language_scores_by_hand():
    rows = [
        item("de", 1.0, 0.5, item_id="a"),
        item("de", 0.5, 0.25, item_id="b", n_unparseable=2),
        item("de", 0.0, 0.0, item_id="c", one_sided=True),
        item("de", item_id="d", reason="no_answer"),
        item("de", item_id="e", reason="no_answer"),
        item("de", item_id="f", reason="refusal"),
        item("ar", 0.8, 0.4, item_id="a"),
    ]
    table = language_scores(items_table(rows))
    assert table.schema == INFORMATION_SCORES
    de, ar = table.to_pylist()
    assert (de["lang"], ar["lang"]) == ("de", "ar")
    # C^P = (1 + .5 + 0)/3 = .5; C^R = (.5 + .25 + 0)/3 = .25; F = 2·.5·.25/.75 = 1/3
    assert de["c_precision"] == pytest.approx(0.5)
    assert de["c_recall"] == pytest.approx(0.25)
    assert de["f"] == pytest.approx(1 / 3)
    # per-item F1: 2/3, 1/3, 0 → mean 1/3 (equal to F here only by coincidence of the numbers)
    assert de["mean_f1"] == pytest.approx((2 / 3 + 1 / 3 + 0) / 3)
    assert (de["n_items"], de["n_scored"], de["n_one_sided"], de["n_excluded"]) == (6, 3, 1, 3)
    assert de["excluded_reasons"] == "no_answer:2; refusal:1"
    assert (de["n_facts_english"], de["n_facts_translated"], de["n_unparseable"]) == (24, 18, 2)
    assert ar["f"] == pytest.approx(2 * 0.8 * 0.4 / 1.2) and ar["mean_f1"] == pytest.approx(2 * 0.8 * 0.4 / 1.2)
    assert ar["n_excluded"] == 0 and ar["excluded_reasons"] is None


def test_the_harmonic_mean_of_means_differs_from_the_mean_of_f1():
    table = language_scores(items_table([item("fr", 1.0, 0.0, item_id="a"), item("fr", 0.0, 1.0, item_id="b")]))
    (fr,) = table.to_pylist()
    assert (fr["c_precision"], fr["c_recall"]) == (0.5, 0.5)
    assert fr["f"] == pytest.approx(0.5)
    assert fr["mean_f1"] == 0.0


def test_a_language_without_scored_items_has_null_scores_not_nan():
    table = language_scores(
        items_table([item("hi", item_id="a", reason="no_facts"), item("hi", item_id="b", reason="no_answer")])
    )
    (hi,) = table.to_pylist()
    assert (hi["c_precision"], hi["c_recall"], hi["f"], hi["mean_f1"]) == (None, None, None, None)
    assert (hi["n_items"], hi["n_scored"], hi["n_excluded"]) == (2, 0, 2)
    assert hi["excluded_reasons"] == "no_answer:1; no_facts:1"


def test_all_zero_items_give_zero_f_not_nan():
    (ru,) = language_scores(items_table([item("ru", 0.0, 0.0, one_sided=True)])).to_pylist()
    assert ru["f"] == 0.0 and not math.isnan(ru["f"])


def test_models_and_comparisons_are_kept_apart():
    rows = [item("de", 1.0, 1.0, model="m1"), item("de", 0.0, 0.0, model="m2")]
    round_trip = item("de", 0.5, 0.5, model="m1")
    round_trip["comparison"] = "round_trip"
    table = language_scores(items_table(rows + [round_trip]))
    assert [(row["model"], row["comparison"], row["f"]) for row in table.to_pylist()] == [
        ("m1", "translation", 1.0),
        ("m2", "translation", 0.0),
        ("m1", "round_trip", 0.5),
    ]


def test_an_empty_items_table_gives_an_empty_scores_table():
    assert language_scores(INFORMATION_ITEMS.empty_table()).num_rows == 0


def test_format_reasons_most_frequent_first():
    from collections import Counter

    assert (
        format_reasons(Counter({"no_facts": 1, "no_answer": 3, "refusal": 1})) == "no_answer:3; no_facts:1; refusal:1"
    )
    assert format_reasons(Counter()) is None


def test_a_failed_request_or_verification_and_an_untranslatable_answer_exclude_the_item():
    from xlcons.evaluators.information.scores import UNTRANSLATABLE, VERIFICATION_FAILED

    # One verification failed: no P or R from the other verdicts, and it is no "not supported".
    failed = score_item(FACTS, FACTS, [S, VERIFICATION_FAILED], [S])
    assert (failed.precision, failed.excluded_reason, failed.n_unparseable) == (None, VERIFICATION_FAILED, 0)
    # The model's own request failed: its finish reason, whatever the sides hold.
    assert score_item(FACTS, NO_ANSWER_STATUS, [], [], failed_request="error").excluded_reason == "error"
    assert score_item(FACTS, FACTS, [S], [S], failed_request="prompt_too_long").excluded_reason == "prompt_too_long"
    # An untranslatable translated side is never compared, even with English facts.
    assert score_item(FACTS, UNTRANSLATABLE, [], []).excluded_reason == UNTRANSLATABLE
    # A refusal against facts stays the model's: one-sided, 0.
    refused = score_item(FACTS, REFUSAL, [], [])
    assert (refused.f1, refused.one_sided, refused.excluded_reason) == (0.0, True, None)


def test_with_refusals_excluded_a_one_sided_refusal_or_no_answer_is_excluded_not_zero():
    for side in (REFUSAL, NO_ANSWER_STATUS):
        assert score_item(FACTS, side, [], [], refusals="exclude").excluded_reason == side
        assert score_item(side, FACTS, [], [], refusals="exclude").excluded_reason == side
        assert score_item(FACTS, side, [], []).f1 == 0.0, "counted against the model by default"
    assert score_item(FACTS, FACTS, [S], [S], refusals="exclude").f1 == 1.0
