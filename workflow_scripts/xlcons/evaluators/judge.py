"""QA accuracy by an LLM judge (Holtermann et al. 2024, §3.3; docs/methods.md §3).

The judge sees the ENGLISH question of the item (whatever language the model was asked
in) and the model's answer, inside the paper's instruction (Table 9), verbatim:

    For the following question, is this a correct answer?

    Question: {English question}
    Answer: {model answer}

    The question is in English. The answer is either in English or in another language.
    If the answer is correct, type 'yes'. If the answer is incorrect, type 'no'.

(the line breaks are the released code's layout). As in the released code, the answer's
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
JUDGE_MAX_NEW_TOKENS = 32
ITEM_SEPARATOR = "@"


class JudgeError(ValueError):
    """The inputs of the judge do not fit together (a response without its English question)."""


def judge_prompt(question: str, answer: str) -> str:
    return JUDGE_TEMPLATE.format(question=question.strip(), answer=" ".join(answer.split()))


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


def judge_prompts(responses: pa.Table, english_prompts: pa.Table) -> pa.Table:
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
                "prompt": judge_prompt(questions[row["item_id"]], row["response"]),
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

_QUOTES = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u201b": "'", "\u2032": "'", "`": "'", "\u201c": '"', "\u201d": '"', "\u201e": '"'}
)
_MARKUP = re.compile(r"[*_#>~|\[\](){}]+")
# "Answer: yes", "Final verdict - no", "Response: **Yes**"
_LABEL = re.compile(
    r"^(?:(?:my|the|final|short)\s+)*"
    r"(?:answer|verdict|response|output|judg(?:e)?ment|result|assessment|evaluation|decision)"
    r"\s*(?:is\s*)?[:\-\u2013\u2014=]\s*"
)
_LEADING_JUNK = re.compile(r"^[\s\"'.,:;!?\-\u2013\u2014=]+")
_LEADING_YES = re.compile(r"^(?:yes|yeah|yep|yup|correct|right|true|affirmative)(?![a-z'])")
_LEADING_NO = re.compile(
    r"^(?:no|nope|nah|incorrect|wrong|false|not\s+(?:correct|right|really|true|accurate|quite))(?![a-z'])"
)
_NOT_A_VERDICT = re.compile(r"^no\s+(?:idea|clue)\b")
_UNSURE = re.compile(
    r"\b(?:(?:do|does|did)\s+not\s+know|(?:don't|doesn't|dunno)\b|not\s+sure|unsure|no\s+idea|no\s+clue|"
    r"(?:cannot|can't|can\s+not|unable\s+to|impossible\s+to)\s+(?:be\s+)?"
    r"(?:determine|determined|tell|say|verify|verified|judge|know|assess|evaluate)|"
    r"not\s+enough\s+information|insufficient\s+information|unclear|uncertain)"
)
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)*")
_SENTENCE_END = re.compile(r"[.!?;:,]+\s*")
_BARE_VERDICT = {
    "yes": "yes",
    "no": "no",
    "yeah": "yes",
    "yep": "yes",
    "nope": "no",
    "correct": "yes",
    "incorrect": "no",
}
_YES_WORDS = {"yes", "yeah", "yep"}
_NO_WORDS = {"no", "nope"}
_POSITIVE = {"correct", "accurate", "right"}
_NEGATIVE = {"incorrect", "inaccurate", "wrong", "false"}
_NEGATORS = {"not", "isn't", "wasn't", "aren't", "isnt", "never", "hardly", "nothing", "nor", "neither"}


def _normalise(text: str) -> str:
    text = text.translate(_QUOTES).lower()
    text = _MARKUP.sub(" ", text)
    text = " ".join(text.split())
    previous = None
    while previous != text:
        previous = text
        text = _LEADING_JUNK.sub("", text)
        text = _LABEL.sub("", text)
    return text


def _word_verdicts(text: str) -> list[str]:
    """Every verdict word in the text: yes/no words, and correctness words (flipped after a negator)."""
    words = _WORD.findall(text)
    found = []
    for index, word in enumerate(words):
        if word in _YES_WORDS:
            found.append("yes")
        elif word in _NO_WORDS:
            found.append("no")
        elif word in _POSITIVE or word in _NEGATIVE:
            if word == "right" and index + 1 < len(words) and words[index + 1] in {"angle", "answer", "side", "hand"}:
                continue  # "the right answer is ..." names something, it does not judge
            polarity = "yes" if word in _POSITIVE else "no"
            if any(previous in _NEGATORS or previous.endswith("n't") for previous in words[max(0, index - 2) : index]):
                polarity = "no" if polarity == "yes" else "yes"
            found.append(polarity)
    return found


def parse_verdict(text: str | None) -> str:
    """``yes`` | ``no`` | ``unparseable`` for a judge's text.

    Rules, in order (after lowercasing, unifying quotes, dropping markdown characters and
    a leading label such as "Answer:" or "Verdict -"):

    1. A verdict word at the very start decides, whatever follows: yes/yeah/yep/correct/
       right/true → yes; no/nope/nah/incorrect/wrong/false/"not correct"/"not really" →
       no ("Yes, but ...", "**No**, the answer is wrong", "Correct."). "No idea"/"No clue"
       are not verdicts.
    2. Otherwise, a text that says the judge does not know (don't know, not sure, cannot
       determine, unclear, ...) is unparseable.
    3. Otherwise a last sentence that is nothing but a verdict word decides ("Is this a
       correct answer? No." → no).
    4. Otherwise every verdict word in the text counts: yes/yeah/yep and no/nope as
       words (never inside "not", "know", "nothing", "another"), and correct/accurate/right
       vs incorrect/inaccurate/wrong/false, flipped when one of the two words before is a
       negation ("is not correct", "nothing wrong"). All agreeing → that verdict ("The
       answer is correct. Yes" → yes); none, or both kinds → unparseable (a judge that
       repeats the instruction, "type 'yes' ... type 'no'", decides nothing).
    """
    if not text:
        return "unparseable"
    normal = _normalise(text)
    if not normal:
        return "unparseable"
    if not _NOT_A_VERDICT.match(normal):
        if _LEADING_YES.match(normal):
            return "yes"
        if _LEADING_NO.match(normal):
            return "no"
    if _UNSURE.search(normal):
        return "unparseable"
    sentences = [part.strip(" '\"") for part in _SENTENCE_END.split(normal)]
    sentences = [part for part in sentences if part]
    if sentences and sentences[-1] in _BARE_VERDICT:
        return _BARE_VERDICT[sentences[-1]]
    verdicts = set(_word_verdicts(normal))
    return verdicts.pop() if len(verdicts) == 1 else "unparseable"


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
) -> pa.Table:
    """JUDGMENTS rows for RESPONSES rows (in their order), judging only what the cache lacks.
    With `max_failed_share`, more failed judge requests than that raise FailedRequests
    (xlcons.generation.stage.check_failures) instead of becoming `unparseable` verdicts."""
    prompts = judge_prompts(responses, english_prompts)
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
                verdict = "unparseable"
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
    judgments = run_judge(judge_spec, responses, english, cache_path, backend_factory, max_new_tokens, max_failed_share)
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
    )


def rule_judge_merge(smk) -> None:
    """Rule judge_merge: the shard jobs' judgments as one table, the unsharded job's output."""
    merge_judge_shards(smk.input.responses, smk.input.shards, smk.output.judgments)
