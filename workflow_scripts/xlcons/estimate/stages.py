"""Per stage, what its jobs will send: requests, prompt tokens and a bound on completion tokens.

Generation is counted from the prompts themselves: the requests a job builds
(xlcons.generation.base.build_requests), distinct by key as `generate_missing` sends them,
less those its cache holds (read without its lock: xlcons.jsonl_cache.read_keys), their
prompt tokens with the model's tokenizer (xlcons.estimate.tokens), and at most
`max_new_tokens` (xlcons.generation.base.effective_max_new_tokens) completion tokens each.

The later stages read answers that do not exist before the run, so they are counted from the
number of answers they will read, with the rules that docs/usage.md#before-a-run-the-estimate
states: the prompts' translation from the English sentences it will send (a bound: every
repair try counted), the judge at most one request per answer, and the translation of answers,
QE, round trips and the LLM evaluators from an answer of `max_new_tokens` tokens in sentences
of `SENTENCE_TOKENS` tokens (an approximation).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from types import SimpleNamespace

from xlcons.estimate.prompts import APPROX, BOUND, EXACT, STAND_IN, UNKNOWN, DatasetPrompts, dataset_prompts
from xlcons.estimate.rows import EstimateRow
from xlcons.estimate.tokens import TokenCounter, counter_for
from xlcons.evaluators.information.fact_checking import EXTRACTION_MAX_NEW_TOKENS
from xlcons.evaluators.information.prompts import extraction_prompt, verification_prompt
from xlcons.evaluators.judge import JUDGE_MAX_NEW_TOKENS, judge_prompt
from xlcons.evaluators.registry import EVALUATORS, resolve
from xlcons.generation.base import (
    ModelSpec,
    Request,
    build_requests,
    chat_messages,
    effective_max_new_tokens,
    ledger_name,
)
from xlcons.generation.registry import backend_info
from xlcons.jsonl_cache import read_keys
from xlcons.plan import Plan
from xlcons.segmentation import split
from xlcons.shards import related_caches
from xlcons.translation.spec import TranslatorSpec
from xlcons.translation.spec import max_new_tokens as translator_cap
from xlcons.translation.spec import model_spec as translator_model

ENGLISH = "en"
# Tokens of one sentence of an answer, for the stages that split answers not written yet.
SENTENCE_TOKENS = 20
# The tokens a translator writes besides a sentence's `max_new_tokens`: the decoder's start and
# the target language tag.
TRANSLATOR_EXTRA_TOKENS = 2
# Each evaluator that calls an LLM: its cap when the LLM's decoding sets none.
EVALUATOR_CAPS = {"judge": JUDGE_MAX_NEW_TOKENS}


class Context:
    """What the stages share: the plan, where models and data are, each data set's prompts (loaded
    once) and the models' specs as the jobs get them."""

    def __init__(self, plan: Plan, resources: str = "resources"):
        self.plan, self.resources = plan, resources
        self._prompts: dict[str, DatasetPrompts] = {}

    def prompts(self, dataset: str) -> DatasetPrompts:
        if dataset not in self._prompts:
            self._prompts[dataset] = dataset_prompts(self.plan, dataset, self.resources)
        return self._prompts[dataset]

    def generator(self, model: str, dataset: str) -> ModelSpec:
        job = self.plan.llm_job(f"models.{model}", self.resources, "envs", dataset)
        params = job.spec(SimpleNamespace(model=model))
        return ModelSpec.from_config(model, params, params["location"])

    def llm(self, key: str) -> ModelSpec:
        params = self.plan.models.llm_spec(key, self.resources)
        return ModelSpec.from_config(key.split(".")[-2], params, params["location"])

    def answer_cap(self, model: str, dataset: str) -> int:
        """At most how many tokens an answer of `model` has."""
        return effective_max_new_tokens(self.generator(model, dataset), self.plan.data.max_new_tokens(dataset))

    def answers(self, dataset: str, languages: set[str] | None = None, english: bool = True) -> int:
        """How many answers a (data set, model) will have (in `languages`; without English)."""
        return sum(
            1
            for row in self.prompts(dataset).rows
            if (languages is None or row["lang"] in languages) and (english or row["lang"] != ENGLISH)
        )


def _row(
    job: dict[str, str],
    called: str,
    basis: str,
    tokens: str,
    requests: int = 0,
    cached_requests: int = 0,
    prompt_tokens: int = 0,
    max_completion_tokens: int = 0,
) -> EstimateRow:
    return EstimateRow(
        job["stage"],
        job["dataset"],
        job["model"],
        job["translator"],
        called,
        basis,
        tokens,
        requests=requests,
        cached_requests=cached_requests,
        prompt_tokens=prompt_tokens,
        max_completion_tokens=max_completion_tokens,
    )


def _served(row: EstimateRow, spec: ModelSpec | None) -> EstimateRow:
    """The row, marked `served` when its called model answers over HTTP (an API, which costs
    money: a cost limit needs its price), not from local files or recorded answers."""
    if spec is not None:
        info = backend_info(spec.backend)
        row.served = not info.local_files and not info.recorded
    return row


def _unknown(job: dict[str, str], called: str, note: str) -> EstimateRow:
    row = _row(job, called, UNKNOWN, "none")
    row.note = note
    return row


def generate(context: Context, job: dict[str, str]) -> EstimateRow:
    plan, dataset, model = context.plan, job["dataset"], job["model"]
    spec = context.generator(model, dataset)
    prompts = context.prompts(dataset)
    if prompts.basis == UNKNOWN:
        return _served(_unknown(job, ledger_name(spec), prompts.note), spec)
    cap = effective_max_new_tokens(spec, plan.data.max_new_tokens(dataset))
    # A stand-in for a translated prompt is a request of its own, whatever its text (the translation's).
    distinct = {
        f"{request.key}@{row['lang']}" if row.get(STAND_IN) else request.key: request
        for row, request in zip(prompts.rows, build_requests(spec, prompts.rows, cap))
    }
    cache = plan.layout.cache_file("generate", dataset, model)  # and its shards' (xlcons.shards)
    cached = read_keys(cache).union(*(read_keys(path) for path in related_caches(cache)))
    missing = [request for key, request in distinct.items() if key not in cached]
    info = backend_info(spec.backend)
    counter = counter_for(spec.location if info.local_files else None, recorded=info.recorded)
    stand_in = _StandIn(context, dataset, spec, counter, cap) if prompts.basis == BOUND else None
    row = _row(
        job,
        ledger_name(spec),
        prompts.basis,
        counter.how,
        requests=len(missing),
        cached_requests=len(distinct) - len(missing),
        prompt_tokens=sum(
            stand_in.tokens(key, request) if stand_in and key in stand_in.rows else counter.chat(request.messages)
            for key, request in distinct.items()
            if key not in cached
        ),
        max_completion_tokens=0 if info.recorded else len(missing) * cap,
    )
    return _served(row, spec)


class _StandIn:
    """A bound on the tokens of a prompt the translator will write, for the request built from its
    source prompt (its stand-in): the request with the prompt left empty, plus each source
    sentence's translation at the translator's cap, each of its tokens counted as the most
    tokens the generator's tokenizer gives one (TokenCounter.expansion) and one more where it
    meets the next; at least the source prompt's own count (a translation may keep a sentence)."""

    def __init__(self, context: Context, dataset: str, spec: ModelSpec, counter: TokenCounter, cap: int):
        plan = context.plan
        self.spec, self.counter, self.cap = spec, counter, cap
        self.source = plan.data.info(dataset).translated_from
        self.translator = _Translator(context, plan.translation.translator_of(""))
        self.per_token = counter.expansion(self.translator.counter)
        rows = [row for row in context.prompts(dataset).rows if row.get(STAND_IN)]
        # by their key among `generate`'s distinct requests
        self.rows = {f"{request.key}@{row['lang']}": row for row, request in zip(rows, build_requests(spec, rows, cap))}

    def tokens(self, key: str, request: Request) -> int:
        row = self.rows[key]
        empty = build_requests(self.spec, [{**row, "prompt": ""}], self.cap)[0]
        sentences = split(row["prompt"], self.source).sentences
        translated = len(sentences) * (self.translator.cap * self.per_token + 1)
        return max(self.counter.chat(request.messages), self.counter.chat(empty.messages) + translated)


class _Translator:
    """A translator as the estimate needs it: its name in the ledger, tokenizer, caps. NLLB-like
    models write their start and language-tag tokens besides a sentence's `max_new_tokens`; an
    LLM translator's cap is its model's (xlcons.translation.spec.max_new_tokens)."""

    def __init__(self, context: Context, name: str):
        plan = context.plan
        section = plan.translation.translator_section(name)
        location = plan.models.local_path(plan.translation.translator_key(name), context.resources)
        spec = TranslatorSpec.from_config(plan.translation.translator_fields(name, context.resources), location)
        self.called = spec.ledger_name()
        self.model: ModelSpec | None = None  # an LLM translator's model
        if plan.translation.is_llm_translator(name):
            model = self.model = translator_model(spec)
            self.counter = _counter(model)
            self.cap, self.extra = translator_cap(spec, model), 0
        else:
            self.counter = counter_for(location, src_lang="eng_Latn")
            self.cap, self.extra = spec.max_new_tokens, TRANSLATOR_EXTRA_TOKENS
        degeneration = section.get("degeneration") or {}
        self.attempts = 1 + (degeneration.get("tries", 0) if degeneration.get("repair", True) else 0)


def translate_prompts(context: Context, job: dict[str, str]) -> EstimateRow:
    """Every distinct English sentence to each other language, once per attempt (the first
    translation and each repair try: a bound, since only degenerate ones are tried again)."""
    plan, dataset = context.plan, job["dataset"]
    translator = _Translator(context, job["translator"])
    prompts = context.prompts(dataset)
    if prompts.basis == UNKNOWN:
        return _served(_unknown(job, translator.called, prompts.note), translator.model)
    source = plan.data.info(dataset).translated_from
    sentences = list(
        dict.fromkeys(
            sentence
            for row in prompts.rows
            if row["lang"] == source
            for sentence in split(row["prompt"], source).sentences
        )
    )
    targets = len(plan.data.prompt_translation_languages(dataset))
    requests = len(sentences) * targets * translator.attempts
    return _served(
        _row(
            job,
            translator.called,
            EXACT if translator.attempts == 1 else BOUND,
            translator.counter.how,
            requests=requests,
            prompt_tokens=sum(translator.counter.text(sentence) for sentence in sentences)
            * targets
            * translator.attempts,
            max_completion_tokens=requests * (translator.cap + translator.extra),
        ),
        translator.model,
    )


def _sentences_per_answer(cap: int) -> int:
    return max(1, math.ceil(cap / SENTENCE_TOKENS))


def translate(context: Context, job: dict[str, str]) -> EstimateRow:
    """Each answer not in English, `max_new_tokens` tokens long, in sentences of SENTENCE_TOKENS."""
    translator = _Translator(context, job["translator"])
    if context.prompts(job["dataset"]).basis == UNKNOWN:
        return _served(_unknown(job, translator.called, context.prompts(job["dataset"]).note), translator.model)
    cap = context.answer_cap(job["model"], job["dataset"])
    return _translated_texts(job, translator, context.answers(job["dataset"], english=False), cap)


def _translated_texts(job: dict[str, str], translator: _Translator, texts: int, cap: int) -> EstimateRow:
    """`texts` texts of `cap` tokens each, translated sentence by sentence (SENTENCE_TOKENS each),
    once per attempt: each sentence's source as the translator records it (its tag and end
    tokens, `extra`) and at most its cap written."""
    requests = texts * _sentences_per_answer(cap) * translator.attempts
    return _served(
        _row(
            job,
            translator.called,
            APPROX,
            translator.counter.how,
            requests=requests,
            prompt_tokens=texts * cap * translator.attempts + requests * translator.extra,
            max_completion_tokens=requests * (translator.cap + translator.extra),
        ),
        translator.model,
    )


def translation_qe(context: Context, job: dict[str, str]) -> EstimateRow:
    """One (source, translation) pair per translated sentence; the encoder writes nothing."""
    translator = _Translator(context, job["translator"])
    called = context.plan.quality.qe_model_name()
    if context.prompts(job["dataset"]).basis == UNKNOWN:
        return _unknown(job, called, context.prompts(job["dataset"]).note)
    cap = context.answer_cap(job["model"], job["dataset"])
    answers = context.answers(job["dataset"], english=False)
    requests = answers * _sentences_per_answer(cap)
    return _row(
        job, called, APPROX, "approx", requests=requests, prompt_tokens=answers * cap + requests * translator.cap
    )


def round_trip(context: Context, job: dict[str, str]) -> EstimateRow:
    """The English answer into each round-trip language and back: two sentences' translations each."""
    translator = _Translator(context, job["translator"])
    if context.prompts(job["dataset"]).basis == UNKNOWN:
        return _served(_unknown(job, translator.called, context.prompts(job["dataset"]).note), translator.model)
    cap = context.answer_cap(job["model"], job["dataset"])
    answers = context.answers(job["dataset"], {ENGLISH}) * len(context.plan.quality.round_trip_languages())
    return _translated_texts(job, translator, 2 * answers, cap)  # there and back


def _evaluator_llm(context: Context, stage: str) -> tuple[ModelSpec, int]:
    plan = context.plan
    evaluator = "information" if stage == "translationese" else stage
    keys = [key for key in plan.scoring.evaluator_model_keys(evaluator) if "backend" in plan.sources.get(key, {})]
    spec = context.llm(keys[0])
    # The information evaluator's own caps (its options), the larger of the two, where the LLM sets none.
    section = plan.scoring.evaluator_section(evaluator)
    options = [section.get(f"{kind}_max_new_tokens") for kind in ("extraction", "verification")]
    own = max((cap for cap in options if cap), default=None)
    return spec, spec.decoding.max_new_tokens or own or EVALUATOR_CAPS.get(stage, EXTRACTION_MAX_NEW_TOKENS)


def _counter(spec: ModelSpec):
    info = backend_info(spec.backend)
    return counter_for(spec.location if info.local_files else None, recorded=info.recorded)


def judge(context: Context, job: dict[str, str]) -> EstimateRow:
    """At most one request per answer (identical ones and "No answer" are not sent); the prompt is
    the judge's template with the English question and an answer of `max_new_tokens` tokens of
    the generator, each at most as many of the judge's tokens as the judge's tokenizer gives the
    text of any one token of the generator's (TokenCounter.expansion: a bound, not the generator's
    count, since two tokenizers cut a text differently), and one token where the answer meets
    the template."""
    spec, judge_cap = _evaluator_llm(context, job["stage"])
    prompts = context.prompts(job["dataset"])
    if prompts.basis == UNKNOWN:
        return _served(_unknown(job, ledger_name(spec), prompts.note), spec)
    counter = _counter(spec)
    questions = {row["item_id"]: row["prompt"] for row in prompts.rows if row["lang"] == ENGLISH}
    generator = context.generator(job["model"], job["dataset"])
    answer = context.answer_cap(job["model"], job["dataset"]) * counter.expansion(_counter(generator)) + 1
    requests = len(prompts.rows)
    style = context.plan.scoring.evaluator_option("judge", "prompt")
    prompt_tokens = sum(
        counter.chat(chat_messages(spec, judge_prompt(questions.get(row["item_id"], ""), "", style))) + answer
        for row in prompts.rows
    )
    return _served(
        _row(
            job,
            ledger_name(spec),
            BOUND,
            counter.how,
            requests=requests,
            prompt_tokens=prompt_tokens,
            max_completion_tokens=requests * judge_cap,
        ),
        spec,
    )


def information(context: Context, job: dict[str, str]) -> EstimateRow:
    """Facts extracted from each sentence of the English and the translated answers, and one
    verification per fact (one fact per sentence): an approximation."""
    spec, llm_cap = _evaluator_llm(context, job["stage"])
    prompts = context.prompts(job["dataset"])
    if prompts.basis == UNKNOWN:
        return _served(_unknown(job, ledger_name(spec), prompts.note), spec)
    counter = _counter(spec)
    cap = context.answer_cap(job["model"], job["dataset"])
    if job["stage"] == "translationese":
        answers = 2 * context.answers(job["dataset"], {ENGLISH}) * len(context.plan.quality.round_trip_languages())
    else:
        answers = context.answers(job["dataset"])
    sentences = answers * _sentences_per_answer(cap)
    template = counter.chat(chat_messages(spec, extraction_prompt("", ""))) + counter.chat(
        chat_messages(spec, verification_prompt("", ""))
    )
    return _served(
        _row(
            job,
            ledger_name(spec),
            APPROX,
            counter.how,
            requests=2 * sentences,
            prompt_tokens=sentences * (template + 2 * cap + SENTENCE_TOKENS),
            max_completion_tokens=2 * sentences * llm_cap,
        ),
        spec,
    )


# The stages before the evaluators; an evaluator's estimator is named by its registry entry
# (EvaluatorInfo.estimate: the judge's is `judge` above, the information evaluator's and the
# translationese check's `information`).
ESTIMATORS: dict[str, Callable[[Context, dict[str, str]], EstimateRow]] = {
    "generate": generate,
    "translate_prompts": translate_prompts,
    "translate": translate,
    "translation_qe": translation_qe,
    "round_trip": round_trip,
}


def estimator_of(stage: str) -> Callable[[Context, dict[str, str]], EstimateRow] | None:
    """A usage stage's estimator: one of ESTIMATORS, or the one its evaluator's entry names."""
    if stage in ESTIMATORS:
        return ESTIMATORS[stage]
    info = EVALUATORS.get(stage)
    return resolve(info.estimate) if info is not None and info.estimate else None


def estimate_job(context: Context, job: dict[str, str]) -> EstimateRow:
    """One usage job's row; a stage without an estimator (an evaluator whose entry names none) is `unknown`."""
    estimator = estimator_of(job["stage"])
    if estimator is None:
        return _unknown(job, "", f"{job['stage']}: its evaluator's entry names no estimator (EvaluatorInfo.estimate)")
    return estimator(context, job)
