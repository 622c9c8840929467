"""The usage ledger (xlcons.usage) and the run's usage table (xlcons.reports.usage): what each
model job records, and the sums and money of usage.csv, against hand-computed values."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import SimpleNamespace

import pyarrow as pa
import pytest
import yaml

from xlcons.config import ConfigError, load_config, validate_config
from xlcons.generation.base import Backend, Decoding, ModelSpec, Request, Result, ledger_name
from xlcons.generation.stage import run_generation
from xlcons.plan import Plan
from xlcons.reports.usage import COLUMNS, cost, job_rows, run_usage_job, usage_rows
from xlcons.translation.sentence_translator import SentenceTranslator
from xlcons.translation.spec import TranslatorSpec
from xlcons.usage import Ledger, UsageError, read_usage, record, recording, write_job_usage, write_usage


class Counting(Backend):
    """Answers with fixed token counts; the prompt `fail` comes back as an API error."""

    name = "counting"
    chunk_size = 2

    def generate(self, requests: Sequence[Request]) -> Iterator[Result]:
        for request in requests:
            if request.prompt == "fail":
                yield Result(request.key, "", "error", error="HTTP 503")
            else:
                yield Result(request.key, "an answer", "stop", 7, 3)

    def engine_stats(self) -> dict[str, int]:
        return {"cached_prompt_tokens": 4, "retries": 2}


def _prompts(texts: Sequence[str]) -> pa.Table:
    return pa.Table.from_pylist(
        [{"dataset": "d", "item_id": f"i{index}", "lang": "en", "prompt": text} for index, text in enumerate(texts)]
    )


SPEC = ModelSpec(name="m", backend="hf", location="/nowhere", decoding=Decoding(), hf_id="org/model")


def test_generation_counts_sent_and_cached_requests_and_the_tokens_of_the_sent_ones(tmp_path):
    """Four prompts, two of them the same text (one request), one failing: 3 distinct requests
    sent, 2 x (7 + 3) tokens from the answered ones, 1 failure; the engine's 4 cached prompt
    tokens and 2 retries. The rerun sends only the failed request again (the cache keeps no
    failure) and counts the two answered ones as cached."""
    prompts = _prompts(["a", "b", "a", "fail"])
    with recording() as ledger:
        run_generation(SPEC, prompts, 16, tmp_path / "cache.jsonl", Counting)
    assert ledger.calls() == [
        {
            "model": "org/model",
            "part": "generate",
            "requests": 3,
            "cached_requests": 0,
            "prompt_tokens": 14,
            "completion_tokens": 6,
            "cached_tokens": 4,
            "failures": 1,
            "retries": 2,
            "held_requests": 0,
        }
    ]
    with recording() as rerun:
        run_generation(SPEC, prompts, 16, tmp_path / "cache.jsonl", Counting)
    (call,) = rerun.calls()
    assert (call["requests"], call["cached_requests"], call["prompt_tokens"], call["failures"]) == (1, 2, 0, 1)


def test_a_rerun_answered_from_the_cache_sends_nothing(tmp_path):
    prompts = _prompts(["a", "b"])
    run_generation(SPEC, prompts, 16, tmp_path / "cache.jsonl", Counting)
    with recording() as ledger:
        run_generation(SPEC, prompts, 16, tmp_path / "cache.jsonl", Counting)
    (call,) = ledger.calls()
    assert (call["requests"], call["cached_requests"], call["prompt_tokens"], call["completion_tokens"]) == (0, 2, 0, 0)


class Upper:
    """A translator stand-in: upper case, the sentence stage's counterpart of Counting."""

    name = "upper"

    def __init__(self, spec):
        pass

    def translate(self, sentences, src, tgt, *, sampling=None):
        return [sentence.upper() for sentence in sentences]

    def close(self):
        pass


def test_the_sentence_stage_counts_each_distinct_sentence_once_and_what_its_cache_answers():
    spec = TranslatorSpec(backend="transformers", location="/models/tiny-nllb")
    engine = SentenceTranslator(spec, factory=Upper)
    with recording() as ledger:
        engine.translate(["One.", "Two.", "One."], "deu_Latn", "eng_Latn")
        engine.translate(["One.", "Three."], "deu_Latn", "eng_Latn")
    (call,) = ledger.calls()
    assert (call["model"], call["part"]) == ("tiny-nllb", "translate")
    assert (call["requests"], call["cached_requests"]) == (3, 1)


def test_a_job_writes_its_ledger_with_gpu_seconds_from_its_resources(tmp_path):
    ledger = Ledger()
    ledger.add("gpt-4o", "judge", requests=2, prompt_tokens=100, completion_tokens=10)
    usage = ledger.record(gpus=2, wall_s=30.5)
    assert (usage["gpus"], usage["wall_s"], usage["gpu_s"]) == (2, 30.5, 61.0)
    path = write_usage(tmp_path / "usage.json", usage)
    assert read_usage(path) == usage

    out = SimpleNamespace(usage=str(tmp_path / "job.json"), keys=lambda: ["usage"])
    with recording():
        record("m", "generate", requests=1)
        written = write_job_usage(SimpleNamespace(output=out, resources=SimpleNamespace(gpu=1)))
    assert json.loads(written.read_text())["calls"][0]["requests"] == 1
    # A rule without a `usage` output writes nothing.
    assert write_job_usage(SimpleNamespace(output=SimpleNamespace(keys=lambda: ["table"]))) is None


def test_an_unreadable_usage_file_is_named_with_its_key(tmp_path):
    path = tmp_path / "u.json"
    usage = Ledger().record(0, 1.0)
    usage["calls"] = [{"model": "m", "part": "p", "requests": "2"}]
    path.write_text(json.dumps(usage))
    with pytest.raises(UsageError, match=r"u\.json: calls\[0\]\.requests is not a whole number"):
        read_usage(path)
    path.write_text("{}")
    with pytest.raises(UsageError, match="not an xlcons usage file"):
        read_usage(path)


def _call(model, part, **counts):
    base = dict.fromkeys(
        ("requests", "cached_requests", "prompt_tokens", "completion_tokens", "cached_tokens", "failures", "retries"), 0
    )  # without `held_requests`: a file written before it was, read as 0
    return {"model": model, "part": part, **base, **counts}


def _usage(wall_s, gpus, *calls):
    return {
        "format": "xlcons-usage",
        "version": 1,
        "gpus": gpus,
        "wall_s": wall_s,
        "gpu_s": gpus * wall_s,
        "calls": calls,
    }


GEN_A = (
    {"stage": "generate", "dataset": "d", "model": "a", "translator": ""},
    _usage(10.0, 1, _call("org/a", "generate", requests=4, cached_requests=1, prompt_tokens=400, completion_tokens=80)),
)
GEN_B = (
    {"stage": "generate", "dataset": "d", "model": "b", "translator": ""},
    _usage(
        5.0,
        0,
        _call(
            "gpt-4o",
            "generate",
            requests=2,
            prompt_tokens=2_000_000,
            cached_tokens=1_000_000,
            completion_tokens=500_000,
        ),
    ),
)
# The information job: extraction and verification by one model, summed into one row.
INFO_A = (
    {"stage": "information", "dataset": "d", "model": "a", "translator": "nllb"},
    _usage(
        20.0,
        2,
        _call("gpt-4o", "extraction", requests=3, prompt_tokens=300, completion_tokens=30, failures=1, retries=2),
        _call("gpt-4o", "verification", requests=5, cached_requests=2, prompt_tokens=700, completion_tokens=5),
    ),
)
PRICES = {"gpt-4o": {"input": 2.5, "cached_input": 1.25, "output": 10.0}}


def test_cost_by_hand():
    """1M uncached prompt tokens x 2.50 + 1M cached x 1.25 + 0.5M completion x 10.00 = 8.75 USD;
    without a cached price, the cached tokens cost the input price: 2 x 2.50 + 5.00 = 10.00."""
    row = {"prompt_tokens": 2_000_000, "cached_tokens": 1_000_000, "completion_tokens": 500_000}
    assert cost(row, PRICES["gpt-4o"]) == pytest.approx(8.75)
    assert cost(row, {"input": 2.5, "output": 10.0}) == pytest.approx(10.0)
    assert cost(row, None) is None


def test_a_job_s_parts_are_summed_and_its_time_counted_once():
    (row,) = job_rows(*INFO_A)
    assert (row["called_model"], row["jobs"], row["requests"], row["cached_requests"]) == ("gpt-4o", 1, 8, 2)
    assert (row["prompt_tokens"], row["completion_tokens"], row["failures"], row["retries"]) == (1000, 35, 1, 2)
    assert (row["wall_s"], row["gpu_s"]) == (20.0, 40.0)
    # A job that called nothing (every answer cached and nothing to send) keeps its time.
    (empty,) = job_rows(GEN_A[0], _usage(1.5, 1))
    assert (empty["called_model"], empty["jobs"], empty["requests"], empty["gpu_s"]) == ("", 1, 0, 1.5)


def test_the_usage_table_sums_jobs_per_group_and_adds_model_and_run_totals():
    second_a = (
        GEN_A[0],
        _usage(2.0, 1, _call("org/a", "generate", requests=1, prompt_tokens=100, completion_tokens=20)),
    )
    rows = usage_rows([GEN_A, GEN_B, INFO_A, second_a], PRICES)
    keyed = {(row["stage"], row["model"], row["called_model"]): row for row in rows}
    gen_a = keyed["generate", "a", "org/a"]
    assert (gen_a["jobs"], gen_a["requests"], gen_a["prompt_tokens"], gen_a["completion_tokens"]) == (2, 5, 500, 100)
    assert (gen_a["wall_s"], gen_a["gpu_s"], gen_a["cost_usd"]) == (12.0, 12.0, None)  # no price for org/a
    assert keyed["generate", "b", "gpt-4o"]["cost_usd"] == pytest.approx(8.75)
    # information: (1000 - 0) x 2.50 + 35 x 10.00 = 2850 -> 0.00285 USD
    assert keyed["information", "a", "gpt-4o"]["cost_usd"] == pytest.approx(0.00285)
    total_4o = keyed["total", "", "gpt-4o"]
    assert (total_4o["jobs"], total_4o["requests"], total_4o["prompt_tokens"]) == (2, 10, 2_001_000)
    assert total_4o["cost_usd"] == pytest.approx(8.75285)
    assert keyed["total", "", "org/a"]["cost_usd"] is None
    grand = rows[-1]
    assert (grand["stage"], grand["called_model"], grand["jobs"]) == ("total", "", 4)
    assert (grand["requests"], grand["cached_requests"], grand["failures"]) == (15, 3, 1)
    assert (grand["wall_s"], grand["gpu_s"]) == (37.0, 52.0)
    assert grand["cost_usd"] == pytest.approx(8.75285)  # the priced models only
    assert [row["stage"] for row in rows] == ["generate", "generate", "information", "total", "total", "total"]


def test_without_pricing_no_row_has_a_cost(tmp_path):
    paths = []
    jobs = []
    for index, (job, usage) in enumerate([GEN_A, INFO_A]):
        path = write_usage(tmp_path / f"{index}.json", usage)
        paths.append(path)
        jobs.append({**job, "path": str(path)})
    out = tmp_path / "usage.csv"
    run_usage_job(paths, jobs, out, {})
    with open(out, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert tuple(rows[0]) == COLUMNS
    assert {row["cost_usd"] for row in rows} == {""}
    assert rows[-1]["requests"] == "12" and rows[-1]["wall_s"] == "30" and rows[-1]["gpu_s"] == "50"


def test_a_usage_file_the_plan_does_not_know_is_an_error(tmp_path):
    path = write_usage(tmp_path / "stray.json", GEN_A[1])
    with pytest.raises(ValueError, match="stray.json: not among the run's model jobs"):
        run_usage_job([path], [], tmp_path / "usage.csv", {})


def test_the_plan_lists_a_usage_file_for_every_model_job(repo_root):
    plan = Plan(load_config(repo_root / "config" / "quickstart.yaml", base_dir=repo_root))
    stages = {(job["stage"], job["dataset"], job["model"]) for job in plan.usage_jobs()}
    assert ("generate", "clinic_qa", "tiny-llm") in stages
    assert ("translate_prompts", "my_english_prompts", "") in stages
    assert ("translate", "empathy", "smollm2-135m") in stages
    assert ("translation_qe", "clinic_qa", "tiny-llm") in stages
    assert ("judge", "clinic_qa", "smollm2-135m") in stages
    assert ("information", "my_english_prompts", "tiny-llm") in stages
    assert not any(stage in ("knowledge", "language_id", "empathy") for stage, _, _ in stages)
    translators = {job["stage"]: job["translator"] for job in plan.usage_jobs()}
    assert (translators["information"], translators["translate"], translators["judge"]) == (
        "tiny-nllb",
        "tiny-nllb",
        "",
    )
    assert (
        plan.usage_file("information", "d", "m", "by-translator/b/")
        == "results/quickstart/by-translator/b/usage/information/d/m.json"
    )


EXAMPLE = Path(__file__).parent.parent / "config" / "examples" / "pricing.yaml"
PAPER_CONFIGS = sorted((Path(__file__).parent.parent / "config" / "paper").glob("*.yaml"))


@pytest.mark.parametrize("paper", PAPER_CONFIGS, ids=lambda path: path.stem)
def test_the_pricing_example_prices_every_api_model_of_the_paper_configs(repo_root, paper):
    """config/examples/pricing.yaml, added to a paper config, validates and has a price under
    the name usage.csv gives each of the config's API models (generators and evaluators' LLMs)."""
    config = {**yaml.safe_load(paper.read_text()), **yaml.safe_load(EXAMPLE.read_text())}
    plan = Plan(validate_config(config, base_dir=repo_root))
    api = [key for key, source in plan.sources.items() if source.get("backend") == "openai"]
    names = {ledger_name(ModelSpec.from_config(key, plan.llm_spec(key, "resources"), None)) for key in api}
    assert names <= set(plan.pricing()), names - set(plan.pricing())


def test_a_price_without_its_output_price_is_refused(repo_root):
    config = {**yaml.safe_load((repo_root / "config" / "config.yaml").read_text()), "pricing": {"m": {"input": 1}}}
    with pytest.raises(ConfigError, match="pricing"):
        validate_config(config, base_dir=repo_root)
