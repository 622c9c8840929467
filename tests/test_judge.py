"""The MultiQ LLM judge (xlcons.evaluators.judge): its prompt, its verdict parser, its job.

Most tests use a scripted judge backend (instant, deterministic); one slow test runs the
real SmolLM2-135M-Instruct, whose verdicts need not be right: what is checked there is
the plumbing, the cache and the parsing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import pyarrow as pa
import pytest

from builders import response_rows
from xlcons.evaluators.judge import (
    JudgeError,
    judge_prompt,
    judge_prompts,
    parse_verdict,
    run_judge,
    run_judge_job,
    split_judge_item_id,
)
from xlcons.evaluators.judge_tables import JUDGMENTS, VERDICTS
from xlcons.generation.base import Backend, Decoding, ModelSpec, Request, Result
from xlcons.schemas import NO_ANSWER, PROMPTS, RESPONSES
from xlcons.tables import read_table, write_table

INSTRUCTION = (
    "For the following question, is this a correct answer?\n\n"
    "Question: What is the highest mountain in the world?\n"
    "Answer: Mount Everest.\n\n"
    "The question is in English. The answer is either in English or in another language. "
    "If the answer is correct, type 'yes'. If the answer is incorrect, type 'no'."
)


# --------------------------------------------------------------------------------------
# The verdict parser
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        # plain verdicts, any case and punctuation
        ("Yes", "yes"),
        ("YES", "yes"),
        ("yes.", "yes"),
        ("Yes.", "yes"),
        ("Yes!!!", "yes"),
        ("No", "no"),
        ("no.", "no"),
        ("NO!", "no"),
        # quotes, markdown, labels
        ("'yes'", "yes"),
        ('"No."', "no"),
        ("\u2018yes\u2019", "yes"),
        ("**Yes**", "yes"),
        ("**Answer:** Yes", "yes"),
        ("Answer: yes", "yes"),
        ("Answer: No", "no"),
        ("Verdict - no", "no"),
        ("Final answer: `yes`", "yes"),
        ("- yes", "yes"),
        # a verdict word at the start decides, whatever follows
        ("Yes, the answer is correct.", "yes"),
        ("Yes, but it could be more detailed.", "yes"),
        ("**No**, the answer is wrong", "no"),
        ("No, Paris is the capital of France, not Lyon.", "no"),
        ("yes\n\nThe answer correctly names Mount Everest.", "yes"),
        ("no, I don't know the capital of Tanzania either", "unparseable"),  # the judge does not know
        ("Nope", "no"),
        ("Correct", "yes"),
        ("Correct.", "yes"),
        ("Incorrect", "no"),
        ("Incorrect!", "no"),
        ("Not really.", "no"),
        ("Not correct", "no"),
        ("True", "yes"),
        ("Wrong.", "no"),
        # a verdict in a sentence
        ("The answer is correct. Yes", "yes"),
        ("The answer is correct.", "yes"),
        ("The answer is incorrect.", "no"),
        ("The answer is not correct.", "no"),
        ("The answer isn't correct", "no"),
        ("The answer is yes.", "yes"),
        ("The answer is 'no'.", "no"),
        ("The model's answer is wrong.", "no"),
        ("The answer is accurate.", "yes"),
        ("Is this a correct answer? No.", "no"),
        ("The answer is correct, type 'yes'.", "yes"),
        # "no" inside other words is no verdict (the original regex read these as "no")
        ("I know it is correct: yes", "yes"),
        ("Nothing is wrong with this answer. Yes", "yes"),
        ("There is nothing wrong with the answer.", "yes"),
        ("Another answer would be better", "unparseable"),
        ("Not sure.", "unparseable"),
        # the judge does not know
        ("I don't know", "unparseable"),
        ("I do not know.", "unparseable"),
        ("I'm not sure whether this is right.", "unparseable"),
        ("No idea.", "unparseable"),
        ("I cannot determine whether the answer is correct.", "unparseable"),
        # both verdicts, or none
        ("If the answer is correct, type 'yes'. If the answer is incorrect, type 'no'.", "unparseable"),
        ("The right answer is Paris.", "unparseable"),
        ("Paris", "unparseable"),
        ("", "unparseable"),
        ("   ", "unparseable"),
        (None, "unparseable"),
    ],
)
def test_parse_verdict(text, verdict):
    assert parse_verdict(text) == verdict


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        # the last verdict counts, never a leading word (the parser before read the first three as yes)
        ("Correct answer: Paris. The given answer (London) is wrong, so no.", "no"),
        ("Correct answer: Paris. The given answer is Paris. Verdict: yes", "yes"),
        ("Yes, it names a mountain. But the highest is Everest, not K2, so the answer is incorrect.", "no"),
        ("True, Canberra is a city of Australia, but it is not its capital here: verdict no", "no"),
        ("No doubt, yes.", "yes"),  # "no" before a noun is no verdict
        ("No question about it: the answer is right.", "yes"),
        ("No, the answer is wrong.\nVerdict: no", "no"),
        ("The answer says Sydney.\n\nVerdict: **No**", "no"),
        ("**Verdict:** **Yes**.", "yes"),
        ("Verdict: YES!!!", "yes"),
        ("Verdict: no.)", "no"),
        ("That is the correct answer.", "yes"),  # a correctness word at the end judges
        ("The correct answer is Canberra.", "unparseable"),  # ... before "answer is" it names one
        # both verdicts in the deciding sentence
        ("yes/no", "unparseable"),
        ("Yes and no.", "unparseable"),
        ("Verdict: yes or no", "unparseable"),
        # negations
        ("The answer is not incorrect.", "yes"),
        ("I don't think the answer is correct.", "no"),
        ("I do not believe the answer is wrong.", "yes"),
        ("I don't think the answer is not correct.", "yes"),
        ("It is never right to say Sydney. Verdict: no", "no"),
        # the instruction repeated decides nothing; a verdict after it does
        ("If the answer is correct, type 'yes'. If the answer is incorrect, type 'no'. Yes.", "yes"),
        ("Whether it is correct or not, I cannot say.", "unparseable"),
        # verdicts in other languages: both instructions ask for English ones
        ("Oui.", "unparseable"),
        ("Ja, die Antwort ist richtig.", "unparseable"),
        ("Да", "unparseable"),
        ("Verdict: ja", "unparseable"),
        ("No, la respuesta es incorrecta.", "no"),  # Spanish "no" reads as what it means
        # a verdict the judge did not finish
        ("The answer names a mountain. Verdict:", "unparseable"),
        ("Verdict: maybe", "unparseable"),
    ],
)
def test_the_last_verdict_decides_and_an_unreadable_one_is_never_yes(text, verdict):
    assert parse_verdict(text) == verdict


# --------------------------------------------------------------------------------------
# Judge prompts
# --------------------------------------------------------------------------------------


def english_prompts(questions: dict[str, str]) -> pa.Table:
    return pa.Table.from_pylist(
        [
            {
                "dataset": "multiq",
                "item_id": item,
                "lang": "en",
                "prompt": text,
                "category": None,
                "references": None,
                "source_lang": "en",
            }
            for item, text in questions.items()
        ],
        schema=PROMPTS,
    )


QUESTIONS = {
    "lmsys-63": "What is the highest mountain in the world?",
    "lmsys-85": "What is the capital of Australia?",
    "lmsys-7": "What is two plus two?",
}


def test_the_instruction_is_the_papers_with_the_english_question():
    assert judge_prompt("What is the highest mountain in the world?", "Mount Everest.", "paper") == INSTRUCTION


def test_the_default_instruction_asks_for_a_final_verdict_line():
    text = judge_prompt("What is the highest mountain in the world?", "Mount Everest.")
    assert "Question: What is the highest mountain in the world?\nAnswer: Mount Everest.\n\n" in text
    assert text.endswith(
        "must end with a line of its own that says 'Verdict: yes' if the answer is correct, "
        "or 'Verdict: no' if it is not."
    )
    assert text != INSTRUCTION


def test_the_paper_config_keeps_the_papers_instruction_and_the_default_asks_for_a_verdict_line():
    from xlcons.config import load_config
    from xlcons.plan import Plan

    repo = Path(__file__).resolve().parent.parent
    paper = Plan(load_config(repo / "config/paper/holtermann2024-multiq.yaml", base_dir=repo))
    assert paper.scoring.evaluator_option("judge", "prompt") == "paper"
    default = Plan(load_config(repo / "config/config.yaml", base_dir=repo))
    assert default.scoring.evaluator_option("judge", "prompt") == "verdict_line"


def test_the_answers_whitespace_is_collapsed():
    text = judge_prompt("What is two plus two?", "  Vier.\n\nZwei plus zwei\tist vier.  ")
    assert "\nAnswer: Vier. Zwei plus zwei ist vier.\n\n" in text


def test_judge_prompts_use_the_english_question_for_every_language():
    table = judge_prompts(
        response_rows(
            [
                ("lmsys-63", "de", "Der Mount Everest."),
                ("lmsys-63", "en", "Mount Everest."),
                ("lmsys-7", "hi", NO_ANSWER),
            ]
        ),
        english_prompts(QUESTIONS),
        "paper",
    )
    assert table.schema == PROMPTS
    assert table["item_id"].to_pylist() == ["lmsys-63@de", "lmsys-63@en"]  # "No answer" is not judged
    assert table["prompt"][1].as_py() == INSTRUCTION
    assert (
        "Question: What is the highest mountain in the world?\nAnswer: Der Mount Everest." in table["prompt"][0].as_py()
    )
    assert split_judge_item_id("lmsys-63@zh-CN") == ("lmsys-63", "zh-CN")


def test_a_response_without_its_english_question_is_an_error():
    with pytest.raises(JudgeError, match="lmsys-1"):
        judge_prompts(response_rows([("lmsys-1", "de", "Deodoro da Fonseca")]), english_prompts(QUESTIONS))


# --------------------------------------------------------------------------------------
# The judge job, with a scripted judge
# --------------------------------------------------------------------------------------


class ScriptedJudge(Backend):
    """Says yes to answers that mention Everest or Canberra, is unsure of "vier", no otherwise."""

    name = "scripted"
    seen: list[str] = []

    def generate(self, requests: Sequence[Request]) -> Iterator[Result]:
        for request in requests:
            answer = request.prompt.split("\nAnswer: ", 1)[1].split("\n\n", 1)[0]
            type(self).seen.append(answer)
            if "FAIL" in answer:
                yield Result(request.key, "", "error", error="HTTP 500")
            elif "Everest" in answer or "Canberra" in answer:
                yield Result(request.key, "**Yes**, that is correct.", "stop")
            elif "vier" in answer:
                yield Result(request.key, "I don't know German.", "stop")
            else:
                yield Result(request.key, "No.", "stop")


def judge_spec(**fields) -> ModelSpec:
    values = {
        "name": "judge",
        "backend": "hf",
        "location": "/models/scripted-judge",
        "hf_id": "example/judge-7b",
        "decoding": Decoding(),
    }
    return ModelSpec(**(values | fields))


def scripted(spec: ModelSpec) -> Backend:
    return ScriptedJudge(spec)


def refuse(spec: ModelSpec) -> Backend:
    raise AssertionError("the judge model was loaded although every verdict is cached")


RESPONSES_TO_JUDGE = [
    ("lmsys-63", "en", "Mount Everest."),
    ("lmsys-63", "he", "הר האוורסט"),
    ("lmsys-63", "iw", "הר האוורסט"),  # the same answer under the duplicate code: judged once
    ("lmsys-85", "de", "Sydney."),
    ("lmsys-85", "fr", "Canberra."),
    ("lmsys-7", "de", "Zwei plus zwei ist vier."),
    ("lmsys-7", "hi", NO_ANSWER),  # refused
    ("lmsys-7", "fr", NO_ANSWER, "error"),  # the request failed: no answer of the model's
]


def test_run_judge_gives_one_judgment_per_response_in_order(tmp_path):
    ScriptedJudge.seen = []
    table = run_judge(
        judge_spec(), response_rows(RESPONSES_TO_JUDGE), english_prompts(QUESTIONS), tmp_path / "cache.jsonl", scripted
    )
    assert table.schema == JUDGMENTS
    assert [(row["item_id"], row["lang"]) for row in table.select(["item_id", "lang"]).to_pylist()] == [
        (item, lang) for item, lang, *_ in RESPONSES_TO_JUDGE
    ]
    # the Hebrew answer mentions no "Everest" in Latin letters: the scripted judge says no
    assert table["verdict"].to_pylist() == ["yes", "no", "no", "no", "yes", "unparseable", "no_answer", "error"]
    assert table["judge_response"].to_pylist()[0] == "**Yes**, that is correct."
    assert table["judge_response"][6].as_py() is None and table["judge_finish_reason"][6].as_py() is None
    assert set(table["judge_model"].to_pylist()) == {"example/judge-7b"}
    assert set(table["model"].to_pylist()) == {"m"}
    assert len(ScriptedJudge.seen) == 5  # he/iw once, "No answer" never


def test_a_second_run_is_answered_from_the_cache(tmp_path):
    cache = tmp_path / "cache.jsonl"
    first = run_judge(judge_spec(), response_rows(RESPONSES_TO_JUDGE), english_prompts(QUESTIONS), cache, scripted)
    again = run_judge(judge_spec(), response_rows(RESPONSES_TO_JUDGE), english_prompts(QUESTIONS), cache, refuse)
    assert again.equals(first)


def test_another_judge_or_decoding_misses_the_cache(tmp_path):
    cache = tmp_path / "cache.jsonl"
    run_judge(judge_spec(), response_rows(RESPONSES_TO_JUDGE[:1]), english_prompts(QUESTIONS), cache, scripted)
    for changed in (judge_spec(hf_id="example/other-judge"), judge_spec(decoding=Decoding(temperature=0.7))):
        with pytest.raises(AssertionError, match="was loaded"):
            run_judge(changed, response_rows(RESPONSES_TO_JUDGE[:1]), english_prompts(QUESTIONS), cache, refuse)


def test_a_failed_judge_request_is_a_judge_error_and_retried(tmp_path):
    cache = tmp_path / "cache.jsonl"
    rows = response_rows([("lmsys-63", "de", "FAIL"), ("lmsys-63", "en", "Mount Everest.")])
    table = run_judge(judge_spec(), rows, english_prompts(QUESTIONS), cache, scripted)
    assert table["verdict"].to_pylist() == ["judge_error", "yes"]
    assert table["judge_finish_reason"].to_pylist() == ["error", "stop"]
    ScriptedJudge.seen = []
    run_judge(judge_spec(), rows, english_prompts(QUESTIONS), cache, scripted)
    assert ScriptedJudge.seen == ["FAIL"]  # only the failed one is asked again


def test_the_judge_job_fails_on_failed_requests_instead_of_scoring_them(tmp_path):
    from xlcons.generation.stage import FailedRequests

    write_table(
        response_rows([("lmsys-63", "de", "FAIL"), ("lmsys-63", "en", "Mount Everest.")]),
        tmp_path / "r.parquet",
        RESPONSES,
    )
    write_table(english_prompts(QUESTIONS), tmp_path / "en.parquet", PROMPTS)
    with pytest.raises(FailedRequests, match=r"'judge': 1 of 2 judge requests failed.*lmsys-63@de.*HTTP 500"):
        run_judge_job(
            judge_spec(),
            [tmp_path / "r.parquet"],
            tmp_path / "en.parquet",
            tmp_path / "j.parquet",
            tmp_path / "c.jsonl",
            scripted,
        )
    assert not (tmp_path / "j.parquet").exists()


def test_only_no_answers_need_no_judge(tmp_path):
    table = run_judge(
        judge_spec(),
        response_rows([("lmsys-7", "hi", NO_ANSWER)]),
        english_prompts(QUESTIONS),
        tmp_path / "c.jsonl",
        refuse,
    )
    assert table["verdict"].to_pylist() == ["no_answer"]


def test_a_prompt_too_long_for_the_model_is_not_judged_and_left_out_of_accuracy(tmp_path):
    """A response row whose prompt did not fit the model's context is no answer of the model's:
    the judge is not asked, its verdict is `prompt_too_long`, one of the verdicts accuracy leaves out."""
    from xlcons.evaluators.judge_tables import JUDGE_FAILURES

    rows = response_rows([("lmsys-7", "hi", NO_ANSWER, "prompt_too_long")])
    table = run_judge(judge_spec(), rows, english_prompts(QUESTIONS), tmp_path / "c.jsonl", refuse)
    assert table["verdict"].to_pylist() == ["prompt_too_long"] and "prompt_too_long" in JUDGE_FAILURES


def test_run_judge_job_reads_and_writes_files(tmp_path):
    files = []
    for lang in ("en", "de"):
        path = tmp_path / "responses" / f"{lang}.parquet"
        write_table(response_rows([row for row in RESPONSES_TO_JUDGE if row[1] == lang]), path, RESPONSES)
        files.append(path)
    write_table(english_prompts(QUESTIONS), tmp_path / "en.parquet", PROMPTS)
    out = run_judge_job(
        judge_spec(), files, tmp_path / "en.parquet", tmp_path / "judgments.parquet", tmp_path / "cache.jsonl", scripted
    )
    table = read_table(out, JUDGMENTS)
    assert table["lang"].to_pylist() == ["en", "de", "de"]
    assert table["verdict"].to_pylist() == ["yes", "no", "unparseable"]


# --------------------------------------------------------------------------------------
# The judge job with a real model
# --------------------------------------------------------------------------------------


@pytest.mark.slow
def test_smollm2_judges_end_to_end_and_caches(offline_models, tmp_path):
    spec = ModelSpec(
        name="judge",
        backend="hf",
        location=str(offline_models["smollm2-135m-instruct"]),
        decoding=Decoding(max_new_tokens=8),
        options={"device": "cpu", "dtype": "float32", "batch_size": 4},
    )
    rows = response_rows(
        [
            ("lmsys-63", "en", "The highest mountain in the world is Mount Everest."),
            ("lmsys-85", "en", "The capital of Australia is Paris."),
            ("lmsys-85", "de", "Die Hauptstadt Australiens ist Canberra."),
            ("lmsys-7", "he", "ארבע"),
            ("lmsys-7", "iw", "ארבע"),
            ("lmsys-7", "hi", NO_ANSWER),
        ]
    )
    cache = tmp_path / "judge.jsonl"
    first = run_judge(spec, rows, english_prompts(QUESTIONS), cache)
    assert first.num_rows == 6 and first.schema == JUDGMENTS
    verdicts = first["verdict"].to_pylist()
    assert set(verdicts) <= set(VERDICTS) and verdicts[-1] == "no_answer"
    assert verdicts[3] == verdicts[4]  # he and iw: one judgment, shared
    responses = first["judge_response"].to_pylist()
    assert all(isinstance(text, str) and text for text in responses[:5])
    assert [parse_verdict(text) for text in responses[:5]] == verdicts[:5]
    assert set(first["judge_model"].to_pylist()) == {"smollm2-135m-instruct"}
    header, *records = [json.loads(line) for line in cache.read_text(encoding="utf-8").splitlines()]
    assert header == {"xlcons_cache": "responses", "version": 1}
    assert len(records) == 4  # five answers to judge, the duplicate once
    again = run_judge(spec, rows, english_prompts(QUESTIONS), cache, refuse)
    assert again.equals(first)


def test_the_refusals_option_is_count_by_default_and_validated():
    from xlcons.config import ConfigError, validate_config
    from xlcons.plan import Plan

    assert Plan(validate_config({})).refusals() == "count"
    assert Plan(validate_config({"refusals": "exclude"})).refusals() == "exclude"
    with pytest.raises(ConfigError, match="'refusals'"):
        validate_config({"refusals": "ignore"})
