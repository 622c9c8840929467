"""The generation job: cached, resumable, identical whether or not it was interrupted."""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Iterator, Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from xlcons.datasets.multiq import load
from xlcons.generation.backends.recorded import read_recorded
from xlcons.generation.base import (
    Backend,
    Decoding,
    GenerationError,
    ModelSpec,
    Request,
    Result,
    backend_class,
    build_requests,
    decoding_hash,
    load_backend,
    prompt_too_long,
)
from xlcons.generation.cache import ResponseCache
from xlcons.generation.stage import FailedRequests, run_generation, run_generation_job
from xlcons.schemas import NO_ANSWER, PROMPTS, RESPONSES
from xlcons.tables import write_table

ALL = {"ids": None, "limit": None, "domains": None}


class Echo(Backend):
    """A deterministic stand-in model that counts what it was asked (`prompt_tokens` and
    `completion_tokens` per answer; other tests' stand-ins change them and `chunk_size`)."""

    name = "echo"
    chunk_size = 2
    prompt_tokens, completion_tokens = 5, 3

    def __init__(self, spec, calls, fail_after=None, errors=()):
        super().__init__(spec)
        self.calls, self.fail_after, self.errors = calls, fail_after, errors

    def generate(self, requests: Sequence[Request]) -> Iterator[Result]:
        for request in requests:
            if self.fail_after is not None and len(self.calls) >= self.fail_after:
                raise RuntimeError("killed")
            self.calls.append(request.prompt)
            if request.prompt in self.errors:
                yield Result(request.key, "", "error", error="HTTP 503")
            else:
                yield Result(
                    request.key, f"answer to {request.prompt}", "stop", self.prompt_tokens, self.completion_tokens
                )


def factory(calls, **kwargs):
    return lambda spec: Echo(spec, calls, **kwargs)


@pytest.fixture()
def spec():
    return ModelSpec(name="echo-model", backend="hf", location="/nowhere", decoding=Decoding(), hf_id="org/echo")


@pytest.fixture(scope="module")
def prompts(shared_data):
    return load(shared_data / "multiq", ["en", "de", "he", "iw"], {**ALL, "limit": 5})


def test_every_prompt_gets_a_response_row(spec, prompts, tmp_path):
    table = run_generation(spec, prompts, 256, tmp_path / "cache.jsonl", factory([]))
    assert table.schema == RESPONSES
    assert table["item_id"].to_pylist() == prompts["item_id"].to_pylist()
    assert table["lang"].to_pylist() == prompts["lang"].to_pylist()
    assert table["response"].to_pylist() == [f"answer to {p}" for p in prompts["prompt"].to_pylist()]
    assert set(table["decoding_hash"].to_pylist()) == {decoding_hash(spec, 256)}
    assert set(table["backend"].to_pylist()) == {"hf"}


def test_identical_prompts_are_generated_once(spec, prompts, tmp_path):
    calls = []
    run_generation(spec, prompts, 256, tmp_path / "cache.jsonl", factory(calls))
    assert len(calls) == 15, "he and iw share their prompts: 20 rows, 15 distinct prompts"


def test_a_killed_job_resumes_with_exactly_the_missing_items(spec, prompts, tmp_path):
    cache = tmp_path / "cache.jsonl"
    with pytest.raises(RuntimeError, match="killed"):
        run_generation(spec, prompts, 256, cache, factory([], fail_after=7))
    assert len(ResponseCache(cache)) == 7, "every answer yielded before the kill is kept"
    calls = []
    resumed = run_generation(spec, prompts, 256, cache, factory(calls))
    assert len(calls) == 15 - 7
    uninterrupted = run_generation(spec, prompts, 256, tmp_path / "fresh.jsonl", factory([]))
    assert resumed.equals(uninterrupted)


def test_a_fully_cached_job_never_loads_the_model(spec, prompts, tmp_path):
    run_generation(spec, prompts, 256, tmp_path / "cache.jsonl", factory([]))

    def must_not_load(_):
        raise AssertionError("the model was loaded")

    run_generation(spec, prompts, 256, tmp_path / "cache.jsonl", must_not_load)


def test_a_changed_decoding_parameter_regenerates(spec, prompts, tmp_path):
    run_generation(spec, prompts, 256, tmp_path / "cache.jsonl", factory([]))
    calls = []
    run_generation(spec, prompts, 128, tmp_path / "cache.jsonl", factory(calls))
    assert len(calls) == 15
    sampled = ModelSpec(**{**spec.__dict__, "decoding": Decoding(temperature=0.7)})
    calls = []
    run_generation(sampled, prompts, 256, tmp_path / "cache.jsonl", factory(calls))
    assert len(calls) == 15


def test_failed_requests_are_recorded_and_retried_on_the_next_run(spec, prompts, tmp_path):
    failing = prompts["prompt"].to_pylist()[0]
    table = run_generation(spec, prompts, 256, tmp_path / "cache.jsonl", factory([], errors=(failing,)))
    first = table.to_pylist()[0]
    assert (first["response"], first["finish_reason"], first["error"]) == (NO_ANSWER, "error", "HTTP 503")
    calls = []
    table = run_generation(spec, prompts, 256, tmp_path / "cache.jsonl", factory(calls))
    assert calls == [failing]
    assert table.to_pylist()[0]["finish_reason"] == "stop"


def test_an_empty_answer_is_recorded_as_no_answer(spec, tmp_path):
    class Silent(Echo):
        def generate(self, requests):
            for request in requests:
                yield Result(request.key, "  ", "stop", 4, 0)

    prompts = pa.Table.from_pylist(
        [
            {
                "dataset": "d",
                "item_id": "1",
                "lang": "en",
                "prompt": "hi",
                "category": None,
                "references": None,
                "source_lang": "en",
            }
        ],
        schema=PROMPTS,
    )
    row = run_generation(spec, prompts, 8, tmp_path / "c.jsonl", lambda s: Silent(s, [])).to_pylist()[0]
    assert (row["response"], row["finish_reason"], row["error"]) == (NO_ANSWER, "empty", "the model returned no text")


def test_a_cache_cut_off_mid_line_keeps_its_whole_lines(tmp_path):
    path = tmp_path / "cache.jsonl"
    cache = ResponseCache(path, flush_every=1)
    cache.put(Result("a", "one", "stop"))
    cache.put(Result("b", "two", "stop"))
    with open(path, "a") as handle:
        handle.write('{"key": "c", "resp')
    reopened = ResponseCache(path)
    assert len(reopened) == 2 and reopened.get("b").response == "two"
    assert path.read_text().endswith("\n")


def test_the_job_writes_one_file_per_language_atomically(spec, prompts, tmp_path):
    files = []
    for lang in ("en", "de"):
        path = tmp_path / "prompts" / f"{lang}.parquet"
        write_table(prompts.filter(pa.compute.equal(prompts["lang"], lang)), path, PROMPTS)
        files.append(path)
    outputs = [tmp_path / "out" / "en.parquet", tmp_path / "out" / "de.parquet"]
    table = tmp_path / "out.parquet"
    run_generation_job(spec, files, outputs, ["en", "de"], 256, tmp_path / "cache.jsonl", factory([]), table_path=table)
    assert [set(pq.read_table(p)["lang"].to_pylist()) for p in outputs] == [{"en"}, {"de"}]
    assert pq.read_table(table).num_rows == sum(pq.read_table(p).num_rows for p in outputs), (
        "and every language as one table"
    )
    assert not list((tmp_path / "out").glob(".*")), "no temporary files are left behind"


def test_a_job_with_failed_requests_writes_nothing_and_its_rerun_asks_only_for_them(spec, prompts, tmp_path):
    """The run fails (Snakemake runs the job again next time) instead of scoring the failures
    as wrong answers; the answers that came back are cached and not asked for again."""
    path = write_table(
        prompts.filter(pa.compute.equal(prompts["lang"], "de")), tmp_path / "de-prompts.parquet", PROMPTS
    )
    texts = prompts.filter(pa.compute.equal(prompts["lang"], "de"))["prompt"].to_pylist()
    outputs, cache = [tmp_path / "out" / "de.parquet"], tmp_path / "cache.jsonl"
    first_calls = []

    with pytest.raises(
        FailedRequests, match=r"'echo-model': 2 of 5 requests failed \(40\.0%.*HTTP 503.*requests only the failed ones"
    ):
        run_generation_job(spec, [path], outputs, ["de"], 256, cache, factory(first_calls, errors=set(texts[:2])))
    assert not outputs[0].exists()

    again = []
    run_generation_job(spec, [path], outputs, ["de"], 256, cache, factory(again))
    assert again == texts[:2], "only the two that failed"
    assert pq.read_table(outputs[0])["finish_reason"].to_pylist() == ["stop"] * 5


def test_a_share_of_failures_the_user_accepts_is_kept_as_no_answer(spec, prompts, tmp_path, caplog):
    path = write_table(
        prompts.filter(pa.compute.equal(prompts["lang"], "de")), tmp_path / "de-prompts.parquet", PROMPTS
    )
    texts = prompts.filter(pa.compute.equal(prompts["lang"], "de"))["prompt"].to_pylist()
    out = tmp_path / "de.parquet"
    with caplog.at_level("WARNING"):
        run_generation_job(
            spec, [path], [out], ["de"], 256, tmp_path / "c.jsonl", factory([], errors={texts[0]}), max_failed_share=0.2
        )
    assert pq.read_table(out)["finish_reason"].to_pylist().count("error") == 1
    assert "1 of 5 requests failed, within generation.max_failed_share = 0.2" in caplog.text


def test_a_prompt_too_long_is_no_answer_listed_in_the_log_and_counted_again_on_a_rerun(spec, prompts, tmp_path, caplog):
    """A prompt the backend finds longer than the model's context: its row is "No answer" with
    finish_reason prompt_too_long and the counts in `error`; the job does not fail (it is no
    failed request, whatever generation.max_failed_share says); the log names the item, its
    language, its token count and the limit, on every run. It is not cached (the context, e.g.
    vllm.max_model_len, is not in the key), so a rerun asks the backend for it alone."""
    german = prompts.filter(pa.compute.equal(prompts["lang"], "de"))
    path = write_table(german, tmp_path / "de-prompts.parquet", PROMPTS)
    long_prompt = german["prompt"].to_pylist()[1]

    class ShortContext(Echo):
        def generate(self, requests):
            for request in requests:
                self.calls.append(request.prompt)
                if request.prompt == long_prompt:
                    yield prompt_too_long(request, 9007, 512, "max_position_embeddings in config.json")
                else:
                    yield Result(request.key, "an answer", "stop", 5, 3)

    out, cache = tmp_path / "de.parquet", tmp_path / "c.jsonl"
    runs = ([], [])
    for calls in runs:
        caplog.clear()
        with caplog.at_level("WARNING"):
            run_generation_job(spec, [path], [out], ["de"], 256, cache, functools.partial(ShortContext, calls=calls))
        rows = pq.read_table(out).to_pylist()
        assert [row["finish_reason"] for row in rows] == ["stop", "prompt_too_long", "stop", "stop", "stop"]
        assert (rows[1]["response"], rows[1]["prompt_tokens"], rows[1]["completion_tokens"]) == (NO_ANSWER, 9007, 0)
        assert rows[1]["error"] == (
            "the prompt is 9007 tokens, the model's context 512 "
            "(max_position_embeddings in config.json): no room for an answer"
        )
        assert "1 of 5 prompts do not fit the model's context" in caplog.text
        assert f"item {rows[1]['item_id']} (de): the prompt is 9007 tokens, the model's context 512" in caplog.text
    assert len(runs[0]) == 5 and runs[1] == [long_prompt], "the rerun answers the others from the cache"


def test_cache_keys_cover_the_system_prompt_and_the_model(spec):
    rows = [{"item_id": "1", "lang": "en", "prompt": "hi"}]
    plain = build_requests(spec, rows, 8)[0]
    with_system = build_requests(ModelSpec(**{**spec.__dict__, "system_prompt": "Be brief."}), rows, 8)[0]
    other_model = build_requests(ModelSpec(**{**spec.__dict__, "hf_id": "org/other"}), rows, 8)[0]
    assert len({plain.key, with_system.key, other_model.key}) == 3
    assert with_system.messages[0] == {"role": "system", "content": "Be brief."}
    assert plain.messages == ({"role": "user", "content": "hi"},), "no system prompt unless configured"


def test_an_unknown_backend_is_a_clear_error():
    with pytest.raises(GenerationError, match="unknown generation backend 'vlm'"):
        backend_class("vlm")


class TestRecordedResponses:
    def recorded(self, tmp_path, suffix, rows):
        path = tmp_path / f"recorded{suffix}"
        table = pa.Table.from_pylist(rows)
        if suffix == ".parquet":
            pq.write_table(table, path)
        elif suffix == ".csv":
            import pyarrow.csv as pacsv

            pacsv.write_csv(table, path)
        else:
            path.write_text("".join(json.dumps(row) + "\n" for row in rows))
        return ModelSpec(name="api-run", backend="file", location=str(path))

    @pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
    def test_a_file_of_responses_is_a_model(self, tmp_path, prompts, suffix):
        en = prompts.filter(pa.compute.equal(prompts["lang"], "en"))
        rows = [{"item_id": i, "language": "en", "response": f"r{i}"} for i in en["item_id"].to_pylist()]
        rows[1]["response"] = ""
        spec = self.recorded(tmp_path, suffix, rows)
        table = run_generation(spec, en, 256, tmp_path / "cache.jsonl", load_backend)
        assert table["response"].to_pylist()[0] == "rgpt-1"
        assert table["finish_reason"].to_pylist()[:2] == ["stop", "empty"]
        assert table["response"].to_pylist()[1] == NO_ANSWER

    def test_a_missing_item_is_an_error_that_names_it(self, tmp_path, prompts):
        spec = self.recorded(tmp_path, ".jsonl", [{"item_id": "gpt-1", "lang": "en", "response": "x"}])
        with pytest.raises(GenerationError, match=r"api-run.*no response for 19 requested items"):
            run_generation(spec, prompts, 256, tmp_path / "cache.jsonl", load_backend)

    def test_rows_the_run_does_not_score_are_warned_about_with_their_count(self, tmp_path, prompts, caplog):
        en = prompts.filter(pa.compute.equal(prompts["lang"], "en"))
        ids = en["item_id"].to_pylist()
        rows = [{"item_id": i, "language": "en", "response": f"r{i}"} for i in ids]
        rows += [{"item_id": ids[0], "language": lang, "response": "x"} for lang in ("sw", "xx-unknown")]
        rows += [
            {"item_id": "gpt-99", "language": "en", "response": "x"},
            {"item_id": "gtp-1", "language": "en", "response": "x"},
        ]
        spec = self.recorded(tmp_path, ".jsonl", rows)
        prompt_file, out = tmp_path / "en.prompts.parquet", tmp_path / "en.parquet"
        pq.write_table(en, prompt_file)
        with caplog.at_level(logging.WARNING):
            run_generation_job(spec, [prompt_file], [out], ["en"], 256, tmp_path / "cache.jsonl")
        assert "2 rows in languages this data set does not run in (sw, xx-unknown" in caplog.text
        assert "rows for 2 items that are not among this run's prompts (first: ['gpt-99', 'gtp-1']" in caplog.text
        assert pq.read_table(out).num_rows == len(ids)

    def test_a_file_without_the_needed_columns_is_rejected(self, tmp_path, prompts):
        spec = self.recorded(tmp_path, ".jsonl", [{"id": "gpt-1", "text": "x"}])
        with pytest.raises(
            GenerationError, match=r"recorded\.jsonl: no column 'language' or 'lang', no column 'response'"
        ):
            load_backend(spec)

    @pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
    def test_answers_and_ids_that_look_like_numbers_stay_text(self, tmp_path, suffix):
        rows = [{"item_id": 7, "language": "en", "response": 42}, {"item_id": 8, "language": "en", "response": 3.5}]
        records = read_recorded(self.recorded(tmp_path, suffix, rows).location)
        assert records[("7", "en")]["response"] == "42" and records[("8", "en")]["response"] == "3.5"

    def test_an_undecodable_byte_is_an_error_naming_the_file(self, tmp_path):
        path = tmp_path / "recorded.csv"
        path.write_bytes(b"item_id,language,response\ngpt-1,en,caf\xe9\n")
        with pytest.raises(GenerationError, match=r"recorded\.csv, line 2: not UTF-8: byte 0xe9 .*'é' in Windows-1252"):
            read_recorded(path)

    def test_an_edited_file_is_a_different_model(self, tmp_path):
        spec = self.recorded(tmp_path, ".jsonl", [{"item_id": "1", "lang": "en", "response": "x"}])
        before = decoding_hash(spec, 8)
        Path(spec.location).write_text(json.dumps({"item_id": "1", "lang": "en", "response": "y"}) + "\n")
        assert decoding_hash(spec, 8) != before


def test_outputs_are_readable_by_the_group_as_the_umask_allows(spec, prompts, tmp_path):
    """Written through a private temporary file, then given the mode a new file gets (0644
    under umask 022), so collaborators on a shared file system can read the results."""
    import os
    import stat

    old = os.umask(0o022)
    try:
        out = write_table(prompts, tmp_path / "shared" / "prompts.parquet", PROMPTS)
    finally:
        os.umask(old)
    assert stat.S_IMODE(out.stat().st_mode) == 0o644


def test_a_damaged_cache_line_is_named_by_file_and_line(spec, tmp_path):
    from xlcons.generation.cache import ResponseCache
    from xlcons.jsonl_cache import CacheError

    cache = tmp_path / "cache.jsonl"
    cache.write_bytes(b'{"key": "a", "response": "x", "finish_reason": "stop"}\n{"key": "b", "resp\n{"key": "c"}\n')
    with pytest.raises(CacheError, match=r"cache\.jsonl, line 2: not a cache record.*Delete that line"):
        ResponseCache(cache)
    cache.write_bytes(b'{"key": "a", "response": "\xff"}\n')
    with pytest.raises(CacheError, match="line 1.*UnicodeDecodeError"):
        ResponseCache(cache)


def test_a_write_cut_off_by_a_kill_is_dropped_not_reported(spec, tmp_path):
    from xlcons.generation.cache import ResponseCache

    cache = tmp_path / "cache.jsonl"
    cache.write_bytes(b'{"key": "a", "response": "x", "finish_reason": "stop"}\n{"key": "b", "resp')
    assert len(ResponseCache(cache)) == 1
    assert cache.read_bytes().endswith(b'"stop"}\n'), "the partial last line is cut off"
