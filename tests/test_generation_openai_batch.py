"""The openai backend's Batch API mode (`api.batch: true`, xlcons.generation.backends.openai_batch).

Every test runs the real generation stage (`run_generation`, the default `load_backend`) and
the real `openai` client against tests/local_server.BatchEndpoint, a fake Batch API on
127.0.0.1: uploaded files, batches that are `validating`, then `in_progress`, then end as
scripted (completed, expired with part of the answers, failed), lines that fail, and a batch
held `in_progress` until the test lets it end. What is specified: the requests the cache
lacks go out as one batch, recorded in a state file beside the cache before the job polls;
a job killed while it polls resumes the same batch when started again (one batch, one upload,
paid once); failed lines are error results that the cache does not keep, so a rerun submits a
batch of only those; and the usage ledger counts the batch's requests and tokens.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pytest

from local_server import BatchEndpoint, LineError, Message
from xlcons.budget import BudgetGuard, BudgetHeld, Limits, guarding
from xlcons.config import ConfigError, validate_config
from xlcons.generation.backends.openai_api import OpenAIBackend
from xlcons.generation.backends.openai_batch import CHAT_FORMAT_TOKENS, OpenAIBatchBackend
from xlcons.generation.base import GenerationError, ModelSpec, backend_class, build_requests, load_backend
from xlcons.generation.cache import ResponseCache
from xlcons.generation.registry import model_fields
from xlcons.generation.stage import FailedRequests, backend_state_path, run_generation, run_generation_job
from xlcons.redaction import REDACTED
from xlcons.schemas import NO_ANSWER, PROMPTS
from xlcons.tables import write_table
from xlcons.usage import read_usage, recording, running_file

KEY_ENV = "XLCONS_TEST_API_KEY"
API_KEY = "sk-test-batch-0123"
MAX_NEW_TOKENS = 32
PROMPT_TEXTS = ["What is the capital of France?", "Wie heißt die Hauptstadt Frankreichs?", "Quelle est la capitale ?"]
LIBRARY = Path(__file__).resolve().parent.parent / "workflow_scripts"


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, API_KEY)
    for name in ("OPENAI_BASE_URL", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def endpoint():
    with BatchEndpoint(reply=lambda prompt: f"answer to: {prompt}") as server:
        yield server


def api_options(endpoint: BatchEndpoint, **options) -> dict:
    return {
        "base_url": endpoint.base_url,
        "model": "gpt-test",
        "api_key_env": KEY_ENV,
        "batch": True,
        "batch_poll_s": 0.05,
        "max_retries": 0,
        **options,
    }


def batch_spec(endpoint: BatchEndpoint, **options) -> ModelSpec:
    return ModelSpec(name="gpt-batch", backend="openai", location=None, options=api_options(endpoint, **options))


def prompts(texts=PROMPT_TEXTS) -> pa.Table:
    rows = [
        {"dataset": "multiq", "item_id": f"q{index}", "lang": "en", "prompt": text, "source_lang": "en"}
        for index, text in enumerate(texts)
    ]
    return pa.Table.from_pylist(rows, schema=PROMPTS)


def generate(spec: ModelSpec, cache: Path, texts=PROMPT_TEXTS) -> pa.Table:
    return run_generation(spec, prompts(texts), MAX_NEW_TOKENS, cache)


def keys(spec: ModelSpec, texts=PROMPT_TEXTS) -> list[str]:
    return [r.key for r in build_requests(spec, prompts(texts).to_pylist(), MAX_NEW_TOKENS)]


def state(cache: Path) -> dict:
    return json.loads(backend_state_path(cache).read_text())


def submitted_prompts(endpoint: BatchEndpoint, upload: int = -1) -> list[str]:
    lines = [json.loads(line) for line in endpoint.uploads[upload]["lines"].splitlines()]
    return [line["body"]["messages"][-1]["content"] for line in lines]


# --------------------------------------------------------------------------------------
# The mode and its batch file
# --------------------------------------------------------------------------------------


def test_api_batch_selects_the_batch_mode_of_the_openai_backend():
    assert backend_class("openai", {"batch": True}) is OpenAIBatchBackend
    assert backend_class("openai", {"batch": False}) is OpenAIBackend
    assert backend_class("openai") is OpenAIBackend
    assert issubclass(OpenAIBatchBackend, OpenAIBackend)


def test_a_batch_line_carries_exactly_what_a_direct_request_sends(endpoint):
    spec = batch_spec(endpoint)
    backend = load_backend(spec)
    try:
        [request] = build_requests(spec, prompts(PROMPT_TEXTS[:1]).to_pylist(), MAX_NEW_TOKENS)
        line = backend.batch_line(request)
        assert line == {
            "custom_id": request.key,
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": backend.request_kwargs(request),
        }
    finally:
        backend.close()


def test_repetition_penalty_goes_into_the_lines_body_as_the_client_would_send_it(endpoint):
    from xlcons.generation.base import Decoding

    spec = ModelSpec("gpt-batch", "openai", None, Decoding(repetition_penalty=1.2), options=api_options(endpoint))
    backend = load_backend(spec)
    try:
        [request] = build_requests(spec, prompts(PROMPT_TEXTS[:1]).to_pylist(), MAX_NEW_TOKENS)
        body = backend.batch_line(request)["body"]
        assert body["repetition_penalty"] == 1.2 and "extra_body" not in body
    finally:
        backend.close()


# --------------------------------------------------------------------------------------
# A batch that answers everything
# --------------------------------------------------------------------------------------


def test_a_batch_answers_every_request_fills_the_cache_and_counts_usage(endpoint, tmp_path):
    spec = batch_spec(endpoint)
    cache = tmp_path / "cache" / "gpt-batch.jsonl"
    with recording() as ledger:
        table = generate(spec, cache)
    assert table["response"].to_pylist() == [f"answer to: {text}" for text in PROMPT_TEXTS]
    assert set(table["finish_reason"].to_pylist()) == {"stop"}
    # one upload (purpose batch) holding every request, one batch over the chat completions endpoint
    assert [upload["purpose"] for upload in endpoint.uploads] == ["batch"]
    assert submitted_prompts(endpoint) == PROMPT_TEXTS
    [created] = endpoint.created
    assert (created["endpoint"], created["completion_window"]) == ("/v1/chat/completions", "24h")
    assert endpoint.bodies == []  # nothing went to the chat completions endpoint directly
    # every answer is cached under its request's key
    cached = ResponseCache(cache)
    assert all(cached.get(key).response.startswith("answer to:") for key in keys(spec))
    # the state file beside the cache names the batch; collected, it keeps the id, not the keys
    [entry] = state(cache)["batches"]
    assert entry["id"] == "batch_1" and entry["status"] == "collected" and entry["outcome"] == "completed"
    assert entry["requests"] == 3 and entry["keys"] == []
    assert created["metadata"]["xlcons_keys_sha256"] == entry["keys_sha256"]
    # the ledger counts the requests and the tokens of each answer's usage
    [call] = ledger.calls()
    assert (call["model"], call["requests"], call["cached_requests"]) == ("gpt-test", 3, 0)
    assert (call["prompt_tokens"], call["completion_tokens"], call["failures"]) == (30, 15, 0)


def test_a_rerun_with_everything_cached_submits_nothing(endpoint, tmp_path):
    spec = batch_spec(endpoint)
    cache = tmp_path / "gpt-batch.jsonl"
    first = generate(spec, cache)
    with recording() as ledger:
        again = generate(spec, cache)
    assert again.equals(first)
    assert len(endpoint.created) == 1 and len(endpoint.uploads) == 1
    assert ledger.calls()[0]["requests"] == 0 and ledger.calls()[0]["cached_requests"] == 3


def test_new_prompts_go_out_in_a_batch_of_only_those(endpoint, tmp_path):
    spec = batch_spec(endpoint)
    cache = tmp_path / "gpt-batch.jsonl"
    generate(spec, cache, PROMPT_TEXTS[:2])
    generate(spec, cache)
    assert len(endpoint.created) == 2
    assert submitted_prompts(endpoint) == PROMPT_TEXTS[2:]


def test_more_requests_than_a_batch_holds_are_split_over_batches_submitted_together(endpoint, tmp_path):
    spec = batch_spec(endpoint, batch_max_requests=2)
    table = generate(spec, tmp_path / "gpt-batch.jsonl")
    assert set(table["finish_reason"].to_pylist()) == {"stop"}
    assert [len(upload["lines"].splitlines()) for upload in endpoint.uploads] == [2, 1]
    assert [entry["status"] for entry in state(tmp_path / "gpt-batch.jsonl")["batches"]] == ["collected"] * 2


# --------------------------------------------------------------------------------------
# Lines that fail, batches that expire or fail
# --------------------------------------------------------------------------------------


def failing(prompt: str):
    return 500 if "Frankreich" in prompt else f"answer to: {prompt}"


@pytest.mark.parametrize("where", ["error file", "output file"])
def test_failed_lines_are_error_results_not_cached_and_a_rerun_submits_only_them(endpoint, tmp_path, where):
    endpoint.reply = failing
    endpoint.errors_in_output = where == "output file"
    spec = batch_spec(endpoint)
    cache = tmp_path / "gpt-batch.jsonl"
    with recording() as ledger:
        table = generate(spec, cache)
    assert table["finish_reason"].to_pylist() == ["stop", "error", "stop"]
    assert table["response"][1].as_py() == NO_ANSWER
    assert table["error"][1].as_py() == "batch batch_1, HTTP 500: scripted failure"
    assert keys(spec)[1] not in ResponseCache(cache)
    assert ledger.calls()[0]["failures"] == 1 and ledger.calls()[0]["requests"] == 3
    endpoint.reply = lambda prompt: f"answer to: {prompt}"
    again = generate(spec, cache)
    assert submitted_prompts(endpoint) == [PROMPT_TEXTS[1]]  # the second batch holds only the failed line
    assert set(again["finish_reason"].to_pylist()) == {"stop"}


def test_failed_lines_follow_max_failed_share(endpoint, tmp_path):
    endpoint.reply = failing
    spec = batch_spec(endpoint)
    write_table(prompts(), tmp_path / "prompts.parquet", PROMPTS)
    args = (spec, [tmp_path / "prompts.parquet"], [tmp_path / "en.parquet"], ["en"], MAX_NEW_TOKENS)
    with pytest.raises(FailedRequests, match=r"1 of 3 requests failed.*batch batch_1, HTTP 500"):
        run_generation_job(*args, tmp_path / "gpt-batch.jsonl")
    assert not (tmp_path / "en.parquet").exists()
    run_generation_job(*args, tmp_path / "gpt-batch.jsonl", max_failed_share=0.5)
    assert len(endpoint.created) == 2  # the rerun sent the failed line again


def test_an_expired_batch_keeps_what_it_answered_and_the_rest_are_errors_naming_it(endpoint, tmp_path):
    endpoint.final_status, endpoint.answered_before_end = "expired", 2
    spec = batch_spec(endpoint)
    cache = tmp_path / "gpt-batch.jsonl"
    table = generate(spec, cache)
    assert table["finish_reason"].to_pylist() == ["stop", "stop", "error"]
    assert table["error"][2].as_py() == (
        "batch batch_1 ended expired without an answer to this request (2 of 3 completed, 0 failed)"
    )
    assert state(cache)["batches"][0]["outcome"] == "expired"
    endpoint.final_status, endpoint.answered_before_end = "completed", None
    generate(spec, cache)
    assert submitted_prompts(endpoint) == PROMPT_TEXTS[2:]


def test_a_failed_batch_makes_every_request_an_error_with_the_batch_s_reason(endpoint, tmp_path):
    endpoint.final_status = "failed"
    table = generate(batch_spec(endpoint), tmp_path / "gpt-batch.jsonl")
    assert set(table["finish_reason"].to_pylist()) == {"error"}
    assert table["error"][0].as_py() == (
        "batch batch_1 ended failed without an answer to this request (0 of 3 completed, 0 failed): "
        "the input file is not valid"
    )


def answer_first_line_again(endpoint: BatchEndpoint, monkeypatch, content: str | None) -> None:
    """The endpoint's output files end with a second line for their first request, answering
    `content` (None: the same line again)."""
    end = endpoint._end

    def ending(batch: dict) -> None:
        end(batch)
        output = endpoint.files[batch["output_file_id"]]
        again = json.loads(output.decode().splitlines()[0])
        if content is not None:
            again["response"]["body"]["choices"][0]["message"]["content"] = content
        endpoint.files[batch["output_file_id"]] = output + (json.dumps(again) + "\n").encode()

    monkeypatch.setattr(endpoint, "_end", ending)


def test_two_different_answers_to_one_request_are_a_failed_request_said_in_the_log(
    endpoint, tmp_path, monkeypatch, caplog
):
    """Which of two answers to one custom_id counts is unknown: neither is kept (nor cached), the
    request is recorded as failed naming the batch, and the log says so."""
    answer_first_line_again(endpoint, monkeypatch, "another answer")
    spec = batch_spec(endpoint)
    cache = tmp_path / "gpt-batch.jsonl"
    with caplog.at_level("WARNING", logger="xlcons"):
        table = generate(spec, cache)
    assert table["finish_reason"].to_pylist() == ["error", "stop", "stop"]
    first = keys(spec)[0]
    assert table["error"][0].as_py() == (
        f"batch batch_1 holds 2 different answers to this request (custom_id {first}); none kept"
    )
    assert first not in ResponseCache(cache)
    assert f"batch batch_1 answered 1 requests more than once (custom_id {first})" in caplog.text
    assert "1 with different answers are recorded as failed requests" in caplog.text


def test_the_same_answer_twice_is_kept_once_and_said_in_the_log(endpoint, tmp_path, monkeypatch, caplog):
    answer_first_line_again(endpoint, monkeypatch, None)
    with caplog.at_level("WARNING", logger="xlcons"):
        table = generate(batch_spec(endpoint), tmp_path / "gpt-batch.jsonl")
    assert table["finish_reason"].to_pylist() == ["stop", "stop", "stop"]
    assert table["response"][0].as_py() == f"answer to: {PROMPT_TEXTS[0]}"
    assert "batch batch_1 answered 1 requests more than once" in caplog.text


def test_no_error_text_of_a_batch_keeps_the_key_the_endpoint_quotes(endpoint, tmp_path):
    """An endpoint that quotes the key back in every error it writes: a failed line (error file,
    HTTP 500), a line the batch could not run (error file, top-level error) and the batch's own
    `errors`, given to the request it left unanswered. Each is stored with the key redacted,
    and no file the job wrote (cache, state file) holds the key."""
    endpoint.echo_authorization = True
    endpoint.reply = lambda prompt: (
        500
        if prompt == PROMPT_TEXTS[0]
        else LineError("batch_expired", "not run in time")
        if prompt == PROMPT_TEXTS[1]
        else "ok"
    )
    endpoint.final_status, endpoint.answered_before_end = "expired", 2
    endpoint.batch_errors = ["the batch ran out of time"]
    table = generate(batch_spec(endpoint), tmp_path / "gpt-batch.jsonl")
    errors = table["error"].to_pylist()
    assert errors[0].startswith("batch batch_1, HTTP 500: scripted failure; Incorrect API key provided: [redacted]")
    assert errors[1].startswith(
        "batch batch_1, error batch_expired: not run in time; Incorrect API key provided: [redacted]"
    )
    assert errors[2].startswith(
        "batch batch_1 ended expired without an answer to this request (0 of 3 completed, 2 failed)"
    )
    assert (
        f"the batch ran out of time; Incorrect API key provided: {REDACTED} (Authorization: Bearer {REDACTED})"
        in errors[2]
    )
    assert all(API_KEY not in error for error in errors)
    written = [path for path in tmp_path.rglob("*") if path.is_file()]
    assert written and not [path for path in written if API_KEY.encode() in path.read_bytes()]


def test_answers_of_any_shape_in_a_batch_are_read_as_direct_answers_are(endpoint, tmp_path):
    """`content` as a list of text parts is their text joined; a number, or a choice without a
    message, is a failed request of its own, and the batch's other answers are kept."""
    parts = [{"type": "text", "text": "Paris, "}, {"type": "text", "text": "of course."}]
    shapes = {
        PROMPT_TEXTS[0]: Message({"role": "assistant", "content": parts}),
        PROMPT_TEXTS[1]: Message({"role": "assistant", "content": 42}),
        PROMPT_TEXTS[2]: Message(None),
    }
    endpoint.reply = lambda prompt: shapes.get(prompt, f"answer to: {prompt}")
    texts = [*PROMPT_TEXTS, "Und Italien?"]
    table = generate(batch_spec(endpoint), tmp_path / "gpt-batch.jsonl", texts)
    assert table["finish_reason"].to_pylist() == ["stop", "error", "error", "stop"]
    assert table["response"].to_pylist() == ["Paris, of course.", NO_ANSWER, NO_ANSWER, "answer to: Und Italien?"]
    assert "content is a int, not text" in table["error"][1].as_py()
    assert "the choice has no message" in table["error"][2].as_py()


def test_a_batch_line_refused_as_too_long_is_prompt_too_long(endpoint, tmp_path):
    endpoint.reply = lambda prompt: 400 if "capital of France" in prompt else "ok"
    endpoint.error_message = "This model's maximum context length is 512 tokens. However, you requested 9000 tokens."
    table = generate(batch_spec(endpoint), tmp_path / "gpt-batch.jsonl")
    assert table["finish_reason"].to_pylist() == ["prompt_too_long", "stop", "stop"]
    assert "maximum context length" in table["error"][0].as_py()


# --------------------------------------------------------------------------------------
# Resuming: the state file
# --------------------------------------------------------------------------------------


def test_the_batch_is_recorded_before_the_job_polls_it(endpoint, tmp_path):
    """A job that stops at its first look at the batch leaves the batch recorded as submitted,
    with its request keys; started again, it waits for that batch."""
    spec = batch_spec(endpoint)
    cache = tmp_path / "gpt-batch.jsonl"
    stop_at_first_look(endpoint, spec, cache)
    [entry] = state(cache)["batches"]
    assert entry["id"] == "batch_1" and sorted(entry["keys"]) == sorted(keys(spec))
    endpoint.release()
    table = generate(spec, cache)  # started again: the same batch, not a new one
    assert set(table["finish_reason"].to_pylist()) == {"stop"}
    assert len(endpoint.created) == 1 and len(endpoint.uploads) == 1


def stop_at_first_look(endpoint: BatchEndpoint, spec: ModelSpec, cache: Path, texts=PROMPT_TEXTS) -> None:
    """Run the job until its first look at the batch it submitted, and stop it there (as a kill
    would): the endpoint seems to have lost the batch at that look, and only then."""
    endpoint.hold = True
    looks = endpoint.look
    endpoint.look = lambda batch_id: None
    with pytest.raises(GenerationError, match="disappeared"):
        generate(spec, cache, texts)
    endpoint.look = looks
    assert [entry["status"] for entry in state(cache)["batches"]][-1] == "submitted"


def test_a_pending_batch_of_part_of_the_requests_is_resumed_and_the_rest_submitted(endpoint, tmp_path):
    """The config changed while a batch ran (a prompt added): the job collects the old batch and
    submits a batch of only the request no pending batch holds."""
    spec = batch_spec(endpoint)
    cache = tmp_path / "gpt-batch.jsonl"
    stop_at_first_look(endpoint, spec, cache, PROMPT_TEXTS[:2])
    endpoint.release()
    table = generate(spec, cache)
    assert set(table["finish_reason"].to_pylist()) == {"stop"}
    assert [submitted_prompts(endpoint, index) for index in range(2)] == [PROMPT_TEXTS[:2], PROMPT_TEXTS[2:]]
    assert [entry["status"] for entry in state(cache)["batches"]] == ["collected", "collected"]


def test_a_pending_batch_s_answers_to_requests_no_longer_asked_are_not_kept(endpoint, tmp_path):
    """A prompt dropped while its batch ran: the others are collected from it, no new batch."""
    spec = batch_spec(endpoint)
    cache = tmp_path / "gpt-batch.jsonl"
    stop_at_first_look(endpoint, spec, cache)
    endpoint.release()
    table = generate(spec, cache, PROMPT_TEXTS[:2])
    assert set(table["finish_reason"].to_pylist()) == {"stop"}
    assert len(endpoint.created) == 1
    assert keys(spec)[2] not in ResponseCache(cache)


def test_a_recorded_batch_the_endpoint_no_longer_knows_is_submitted_again(endpoint, tmp_path):
    spec = batch_spec(endpoint)
    cache = tmp_path / "gpt-batch.jsonl"
    backend_state_path(cache).write_text(
        json.dumps(
            {
                "xlcons_batches": 1,
                "batches": [
                    {
                        "id": "batch_gone",
                        "endpoint": endpoint.base_url + "/",
                        "model": "gpt-test",
                        "input_file_id": "file-gone",
                        "submitted_at": "2026-01-01T00:00:00Z",
                        "keys": keys(spec),
                    }
                ],
            }
        )
    )
    table = generate(spec, cache)
    assert set(table["finish_reason"].to_pylist()) == {"stop"}
    assert [entry["status"] for entry in state(cache)["batches"]] == ["lost", "collected"]


def test_a_damaged_state_file_stops_the_job_naming_it(endpoint, tmp_path):
    cache = tmp_path / "gpt-batch.jsonl"
    backend_state_path(cache).write_text("{not json")
    with pytest.raises(GenerationError, match=r"gpt-batch\.batches\.json: not JSON.*submitted and paid again"):
        generate(batch_spec(endpoint), cache)
    assert endpoint.created == []


@pytest.mark.parametrize(("status", "message"), [(401, "the endpoint refused uploading"), (500, "uploading")])
def test_a_refused_upload_stops_the_job_naming_the_step_and_submits_nothing(endpoint, tmp_path, status, message):
    endpoint.upload_status = status
    with pytest.raises(GenerationError, match=f"model 'gpt-batch': {message}.*{status}.*uploads refused"):
        generate(batch_spec(endpoint), tmp_path / "gpt-batch.jsonl")
    assert endpoint.created == [] and not backend_state_path(tmp_path / "gpt-batch.jsonl").exists()


def test_a_batch_created_but_not_recorded_is_found_by_its_requests_and_resumed_not_paid_twice(endpoint, tmp_path):
    """The create reached the server but the client heard an error (a timeout): the job stops with
    nothing in its state file. Run again, it finds that batch among the endpoint's by its model
    and key digest, records it and collects it: one batch created, one upload, every answer cached."""
    cache = tmp_path / "gpt-batch.jsonl"
    endpoint.create_status = 500
    with pytest.raises(GenerationError, match="creating the batch failed"):
        generate(batch_spec(endpoint), cache)
    assert len(endpoint.created) == 1 and not backend_state_path(cache).exists()
    endpoint.create_status = None
    table = generate(batch_spec(endpoint), cache)
    assert set(table["finish_reason"].to_pylist()) == {"stop"}
    assert len(endpoint.created) == 1 and len(endpoint.uploads) == 1, "found, not submitted again"
    assert [(entry["id"], entry["status"]) for entry in state(cache)["batches"]] == [("batch_1", "collected")]
    assert len(ResponseCache(cache)) == len(PROMPT_TEXTS)


def test_an_unrecorded_batch_of_other_requests_or_another_model_is_not_taken_over(endpoint, tmp_path):
    """Only a batch whose metadata name this model and exactly these requests is taken over."""
    endpoint.create_status = 500
    with pytest.raises(GenerationError):
        generate(batch_spec(endpoint), tmp_path / "first.jsonl", texts=PROMPT_TEXTS[:1])  # other requests
    endpoint.create_status = None
    generate(batch_spec(endpoint), tmp_path / "gpt-batch.jsonl")
    assert len(endpoint.created) == 2 and endpoint.lists == 2


# The generation job of one (data set, model), as a separate process the test can kill.
KILLABLE_JOB = """
import json, logging, sys
import pyarrow as pa
from xlcons.generation.base import ModelSpec
from xlcons.generation.stage import run_generation
from xlcons.schemas import PROMPTS

logging.basicConfig(level=logging.INFO)
options, texts, cache, cap = json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3], int(sys.argv[4])
rows = [
    {"dataset": "multiq", "item_id": f"q{i}", "lang": "en", "prompt": text, "source_lang": "en"}
    for i, text in enumerate(texts)
]
spec = ModelSpec(name="gpt-batch", backend="openai", location=None, options=options)
run_generation(spec, pa.Table.from_pylist(rows, schema=PROMPTS), cap, cache)
"""


def start_job(endpoint: BatchEndpoint, cache: Path, log: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(LIBRARY), os.environ.get("PYTHONPATH", "")])}
    command = [
        sys.executable,
        "-c",
        KILLABLE_JOB,
        json.dumps(api_options(endpoint)),
        json.dumps(PROMPT_TEXTS),
        str(cache),
        str(MAX_NEW_TOKENS),
    ]
    return subprocess.Popen(command, env=env, stdout=log.open("ab"), stderr=subprocess.STDOUT)


def wait_for(condition, process: subprocess.Popen, log: Path, what: str) -> None:
    """Wait until `condition()` holds (a generous limit, a failure only if the job never gets there)."""
    deadline = time.monotonic() + 120
    while not condition():
        assert process.poll() is None, f"the job ended ({process.returncode}) before {what}:\n{log.read_text()}"
        assert time.monotonic() < deadline, f"no {what} after 120 s:\n{log.read_text()}"
        time.sleep(0.05)


def test_a_job_killed_while_polling_resumes_the_same_batch_and_pays_once(endpoint, tmp_path):
    cache = tmp_path / "cache" / "gpt-batch.jsonl"
    log = tmp_path / "job.log"
    endpoint.hold = True  # the batch stays in_progress until the test lets it end
    first = start_job(endpoint, cache, log)
    try:
        wait_for(backend_state_path(cache).exists, first, log, "state file")
        wait_for(lambda: endpoint.polls > 0, first, log, "poll")
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    assert first.returncode == -signal.SIGKILL
    [entry] = state(cache)["batches"]
    assert entry["status"] == "submitted"
    second = start_job(endpoint, cache, log)
    try:
        wait_for(lambda: "resuming batch batch_1" in log.read_text(), second, log, "resumed batch")
        endpoint.release()
        assert second.wait(timeout=120) == 0, log.read_text()
    finally:
        if second.poll() is None:
            second.kill()
    assert len(endpoint.created) == 1 and len(endpoint.uploads) == 1  # submitted (and paid) once
    cached = ResponseCache(cache)
    spec = ModelSpec(name="gpt-batch", backend="openai", location=None, options=api_options(endpoint))
    assert [cached.get(key).response for key in keys(spec)] == [f"answer to: {text}" for text in PROMPT_TEXTS]
    assert state(cache)["batches"][0]["status"] == "collected"


# --------------------------------------------------------------------------------------
# The judge, the translator, the config
# --------------------------------------------------------------------------------------


def test_the_judge_with_api_batch_judges_through_a_batch(endpoint, tmp_path):
    from builders import response_rows
    from xlcons.evaluators.judge import run_judge

    endpoint.reply = lambda prompt: "Yes."
    judge = ModelSpec(name="judge", backend="openai", location=None, options=api_options(endpoint))
    english = prompts(["What is the highest mountain in the world?"])
    english = english.set_column(1, "item_id", pa.array(["lmsys-63"]))
    table = run_judge(judge, response_rows([("lmsys-63", "de", "Mount Everest.")]), english, tmp_path / "j.jsonl")
    assert table["verdict"].to_pylist() == ["yes"]
    assert len(endpoint.created) == 1 and endpoint.bodies == []
    assert backend_state_path(tmp_path / "j.jsonl").exists()


def test_a_batch_backend_outside_a_cached_job_says_what_to_do(endpoint):
    backend = load_backend(batch_spec(endpoint))  # no state_path: the LLM translator's way
    try:
        requests = build_requests(batch_spec(endpoint), prompts().to_pylist(), MAX_NEW_TOKENS)
        with pytest.raises(GenerationError, match="api.batch needs a job that keeps a cache"):
            list(backend.generate(requests))
    finally:
        backend.close()


def config_with_model_api(**api) -> dict:
    return {"models": {"gpt": {"backend": "openai", "api": {"model": "gpt-4o", **api}}}}


@pytest.mark.parametrize(
    ("api", "key"),
    [
        ({"batch": "yes"}, "models.gpt.api.batch"),
        ({"batch": True, "batch_poll_s": 0}, "models.gpt.api.batch_poll_s"),
        ({"batch": True, "batch_max_requests": 0}, "models.gpt.api.batch_max_requests"),
    ],
)
def test_config_refuses_a_wrong_batch_option_naming_the_key(tmp_path, api, key):
    with pytest.raises(ConfigError) as caught:
        validate_config(config_with_model_api(**api), base_dir=tmp_path)
    assert key in str(caught.value)


def test_config_takes_api_batch_with_its_defaults(tmp_path):
    config = validate_config(config_with_model_api(batch=True), base_dir=tmp_path)
    api = config["models"]["gpt"]["api"]
    assert (api["batch"], api["batch_poll_s"], api["batch_max_requests"]) == (True, 60, 50000)


def test_the_batch_keys_at_their_defaults_stay_out_of_a_models_params(tmp_path):
    """A run made before the keys existed keeps its params: its API jobs do not rerun. Set to
    anything else, they are in the params, and the job reruns (from its cache)."""
    plain = validate_config(config_with_model_api(), base_dir=tmp_path)["models"]["gpt"]
    assert plain["api"]["batch"] is False  # filled in by the schema
    params = model_fields(plain)["api"]
    assert not {"batch", "batch_poll_s", "batch_max_requests"} & set(params)
    assert params["max_concurrency"] == plain["api"]["max_concurrency"]  # other options stay in
    batched = validate_config(config_with_model_api(batch=True, batch_poll_s=5), base_dir=tmp_path)["models"]["gpt"]
    assert model_fields(batched)["api"]["batch"] is True and model_fields(batched)["api"]["batch_poll_s"] == 5
    assert "batch_max_requests" not in model_fields(batched)["api"]


# --------------------------------------------------------------------------------------
# The run's limits
# --------------------------------------------------------------------------------------


def request_bound(text: str) -> int:
    """By hand: one token per UTF-8 byte of the one message, the chat format's tokens around it
    and before the answer, and MAX_NEW_TOKENS written."""
    return len(text.encode("utf-8")) + 2 * CHAT_FORMAT_TOKENS + MAX_NEW_TOKENS


def batch_guard(tmp_path: Path, limits: Limits) -> BudgetGuard:
    return BudgetGuard(limits, {}, lambda: [], tmp_path / "usage" / "gpt-batch.json", "generate multiq/gpt-batch")


def test_a_batch_is_split_before_upload_so_what_is_submitted_fits_the_limit(endpoint, tmp_path):
    """Issue 40: `api.batch: true` used to upload every request whatever the limit. With room for
    the bounds of the first two requests only, the batch holds those two; once they are
    answered and cached the job stops naming the one held back, which its ledger (and its
    running ledger, for the other jobs and its next attempt) counts as held. The rerun with the
    limit raised submits only that one."""
    spec = batch_spec(endpoint)
    cache = tmp_path / "gpt-batch.jsonl"
    limit = request_bound(PROMPT_TEXTS[0]) + request_bound(PROMPT_TEXTS[1])
    with recording() as ledger, guarding(batch_guard(tmp_path, Limits(max_tokens=limit))):
        with pytest.raises(BudgetHeld) as stopped:
            generate(spec, cache)
    assert submitted_prompts(endpoint) == PROMPT_TEXTS[:2] and len(endpoint.uploads) == 1
    message = str(stopped.value)
    assert "1 of 3 requests to gpt-test were not submitted" in message and f"is {limit:,} tokens" in message
    assert "--config 'limits={max_tokens: ...}'" in message
    assert len(ResponseCache(cache)) == 2, "the answers of the submitted batch are cached"
    [call] = ledger.calls()
    assert (call["requests"], call["held_requests"], call["prompt_tokens"] + call["completion_tokens"]) == (2, 1, 30)
    running = read_usage(running_file(tmp_path / "usage" / "gpt-batch.json"))
    assert running["calls"][0]["held_requests"] == 1 and running["calls"][0]["requests"] == 2
    with recording(), guarding(batch_guard(tmp_path, Limits(max_tokens=10 * limit))):
        table = generate(spec, cache)
    assert submitted_prompts(endpoint) == PROMPT_TEXTS[2:] and set(table["finish_reason"].to_pylist()) == {"stop"}


def test_a_batch_whose_first_request_does_not_fit_is_not_uploaded(endpoint, tmp_path):
    spec = batch_spec(endpoint)
    with recording() as ledger, guarding(batch_guard(tmp_path, Limits(max_tokens=request_bound(PROMPT_TEXTS[0]) - 1))):
        with pytest.raises(BudgetHeld, match="3 of 3 requests to gpt-test were not submitted"):
            generate(spec, tmp_path / "gpt-batch.jsonl")
    assert endpoint.uploads == [] and endpoint.created == []
    assert ledger.calls()[0]["held_requests"] == 3 and ledger.calls()[0]["requests"] == 0
