"""The estimate before a run (xlcons.estimate): hand-computed counts on a tiny prompt set, the
caches read without their lock, the table, the `xlcons estimate` command and the budget check
against the estimate. The comparison with a real run's ledger is in the quickstart's
end-to-end test (tests/test_workflow_own_prompts.py)."""

from __future__ import annotations

import csv
import io
import json
import math
from contextlib import redirect_stdout
from pathlib import Path

import pytest
import yaml

from xlcons.config import resolve_config
from xlcons.estimate import estimate
from xlcons.estimate.check import limits_problem
from xlcons.estimate.command import main
from xlcons.estimate.table import render_csv, render_text
from xlcons.generation.base import ModelSpec, build_requests
from xlcons.generation.cache import ResponseCache
from xlcons.plan import Plan

# Two items in English and German; item b's German prompt is its English one (sent once).
PROMPTS = "id,lang,prompt\na,en,What is water?\na,de,Was ist Wasser?\nb,en,Name a river.\nb,de,Name a river.\n"
TEXTS = ["What is water?", "Was ist Wasser?", "Name a river."]


@pytest.fixture()
def config(tmp_path, offline_models) -> dict:
    (tmp_path / "prompts.csv").write_text(PROMPTS, encoding="utf-8")
    return {
        "models": {
            "api": {"backend": "openai", "api": {"model": "gpt-x", "base_url": "http://127.0.0.1:9/v1"}},
            "small": {
                "path": str(offline_models["smollm2-135m-instruct"]),
                "backend": "hf",
                "decoding": {"max_new_tokens": 5},
            },
        },
        "datasets": {
            "mine": {
                "type": "parallel",
                "path": str(tmp_path / "prompts.csv"),
                "languages": ["en", "de"],
                "columns": {"id": "id", "lang": "lang", "prompt": "prompt"},
            }
        },
        "evaluators": {},
        "pricing": {"gpt-x": {"input": 2.0, "output": 8.0}},
        "output": {"results_dir": str(tmp_path / "results")},
    }


def planned(config: dict) -> Plan:
    return Plan(config, datasets=resolve_config(config, base_dir=Path.cwd()))


def rows_by_model(rows):
    return {row.called_model: row for row in rows if row.stage == "generate"}


def test_generation_counts_distinct_prompts_with_each_models_tokenizer_and_prices_them(config, offline_models):
    from transformers import AutoTokenizer

    rows = estimate(planned(config))
    api, small = rows_by_model(rows)["gpt-x"], rows_by_model(rows)["smollm2-135m-instruct"]
    # 4 prompt rows, 3 distinct texts: the identical German and English prompt of item b is sent once.
    assert (api.requests, small.requests) == (3, 3) and api.basis == small.basis == "exact"
    # The API model: ceil(characters / 4) per prompt; at most the data set's 512 new tokens each.
    assert api.tokens == "chars/4" and api.prompt_tokens == sum(math.ceil(len(text) / 4) for text in TEXTS) == 12
    assert api.max_completion_tokens == 3 * 512
    assert api.cost_usd == pytest.approx((12 * 2.0 + 3 * 512 * 8.0) / 1_000_000)
    # The local model: its own tokenizer and chat template; its own cap of 5 new tokens.
    tokenizer = AutoTokenizer.from_pretrained(offline_models["smollm2-135m-instruct"])
    expected = sum(
        len(
            tokenizer.apply_chat_template(
                [{"role": "user", "content": text}], add_generation_prompt=True, return_dict=True
            )["input_ids"]
        )
        for text in TEXTS
    )
    assert small.tokens == "tokenizer" and small.prompt_tokens == expected
    assert small.max_completion_tokens == 15 and small.cost_usd is None  # no price: no cost
    run = rows[-1]
    assert (run.stage, run.called_model, run.requests, run.prompt_tokens) == ("total", "", 6, 12 + expected)
    assert run.cost_usd == pytest.approx(api.cost_usd)


def test_what_the_cache_holds_is_not_counted_and_the_cache_is_read_without_its_lock(config):
    plan = planned(config)
    spec = ModelSpec.from_config("api", plan.models.llm_spec("models.api", "resources"), None)
    first = build_requests(spec, [{"item_id": "a", "lang": "en", "prompt": "What is water?"}], 512)[0]
    path = Path(plan.layout.cache_file("generate", "mine", "api"))
    cache = ResponseCache(path)
    cache.add({"key": first.key, "response": "H2O", "finish_reason": "stop", "prompt_tokens": 4})
    cache.flush()
    with open(path, "ab") as handle:  # a line the running job is writing: not read, not cut off
        handle.write(b'{"key": "half')
    before = path.read_bytes()
    api = rows_by_model(estimate(plan))["gpt-x"]
    assert (api.requests, api.cached_requests, api.prompt_tokens) == (2, 1, 8)
    assert path.read_bytes() == before, "the estimate writes nothing to a cache (the job holding it may be running)"


def test_the_table_aligns_its_columns_and_the_csv_has_every_column(config):
    rows = estimate(planned(config))
    text = render_text(rows).splitlines()
    header = text[0]
    assert header.split() == [
        "stage",
        "dataset",
        "model",
        "called_model",
        "basis",
        "tokens",
        "jobs",
        "requests",
        "cached_requests",
        "prompt_tokens",
        "max_completion_tokens",
        "cost_usd",
    ]
    # Numbers end where their column's name ends.
    end = header.index("prompt_tokens") + len("prompt_tokens")
    assert all(line[end - 1].isdigit() for line in text[2:] if not line.startswith("-"))
    table = list(csv.DictReader(io.StringIO(render_csv(rows))))
    assert table[0]["translator"] == "" and table[0]["basis"] == "exact" and len(table) == len(rows)


def test_the_command_reads_config_files_and_overrides_as_snakemake_does(config, tmp_path, monkeypatch):
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    more = tmp_path / "pricing.yaml"
    more.write_text(yaml.safe_dump({"pricing": {"gpt-x": {"input": 4.0, "output": 8.0}}}))
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["--configfile", str(path), str(more), "--json", "--csv", str(tmp_path / "e.csv")]) == 0
    rows = json.loads(out.getvalue())
    api = next(row for row in rows if row["called_model"] == "gpt-x" and row["stage"] == "generate")
    assert api["cost_usd"] == pytest.approx((12 * 4.0 + 3 * 512 * 8.0) / 1_000_000), "the second file's price"
    assert (tmp_path / "e.csv").read_text().startswith("stage,dataset,model,translator,called_model,basis")
    with redirect_stdout(io.StringIO()):
        assert main(["--configfile", str(path), "--config", "bootstrap_resamples=5"]) == 2  # a nested key


def test_a_limit_below_the_estimate_stops_the_run_naming_the_key_the_figure_and_the_way_out(config):
    assert limits_problem(planned(config)) == (None, [])  # no limits: nothing is estimated
    config["limits"] = {"max_tokens": "10"}  # as `--config 'limits={max_tokens: 10}'` hands it over
    plan = planned(config)
    run = estimate(plan)[-1]
    problem, _ = limits_problem(plan)
    assert "limits.max_tokens" in problem and "is 10 tokens" in problem
    assert f"{run.prompt_tokens + run.max_completion_tokens:,} tokens" in problem
    assert "--config limits=" in problem and "xlcons estimate" in problem


def test_a_cost_limit_counts_the_priced_models_only(config):
    config["limits"] = {"max_cost": 0.0124}  # the API model's bound: 0.012312 USD
    assert limits_problem(planned(config))[0] is None
    config["limits"] = {"max_cost": 0.0123}
    problem, _ = limits_problem(planned(config))
    assert "limits.max_cost" in problem and "0.0123 USD" in problem


def test_the_check_counts_a_finished_job_by_its_usage_file_not_its_estimate(config):
    """A job whose usage file is there has run: the check adds what the file counts, not the
    job's estimate again, so a finished run started again is not refused for what it did."""
    from xlcons import usage

    plan = planned(config)
    small = rows_by_model(estimate(plan))["smollm2-135m-instruct"]
    api_job = next(job for job in plan.usage.usage_jobs() if job["model"] == "api")
    call = {"model": "gpt-x", "part": "generate", "requests": 3, "cached_requests": 0, "prompt_tokens": 4}
    call |= {"completion_tokens": 3, "cached_tokens": 0, "failures": 0, "retries": 0}
    usage.write_usage(api_job["path"], {"format": usage.FORMAT, "version": 1, "gpus": 0, "wall_s": 1.0,
                                        "gpu_s": 0.0, "calls": [call]})  # fmt: skip
    assert set(rows_by_model(estimate(plan, unfinished=True))) == {"smollm2-135m-instruct"}
    bound = small.prompt_tokens + small.max_completion_tokens
    config["limits"] = {"max_tokens": bound + 7}  # the small model's bound and the api job's 7 tokens
    assert limits_problem(planned(config))[0] is None
    config["limits"] = {"max_tokens": bound + 6}
    assert f"{bound + 7:,} tokens" in limits_problem(planned(config))[0]


def test_the_xlcons_command_runs_its_subcommands(config, tmp_path, capsys):
    from xlcons.cli import main as xlcons

    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    assert xlcons(["estimate", "--configfile", str(path)]) == 0
    assert capsys.readouterr().out.startswith("stage ")
    assert xlcons(["progress", "--directory", str(tmp_path)]) == 0
    assert xlcons([]) == 2 and "estimate" in capsys.readouterr().err


def test_a_sharded_job_is_estimated_once_and_its_shards_caches_count(config):
    """`generation.shards: 2`: each (data set, model) is one row with `jobs` 2 and the same
    requests as unsharded; an answer in a shard's cache is not counted again."""
    from xlcons.shards import shard_path

    unsharded = rows_by_model(estimate(planned(config)))["gpt-x"]
    config["generation"] = {"shards": 2}
    plan = planned(config)
    api = rows_by_model(estimate(plan))["gpt-x"]
    assert (api.jobs, api.requests, api.prompt_tokens) == (2, unsharded.requests, unsharded.prompt_tokens)
    spec = ModelSpec.from_config("api", plan.models.llm_spec("models.api", "resources"), None)
    first = build_requests(spec, [{"item_id": "a", "lang": "en", "prompt": "What is water?"}], 512)[0]
    cache = ResponseCache(shard_path(plan.layout.cache_file("generate", "mine", "api"), 2, 2))
    cache.add({"key": first.key, "response": "H2O", "finish_reason": "stop"})
    cache.flush()
    api = rows_by_model(estimate(plan))["gpt-x"]
    assert (api.requests, api.cached_requests) == (2, 1)


def test_the_readmes_example_is_the_estimate_of_multiqs_paper_config_with_the_example_prices(shared_data, tmp_path):
    """README.md, "What will it cost?": each row it shows is a row (or the total) of the estimate
    of config/paper/holtermann2024-multiq.yaml with config/examples/pricing.yaml, MultiQ's
    questions read from the released copy (the path a fetch would fill)."""
    repo = Path(__file__).resolve().parent.parent
    readme = (repo / "README.md").read_text(encoding="utf-8").split("## What will it cost?")[1]
    block = readme.split("```\n", 2)[2].split("```")[0].splitlines()  # the second fence: the table
    header, shown = block[0].split(), [line.split() for line in block[1:] if line.strip() and line != "..."]
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(
            [
                "--configfile",
                str(repo / "config" / "paper" / "holtermann2024-multiq.yaml"),
                str(repo / "config" / "examples" / "pricing.yaml"),
                "--config",
                f"datasets={{multiq: {{path: {shared_data / 'multiq'}}}}}",
                "--json",
            ]
        )
    assert code == 0
    rows = json.loads(out.getvalue())
    assert shown, "the README shows rows"
    for line in shown:
        # a total row has no data set or model: its first cell is the stage, then the called model
        values = dict(zip(header, line)) if line[0] != "total" else dict(zip(["stage", *header[3:]], line))
        match = [
            row
            for row in rows
            if row["stage"] == values["stage"]
            and row["called_model"] == values["called_model"]
            and (values["stage"] == "total" or row["model"] == values["model"])
        ]
        assert len(match) == 1, line
        for column in ("basis", "tokens"):
            assert match[0][column] == values[column], (line, column)
        for column in ("requests", "prompt_tokens", "max_completion_tokens"):
            assert match[0][column] == int(values[column].replace(",", "")), (line, column)
        if "cost_usd" in values:
            assert match[0]["cost_usd"] == pytest.approx(float(values["cost_usd"]), abs=5e-5), line


def test_the_check_counts_what_a_stopped_attempt_sent_and_its_cached_answers_once(config):
    """A job stopped by the budget guard left its ledger (`<usage file>.running`: 3 requests, 7
    tokens) and cached its answers: the check before scheduling adds that ledger, and the
    estimate leaves the cached requests out, so the same command under the same limit is
    refused, while a limit that covers both runs."""
    from xlcons import usage

    plan = planned(config)
    api_job = next(job for job in plan.usage.usage_jobs() if job["model"] == "api")
    call = {"model": "gpt-x", "part": "generate", "requests": 3, "cached_requests": 0, "prompt_tokens": 4}
    call |= {"completion_tokens": 3, "cached_tokens": 0, "failures": 0, "retries": 0}
    usage.write_usage(usage.running_file(api_job["path"]), {"format": usage.FORMAT, "version": 1, "gpus": 0,
                                                           "wall_s": 1.0, "gpu_s": 0.0, "calls": [call]})  # fmt: skip
    spec = ModelSpec.from_config("api", plan.models.llm_spec("models.api", "resources"), None)
    first = build_requests(spec, [{"item_id": "a", "lang": "en", "prompt": "What is water?"}], 512)[0]
    cache = ResponseCache(Path(plan.layout.cache_file("generate", "mine", "api")))
    cache.add({"key": first.key, "response": "H2O", "finish_reason": "stop", "prompt_tokens": 4})
    cache.flush()
    run = estimate(plan, unfinished=True)[-1]
    assert rows_by_model(estimate(plan, unfinished=True))["gpt-x"].cached_requests == 1
    bound = run.prompt_tokens + run.max_completion_tokens
    config["limits"] = {"max_tokens": bound + 7}
    assert limits_problem(planned(config))[0] is None
    config["limits"] = {"max_tokens": bound + 6}
    problem = limits_problem(planned(config))[0]
    assert f"{bound + 7:,} tokens" in problem and "stopped attempts' ledgers" in problem


def test_a_cost_limit_with_an_api_model_priced_under_another_name_is_refused_before_scheduling(config):
    """`max_cost` with an API model whose `pricing` key is not its API name (issue 40: a price for
    `gpt-4-0125` does not price `gpt-4-0125-preview`) would count that model's cost as nothing:
    the check refuses the run, naming the model, the job, the key expected and the close key it
    found. A local model without a price costs no money and is no reason to refuse."""
    config["models"]["api"]["api"]["model"] = "gpt-4-0125-preview"
    config["pricing"] = {"gpt-4-0125": {"input": 10.0, "output": 30.0}}
    config["limits"] = {"max_cost": 5}
    problem, _ = limits_problem(planned(config))
    assert problem is not None and "limits.max_cost" in problem
    assert "'gpt-4-0125-preview' (called by generate mine/api) has no price" in problem
    assert "pricing: {'gpt-4-0125-preview': {input: ..., output: ...}}" in problem
    assert "`pricing` has 'gpt-4-0125'" in problem and "smollm2" not in problem
    config["pricing"] = {}
    problem, _ = limits_problem(planned(config))
    assert "'gpt-4-0125-preview' (called by generate mine/api) has no price" in problem and "has 'gpt" not in problem
    config["pricing"] = {"gpt-4-0125-preview": {"input": 10.0, "output": 30.0}}
    assert limits_problem(planned(config))[0] is None
    config["limits"] = {"max_tokens": 10**9}  # a token limit needs no price
    config["pricing"] = {}
    assert limits_problem(planned(config))[0] is None


class CharTokenizer:
    """A stand-in tokenizer: one token per character; its vocabulary decodes each id to its text."""

    def __init__(self, vocabulary: list[str]):
        self.vocabulary = vocabulary

    def get_vocab(self) -> dict[str, int]:
        return {text: index for index, text in enumerate(self.vocabulary)}

    def decode(self, ids: list[int]) -> str:
        return "".join(self.vocabulary[index] for index in ids)

    def __call__(self, texts, add_special_tokens=True):
        return {"input_ids": [list(text) for text in texts]}


def test_a_judge_reads_each_generator_token_as_at_most_the_most_tokens_its_tokenizer_gives_one():
    """The judge's tokens for one token a generator writes: a generator whose vocabulary holds
    `hello` (5 characters) is read by a character tokenizer as up to 5 tokens a token; without
    either tokenizer (an API model), 1."""
    from xlcons.estimate.tokens import TokenCounter

    judge = TokenCounter(CharTokenizer(["a"]))
    assert judge.expansion(TokenCounter(CharTokenizer(["a", "hello", "xy"]))) == 5
    assert judge.expansion(TokenCounter()) == 1 and TokenCounter().expansion(judge) == 1


def test_a_translated_prompts_stand_in_is_bounded_by_its_sentences_at_the_translators_cap(tmp_path, offline_models):
    """A set written in English, translated to German by the run: before the translator has run,
    the German request is counted as the request with an empty prompt plus each of the two
    source sentences at the translator's cap of 8 tokens, each read as the most SmolLM2 tokens
    one tiny-nllb token's text comes to, and one token where sentences meet."""
    from transformers import AutoTokenizer

    from xlcons.generation.base import chat_prompt_ids

    (tmp_path / "prompts.txt").write_text("Water is wet. Fire is hot.\n", encoding="utf-8")
    small = offline_models["smollm2-135m-instruct"]
    config = {
        "models": {"small": {"path": str(small), "backend": "hf", "decoding": {"max_new_tokens": 5}}},
        "datasets": {"mine": {"type": "translated", "path": str(tmp_path / "prompts.txt"), "languages": ["en", "de"]}},
        "translator": {
            "model": {"path": str(offline_models["tiny-nllb"])},
            "backend": "transformers",
            "gpus": 0,
            "max_new_tokens": 8,
            "degeneration": {"repair": False},
        },  # fmt: skip
        "evaluators": {},
        "output": {"results_dir": str(tmp_path / "results")},
    }
    plan = planned(config)
    [row] = [row for row in estimate(plan) if row.stage == "generate"]
    tokenizer = AutoTokenizer.from_pretrained(small)
    nllb = AutoTokenizer.from_pretrained(offline_models["tiny-nllb"])
    per_token = max(
        len(tokenizer(nllb.decode([index]), add_special_tokens=False)["input_ids"]) for index in range(len(nllb))
    )

    def chat(prompt: str) -> int:  # as the hf backend records it
        return len(chat_prompt_ids(tokenizer, [{"role": "user", "content": prompt}]))

    english = chat("Water is wet. Fire is hot.")
    assert row.basis == "bound" and row.requests == 2
    assert row.prompt_tokens == english + max(english, chat("") + 2 * (8 * per_token + 1))
