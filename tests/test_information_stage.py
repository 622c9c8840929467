"""The information-consistency jobs (xlcons.evaluators.information.stage and the modules it runs).

A scripted evaluator (a `Backend` answering from canned tables keyed by the prompt's
content) makes the numbers known in advance: the tests check the item and language scores
end to end, the rule for refusals / "No answer" / no facts, that a rerun makes no LLM call,
that the English facts are extracted once for every language, and that verification
requests sharing a context are consecutive. One test runs the real transformers backend on
the tiny random-weight LLM of the offline models, for the plumbing only.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence

import pyarrow as pa
import pytest

from builders import response_rows
from xlcons.evaluators.information.pairs import InformationError
from xlcons.evaluators.information.scores import language_scores
from xlcons.evaluators.information.stage import (
    run_information,
    run_information_job,
    run_language_scores_job,
    run_round_trip_information,
    run_round_trip_information_job,
)
from xlcons.evaluators.information.tables import (
    INFORMATION_FACTS,
    INFORMATION_ITEMS,
    INFORMATION_SCORES,
    INFORMATION_VERDICTS,
)
from xlcons.generation.base import Backend, Decoding, ModelSpec, Request, Result
from xlcons.schemas import NO_ANSWER, RESPONSES, ROUND_TRIPS, TRANSLATIONS
from xlcons.tables import read_table, write_table

# -- the scripted evaluator ---------------------------------------------------------------------

# Extraction answers by marked sentence, in the shapes models write them.
EXTRACTIONS = {
    "Paris is the capital of France.": "- Paris is the capital of France.\n- Paris is a city.",
    "It lies on the Seine river.": "Here are the facts:\n1. Paris lies "
    "on the Seine.\n2. The Seine is a river.\nI hope this helps!",
    "Paris has many museums.": "* Paris has many museums.\n* Paris has many museums.",  # repeated: one fact
    "Berlin is in Germany.": "Berlin is in Germany.",
    "Hello there!": "None",
    "Have a nice day.": "No facts.",
    "Hello!": "- None",
    "Nice day.": "There are no atomic facts in this sentence.",
    "Water boils at 100 degrees at sea level.": "- Water boils at 100 degrees Celsius at sea level.",
    "Water boils at 100 degrees.": "- Water boils at 100 degrees.",
    "At sea level, water boils at 100 degrees.": "- Water boils at "
    "100 degrees.\n- Water boils at 100 degrees at sea level.",
    "The river is long.": "FAIL",
}
# Verification: a fact is supported when its keyword is in the context; the "river" fact
# gets an answer nobody can read.
KEYWORDS = {
    "Paris is the capital of France.": "capital of France",
    "Paris is a city.": "Paris",
    "Paris lies on the Seine.": "Seine",
    "Paris has many museums.": "museums",
    "Berlin is in Germany.": "Berlin",
    "Water boils at 100 degrees Celsius at sea level.": "sea level",
    "Water boils at 100 degrees.": "100 degrees",
    "Water boils at 100 degrees at sea level.": "sea level",
}


def marked_sentence(prompt: str) -> str:
    return prompt.rsplit(">>> ", 1)[1].split(" <<<", 1)[0]


def context_and_fact(prompt: str) -> tuple[str, str]:
    context = prompt.split("Text:\n", 1)[1].split("\n\nIs the statement", 1)[0]
    fact = prompt.rsplit("Statement: ", 1)[1].removesuffix("\nAnswer:")
    return context, fact


class ScriptedEvaluator(Backend):
    name = "scripted"
    prompts: list[str] = []
    loads = 0
    closes = 0

    def __init__(self, spec: ModelSpec):
        super().__init__(spec)
        type(self).loads += 1
        self.chunk_size = 3  # several chunks per phase: the order must survive chunking

    def generate(self, requests: Sequence[Request]) -> Iterator[Result]:
        for request in requests:
            prompt = request.prompt
            type(self).prompts.append(prompt)
            if "Marked sentence:" in prompt:
                answer = EXTRACTIONS.get(marked_sentence(prompt), "None")
                if answer == "FAIL":
                    yield Result(request.key, "", "error", error="HTTP 500")
                    continue
                yield Result(request.key, answer, "stop")
            else:
                context, fact = context_and_fact(prompt)
                if "river" in fact:
                    yield Result(request.key, "Hmm, let me think about rivers.", "stop")
                elif KEYWORDS[fact] in context:
                    yield Result(request.key, "Supported", "stop")
                else:
                    yield Result(request.key, "**Not supported** - the text does not say so.", "stop")

    def close(self) -> None:
        type(self).closes += 1


@pytest.fixture(autouse=True)
def fresh_script():
    ScriptedEvaluator.prompts = []
    ScriptedEvaluator.loads = ScriptedEvaluator.closes = 0


def scripted(spec: ModelSpec) -> Backend:
    return ScriptedEvaluator(spec)


def refuse(spec: ModelSpec) -> Backend:
    raise AssertionError("the evaluator was loaded although every answer is cached")


def evaluator_spec(**fields) -> ModelSpec:
    values = {
        "name": "evaluator",
        "backend": "hf",
        "location": "/models/scripted",
        "hf_id": "example/evaluator-14b",
        "decoding": Decoding(),
    }
    return ModelSpec(**(values | fields))


# -- the inputs ---------------------------------------------------------------------------------------

ENGLISH = {
    "q1": "Paris is the capital of France. It lies on the Seine river.",
    "q2": "I'm sorry, but I cannot help with that.",
    "q3": "Hello there! Have a nice day.",
    "q4": "Water boils at 100 degrees at sea level.",
}
TRANSLATED = {
    ("q1", "de"): "Paris is the capital of France. Paris has many museums.",
    ("q2", "de"): "I am sorry, I can't help with that.",
    ("q3", "de"): "Hello! Nice day.",
    ("q4", "de"): "Water boils at 100 degrees.",
    ("q1", "ar"): NO_ANSWER,
    ("q2", "ar"): "Berlin is in Germany.",
    ("q3", "ar"): NO_ANSWER,
    ("q4", "ar"): "At sea level, water boils at 100 degrees.",
}


def english_responses(texts=ENGLISH, model="m") -> pa.Table:
    return response_rows([(item, "en", text) for item, text in texts.items()], model=model, dataset="information")


def translations(lang: str, texts=TRANSLATED, model="m") -> pa.Table:
    rows = []
    for (item, row_lang), text in texts.items():
        if row_lang != lang:
            continue
        rows.append(
            {
                "dataset": "information",
                "model": model,
                "item_id": item,
                "lang": lang,
                "response": f"<{lang} response of {item}>",
                "translation_path": "no_answer" if text == NO_ANSWER else "prompt_language",
                "source_lang_detected": None,
                "lid_label": None,
                "response_lang": None if text == NO_ANSWER else lang,
                "translation": text,
                "n_sentences": 1,
                "n_degenerate": 0,
                "n_repaired": 0,
                "splitter": None,
                "translator": "nllb",
            }
        )
    return pa.Table.from_pylist(rows, schema=TRANSLATIONS)


def both_languages() -> pa.Table:
    return pa.concat_tables([translations("de"), translations("ar")])


def by_item(table: pa.Table) -> dict[tuple[str, str], dict]:
    return {(row["item_id"], row["lang"]): row for row in table.to_pylist()}


# -- end to end ----------------------------------------------------------------------------------------


def test_item_scores_end_to_end(tmp_path):
    items, facts = run_information(
        evaluator_spec(), english_responses(), both_languages(), tmp_path / "cache.jsonl", scripted
    )
    assert items.schema == INFORMATION_ITEMS and facts.schema == INFORMATION_FACTS
    assert [(row["item_id"], row["lang"]) for row in items.to_pylist()] == [
        (item, lang) for lang in ("de", "ar") for item in ("q1", "q2", "q3", "q4")
    ]
    rows = by_item(items)

    # q1/de: English facts capital ✓, city ✓, Seine ✗, "Seine is a river" unparseable → R = 2/4;
    # German facts capital ✓, city ✓, museums ✗ (its repeat dropped) → P = 2/3; F1 = 4/7.
    q1 = rows[("q1", "de")]
    assert (q1["english_status"], q1["translated_status"]) == ("facts", "facts")
    assert (q1["n_facts_english"], q1["n_facts_translated"]) == (4, 3)
    assert (q1["n_supported_english"], q1["n_supported_translated"], q1["n_unparseable"]) == (2, 2, 1)
    assert (
        q1["precision"] == pytest.approx(2 / 3)
        and q1["recall"] == pytest.approx(1 / 2)
        and q1["f1"] == pytest.approx(4 / 7)
    )
    assert q1["n_llm_calls"] == 2 + 2 + 4 + 3  # extraction of 2 + 2 sentences, 7 verifications
    # q4: de P = 1 (100 degrees ✓), R = 0 (sea level ✗); ar P = R = 1.
    assert (rows[("q4", "de")]["precision"], rows[("q4", "de")]["recall"], rows[("q4", "de")]["f1"]) == (1.0, 0.0, 0.0)
    assert (rows[("q4", "ar")]["precision"], rows[("q4", "ar")]["recall"], rows[("q4", "ar")]["f1"]) == (1.0, 1.0, 1.0)

    # the rule: refusal on both sides / no facts on both sides / no answer without facts → excluded
    assert rows[("q2", "de")]["excluded_reason"] == "refusal" and rows[("q2", "de")]["n_llm_calls"] == 0
    assert (rows[("q2", "de")]["english_status"], rows[("q2", "de")]["translated_status"]) == ("refusal", "refusal")
    assert rows[("q3", "de")]["excluded_reason"] == "no_facts" and rows[("q3", "de")]["n_sentences_translated"] == 2
    assert rows[("q3", "ar")]["excluded_reason"] == "no_answer"
    assert rows[("q3", "ar")]["translation_path"] == "no_answer"
    for key in (("q2", "de"), ("q3", "de"), ("q3", "ar")):
        assert (rows[key]["precision"], rows[key]["recall"], rows[key]["f1"]) == (None, None, None)
    # facts on one side only → 0, not verified
    for key in (("q1", "ar"), ("q2", "ar")):
        assert rows[key]["one_sided"] and (rows[key]["precision"], rows[key]["recall"], rows[key]["f1"]) == (
            0.0,
            0.0,
            0.0,
        )
    assert (rows[("q1", "ar")]["english_status"], rows[("q1", "ar")]["translated_status"]) == ("facts", "no_answer")
    assert (rows[("q2", "ar")]["english_status"], rows[("q2", "ar")]["translated_status"]) == ("refusal", "facts")
    assert rows[("q1", "ar")]["n_llm_calls"] == 2 and rows[("q2", "ar")]["n_llm_calls"] == 1

    # the facts table: one row per fact, verdicts as the script gave them
    q1_facts = [row for row in facts.to_pylist() if (row["item_id"], row["lang"]) == ("q1", "de")]
    english = [(row["sentence_index"], row["fact"], row["verdict"]) for row in q1_facts if row["side"] == "english"]
    assert english == [
        (0, "Paris is the capital of France.", "supported"),
        (0, "Paris is a city.", "supported"),
        (1, "Paris lies on the Seine.", "not_supported"),
        (1, "The Seine is a river.", "unparseable"),
    ]
    translated = [(row["fact_index"], row["fact"], row["verdict"]) for row in q1_facts if row["side"] == "translated"]
    assert translated == [
        (0, "Paris is the capital of France.", "supported"),
        (1, "Paris is a city.", "supported"),
        (2, "Paris has many museums.", "not_supported"),
    ]
    assert {row["verifier_finish_reason"] for row in q1_facts} == {"stop"}
    unchecked = [row for row in facts.to_pylist() if (row["item_id"], row["lang"]) == ("q1", "ar")]
    assert len(unchecked) == 4 and {row["verdict"] for row in unchecked} == {"unchecked"}
    assert all(row["verifier_response"] is None for row in unchecked)
    assert set(facts["verdict"].to_pylist()) <= set(INFORMATION_VERDICTS)
    assert set(items["evaluator_model"].to_pylist()) == {"example/evaluator-14b"}
    assert ScriptedEvaluator.loads == 1 and ScriptedEvaluator.closes == 1  # one model load for both phases


def test_language_scores_end_to_end(tmp_path):
    items, _ = run_information(
        evaluator_spec(), english_responses(), both_languages(), tmp_path / "cache.jsonl", scripted
    )
    de, ar = language_scores(items).to_pylist()
    # de: q1 (2/3, 1/2), q4 (1, 0) → C^P = 5/6, C^R = 1/4, F = 2·(5/6)(1/4)/(13/12) = 5/13; F1 mean (4/7 + 0)/2
    assert de["c_precision"] == pytest.approx(5 / 6) and de["c_recall"] == pytest.approx(1 / 4)
    assert de["f"] == pytest.approx(5 / 13) and de["mean_f1"] == pytest.approx(2 / 7)
    assert (de["n_items"], de["n_scored"], de["n_excluded"], de["excluded_reasons"]) == (
        4,
        2,
        2,
        "no_facts:1; refusal:1",
    )
    # ar: q1 and q2 one-sided (0, 0), q4 (1, 1), q3 excluded → C^P = C^R = F = mean F1 = 1/3
    assert (ar["c_precision"], ar["c_recall"], ar["f"], ar["mean_f1"]) == pytest.approx((1 / 3, 1 / 3, 1 / 3, 1 / 3))
    assert (ar["n_scored"], ar["n_one_sided"], ar["excluded_reasons"]) == (3, 2, "no_answer:1")
    assert de["n_unparseable"] == 1 and ar["n_unparseable"] == 0


def test_english_facts_are_extracted_once_for_all_languages(tmp_path):
    run_information(evaluator_spec(), english_responses(), both_languages(), tmp_path / "cache.jsonl", scripted)
    extraction = [prompt for prompt in ScriptedEvaluator.prompts if "Marked sentence:" in prompt]
    assert len(extraction) == len(set(extraction))
    assert sum(prompt.count(ENGLISH["q1"]) for prompt in extraction) == 2  # its two sentences, once each
    # a job for one of the languages on the same cache finds everything there
    ScriptedEvaluator.prompts = []
    run_information(evaluator_spec(), english_responses(), translations("de"), tmp_path / "cache.jsonl", scripted)
    assert ScriptedEvaluator.prompts == []


def test_a_second_run_makes_no_llm_call(tmp_path):
    cache = tmp_path / "cache.jsonl"
    first = run_information(evaluator_spec(), english_responses(), both_languages(), cache, scripted)
    lines = cache.read_text(encoding="utf-8").splitlines()
    again = run_information(evaluator_spec(), english_responses(), both_languages(), cache, refuse)
    assert again[0].equals(first[0]) and again[1].equals(first[1])
    assert cache.read_text(encoding="utf-8").splitlines() == lines
    assert json.loads(lines[0]) == {"xlcons_cache": "responses", "version": 1}  # the header, then the records
    records = lines[1:]
    assert len(records) == len({json.loads(line)["key"] for line in records}) == len(ScriptedEvaluator.prompts)


def test_another_evaluator_or_decoding_misses_the_cache(tmp_path):
    cache = tmp_path / "cache.jsonl"
    run_information(evaluator_spec(), english_responses(), translations("de"), cache, scripted)
    for changed in (
        evaluator_spec(hf_id="example/other-evaluator"),
        evaluator_spec(decoding=Decoding(temperature=0.7)),
    ):
        with pytest.raises(AssertionError, match="was loaded"):
            run_information(changed, english_responses(), translations("de"), cache, refuse)


def test_verification_requests_sharing_a_context_are_consecutive(tmp_path):
    run_information(evaluator_spec(), english_responses(), both_languages(), tmp_path / "cache.jsonl", scripted)
    contexts = [context_and_fact(prompt)[0] for prompt in ScriptedEvaluator.prompts if "Statement:" in prompt]
    runs = [context for index, context in enumerate(contexts) if index == 0 or contexts[index - 1] != context]
    assert len(runs) == len(set(runs)), f"a context comes back after another one: {runs}"
    # the English q4 response is the context of the German fact and the two Arabic ones (one of
    # which is the German fact again: the same prompt, asked once)
    assert contexts.count(ENGLISH["q4"]) == 2
    # extraction requests of one text are consecutive too, and all come before verification
    extraction = [prompt for prompt in ScriptedEvaluator.prompts if "Marked sentence:" in prompt]
    assert ScriptedEvaluator.prompts[: len(extraction)] == extraction
    texts = [prompt.rsplit("Response:\n", 1)[1].split("\n\nMarked sentence:", 1)[0] for prompt in extraction]
    text_runs = [text for index, text in enumerate(texts) if index == 0 or texts[index - 1] != text]
    assert len(text_runs) == len(set(text_runs))


def test_a_failed_extraction_excludes_the_item_and_is_retried(tmp_path):
    cache = tmp_path / "cache.jsonl"
    english = english_responses({"q5": "The river is long."})
    german = translations("de", {("q5", "de"): "Paris has many museums."})
    items, _ = run_information(evaluator_spec(), english, german, cache, scripted)
    (row,) = items.to_pylist()
    assert (row["english_status"], row["excluded_reason"], row["n_extraction_failed"]) == (
        "extraction_failed",
        "extraction_failed",
        1,
    )
    assert row["precision"] is None
    ScriptedEvaluator.prompts = []
    run_information(evaluator_spec(), english, german, cache, scripted)
    assert [marked_sentence(prompt) for prompt in ScriptedEvaluator.prompts] == [
        "The river is long."
    ]  # only the failure again


def test_with_a_failure_threshold_failed_requests_fail_the_job_after_the_rest_is_cached(tmp_path):
    """What the rule does (generation.max_failed_share, default 0): no output that scores a failed
    request as a failed extraction; the job fails, and its rerun asks only the failed request."""
    from xlcons.generation.stage import FailedRequests

    cache = tmp_path / "cache.jsonl"
    english = english_responses({"q5": "The river is long.", "q1": ENGLISH["q1"]})
    german = translations("de", {("q5", "de"): "Paris has many museums.", ("q1", "de"): TRANSLATED[("q1", "de")]})
    with pytest.raises(
        FailedRequests, match=r"1 of \d+ information evaluator requests failed .* First: item q5 \(de\): HTTP 500"
    ):
        run_information(evaluator_spec(), english, german, cache, scripted, max_failed_share=0.0)
    asked = len(ScriptedEvaluator.prompts)
    ScriptedEvaluator.prompts = []
    items, _ = run_information(evaluator_spec(), english, german, cache, scripted, max_failed_share=0.5)
    assert [marked_sentence(prompt) for prompt in ScriptedEvaluator.prompts] == ["The river is long."] and asked > 1
    assert {row["item_id"]: row["excluded_reason"] for row in items.to_pylist()}[
        "q5"
    ] == "extraction_failed"  # within the share


def test_a_failed_verification_fails_the_item_and_is_asked_again_on_a_rerun(tmp_path):
    """A verifier request that failed is no verdict: the item is excluded (never scored as "not
    supported", which gave P = R = 0 before), and the rerun asks the verifier again."""

    class Failing(ScriptedEvaluator):
        def generate(self, requests):
            for result in super().generate(requests):
                yield (
                    result
                    if "Marked sentence:" in self.prompts[-1]
                    else Result(result.key, "", "error", error="timeout")
                )

    english = english_responses({"q4": ENGLISH["q4"]})
    german = translations("de", {("q4", "de"): TRANSLATED[("q4", "de")]})
    cache = tmp_path / "c.jsonl"
    items, facts = run_information(evaluator_spec(), english, german, cache, Failing)
    (row,) = items.to_pylist()
    assert (row["precision"], row["recall"], row["f1"], row["excluded_reason"]) == (
        None,
        None,
        None,
        "verification_failed",
    )
    assert row["n_unparseable"] == 0
    assert set(facts["verdict"].to_pylist()) == {"verification_failed"}
    assert set(facts["verifier_finish_reason"].to_pylist()) == {"error"}
    assert language_scores(items).to_pylist()[0]["excluded_reasons"] == "verification_failed:1"
    ScriptedEvaluator.prompts = []
    again, _ = run_information(evaluator_spec(), english, german, cache, scripted)
    assert len(ScriptedEvaluator.prompts) == 2, "the two verifications, asked again; the extractions are cached"
    assert again.to_pylist()[0]["excluded_reason"] is None


def test_an_untranslatable_answer_never_reaches_the_fact_extractor(tmp_path):
    english = english_responses({"q4": ENGLISH["q4"]})
    table = translations("la", {("q4", "la"): "Aqua centum gradibus fervet."})
    table = table.set_column(
        table.schema.get_field_index("translation_path"), "translation_path", pa.array(["untranslatable"])
    )
    ScriptedEvaluator.prompts = []
    items, facts = run_information(evaluator_spec(), english, table, tmp_path / "c.jsonl", scripted)
    assert not any("Aqua" in prompt for prompt in ScriptedEvaluator.prompts)
    (row,) = items.to_pylist()
    assert (row["translated_status"], row["excluded_reason"], row["precision"]) == (
        "untranslatable",
        "untranslatable",
        None,
    )
    assert set(facts["side"].to_pylist()) == {"english"}


def test_a_failed_generation_request_is_excluded_in_the_evaluators_own_tables(tmp_path):
    """The model's request for the German answer failed ("No answer", finish reason error): the
    item is excluded with reason `error`, as the results table excludes it; a refusal ("No
    answer", finish reason refused) is the model's own and scores 0 (one-sided)."""
    english = english_responses({"q1": ENGLISH["q1"], "q4": ENGLISH["q4"]})
    german = translations("de", {("q1", "de"): NO_ANSWER, ("q4", "de"): NO_ANSWER})
    responses = response_rows(
        [
            ("q1", "en", ENGLISH["q1"], "stop"),
            ("q4", "en", ENGLISH["q4"], "stop"),
            ("q1", "de", NO_ANSWER, "error"),
            ("q4", "de", NO_ANSWER, "refused"),
        ],
        dataset="information",
    )
    items, _ = run_information(evaluator_spec(), english, german, tmp_path / "c.jsonl", scripted, responses=responses)
    rows = {row["item_id"]: row for row in items.to_pylist()}
    assert (rows["q1"]["excluded_reason"], rows["q1"]["f1"]) == ("error", None)
    assert (rows["q4"]["excluded_reason"], rows["q4"]["f1"], rows["q4"]["one_sided"]) == (None, 0.0, True)
    score = language_scores(items).to_pylist()[0]
    assert (score["n_scored"], score["n_excluded"], score["excluded_reasons"], score["mean_f1"]) == (
        1,
        1,
        "error:1",
        0.0,
    )
    # Without the responses table, the failed request was a one-sided 0 in these tables.
    before, _ = run_information(evaluator_spec(), english, german, tmp_path / "c.jsonl", scripted)
    assert {row["item_id"]: row["f1"] for row in before.to_pylist()} == {"q1": 0.0, "q4": 0.0}


def test_inputs_that_do_not_fit_are_errors(tmp_path):
    with pytest.raises(InformationError, match="no English response"):
        run_information(
            evaluator_spec(), english_responses({"q1": ENGLISH["q1"]}), translations("de"), tmp_path / "c.jsonl", refuse
        )
    with pytest.raises(InformationError, match="model"):
        run_information(
            evaluator_spec(), english_responses(model="other"), translations("de"), tmp_path / "c.jsonl", refuse
        )


def test_only_rule_cases_need_no_evaluator(tmp_path):
    english = english_responses({"q2": ENGLISH["q2"], "q3": NO_ANSWER})
    german = translations("de", {("q2", "de"): NO_ANSWER, ("q3", "de"): "I'm sorry, I can't."})
    items, facts = run_information(evaluator_spec(), english, german, tmp_path / "c.jsonl", refuse)
    assert items["excluded_reason"].to_pylist() == ["no_answer", "no_answer"]
    assert items["n_llm_calls"].to_pylist() == [0, 0] and facts.num_rows == 0


# -- the round trip and the job files --------------------------------------------------------------------


def round_trip_rows() -> pa.Table:
    rows = [
        ("q1", "de", ENGLISH["q1"], "Paris is the capital of France. Paris has many museums.", "round_trip"),
        ("q4", "de", ENGLISH["q4"], "Water boils at 100 degrees.", "round_trip"),
        ("q3", "de", NO_ANSWER, NO_ANSWER, "no_answer"),
    ]
    return pa.Table.from_pylist(
        [
            {
                "dataset": "information",
                "model": "m",
                "item_id": item,
                "lang": lang,
                "response": response,
                "translation_path": path,
                "pivot": "<pivot>",
                "round_trip": round_trip,
                "n_sentences": 1,
                "n_degenerate": 0,
                "n_repaired": 0,
                "translator": "nllb",
            }
            for item, lang, response, round_trip, path in rows
        ],
        schema=ROUND_TRIPS,
    )


def test_round_trips_score_like_translations(tmp_path):
    cache = tmp_path / "rt.jsonl"
    items, facts = run_round_trip_information(evaluator_spec(), round_trip_rows(), cache, scripted)
    rows = by_item(items)
    assert set(items["comparison"].to_pylist()) == {"round_trip"} and set(facts["comparison"].to_pylist()) == {
        "round_trip"
    }
    assert rows[("q1", "de")]["f1"] == pytest.approx(4 / 7)  # the same texts as q1/de above: the same numbers
    assert rows[("q4", "de")]["precision"] == 1.0 and rows[("q4", "de")]["recall"] == 0.0
    assert rows[("q3", "de")]["excluded_reason"] == "no_answer"
    (de,) = language_scores(items).to_pylist()
    assert de["comparison"] == "round_trip" and de["f"] == pytest.approx(5 / 13)


def test_the_jobs_read_and_write_files(tmp_path):
    write_table(english_responses(), tmp_path / "en.parquet", RESPONSES)
    files = []
    for lang in ("de", "ar"):
        files.append(write_table(translations(lang), tmp_path / f"{lang}.parquet", TRANSLATIONS))
    items_path, facts_path = run_information_job(
        evaluator_spec(),
        tmp_path / "en.parquet",
        files,
        tmp_path / "out" / "items.parquet",
        tmp_path / "out" / "facts.parquet",
        tmp_path / "cache.jsonl",
        scripted,
    )
    items = read_table(items_path, INFORMATION_ITEMS)
    assert items.num_rows == 8 and read_table(facts_path, INFORMATION_FACTS).num_rows > 0
    one, _ = run_information_job(
        evaluator_spec(),
        tmp_path / "en.parquet",
        files[0],
        tmp_path / "de-items.parquet",
        tmp_path / "de-facts.parquet",
        tmp_path / "cache.jsonl",
        refuse,
    )
    assert read_table(one, INFORMATION_ITEMS).num_rows == 4
    write_table(round_trip_rows(), tmp_path / "rt.parquet", ROUND_TRIPS)
    rt_items, _ = run_round_trip_information_job(
        evaluator_spec(),
        tmp_path / "rt.parquet",
        tmp_path / "rt-items.parquet",
        tmp_path / "rt-facts.parquet",
        tmp_path / "rt.jsonl",
        scripted,
    )
    scores = read_table(
        run_language_scores_job([items_path, rt_items], tmp_path / "scores.parquet"), INFORMATION_SCORES
    )
    assert [(row["lang"], row["comparison"]) for row in scores.to_pylist()] == [
        ("de", "translation"),
        ("ar", "translation"),
        ("de", "round_trip"),
    ]


# -- the real transformers backend -----------------------------------------------------------------------


def seed_extractions(spec: ModelSpec, cache_path, texts) -> None:
    """Put the scripted extraction answers for every sentence of `texts` into a job's cache."""
    from xlcons.evaluators.information.fact_checking import EXTRACTION_MAX_NEW_TOKENS
    from xlcons.evaluators.information.prompts import extraction_prompt
    from xlcons.generation.base import build_requests, effective_max_new_tokens
    from xlcons.generation.cache import ResponseCache
    from xlcons.segmentation import split_sentences

    rows = [
        {"item_id": "seed", "lang": "en", "prompt": extraction_prompt(text, sentence), "answer": EXTRACTIONS[sentence]}
        for text in texts
        for sentence in split_sentences(text, "en")
    ]
    cache = ResponseCache(cache_path)
    for row, request in zip(
        rows, build_requests(spec, rows, effective_max_new_tokens(spec, EXTRACTION_MAX_NEW_TOKENS))
    ):
        cache.put(Result(request.key, row["answer"], "stop"))
    cache.flush()


def test_the_tiny_llm_runs_the_real_path(offline_models, tmp_path):
    """Plumbing only: the random-weight LLM writes noise. q1's facts are seeded in the cache, so the
    real model verifies them; q5 is extracted by the real model; q3 has no answer."""
    spec = ModelSpec(
        name="tiny-evaluator",
        backend="hf",
        location=str(offline_models["tiny-llm"]),
        decoding=Decoding(max_new_tokens=6),
        options={"device": "cpu", "dtype": "float32", "batch_size": 8},
    )
    cache = tmp_path / "tiny.jsonl"
    seed_extractions(spec, cache, [ENGLISH["q1"], TRANSLATED[("q1", "de")]])
    english = english_responses({"q1": ENGLISH["q1"], "q5": "Riga is the capital of Latvia.", "q3": NO_ANSWER})
    german = translations(
        "de",
        {("q1", "de"): TRANSLATED[("q1", "de")], ("q5", "de"): "Riga lies on the Daugava.", ("q3", "de"): NO_ANSWER},
    )
    items, facts = run_information(spec, english, german, cache)
    assert items.schema == INFORMATION_ITEMS and facts.schema == INFORMATION_FACTS
    q1, q5, q3 = items.to_pylist()
    assert q1["excluded_reason"] is None and (q1["n_facts_english"], q1["n_facts_translated"]) == (4, 3)
    assert q1["n_llm_calls"] == 4 + 7
    assert all(0.0 <= q1[name] <= 1.0 for name in ("precision", "recall", "f1"))
    verified = [row for row in facts.to_pylist() if row["item_id"] == "q1"]
    assert len(verified) == 7 and {row["verdict"] for row in verified} <= {"supported", "not_supported", "unparseable"}
    assert all(
        isinstance(row["verifier_response"], str) and row["verifier_finish_reason"] in ("stop", "length")
        for row in verified
    )
    assert q5["n_sentences_english"] == q5["n_sentences_translated"] == 1 and q5["n_llm_calls"] >= 2
    assert q5["english_status"] in ("facts", "no_facts") and q5["translated_status"] in ("facts", "no_facts")
    assert q3["excluded_reason"] == "no_answer"
    assert set(facts["verdict"].to_pylist()) <= set(INFORMATION_VERDICTS)
    scores = language_scores(items)
    assert scores.schema == INFORMATION_SCORES and scores.num_rows == 1
    again = run_information(spec, english, german, cache, refuse)
    assert again[0].equals(items) and again[1].equals(facts)
