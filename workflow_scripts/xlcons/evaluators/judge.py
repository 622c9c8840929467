"""QA accuracy by an LLM judge (Holtermann et al. 2024, §3.3; docs/methods.md §3).

The judge sees the ENGLISH question of the item (whatever language the model was asked
in) and the model's answer, inside one of two instructions (option `prompt`). `paper`, as
MultiQ's reproduction (config/paper/holtermann2024-multiq.yaml) uses it, is the paper's
instruction (Table 9), verbatim:

    For the following question, is this a correct answer?

    Question: {English question}
    Answer: {model answer}

    The question is in English. The answer is either in English or in another language.
    If the answer is correct, type 'yes'. If the answer is incorrect, type 'no'.

(the line breaks are the released code's layout). `verdict_line` (the default) asks the
same question and for the verdict on a final line of its own, ``Verdict: yes`` or
``Verdict: no`` (`VERDICT_LINE_TEMPLATE`), so that a judge that explains itself first is still
read by its last word. As in the released code, the answer's
whitespace (line breaks included) is collapsed to single spaces, so an answer cannot
break the instruction's layout.

Judging is generation: the judge prompts form a PROMPTS table (item_id
``<item_id>@<lang>``) that goes through `xlcons.generation.stage.run_generation` with
the judge's own ModelSpec, so every backend works, identical (English question, answer)
pairs are judged once (MultiQ's he/iw, zh/zh-CN) and a rerun answers from the cache
keyed by the judge's identity, decoding and messages. The judge decodes as its spec says
(the config default is greedy); its token cap is the spec's ``max_new_tokens``, else
`JUDGE_MAX_NEW_TOKENS` (a verdict needs a few words).

"No answer" responses are not sent to the judge: their verdict is ``no_answer`` and the
report counts them as incorrect, as the paper counted every response that was not
judged correct (its normaliser mapped anything it could not read to "incorrect"); one
whose generation request failed (finish_reason ``error``) gets ``error`` instead, as
it is no answer of the model's, and one whose prompt did not fit the model's context
``prompt_too_long``. A judge request the judge refuses or leaves empty gives
``unparseable``; one that fails, or does not fit the judge's context, gives
``judge_error``; the judge's finish reason is kept. Accuracy leaves ``error``,
``prompt_too_long`` and ``judge_error`` out.

`parse_verdict` reads the judge's text; its rules are in its docstring.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

import pyarrow as pa

from xlcons.evaluators.judge_tables import JUDGMENTS
from xlcons.generation.base import Backend, ModelSpec, load_backend
from xlcons.generation.stage import check_failures, run_generation
from xlcons.progress import table_owners
from xlcons.schemas import NO_ANSWER, PROMPTS, RESPONSES, UNANSWERED_REASONS
from xlcons.shards import ShardError, job_shard, merge_rows, shard_rows
from xlcons.tables import read_table, write_table

JUDGE_TEMPLATE = (
    "For the following question, is this a correct answer?\n\n"
    "Question: {question}\n"
    "Answer: {answer}\n\n"
    "The question is in English. The answer is either in English or in another language. "
    "If the answer is correct, type 'yes'. If the answer is incorrect, type 'no'."
)
# xlcons's own instruction (option `prompt: verdict_line`, the default): the same question, with
# the verdict asked for as a line of its own at the end, where `parse_verdict` looks first.
VERDICT_LINE_TEMPLATE = (
    "Does the answer below answer the question correctly?\n\n"
    "Question: {question}\n"
    "Answer: {answer}\n\n"
    "The question is in English; the answer may be in English or in any other language. "
    "Reply in English. Your reply must end with a line of its own that says 'Verdict: yes' if the "
    "answer is correct, or 'Verdict: no' if it is not."
)
JUDGE_PROMPTS = {"paper": JUDGE_TEMPLATE, "verdict_line": VERDICT_LINE_TEMPLATE}
DEFAULT_JUDGE_PROMPT = "verdict_line"
JUDGE_MAX_NEW_TOKENS = 32
ITEM_SEPARATOR = "@"


class JudgeError(ValueError):
    """The inputs of the judge do not fit together (a response without its English question)."""


def judge_prompt(question: str, answer: str, prompt: str = DEFAULT_JUDGE_PROMPT) -> str:
    """The judge's instruction `prompt` (a key of JUDGE_PROMPTS) for one English question and answer."""
    return JUDGE_PROMPTS[prompt].format(question=question.strip(), answer=" ".join(answer.split()))


def judge_item_id(item_id: str, lang: str) -> str:
    return f"{item_id}{ITEM_SEPARATOR}{lang}"


def split_judge_item_id(judged: str) -> tuple[str, str]:
    item_id, _, lang = judged.rpartition(ITEM_SEPARATOR)
    return item_id, lang


def english_questions(prompts: pa.Table) -> dict[str, str]:
    """item_id → English question, from PROMPTS rows: the English row's prompt, else any row's
    `question_en` (a user set that gives the English question beside its languages)."""
    questions: dict[str, str] = {}
    for row in prompts.select(["item_id", "lang", "prompt", "question_en"]).to_pylist():
        if row["lang"] == "en":
            questions[row["item_id"]] = row["prompt"]
        elif row["question_en"] and row["item_id"] not in questions:
            questions[row["item_id"]] = row["question_en"]
    return questions


def _judged(row) -> bool:
    """A response the judge is asked about: one with an answer ("No answer" rows, including
    failed requests, are not sent)."""
    return row["response"] != NO_ANSWER


def judge_prompts(responses: pa.Table, english_prompts: pa.Table, prompt: str = DEFAULT_JUDGE_PROMPT) -> pa.Table:
    """PROMPTS rows for every response that has an answer ("No answer" rows are left out), in order."""
    questions = english_questions(english_prompts)
    rows = [row for row in responses.select(["dataset", "item_id", "lang", "response"]).to_pylist() if _judged(row)]
    missing = sorted({row["item_id"] for row in rows} - set(questions))
    if missing:
        raise JudgeError(
            f"no English prompt for items {missing[:10]}; the judge needs the English prompts of every judged item"
        )
    return pa.Table.from_pylist(
        [
            {
                "dataset": row["dataset"],
                "item_id": judge_item_id(row["item_id"], row["lang"]),
                "lang": row["lang"],
                "prompt": judge_prompt(questions[row["item_id"]], row["response"], prompt),
                "category": None,
                "references": None,
                "source_lang": "en",
                "question_en": None,
            }
            for row in rows
        ],
        schema=PROMPTS,
    )


# -- Parsing the judge's text ---------------------------------------------------------

UNPARSEABLE = "unparseable"
_QUOTES = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u201b": "'", "\u2032": "'", "`": "'", "\u201c": '"', "\u201d": '"', "\u201e": '"'}
)
_MARKUP = re.compile(r"[*_#>~|\[\](){}]+")
_SENTENCES = re.compile(r"[.!?;\n]+")
_TOKENS = re.compile(r"[a-z]+(?:'[a-z]+)*|[^\sa-z]")
_UNSURE = re.compile(
    r"\b(?:(?:do|does|did)\s+not\s+know|(?:don't|doesn't|didn't)\s+know|dunno|not\s+sure|unsure|no\s+idea|no\s+clue|"
    r"(?:cannot|can't|can\s+not|unable\s+to|impossible\s+to)\s+(?:be\s+)?"
    r"(?:determine|determined|tell|say|verify|verified|judge|know|assess|evaluate)|"
    r"not\s+enough\s+information|insufficient\s+information|unclear|uncertain)"
)
_CONDITIONAL = ("if", "whether", "when", "unless")
_BARE_NO = {"not really", "not quite"}
_YES_WORDS = {"yes", "yeah", "yep", "yup", "affirmative"}
_NO_WORDS = {"no", "nope", "nah"}
_POSITIVE = {"correct", "accurate", "right", "true"}
_NEGATIVE = {"incorrect", "inaccurate", "wrong", "false"}
_NEGATORS = {"not", "isn't", "wasn't", "aren't", "isnt", "never", "hardly", "nothing", "nor", "neither"}
# "no" before one of these still answers ("no, because", "no it is not"); before any other word it
# is a determiner ("no doubt", "no idea"), not a verdict.
_AFTER_A_VERDICT_NO = {"because", "since", "as", "but", "and", "so", "the", "it", "this", "that", "i", "not", "its"}
# A correctness word before "answer"/"one" and more words names an answer ("The correct answer is
# Paris", "Correct answer: Paris"); at the end of its sentence it judges ("That is the correct answer.").
_NAMED = {"answer", "answers", "one", "angle", "side", "hand"}


def _normalise(text: str) -> str:
    text = text.translate(_QUOTES).lower()
    return _MARKUP.sub(" ", text)


_DOUBTED = re.compile(r"\b(?:don't|doesn't|didn't|(?:do|does|did)\s+not)\s+(?:think|believe)\b")


def _clause_verdicts(sentence: str) -> list[tuple[int, str]]:
    """(clause, verdict) for each verdict the sentence gives, its clauses cut at commas and colons:
    yes/no words, and correctness words (flipped after a negator, or anywhere after "don't
    think"/"do not believe")."""
    doubted = _DOUBTED.search(sentence)
    tokens = _TOKENS.findall(sentence[doubted.end() :] if doubted else sentence)
    found = []
    clause = 0
    words: list[str] = []
    for index, token in enumerate(tokens):
        following = tokens[index + 1] if index + 1 < len(tokens) else None
        if token in (",", ":"):
            clause += 1
            continue
        if not token[0].isalpha():
            continue
        before, words = words[-2:], [*words, token]
        if token in _YES_WORDS:
            found.append((clause, "yes"))
        elif token in _NO_WORDS:
            if token == "no" and following is not None and following[0].isalpha():
                if following not in _AFTER_A_VERDICT_NO:
                    continue
            found.append((clause, "no"))
        elif token in _POSITIVE or token in _NEGATIVE:
            if following in _NAMED and index + 2 < len(tokens):
                continue
            polarity = "yes" if token in _POSITIVE else "no"
            negated = any(word in _NEGATORS or word.endswith("n't") for word in before)
            if bool(doubted) != negated:  # "I don't think it is correct"; "I don't think it is not correct"
                polarity = "no" if polarity == "yes" else "yes"
            found.append((clause, polarity))
    return found


def parse_verdict(text: str | None) -> str:
    """``yes`` | ``no`` | ``unparseable`` for a judge's text: the LAST verdict it gives.

    After lowercasing, unifying quotes and dropping markdown characters (``**No**``), the text
    is cut into sentences (at ``. ! ? ;`` and line breaks), and read from the end. The first
    sentence from the end that decides anything decides:

    - one that says the judge does not know (don't know, not sure, cannot determine,
      unclear, ...) → unparseable;
    - one that gives verdicts: its last clause (cut at commas and colons) with a verdict
      decides, all of one kind → that verdict ("True, it is a city, but not the capital:
      verdict no" → no); of both kinds ("yes/no", "Yes and no", "yes or no") → unparseable;
    - "Not really", "Not quite" → no.

    A sentence without a verdict is passed over, and so is a conditional one ("If the answer
    is correct, type 'yes'": a judge repeating its instruction decides nothing). Verdicts are
    yes/yeah/yep/yup/affirmative and no/nope/nah as words (never inside "not", "know",
    "nothing", "another"; "no" before a noun, as in "No doubt, yes" or "no idea", is no
    verdict), and correct/accurate/right/true vs incorrect/inaccurate/wrong/false, flipped when
    one of the two words before is a negation ("is not correct", "nothing wrong") or the
    sentence doubts it ("I don't think the answer is correct"); a
    correctness word before "answer" and more words names an answer, it does not judge ("The
    correct answer is Paris"). So "Correct answer: Paris. The given answer (London) is
    wrong, so no." is no, and "Verdict: **Yes**." yes. Only English verdicts are read, as both
    instructions ask for them: "Oui", "Ja" or "Да" is unparseable (Spanish and Italian "no"
    reads as no, which it means).
    """
    if not text:
        return UNPARSEABLE
    for sentence in reversed(_SENTENCES.split(_normalise(text))):
        sentence = " ".join(sentence.split()).strip(" '\"-:,")
        if not sentence or sentence.split(" ", 1)[0] in _CONDITIONAL:
            continue
        if _UNSURE.search(sentence):
            return UNPARSEABLE
        if sentence in _BARE_NO:
            return "no"
        found = _clause_verdicts(sentence)
        if found:
            last = {verdict for clause, verdict in found if clause == found[-1][0]}
            return last.pop() if len(last) == 1 else UNPARSEABLE
    return UNPARSEABLE


# -- The judge job --------------------------------------------------------------------


def judge_model_name(spec: ModelSpec) -> str:
    return str(spec.identity()["model"])


def run_judge(
    judge_spec: ModelSpec,
    responses: pa.Table,
    english_prompts: pa.Table,
    cache_path: Path | str,
    backend_factory: Callable[[ModelSpec], Backend] = load_backend,
    max_new_tokens: int = JUDGE_MAX_NEW_TOKENS,
    max_failed_share: float | None = None,
    prompt: str = DEFAULT_JUDGE_PROMPT,
) -> pa.Table:
    """JUDGMENTS rows for RESPONSES rows (in their order), judging only what the cache lacks.
    With `max_failed_share`, more failed judge requests than that raise FailedRequests
    (xlcons.generation.stage.check_failures) instead of becoming `unparseable` verdicts."""
    prompts = judge_prompts(responses, english_prompts, prompt)
    job = f"judge {table_owners(responses)}"
    judged = run_generation(judge_spec, prompts, max_new_tokens, cache_path, backend_factory, job, "judge")
    if max_failed_share is not None:
        rows = [
            {"item_id": item, "lang": None, "error": error}
            for item, error in zip(judged["item_id"].to_pylist(), judged["error"].to_pylist())
        ]
        check_failures(judge_spec.name, judged["finish_reason"].to_pylist(), rows, max_failed_share, "judge requests")
    verdicts = iter(judged.select(["response", "finish_reason"]).to_pylist())
    judge_model = judge_model_name(judge_spec)
    records = []
    for row in responses.select(["dataset", "model", "item_id", "lang", "response", "finish_reason"]).to_pylist():
        record = {key: row[key] for key in ("dataset", "model", "item_id", "lang")}
        if not _judged(row):
            verdict = row["finish_reason"] if row["finish_reason"] in UNANSWERED_REASONS else "no_answer"
            record.update(verdict=verdict, judge_response=None, judge_finish_reason=None)
        else:
            answer = next(verdicts)
            if answer["finish_reason"] in UNANSWERED_REASONS:
                verdict = "judge_error"
            elif answer["finish_reason"] in ("refused", "empty"):
                verdict = UNPARSEABLE
            else:
                verdict = parse_verdict(answer["response"])
            record.update(
                verdict=verdict,
                judge_response=answer["response"],
                judge_finish_reason=answer["finish_reason"],
            )
        record["judge_model"] = judge_model
        records.append(record)
    return pa.Table.from_pylist(records, schema=JUDGMENTS)


def run_judge_job(
    judge_spec: ModelSpec,
    response_files: Sequence[Path | str],
    question_files: Path | str | Sequence[Path | str],
    out_path: Path | str,
    cache_path: Path | str,
    backend_factory: Callable[[ModelSpec], Backend] = load_backend,
    max_new_tokens: int = JUDGE_MAX_NEW_TOKENS,
    max_failed_share: float = 0.0,
    shard: tuple[int, int] | None = None,
    prompt: str = DEFAULT_JUDGE_PROMPT,
) -> Path:
    """The rule's job: one model's RESPONSES files and the PROMPTS files with the English
    questions (the English prompts, or every language's `question_en`) in, one JUDGMENTS file out.
    More failed judge requests than `max_failed_share` fail the job instead (no verdict is
    written as wrong for a request that never got an answer). A shard job (`shard`: (k, N),
    xlcons.shards) judges the items of shard k only; `merge_judge_shards` joins the N tables."""
    responses = _read_responses(response_files)
    if shard is not None:
        responses = shard_rows(responses, *shard)
    files = [question_files] if isinstance(question_files, (str, Path)) else list(question_files)
    english = pa.concat_tables([read_table(path, PROMPTS) for path in files])
    judgments = run_judge(
        judge_spec, responses, english, cache_path, backend_factory, max_new_tokens, max_failed_share, prompt
    )
    return write_table(judgments, out_path, JUDGMENTS)


def _read_responses(response_files: Sequence[Path | str]) -> pa.Table:
    tables = [read_table(path, RESPONSES) for path in response_files]
    return pa.concat_tables(tables) if tables else RESPONSES.empty_table()


def merge_judge_shards(
    response_files: Sequence[Path | str], shard_files: Sequence[Path | str], out_path: Path | str
) -> Path:
    """The JUDGMENTS of a sharded judge job: the shards' tables, in the order of the responses
    (one row each), as the unsharded job writes them."""
    responses = _read_responses(response_files)
    judgments = merge_rows([read_table(path, JUDGMENTS) for path in shard_files], responses, JUDGMENTS)
    if judgments.num_rows != responses.num_rows:
        raise ShardError(
            f"the {len(shard_files)} shard tables hold {judgments.num_rows} judgments of {responses.num_rows} "
            "responses: they were written from other responses; run the shard jobs again"
        )
    return write_table(judgments, out_path, JUDGMENTS)


def rule_judge(smk) -> None:
    """Rule judge: an LLM judges every answer of one model to one data set against the English
    question (with `evaluators.judge.shards`, the answers of one shard of the items)."""
    params = smk.params
    judge = ModelSpec.from_config("judge", params.judge, params.judge["location"])
    run_judge_job(
        judge,
        smk.input.responses,
        smk.input.english,
        smk.output.judgments,
        params.cache,
        max_failed_share=params.max_failed_share,
        shard=job_shard(smk),
        prompt=params.prompt,
    )


def rule_judge_merge(smk) -> None:
    """Rule judge_merge: the shard jobs' judgments as one table, the unsharded job's output."""
    merge_judge_shards(smk.input.responses, smk.input.shards, smk.output.judgments)
