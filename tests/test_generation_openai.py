"""The OpenAI-compatible backend (xlcons.generation.backends.openai_api), against a local server.

The test starts a small chat completions server on 127.0.0.1 whose behaviour is scripted
by the prompt text: some prompts fail once and then answer, one always fails, one is
withheld by a content filter, one is refused, one comes back empty, one is a client error.
The backend must return exactly one result per request, retry only what is worth
retrying, record what still fails, keep at most `max_concurrency` requests in flight,
and authenticate with the key from the configured environment variable.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace

import pyarrow as pa
import pytest

from local_server import ChatEndpoint
from xlcons.generation import base
from xlcons.generation.backends.openai_api import OpenAIBackend, parse_completion
from xlcons.generation.base import Decoding, GenerationError, ModelSpec, Result, build_requests
from xlcons.generation.stage import run_generation
from xlcons.schemas import NO_ANSWER, PROMPTS

API_KEY = "sk-test-xlcons-0123"
KEY_ENV = "XLCONS_TEST_API_KEY"
TIMEOUT_S = 0.5  # the "slow once" prompt sleeps past it
MAX_RETRIES = 2
MAX_CONCURRENCY = 3
NORMAL_DELAY_S = 0.03  # long enough for requests to overlap


class ScriptedServer(ThreadingHTTPServer):
    """Chat completions whose behaviour depends on the prompt; records what it saw."""

    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), Handler)
        self.lock = threading.Lock()
        self.seen: Counter[str] = Counter()
        self.bodies: dict[str, dict] = {}
        self.authorizations: set[str] = set()
        self.in_flight = 0
        self.max_in_flight = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class Handler(BaseHTTPRequestHandler):
    server: ScriptedServer

    def log_message(self, *args):  # keep the test output clean
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        prompt = body["messages"][-1]["content"]
        server = self.server
        with server.lock:
            server.seen[prompt] += 1
            attempt = server.seen[prompt]
            server.bodies[prompt] = body
            server.authorizations.add(self.headers.get("Authorization", ""))
        if prompt == "slow once" and attempt == 1:
            # Past the client's timeout: the client abandons it, so it is not counted in flight.
            time.sleep(TIMEOUT_S * 2)
            return
        with server.lock:
            server.in_flight += 1
            server.max_in_flight = max(server.max_in_flight, server.in_flight)
        try:
            if self.path != "/v1/chat/completions":
                self.reply(404, error("no such route"))
            else:
                self.reply(*behaviour(prompt, attempt, body))
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
            pass
        finally:
            with server.lock:
                server.in_flight -= 1

    def reply(self, status: int, payload: dict | bytes, headers: dict[str, str] | None = None):
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


def error(message: str, kind: str = "server_error") -> dict:
    return {"error": {"message": message, "type": kind, "code": None}}


def completion(body: dict, content: str | None, finish_reason: str = "stop", refusal: str | None = None) -> dict:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": body["model"],
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": refusal},
                "finish_reason": finish_reason,
            }
        ],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }


def behaviour(prompt: str, attempt: int, body: dict) -> tuple:
    """(status, payload[, headers]) for the `attempt`-th request of this prompt."""
    if prompt == "rate limited once" and attempt == 1:
        return 429, error("slow down", "rate_limit_error"), {"Retry-After": "0"}
    if prompt == "server error once" and attempt == 1:
        return 500, error("try again")
    if prompt == "always failing":
        return 503, error("overloaded")
    if prompt == "bad request":
        return 400, error("this prompt is malformed", "invalid_request_error")
    if prompt == "wrong key":
        return 401, error("Incorrect API key provided", "invalid_request_error")
    if prompt == "no such model":
        return 404, error("The model `served-model` does not exist", "invalid_request_error")
    if prompt == "too long for vllm serve":
        return 400, error(
            "This model's maximum context length is 512 tokens. However, your prompt contains 9007 input tokens, "
            "which exceeds this limit even without any output tokens. Please reduce the length of the input prompt.",
            "BadRequestError",
        )
    if prompt == "too long for openai":
        return 400, {
            "error": {
                "message": "Your messages resulted in 9007 tokens. Please reduce the length of the messages.",
                "type": "invalid_request_error",
                "code": "context_length_exceeded",
            }
        }
    if prompt == "filtered":
        return 200, completion(body, None, "content_filter")
    if prompt == "refused":
        return 200, completion(body, None, refusal="I can't help with that.")
    if prompt == "empty":
        return 200, completion(body, "")
    if prompt == "cached prefix":  # the provider served part of the prompt from its prompt cache
        answer = completion(body, "cached answer")
        answer["usage"]["prompt_tokens_details"] = {"cached_tokens": 5}
        return 200, answer
    if prompt in ODD_CONTENT:
        return 200, completion(body, ODD_CONTENT[prompt])
    if prompt == "no message":
        answer = completion(body, "unused")
        del answer["choices"][0]["message"]
        return 200, answer
    if prompt == "not json":  # a proxy's error page, a cut connection: a body the client cannot read
        return 200, b'{"id": "chatcmpl-test", "choices": [{"index": 0, "message": {"content": "cut'

    time.sleep(NORMAL_DELAY_S)
    return 200, completion(body, f"answer to: {prompt}")


# `content` as servers other than OpenAI's (and OpenAI's newer models) may send it, by prompt.
ODD_CONTENT = {
    "content as text parts": [{"type": "text", "text": "Paris is "}, {"type": "text", "text": "the capital."}],
    "content as a number": 42,
    "content as an object": {"answer": "Paris"},
    "content as an image": [{"type": "image_url", "image_url": {"url": "https://example.org/a.png"}}],
}
RETRIED_ONCE = ["rate limited once", "server error once", "slow once"]
SPECIAL = RETRIED_ONCE + ["always failing", "bad request", "filtered", "refused", "empty", "not json"]
NORMAL = [f"question {index}" for index in range(14)]


def serving() -> Iterator[ScriptedServer]:
    server = ScriptedServer()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


server = pytest.fixture(serving)
# One server and one run for the scenario every test below it reads.
module_server = pytest.fixture(serving, scope="module", name="module_server")


@pytest.fixture(scope="module", autouse=True)
def clean_environment():
    """The key in the configured variable; nothing from the machine's environment redirects the client."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(KEY_ENV, API_KEY)
        for name in (
            "OPENAI_BASE_URL",
            "OPENAI_CUSTOM_HEADERS",
            "OPENAI_ORG_ID",
            "OPENAI_PROJECT_ID",
            "HTTP_PROXY",
            "HTTPS_PROXY",
            "ALL_PROXY",
            "http_proxy",
            "https_proxy",
            "all_proxy",
        ):
            patch.delenv(name, raising=False)
        patch.setenv("NO_PROXY", "127.0.0.1")
        yield


def spec(base_url: str, **decoding) -> ModelSpec:
    options = {
        "base_url": base_url,
        "model": "served-model",
        "api_key_env": KEY_ENV,
        "max_concurrency": MAX_CONCURRENCY,
        "timeout_s": TIMEOUT_S,
        "max_retries": MAX_RETRIES,
    }
    return ModelSpec(name="api-model", backend="openai", location=None, decoding=Decoding(**decoding), options=options)


def rows(prompts: list[str]) -> list[dict[str, str]]:
    return [{"item_id": f"item-{index}", "lang": "en", "prompt": prompt} for index, prompt in enumerate(prompts)]


def run(model: ModelSpec, prompts: list[str], max_new_tokens: int = 32) -> tuple[list, dict[str, Result], list[Result]]:
    requests = build_requests(model, rows(prompts), max_new_tokens)
    backend = OpenAIBackend(model, backoff_s=0.001)
    try:
        results = list(backend.generate(requests))
    finally:
        backend.close()
    return requests, {result.key: result for result in results}, results


@pytest.fixture(scope="module")
def outcome(module_server, clean_environment):
    """Every scripted prompt sent once through the backend."""
    requests, by_key, results = run(spec(module_server.base_url), SPECIAL + NORMAL)
    by_prompt = {request.prompt: by_key[request.key] for request in requests}
    return SimpleNamespace(server=module_server, requests=requests, results=results, by_prompt=by_prompt)


def test_every_request_gets_exactly_one_result(outcome):
    assert len(outcome.results) == len(outcome.requests)
    assert sorted(result.key for result in outcome.results) == sorted(request.key for request in outcome.requests)


def test_normal_answers_carry_text_finish_reason_and_usage(outcome):
    for prompt in NORMAL:
        result = outcome.by_prompt[prompt]
        assert result.response == f"answer to: {prompt}"
        assert (result.finish_reason, result.prompt_tokens, result.completion_tokens, result.error) == (
            "stop",
            11,
            7,
            None,
        )


def test_rate_limits_server_errors_and_timeouts_are_retried_until_they_succeed(outcome):
    for prompt in RETRIED_ONCE:
        assert outcome.by_prompt[prompt].finish_reason == "stop", outcome.by_prompt[prompt]
        assert outcome.by_prompt[prompt].response == f"answer to: {prompt}"
        assert outcome.server.seen[prompt] == 2  # 1 + one retry


def test_a_request_that_keeps_failing_is_recorded_as_an_error_naming_the_status(outcome):
    result = outcome.by_prompt["always failing"]
    assert (result.response, result.finish_reason) == ("", "error")
    assert "InternalServerError" in result.error and "503" in result.error
    assert f"after {MAX_RETRIES + 1} attempts" in result.error
    assert outcome.server.seen["always failing"] == 1 + MAX_RETRIES


def test_an_answer_that_is_not_json_is_a_failed_request_not_an_answer(outcome):
    result = outcome.by_prompt["not json"]
    assert (result.response, result.finish_reason) == ("", "error")
    assert result.error.startswith("JSONDecodeError: Unterminated string"), result.error


def test_client_errors_are_not_retried(outcome):
    result = outcome.by_prompt["bad request"]
    assert result.finish_reason == "error"
    assert "BadRequestError" in result.error and "400" in result.error
    assert outcome.server.seen["bad request"] == 1


@pytest.mark.parametrize(("prompt", "status"), [("wrong key", "401"), ("no such model", "404")])
def test_a_wrong_key_or_model_stops_the_job_at_once_with_the_endpoints_message(server, prompt, status):
    """Every other request would fail the same way: not a scored 'No answer', a stopped job."""
    with pytest.raises(GenerationError) as info:
        run(spec(server.base_url), [prompt])
    message = str(info.value)
    assert status in message and "api.api_key_env" in message and "api.model" in message
    assert server.seen[prompt] == 1, "not retried"


def test_a_prompt_the_server_finds_too_long_for_its_context_is_prompt_too_long_not_retried(server):
    """The server decides what fits its model: a 400 saying so (vLLM's words, or OpenAI's code
    context_length_exceeded) is `prompt_too_long` with the server's message, not a failed request;
    other 400s stay failed requests."""
    prompts = ["too long for vllm serve", "too long for openai", "bad request"]
    requests, by_key, _ = run(spec(server.base_url), prompts)
    got = {request.prompt: by_key[request.key] for request in requests}
    assert [got[prompt].finish_reason for prompt in prompts] == ["prompt_too_long", "prompt_too_long", "error"]
    assert got["too long for vllm serve"].error.startswith(
        "the endpoint found the prompt too long for the model: BadRequestError: 400"
    )
    assert "maximum context length is 512 tokens" in got["too long for vllm serve"].error
    assert "9007 tokens" in got["too long for openai"].error
    assert server.seen["too long for vllm serve"] == server.seen["too long for openai"] == 1


def test_content_filter_and_refusals_are_refused_with_the_reason(outcome):
    filtered, refused = outcome.by_prompt["filtered"], outcome.by_prompt["refused"]
    assert filtered.finish_reason == "refused" and "content_filter" in filtered.error
    assert refused.finish_reason == "refused" and "I can't help with that." in refused.error


def test_empty_content_is_an_empty_response_with_the_api_finish_reason(outcome):
    result = outcome.by_prompt["empty"]
    assert (result.response, result.finish_reason, result.error) == ("", "stop", None)
    assert base.finalize(result).finish_reason == "empty"


def test_answered_prompts_are_sent_once(outcome):
    for prompt in NORMAL + ["filtered", "refused", "empty"]:
        assert outcome.server.seen[prompt] == 1


def test_concurrency_is_bounded_by_max_concurrency(outcome):
    assert 1 < outcome.server.max_in_flight <= MAX_CONCURRENCY


def test_the_key_from_the_configured_variable_is_sent(outcome):
    assert outcome.server.authorizations == {f"Bearer {API_KEY}"}


def test_the_request_carries_model_messages_and_decoding(server):
    model = spec(server.base_url, temperature=0.7, top_p=0.9, seed=5)
    model = ModelSpec(**{**model.__dict__, "system_prompt": "Answer briefly."})
    run(model, ["question 0"], max_new_tokens=17)
    body = server.bodies["question 0"]
    assert body["model"] == "served-model"
    assert body["messages"] == [
        {"role": "system", "content": "Answer briefly."},
        {"role": "user", "content": "question 0"},
    ]
    assert (body["max_tokens"], body["temperature"], body["top_p"], body["seed"]) == (17, 0.7, 0.9, 5)
    assert "repetition_penalty" not in body  # not an OpenAI parameter: only sent when it matters


def test_a_repetition_penalty_is_sent_in_the_body_for_vllm_serve(server):
    run(spec(server.base_url, repetition_penalty=1.2), ["question 0"])
    assert server.bodies["question 0"]["repetition_penalty"] == 1.2


def test_the_model_name_defaults_to_hf_id(server):
    model = spec(server.base_url)
    model = ModelSpec(**{**model.__dict__, "options": {**model.options, "model": None}, "hf_id": "org/some-model"})
    run(model, ["question 0"])
    assert server.bodies["question 0"]["model"] == "org/some-model"


def test_chunk_size_keeps_the_pool_busy():
    backend = OpenAIBackend(spec("http://127.0.0.1:9/v1"))
    backend.close()
    assert backend.chunk_size == 8 * MAX_CONCURRENCY


def test_a_missing_key_variable_fails_before_any_request(monkeypatch):
    monkeypatch.delenv("XLCONS_TEST_UNSET_KEY", raising=False)
    model = spec("http://127.0.0.1:9/v1")
    model = ModelSpec(**{**model.__dict__, "options": {**model.options, "api_key_env": "XLCONS_TEST_UNSET_KEY"}})
    with pytest.raises(GenerationError, match="XLCONS_TEST_UNSET_KEY") as raised:
        OpenAIBackend(model)
    assert "served-model" in str(raised.value)


def test_the_backend_is_registered_under_openai():
    assert base.backend_class("openai") is OpenAIBackend


def test_the_backend_counts_its_retries_and_the_prompt_tokens_the_provider_cached(server):
    """What the usage ledger reads (engine_stats): two requests retried once each, and 5 prompt
    tokens the provider reported as served from its cache."""
    model = spec(server.base_url)
    requests = build_requests(model, rows(["rate limited once", "server error once", "cached prefix", "question 0"]), 8)
    backend = OpenAIBackend(model, backoff_s=0.001)
    try:
        assert {result.finish_reason for result in backend.generate(requests)} == {"stop"}
        assert backend.engine_stats() == {"retries": 2, "cached_prompt_tokens": 5}
    finally:
        backend.close()


def test_an_answer_of_any_shape_is_read_or_failed_alone_and_the_good_answers_of_its_chunk_are_cached(server, tmp_path):
    """`content` as a list of text parts is their text joined; a number, an object, a part that is
    no text and a choice without a message are failed requests, each alone: the job goes on, every
    other answer of the chunk is cached, and a rerun sends only the failed ones again."""
    model = spec(server.base_url)
    failing = ["content as a number", "content as an object", "content as an image", "no message"]
    prompts = ["content as text parts", *failing, "question 0", "question 1"]
    table = pa.Table.from_pylist(
        [{**row, "dataset": "multiq", "source_lang": "en"} for row in rows(prompts)], schema=PROMPTS
    )
    cache = tmp_path / "responses.jsonl"
    first = {row["prompt"]: row for row in run_generation(model, table, 32, cache).to_pylist()}
    assert (first["content as text parts"]["response"], first["content as text parts"]["finish_reason"]) == (
        "Paris is the capital.",
        "stop",
    )
    assert all(first[prompt]["finish_reason"] == "error" for prompt in failing)
    assert all(first[prompt]["response"] == NO_ANSWER for prompt in failing)
    assert "content is a int, not text" in first["content as a number"]["error"]
    assert "content is a dict, not text" in first["content as an object"]["error"]
    assert "a part of type 'image_url', not text" in first["content as an image"]["error"]
    assert "the choice has no message" in first["no message"]["error"]

    run_generation(model, table, 32, cache)
    assert {prompt: server.seen[prompt] for prompt in prompts} == {
        prompt: 2 if prompt in failing else 1 for prompt in prompts
    }, "the good answers were cached; only the failed requests are sent again"


@pytest.mark.parametrize(
    ("timeout_s", "through_proxy"),
    [(0.5, False), (3.0, False), (0.5, True)],
    ids=["deadline within the headers", "deadline within the body", "through a proxy the environment names"],
)
def test_timeout_s_bounds_each_request_in_all_not_each_read(timeout_s, through_proxy, monkeypatch):
    """A server that sends its answer (about 400 bytes) one byte every 0.02 s never lets a read
    time out, and would hold each request some 8 s; api.timeout_s ends each attempt in all, in
    the headers or in the body, as a timeout: retried, then recorded as failed. Requests that go
    through a proxy named by HTTP_PROXY (here the slow server itself) keep the deadline too."""
    with ChatEndpoint(lambda prompt: "Paris is the capital of France.") as endpoint:
        endpoint.trickle_s = 0.02
        base_url = endpoint.base_url
        if through_proxy:  # the proxy receives the request for a host it never resolves, and answers it slowly
            monkeypatch.setenv("HTTP_PROXY", base_url.removesuffix("/v1"))
            monkeypatch.delenv("NO_PROXY")
            base_url = "http://api.example.invalid/v1"
        model = ModelSpec(
            name="api-model",
            backend="openai",
            location=None,
            options={**spec(base_url).options, "timeout_s": timeout_s, "max_retries": 1},
        )
        _, _, [result] = run(model, ["Which city is the capital of France?"])
    assert result.finish_reason == "error" and result.response == ""
    assert result.error == "APITimeoutError: Request timed out. (gave up after 2 attempts)"


# parse_completion: the API's answer -> Result


def fake_completion(content, finish_reason, refusal=None, usage=True):
    message = SimpleNamespace(content=content, refusal=refusal)
    return SimpleNamespace(
        choices=[SimpleNamespace(message=message, finish_reason=finish_reason)],
        usage=SimpleNamespace(prompt_tokens=3, completion_tokens=2) if usage else None,
    )


@pytest.mark.parametrize(
    ("content", "finish_reason", "refusal", "expected", "error_part"),
    [
        ("Paris.", "stop", None, "stop", None),
        ("Paris is", "length", None, "length", None),
        ("Paris.", None, None, "stop", None),  # servers that leave it out
        (None, "content_filter", None, "refused", "content_filter"),
        ("", "stop", "I cannot answer.", "refused", "I cannot answer."),
        ("", "recitation", None, "refused", "recitation"),  # Gemini
        ("", "RECITATION", None, "refused", "RECITATION"),
        ("", "safety", None, "refused", "safety"),
        ("partial", "abort", None, "error", "abort"),  # the server gave up on it
        (None, "stop", None, "stop", None),  # empty: finalize makes it "empty"
    ],
)
def test_parse_completion_maps_finish_reasons(content, finish_reason, refusal, expected, error_part):
    result = parse_completion("k", fake_completion(content, finish_reason, refusal))
    assert result.key == "k" and result.finish_reason == expected
    if error_part is None:
        assert result.error is None
        assert result.response == (content or "")
    else:
        assert error_part in result.error


def test_parse_completion_reads_usage_when_present():
    counted = parse_completion("k", fake_completion("a", "stop"))
    assert (counted.prompt_tokens, counted.completion_tokens) == (3, 2)
    bare = parse_completion("k", fake_completion("a", "stop", usage=False))
    assert (bare.prompt_tokens, bare.completion_tokens) == (None, None)


def test_parse_completion_without_choices_is_an_error():
    result = parse_completion("k", SimpleNamespace(choices=[], usage=None))
    assert result.finish_reason == "error" and "no choices" in result.error


def test_finalize_records_refused_empty_and_failed_answers_as_no_answer():
    refused = parse_completion("a", fake_completion(None, "content_filter"))
    empty = parse_completion("b", fake_completion("  ", "stop"))
    failed = Result("c", "", "error", error="InternalServerError: 503 overloaded")
    final = [base.finalize(result) for result in (refused, empty, failed)]
    assert [result.response for result in final] == [NO_ANSWER] * 3
    assert [result.finish_reason for result in final] == ["refused", "empty", "error"]
    assert "content_filter" in final[0].error and final[1].error and "503" in final[2].error
    kept = parse_completion("d", fake_completion("Paris.", "stop"))
    assert base.finalize(kept) == kept


def test_the_text_a_content_filter_cut_short_is_kept_with_the_reason():
    cut = base.finalize(parse_completion("k", fake_completion("The first half of an answer", "content_filter")))
    assert cut.response == NO_ANSWER and cut.finish_reason == "refused"
    assert cut.error == "finish_reason=content_filter; partial text: The first half of an answer"
