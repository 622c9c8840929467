"""The budget guard (xlcons.budget): `limits.max_cost` / `limits.max_tokens` stop a job before its
next chunk of requests once the run's ledger reaches them, with every answer received kept."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pyarrow as pa
import pytest

from test_generation_stage import Echo
from xlcons import usage
from xlcons.budget import BudgetExceeded, BudgetGuard, Limits, Spent, guarding, install_from_config, spent_by
from xlcons.generation.base import Decoding, ModelSpec, build_requests
from xlcons.generation.cache import ResponseCache
from xlcons.generation.stage import generate_missing, run_generation
from xlcons.translation.cache import TranslationCache
from xlcons.translation.sentence_translator import DegenerationSpec, SentenceTranslator
from xlcons.translation.spec import TranslatorSpec

# USD per million tokens: a prompt token costs 1 µUSD... times 1e6 / 1e6: 10 prompt tokens at 2.00
# and 5 completion tokens at 8.00 cost (10 * 2 + 5 * 8) / 1e6 = 60e-6 USD per request.
PRICES = {"api-model": {"input": 2.0, "output": 8.0}}
PER_REQUEST_USD = (10 * 2.0 + 5 * 8.0) / 1_000_000


class Priced(Echo):
    """An API stand-in: 10 prompt and 5 completion tokens per answer; chunks of 3."""

    name = "priced"
    chunk_size = 3
    prompt_tokens, completion_tokens = 10, 5


def api_spec() -> ModelSpec:
    return ModelSpec(name="api", backend="openai", location=None, decoding=Decoding(), options={"model": "api-model"})


def rows(n: int) -> list[dict[str, str]]:
    return [{"dataset": "d", "item_id": str(i), "lang": "en", "prompt": f"question {i}"} for i in range(n)]


def guard(limits: Limits, files=(), own=None) -> BudgetGuard:
    return BudgetGuard(limits, PRICES, lambda: list(files), own, "generate d/api")


def test_spent_adds_tokens_and_prices_them_as_usage_csv_does():
    calls = [
        {"model": "api-model", "prompt_tokens": 2_000_000, "completion_tokens": 500_000, "cached_tokens": 0},
        {"model": "local", "prompt_tokens": 100, "completion_tokens": 10, "cached_tokens": 0},
    ]
    spent = spent_by(calls, PRICES)
    assert spent.tokens == 2_500_110
    assert spent.cost_usd == pytest.approx(2 * 2.0 + 0.5 * 8.0)  # 8 USD; the unpriced model adds none
    assert spent.unpriced == ("local",)


def test_limits_read_numbers_given_as_text_by_snakemake_config():
    assert Limits.from_config({"limits": {"max_cost": "2.5", "max_tokens": "10"}}) == Limits(2.5, 10)
    assert not Limits.from_config({"limits": None}) and not Limits.from_config({})


def test_a_cost_limit_crossed_by_a_chunk_stops_the_job_at_the_next_one_and_the_cache_keeps_the_answers(tmp_path):
    """Chunks of 3 requests at 60 µUSD each: after the first chunk the ledger is at 180 µUSD,
    past a limit of 150 µUSD, so the second chunk is never sent."""
    spec, sent = api_spec(), []
    requests = build_requests(spec, rows(7), 16)
    cache = ResponseCache(tmp_path / "cache.jsonl")
    with usage.recording() as ledger, guarding(guard(Limits(max_cost=150e-6))):
        with pytest.raises(BudgetExceeded) as stopped:
            generate_missing(spec, requests, cache, lambda spec: Priced(spec, sent))
    assert len(sent) == 3
    assert len(ResponseCache(tmp_path / "cache.jsonl")) == 3, "the answers received are in the cache, on disk"
    assert ledger.calls()[0]["requests"] == 3
    message = str(stopped.value)
    assert "limits.max_cost" in message and "0.0002 USD" in message and "0.0001 USD" in message
    assert "kept in its cache" in message and "--config 'limits={max_cost: ...}'" in message
    assert stopped.value.spent == pytest.approx(3 * PER_REQUEST_USD)


def test_the_rerun_with_a_higher_limit_sends_only_the_rest(tmp_path):
    spec, sent = api_spec(), []
    requests = build_requests(spec, rows(7), 16)
    with usage.recording(), guarding(guard(Limits(max_tokens=40))):  # 3 answers: 45 tokens
        with pytest.raises(BudgetExceeded, match="limits.max_tokens"):
            generate_missing(spec, requests, ResponseCache(tmp_path / "cache.jsonl"), lambda spec: Priced(spec, sent))
    again = []
    with usage.recording() as ledger, guarding(guard(Limits(max_tokens=1000))):
        generate_missing(spec, requests, ResponseCache(tmp_path / "cache.jsonl"), lambda spec: Priced(spec, again))
    assert len(again) == 4 and not set(again) & set(sent)
    assert ledger.calls()[0]["cached_requests"] == 3


def test_the_finished_jobs_usage_files_count_and_the_jobs_own_file_does_not(tmp_path):
    """The run's ledger: the usage files under results (other jobs, finished) plus this job's
    own ledger; its own earlier file (about to be replaced) is not counted twice."""
    other, own = tmp_path / "usage" / "judge" / "d" / "m.json", tmp_path / "usage" / "generate" / "d" / "api.json"
    record = {"gpus": 0, "wall_s": 1.0, "gpu_s": 0.0}
    call = {"part": "generate", "requests": 1, "cached_requests": 0, "cached_tokens": 0, "failures": 0, "retries": 0}
    usage.write_usage(other, {**record, "format": usage.FORMAT, "version": usage.VERSION, "calls": [
        {**call, "model": "api-model", "prompt_tokens": 30, "completion_tokens": 0}
    ]})  # fmt: skip
    usage.write_usage(own, json.loads(other.read_text()))
    sent = []
    spec = api_spec()
    with usage.recording(), guarding(guard(Limits(max_tokens=50), usage.run_usage_files(tmp_path), own)):
        with pytest.raises(BudgetExceeded) as stopped:
            generate_missing(spec, build_requests(spec, rows(7), 16), ResponseCache(tmp_path / "c.jsonl"),
                             lambda spec: Priced(spec, sent))  # fmt: skip
    assert len(sent) == 3 and stopped.value.spent == 30 + 45  # the other job's 30, this one's 45; not its own file


def test_a_job_without_limits_installs_no_guard_and_sends_everything(tmp_path):
    assert install_from_config({"limits": {}}, None, "job") is None
    spec, sent = api_spec(), []
    with usage.recording():
        generate_missing(spec, build_requests(spec, rows(7), 16), ResponseCache(tmp_path / "c.jsonl"),
                         lambda spec: Priced(spec, sent))  # fmt: skip
    assert len(sent) == 7


class Counting:
    """A translator stand-in that records its tokens in the ledger as the real ones do (4 source
    and 6 written tokens per sentence)."""

    def __init__(self):
        self.sentences: list[str] = []

    def translate(self, sentences, src, tgt, *, sampling=None):
        self.sentences += sentences
        usage.record("nllb", "translate", prompt_tokens=4 * len(sentences), completion_tokens=6 * len(sentences))
        return [f"{tgt}({sentence})" for sentence in sentences]

    def close(self):
        pass


def test_the_translation_stage_stops_at_the_next_chunk_and_keeps_its_translations(tmp_path):
    spec = TranslatorSpec(location="scripted", model_id="scripted", device="cpu")
    translator = Counting()
    cache = TranslationCache(tmp_path / "t.jsonl")
    engine = SentenceTranslator(spec, cache, DegenerationSpec(repair=False), lambda spec: translator, chunk_size=4)
    with usage.recording(), guarding(guard(Limits(max_tokens=30))):  # one chunk: 4 x 10 tokens
        with pytest.raises(BudgetExceeded, match="limits.max_tokens"):
            engine.translate([f"Sentence {i}." for i in range(10)], "eng_Latn", "deu_Latn")
    engine.close()
    assert len(translator.sentences) == 4
    assert len(TranslationCache(tmp_path / "t.jsonl")) == 4


@pytest.mark.slow
def test_a_real_model_job_stops_mid_run_and_its_rerun_sends_only_the_rest(offline_models, tmp_path):
    """The tiny random LM through the hf backend (chunks of 8 x batch_size 1 = 8 prompts): a
    token limit below one chunk's tokens stops the job after its first chunk, those 8 answers
    cached; with the limit raised the rerun sends the other 4."""
    spec = ModelSpec(
        name="tiny-llm",
        backend="hf",
        location=str(offline_models["tiny-llm"]),
        decoding=Decoding(max_new_tokens=4),
        options={"device": "cpu", "batch_size": 1},
    )
    prompts = pa.Table.from_pylist(rows(12))
    cache = tmp_path / "cache.jsonl"
    with usage.recording() as ledger, guarding(guard(Limits(max_tokens=10))):
        with pytest.raises(BudgetExceeded, match="limits.max_tokens"):
            run_generation(spec, prompts, 4, cache)
    first = ledger.calls()[0]
    assert first["requests"] == 8 and len(ResponseCache(cache)) == 8
    with usage.recording() as ledger, guarding(guard(Limits(max_tokens=10**6))):
        table = run_generation(spec, prompts, 4, cache)
    assert ledger.calls()[0]["requests"] == 4 and ledger.calls()[0]["cached_requests"] == 8
    assert table.num_rows == 12


def test_spent_sums():
    assert Spent(1, 0.5, ("a",)) + Spent(2, 0.25, ("a", "b")) == Spent(3, 0.75, ("a", "b"))


def test_the_workflow_refuses_to_start_when_the_estimate_is_above_a_limit(tmp_path, offline_models, shared_data):
    """A dry run of the quickstart with a token limit far below its estimate stops before any
    job, naming the key, the estimate's figure and how to go on; `--config limits=` (no limits)
    plans the run."""
    from test_workflow import snakemake
    from test_workflow_own_prompts import quickstart_in

    run = quickstart_in(tmp_path, shared_data)
    refused = snakemake(*run, "-n", "--config", "limits={max_tokens: 10}", timeout=600)
    assert refused.returncode != 0
    output = " ".join(refused.output.split())
    assert "the run's estimate is above limits.max_tokens" in output and "limits.max_tokens is 10 tokens" in output
    assert "Nothing was scheduled" in output and "--config limits=" in output
    assert "Job stats" not in refused.output
    anyway = snakemake(*run, "-n", "--config", "limits=", timeout=600)
    assert anyway.returncode == 0, anyway.output[-3000:]
    assert "Job stats" in anyway.output


def test_a_model_jobs_script_sets_up_its_guard_from_the_config_snakemake_hands_it(tmp_path):
    """xlcons.job.install_budget (start_job's last step): a job with a `usage` output gets a guard
    from `config` (limits, pricing, the results folder), its own usage file left out; a job
    without one, or a run without limits, gets none."""
    from types import SimpleNamespace

    from xlcons import budget
    from xlcons.job import install_budget

    results = tmp_path / "results"
    own = results / "usage" / "generate" / "d" / "m.json"
    config = {"limits": {"max_tokens": "5"}, "pricing": PRICES, "output": {"results_dir": str(results)}}
    job = SimpleNamespace(
        rule="generate_d",
        wildcards=["m"],
        config=config,
        output=SimpleNamespace(usage=str(own), keys=lambda: ["responses", "usage"]),
    )
    with guarding(None):
        install_budget(job)
        guard = budget._guard
        assert guard is not None and guard.limits == Limits(max_tokens=5) and guard.own == own.resolve()
        assert guard.job == "generate_d m" and guard.ledger_files() == []
        with usage.recording():
            usage.record("api-model", "generate", prompt_tokens=3, completion_tokens=2)
            with pytest.raises(BudgetExceeded, match="generate_d m: budget reached.*5 tokens.*this job's requests: 5"):
                budget.check()
        install_budget(SimpleNamespace(**{**vars(job), "output": SimpleNamespace(keys=lambda: ["table"])}))
        assert budget._guard is guard, "a job that calls no model leaves the guard alone"
        install_budget(SimpleNamespace(**{**vars(job), "config": {"limits": None}}))
        assert budget._guard is None


def test_parallel_jobs_see_each_others_spending_through_their_running_ledgers(tmp_path):
    """Two jobs of one run at once: each check writes the job's ledger so far beside its usage
    output (`<usage file>.running`), which the other's checks count; a job that finishes replaces
    it by its usage file (counted once), and one that was stopped leaves it, so what it sent
    still counts until it runs again."""
    from types import SimpleNamespace

    from xlcons import budget

    results = tmp_path / "results"
    config = {"limits": {"max_tokens": 100}, "output": {"results_dir": str(results)}}
    own_a = results / "usage" / "generate" / "d" / "a.json"
    own_b = results / "by-translator" / "nllb" / "usage" / "translate" / "d" / "b.json"
    with guarding(None):
        job_a = install_from_config(config, own_a, "generate d/a")
        job_b = install_from_config(config, own_b, "translate d/b")
    assert job_a is not None and job_b is not None

    with usage.recording() as ledger_a:
        usage.record("api-model", "generate", prompt_tokens=30, completion_tokens=10)
        assert job_a.check().tokens == 40  # nothing else is running yet
        running_a = usage.running_file(own_a)
        assert running_a.name == "a.json.running" and usage.read_usage(running_a)["calls"][0]["prompt_tokens"] == 30
    with usage.recording():
        usage.record("nllb", "translate", prompt_tokens=20, completion_tokens=25)
        assert job_b.check().tokens == 40 + 45  # job a's running ledger, and b's own
        usage.record("nllb", "translate", prompt_tokens=10, completion_tokens=5)
        with pytest.raises(BudgetExceeded, match="translate d/b: budget reached.*100 tokens"):
            job_b.check()  # 40 + 60 = 100: b stops, its running ledger stays
    assert usage.running_file(own_b).exists()

    with usage.recording():  # job a, in its own process, sees b's 60 although b failed
        previous = usage._ledger
        usage._ledger = ledger_a
        try:
            assert job_a.spent().tokens == 40 + 60
            job = SimpleNamespace(output=SimpleNamespace(usage=str(own_a), keys=lambda: ["usage"]), resources={})
            usage.write_job_usage(job)  # job a finishes: its usage file, and no running ledger any more
        finally:
            usage._ledger = previous
    assert own_a.exists() and not running_a.exists()
    assert usage.run_usage_files(results) == [own_a]  # a running ledger is never read as a finished job's file
    with usage.recording():
        assert job_b.spent().tokens == 40 + 0, "a's finished file once; b's own running ledger not from disk"
    assert budget._guard is None


def generate_job(config: dict, own) -> SimpleNamespace:
    """What Snakemake hands a generation job's script: rule, wildcards, config and outputs."""
    output = SimpleNamespace(usage=str(own), keys=lambda: ["responses", "usage"])
    return SimpleNamespace(rule="generate", wildcards=["d", "api"], config=config, output=output, resources={})


def test_a_stopped_attempts_ledger_is_carried_on_so_the_same_limit_is_not_spent_twice(tmp_path):
    """The same command twice under `max_tokens: 40` (issue 40): the first attempt sends 3 answers
    (45 tokens) and stops; the second finds that ledger beside its usage output, counts it as
    its own and sends nothing. With the limit raised, the third sends the 4 answers not cached
    and its usage file counts all 7 requests sent by the three attempts, the 3 cached ones once."""
    from xlcons.job import install_budget

    results = tmp_path / "results"
    own = results / "usage" / "generate" / "d" / "api.json"
    config = {"limits": {"max_tokens": 40}, "output": {"results_dir": str(results)}}
    spec = api_spec()
    requests = build_requests(spec, rows(7), 16)
    attempts: list[list[str]] = [[], [], []]

    def attempt(number: int) -> None:
        install_budget(generate_job(config, own))
        cache = ResponseCache(tmp_path / "cache.jsonl")
        generate_missing(spec, requests, cache, lambda spec: Priced(spec, attempts[number]))

    with guarding(None):
        with usage.recording(), pytest.raises(BudgetExceeded):
            attempt(0)
        with usage.recording(), pytest.raises(BudgetExceeded) as stopped:
            attempt(1)
        assert stopped.value.spent == 45 and "this job's requests: 45 tokens" in str(stopped.value)
        assert usage.read_usage(usage.running_file(own))["calls"][0]["requests"] == 3, "kept, not overwritten"
        config["limits"] = {"max_tokens": 1000}
        with usage.recording():
            attempt(2)
            usage.write_job_usage(generate_job(config, own))
    assert [len(sent) for sent in attempts] == [3, 0, 4]
    (call,) = usage.read_usage(own)["calls"]
    assert (call["requests"], call["cached_requests"]) == (7, 3)
    assert (call["prompt_tokens"], call["completion_tokens"]) == (7 * 10, 7 * 5)
    assert not usage.running_file(own).exists()


def test_a_running_ledger_older_than_its_jobs_usage_file_is_not_counted_again(tmp_path):
    """A job killed between writing its usage file and removing its running ledger: the usage
    file (written after the ledger) holds what the ledger said, so the guard counts it once."""
    import os

    own = tmp_path / "usage" / "generate" / "d" / "api.json"
    with usage.recording():
        usage.record("api-model", "generate", requests=1, prompt_tokens=10, completion_tokens=5)
        usage.write_running_usage(own)
        usage.write_usage(own, usage.ledger().record(0, 1.0))
    running = usage.running_file(own)
    os.utime(running, (own.stat().st_mtime - 10, own.stat().st_mtime - 10))
    assert usage.running_usage_files(tmp_path) == []
    os.utime(running, (own.stat().st_mtime + 10, own.stat().st_mtime + 10))  # a later attempt's ledger
    assert usage.running_usage_files(tmp_path) == [running]


def test_admit_prices_each_requests_bound_and_holds_back_from_the_first_that_would_pass_a_limit():
    """Requests sent at once (a batch): 60 µUSD each at the api model's prices under a 150 µUSD
    limit, 2 fit; with one request's 60 µUSD in the ledger, 1 does. No guard: all of them."""
    from xlcons import budget

    with usage.recording(), guarding(guard(Limits(max_cost=150e-6))):
        assert budget.admit("api-model", [(10, 5)] * 4) == 2
        held = budget.held()
        assert held is not None and held.held == 2 and "2 of 4 requests to api-model" in str(held)
        assert held.key == "limits.max_cost" and held.spent == 0.0
        usage.record("api-model", "generate", requests=1, prompt_tokens=10, completion_tokens=5)
        assert budget.admit("api-model", [(10, 5)] * 4) == 1
        assert budget.admit("api-model", [(10, 5)]) == 1 and budget.held() is None
    assert budget.admit("api-model", [(10, 5)] * 4) == 4
