"""One model job split over N shard jobs (xlcons.shards, xlcons.plan.shards): a stable item ->
shard assignment, merges that give the unsharded job's tables row for row, and caches that find
an answer whichever shard (of whatever N) asked for it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace

import pyarrow as pa
import pytest

from builders import response_rows
from test_generation_stage import Echo
from test_information_stage import both_languages, english_responses, evaluator_spec
from test_information_stage import scripted as scripted_evaluator
from test_judge import QUESTIONS, RESPONSES_TO_JUDGE, english_prompts, judge_spec
from test_judge import scripted as scripted_judge
from xlcons.config import validate_config
from xlcons.evaluators.information.stage import run_information_job, run_language_scores_job
from xlcons.evaluators.information.tables import INFORMATION_FACTS, INFORMATION_ITEMS, INFORMATION_SCORES
from xlcons.evaluators.judge import run_judge_job
from xlcons.evaluators.judge_tables import JUDGMENTS
from xlcons.evaluators.registry import RULE_JOBS, resolve
from xlcons.generation.base import Decoding, ModelSpec, Result
from xlcons.generation.cache import ResponseCache
from xlcons.generation.stage import merge_generation_shards, run_generation_job
from xlcons.jsonl_cache import CacheError
from xlcons.plan import Plan
from xlcons.schemas import PROMPTS, RESPONSES, TRANSLATIONS
from xlcons.shards import (
    ShardError,
    check_count,
    file_shard,
    job_shard,
    merge_rows,
    related_caches,
    shard_name,
    shard_of,
    shard_path,
    shard_rows,
)
from xlcons.tables import read_table, write_table

REPO = Path(__file__).resolve().parent.parent

# -- which shard an item is in --------------------------------------------------------------------------


def test_an_item_is_in_the_shard_its_sha256_says():
    # sha256("q1") starts c75de8c1b7c3ae52: 0xc75de8c1b7c3ae52 % 3 = 1 and % 2 = 0, so shard 2 of 3 and
    # 1 of 2; sha256("q2") starts bee98bf120e89063 (% 3 = 2: shard 3 of 3); sha256("42") 73475cb40a568e8d
    # (% 3 = 0: shard 1 of 3).
    assert shard_of("q1", 3) == 2 and shard_of("q1", 2) == 1
    assert shard_of("q2", 3) == 3 and shard_of("q2", 2) == 2
    assert shard_of("42", 3) == 1
    assert all(shard_of(key, 1) == 1 for key in ("q1", "q2", "42", ""))


def test_the_assignment_does_not_depend_on_pythons_hash_salt():
    code = "from xlcons.shards import shard_of; print([shard_of(f'item-{i}', 7) for i in range(50)])"
    runs = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO / "workflow_scripts")},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2", "random")
    }
    assert runs == {f"{[shard_of(f'item-{i}', 7) for i in range(50)]}\n"}


def prompt_rows(items: int = 30, languages: Sequence[str] = ("en", "de", "fr")) -> pa.Table:
    """Prompts in the prompt table's order: every item of one language, then the next language."""
    rows = [
        {"dataset": "d", "item_id": f"item-{i}", "lang": lang, "prompt": f"{lang}: question {i}?", "source_lang": lang}
        for lang in languages
        for i in range(items)
    ]
    return pa.Table.from_pylist(rows, schema=PROMPTS)


@pytest.mark.parametrize("count", [1, 2, 3, 5])
def test_every_row_is_in_exactly_one_shard_with_every_language_of_its_item(count):
    prompts = prompt_rows()
    shards = [shard_rows(prompts, shard, count) for shard in range(1, count + 1)]
    keys = [(row["item_id"], row["lang"]) for shard in shards for row in shard.select(["item_id", "lang"]).to_pylist()]
    assert sorted(keys) == sorted(zip(prompts["item_id"].to_pylist(), prompts["lang"].to_pylist()))
    for shard in shards:
        items = set(shard["item_id"].to_pylist())
        assert shard.num_rows == 3 * len(items), "an item's three languages stay together"
    if count > 1:
        assert all(shard.num_rows for shard in shards), "30 items leave no shard empty"


def test_a_shard_outside_1_to_n_is_an_error():
    with pytest.raises(ShardError, match="shards are numbered 1 to 3"):
        shard_rows(prompt_rows(), 0, 3)


@pytest.mark.parametrize("count", [0, -1, 1.5, "2", True, None])
def test_a_shard_count_must_be_a_whole_number_of_at_least_one(count):
    with pytest.raises(ShardError, match=r"generation\.shards must be an integer of at least 1"):
        check_count(count, "generation.shards")


# -- the merge ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("count", [2, 3, 4])
def test_the_merge_gives_the_unsharded_rows_in_their_order(count):
    prompts = prompt_rows()
    shards = [shard_rows(prompts, shard, count) for shard in range(1, count + 1)]
    assert merge_rows(shards, prompts, PROMPTS).equals(prompts)
    assert merge_rows(shards[::-1], prompts, PROMPTS).equals(prompts), "whatever order the shards come in"


def test_rows_of_one_item_and_language_keep_the_order_their_shard_wrote_them_in():
    """Like the facts table: several rows per (item, language), none for some."""
    order = prompt_rows(items=6, languages=("de", "ar"))
    rows = [
        {**row, "prompt": f"{row['item_id']}/{row['lang']} fact {n}"}
        for row in order.to_pylist()
        for n in range(int(row["item_id"].split("-")[1]) % 3)  # 0, 1 or 2 facts
    ]
    facts = pa.Table.from_pylist(rows, schema=PROMPTS)
    shards = [shard_rows(facts, shard, 3) for shard in (1, 2, 3)]
    assert merge_rows(shards, order, PROMPTS).equals(facts)


def test_the_merge_refuses_rows_of_another_input():
    prompts = prompt_rows(items=4)
    stranger = prompt_rows(items=5).slice(4, 1)
    with pytest.raises(ShardError, match="belong to no input row.*item-4"):
        merge_rows([prompts, stranger], prompts, PROMPTS)
    assert merge_rows([], prompts, PROMPTS).num_rows == 0


# -- file names and the caches the shards share -------------------------------------------------------------


def test_a_shards_files_lie_beside_the_unsharded_jobs():
    assert shard_name("m.parquet", 2, 3) == "m.shard-2-of-3.parquet"
    assert shard_name("judge.log", "{shard}", 4) == "judge.shard-{shard}-of-4.log"
    assert shard_path("results/cache/generate/d/m.jsonl", 1, 2) == "results/cache/generate/d/m.shard-1-of-2.jsonl"
    assert shard_path("m.json", 1, 2) == "m.shard-1-of-2.json"


def test_a_jobs_shard_is_what_its_file_names_say():
    assert file_shard("results/evaluations/d/m/judgments.shard-2-of-3.parquet") == (2, 3)
    assert file_shard("results/responses/d/m.shard-10-of-12.parquet") == (10, 12)
    assert file_shard("results/responses/d/m/en.parquet") is None
    assert file_shard("results/evaluations/d/m.shard-1-of-2/judgments.parquet") is None, "a folder's name says nothing"


def answers(keys: Sequence[str]) -> list[Result]:
    return [Result(key, f"answer {key}", "stop", 3, 2) for key in keys]


def filled(path: Path, keys: Sequence[str]) -> Path:
    cache = ResponseCache(path, flush_every=1)
    for result in answers(keys):
        cache.put(result)
    return path


def test_a_job_finds_the_answers_of_the_unsharded_job_and_of_every_shard_of_any_count(tmp_path):
    folder = tmp_path / "cache" / "generate" / "d"
    filled(folder / "m.jsonl", ["a", "b"])
    filled(folder / "m.shard-1-of-3.jsonl", ["c"])
    filled(folder / "m.shard-2-of-2.jsonl", ["d"])
    filled(folder / "m-2.jsonl", ["x"])  # another model's cache
    assert (folder / "m.jsonl.lock").exists()  # the caches' locks are no caches
    own = folder / "m.shard-1-of-2.jsonl"
    assert related_caches(own) == [folder / "m.jsonl", folder / "m.shard-1-of-3.jsonl", folder / "m.shard-2-of-2.jsonl"]
    assert related_caches(folder / "m.jsonl") == [folder / "m.shard-1-of-3.jsonl", folder / "m.shard-2-of-2.jsonl"]

    others = {path: path.read_bytes() for path in related_caches(own)}
    cache = ResponseCache.of_job(own)
    assert {key for key in "abcdx" if key in cache} == {"a", "b", "c", "d"} and len(cache) == 4
    assert cache.get("c") == answers(["c"])[0]
    cache.put(answers(["e"])[0])
    cache.flush()
    assert {path: path.read_bytes() for path in others} == others, "the other jobs' caches are only read"
    assert "e" in ResponseCache(own) and "e" not in ResponseCache(folder / "m.jsonl")
    assert "e" in ResponseCache.of_job(folder / "m.jsonl"), "the unsharded job finds the shard's answer"


def test_a_line_another_job_is_still_writing_is_left_out_and_left_alone(tmp_path):
    other = filled(tmp_path / "m.shard-1-of-2.jsonl", ["a"])
    with open(other, "a", encoding="utf-8") as handle:
        handle.write('{"key": "b", "response": "half')
    before = other.read_bytes()
    cache = ResponseCache.of_job(tmp_path / "m.shard-2-of-2.jsonl")
    assert "a" in cache and "b" not in cache
    assert other.read_bytes() == before, "not cut off: its writer completes the line"


def test_a_damaged_line_in_another_jobs_cache_names_that_file(tmp_path):
    other = filled(tmp_path / "m.jsonl", ["a"])
    with open(other, "a", encoding="utf-8") as handle:
        handle.write("not json\n")
    with pytest.raises(CacheError, match=r"m\.jsonl, line 3"):
        ResponseCache.of_job(tmp_path / "m.shard-1-of-2.jsonl")


# -- the jobs: sharded and merged gives the unsharded outputs, and changing N asks nothing again -----------


@pytest.fixture()
def model():
    return ModelSpec(name="m", backend="hf", location="/nowhere", decoding=Decoding(), hf_id="org/m")


def generate(model, tmp_path, prompts, folder, cache, asked, shard=None, languages=("en", "de", "fr")) -> None:
    write_table(prompts, tmp_path / "prompts.parquet", PROMPTS)
    sharded = shard is not None
    run_generation_job(
        model,
        [tmp_path / "prompts.parquet"],
        [] if sharded else [tmp_path / folder / f"{lang}.parquet" for lang in languages],
        [] if sharded else list(languages),
        16,
        tmp_path / "cache" / cache,
        lambda spec: Echo(spec, asked),
        table_path=tmp_path / folder / ("table.parquet" if not sharded else f"{shard[0]}.parquet"),
        shard=shard,
    )


def merge(tmp_path, folder, count, languages=("en", "de", "fr")) -> None:
    merge_generation_shards(
        [tmp_path / "prompts.parquet"],
        [tmp_path / folder / f"{shard}.parquet" for shard in range(1, count + 1)],
        [tmp_path / "merged" / folder / f"{lang}.parquet" for lang in languages],
        list(languages),
        tmp_path / "merged" / folder / "table.parquet",
    )


def test_sharded_generation_merges_into_the_unsharded_tables_and_a_new_count_generates_nothing(model, tmp_path):
    prompts = prompt_rows(items=12)
    asked: list[str] = []
    generate(model, tmp_path, prompts, "one", "m.jsonl", asked)
    assert len(asked) == prompts.num_rows
    unsharded = {
        name: read_table(tmp_path / "one" / f"{name}.parquet", RESPONSES) for name in ("table", "en", "de", "fr")
    }

    # a run with 3 shards finds every answer in the unsharded job's cache
    asked.clear()
    for shard in (1, 2, 3):
        generate(model, tmp_path, prompts, "three", f"m.shard-{shard}-of-3.jsonl", asked, (shard, 3))
    assert asked == []
    merge(tmp_path, "three", 3)
    for name, table in unsharded.items():
        assert read_table(tmp_path / "merged" / "three" / f"{name}.parquet", RESPONSES).equals(table), name


def test_a_run_with_other_shards_after_a_partial_run_generates_only_the_missing_items(model, tmp_path):
    prompts = prompt_rows(items=12)
    asked: list[str] = []
    english = prompts.filter(pa.compute.equal(prompts["lang"], "en"))
    for shard in (1, 2):  # two shards of an English-only run
        generate(model, tmp_path, english, "two", f"m.shard-{shard}-of-2.jsonl", asked, (shard, 2))
    assert sorted(asked) == sorted(english["prompt"].to_pylist())

    asked.clear()
    for shard in (1, 2, 3):  # then every language, with three shards
        generate(model, tmp_path, prompts, "three", f"m.shard-{shard}-of-3.jsonl", asked, (shard, 3))
    assert sorted(asked) == sorted(p for p in prompts["prompt"].to_pylist() if not p.startswith("en:"))
    merge(tmp_path, "three", 3)

    asked.clear()  # and one job again: nothing to ask, the same table as three shards gave
    generate(model, tmp_path, prompts, "one", "m.jsonl", asked)
    assert asked == []
    assert read_table(tmp_path / "one" / "table.parquet", RESPONSES).equals(
        read_table(tmp_path / "merged" / "three" / "table.parquet", RESPONSES)
    )


def test_a_merge_of_shards_of_other_prompts_is_refused(model, tmp_path):
    prompts = prompt_rows(items=6)
    generate(model, tmp_path, prompts, "two", "m.shard-1-of-2.jsonl", [], (1, 2))
    generate(model, tmp_path, prompts, "two", "m.shard-2-of-2.jsonl", [], (2, 2))
    write_table(prompt_rows(items=7), tmp_path / "prompts.parquet", PROMPTS)  # an item added since
    with pytest.raises(ShardError, match="42 answers for 21 prompts|18 answers for 21 prompts"):
        merge(tmp_path, "two", 2)


def test_sharded_judging_merges_into_the_unsharded_judgments(tmp_path):
    responses = write_table(response_rows(RESPONSES_TO_JUDGE), tmp_path / "responses.parquet", RESPONSES)
    english = write_table(english_prompts(QUESTIONS), tmp_path / "en.parquet", PROMPTS)
    one = run_judge_job(
        judge_spec(), [responses], english, tmp_path / "one.parquet", tmp_path / "j.jsonl", scripted_judge
    )
    items = {row[0] for row in RESPONSES_TO_JUDGE}
    assert len({shard_of(item, 2) for item in items}) == 2, "both shards judge something"
    shards = []
    for shard in (1, 2):
        shards.append(
            run_judge_job(
                judge_spec(),
                [responses],
                english,
                tmp_path / f"{shard}.parquet",
                tmp_path / f"j.shard-{shard}-of-2.jsonl",
                scripted_judge,
                shard=(shard, 2),
            )
        )
    merged = SimpleNamespace(judgments=tmp_path / "merged.parquet")
    inputs = SimpleNamespace(responses=[responses], shards=shards)
    resolve(RULE_JOBS["judge_merge"])(SimpleNamespace(input=inputs, output=merged))
    assert read_table(merged.judgments, JUDGMENTS).equals(read_table(one, JUDGMENTS))


def test_sharded_information_scoring_merges_into_the_unsharded_items_and_facts(tmp_path):
    english = write_table(english_responses(), tmp_path / "en.parquet", RESPONSES)
    translations = write_table(both_languages(), tmp_path / "translations.parquet", TRANSLATIONS)
    one = run_information_job(
        evaluator_spec(),
        english,
        translations,
        tmp_path / "items.parquet",
        tmp_path / "facts.parquet",
        tmp_path / "i.jsonl",
        scripted_evaluator,
    )
    assert {shard_of(item, 2) for item in ("q1", "q2", "q3", "q4")} == {1, 2}
    items, facts = [], []
    for shard in (1, 2):
        item_file, fact_file = run_information_job(
            evaluator_spec(),
            english,
            translations,
            tmp_path / f"items-{shard}.parquet",
            tmp_path / f"facts-{shard}.parquet",
            tmp_path / f"i.shard-{shard}-of-2.jsonl",
            scripted_evaluator,
            shard=(shard, 2),
        )
        items.append(item_file)
        facts.append(fact_file)
    # the merge rule's function, as evaluate.py calls it with the Snakemake job
    merged = SimpleNamespace(per_item=tmp_path / "m-items.parquet", facts=tmp_path / "m-f.parquet")
    merged.scores = tmp_path / "m-scores.parquet"
    inputs = SimpleNamespace(translations=[translations], item_shards=items, fact_shards=facts)
    resolve(RULE_JOBS["information_consistency_merge"])(SimpleNamespace(input=inputs, output=merged))
    assert read_table(merged.per_item, INFORMATION_ITEMS).equals(read_table(one[0], INFORMATION_ITEMS))
    assert read_table(merged.facts, INFORMATION_FACTS).equals(read_table(one[1], INFORMATION_FACTS))
    scores = run_language_scores_job(one[0], tmp_path / "scores.parquet")
    assert read_table(merged.scores, INFORMATION_SCORES).equals(read_table(scores, INFORMATION_SCORES))


def test_a_rule_jobs_shard_comes_from_its_first_outputs_name():
    def job(*outputs):
        return SimpleNamespace(output=list(outputs))

    shard = job("r/evaluations/d/m/judgments.shard-1-of-2.parquet", "r/usage/judge/d/m.shard-1-of-2.json")
    assert job_shard(shard) == (1, 2)
    assert job_shard(job("r/evaluations/d/m/judgments.parquet", "r/usage/judge/d/m.json")) is None


# -- the plan -------------------------------------------------------------------------------------------------------

SHARDED = {
    "models": {"m": {"hf_id": "org/m"}},
    "datasets": {"multiq": {"languages": ["en", "de"]}},
    "generation": {"shards": 3},
    "evaluators": {"judge": {"shards": 2}},
}


def test_the_plan_reads_each_stages_shard_count_from_its_own_key():
    plan = Plan(validate_config(SHARDED))
    assert (plan.shards("generate"), plan.shards("judge"), plan.shards("information")) == (3, 2, 1)
    assert plan.shards("language_id") == 1 and plan.shards_key("language_id") is None
    assert plan.shards_key("information") == "evaluators.information.shards"
    assert plan.shard_indices("generate") == [1, 2, 3]
    assert (
        plan.shard_file("r/responses/d/{model}.parquet", "generate")
        == "r/responses/d/{model}.shard-{shard}-of-3.parquet"
    )
    assert plan.shard_files("u/judge/d/m.json", "judge") == [
        "u/judge/d/m.shard-1-of-2.json",
        "u/judge/d/m.shard-2-of-2.json",
    ]
    assert plan.shard_files("u/information/d/m.json", "information") == ["u/information/d/m.json"]
    # a rule's files: today's when unsharded, a shard job's (`{shard}` open, or given) when sharded
    assert plan.job_file("l/judge.log", "judge") == "l/judge.shard-{shard}-of-2.log"
    assert plan.job_file("c/judge/d/m.jsonl", "judge", 2) == "c/judge/d/m.shard-2-of-2.jsonl"
    assert plan.job_file("c/judge/d/m.jsonl", "judge", None) == "c/judge/d/m.jsonl"
    assert plan.job_file("l/information.log", "information") == "l/information.log"
    assert plan.unsharded_files(["r/m/en.parquet"], "generate") == []
    assert plan.unsharded_files(["r/m/en.parquet"], "information") == ["r/m/en.parquet"]


def test_each_shard_job_has_its_own_usage_ledger_under_the_unsharded_jobs_keys():
    plan = Plan(validate_config(SHARDED))
    generation = [job for job in plan.usage_jobs() if job["stage"] == "generate"]
    assert [job["path"] for job in generation] == [
        f"results/usage/generate/multiq/m.shard-{shard}-of-3.json" for shard in (1, 2, 3)
    ]
    assert {(job["dataset"], job["model"]) for job in generation} == {("multiq", "m")}
    judge = [job["path"] for job in plan.usage_jobs() if job["stage"] == "judge"]
    assert judge == ["results/usage/judge/multiq/m.shard-1-of-2.json", "results/usage/judge/multiq/m.shard-2-of-2.json"]
    unsharded = Plan(validate_config({**SHARDED, "generation": {}, "evaluators": {}}))
    assert [job["path"] for job in unsharded.usage_jobs() if job["stage"] in ("generate", "judge")] == [
        "results/usage/generate/multiq/m.json",
        "results/usage/judge/multiq/m.json",
    ]


def test_a_shard_count_that_is_not_a_whole_number_names_its_key():
    plan = Plan(validate_config(SHARDED))
    plan.config["evaluators"]["judge"]["shards"] = 0  # past the schema, which refuses it first
    with pytest.raises(ShardError, match=r"evaluators\.judge\.shards must be an integer of at least 1 .*not 0"):
        plan.shards("judge")
