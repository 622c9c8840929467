"""Any OpenAI-compatible chat completions endpoint: OpenAI, Gemini's compatible endpoint, `vllm serve`.

The official `openai` client sends the requests; its own retries are switched off
(`max_retries=0`) so that retrying is decided here, once, with tenacity: rate limits (429),
server errors (5xx, 408), timeouts and dropped connections are retried with exponential
backoff; any other error (400, 401, 403, 404, ...) is not. A request that still fails is
recorded as an error result, never raised and never dropped, so one bad item cannot stop
a run of thousands and the stage records why it has no answer. `api.timeout_s` bounds each
attempt in all, not each read of it (http_deadline), and an answer whose content is not text
(parse_completion) is a failed request of its own.

The token cap is sent as `max_tokens`, not `max_completion_tokens`: every compatible server
(vLLM, Gemini, llama.cpp, TGI) understands `max_tokens`, while `max_completion_tokens` is
newer and not universally accepted. (OpenAI's reasoning models accept only
`max_completion_tokens`; they are not what this workflow measures.)

The server knows its model's context; the client does not count tokens. A request it refuses
as longer than the context (HTTP 400 with OpenAI's error code `context_length_exceeded`, or
a message in the words OpenAI, vLLM or Gemini use for it) is recorded as
`prompt_too_long` with the server's message, like a prompt the local backends refuse. What
counts is the server's rule: vLLM's server refuses a prompt that leaves no room for one new
token and shortens `max_tokens` to what is left otherwise, while OpenAI's API refuses a
request whose prompt plus `max_tokens` exceeds the context.

With `api.batch: true` the same requests go through the Batch API instead, one file per batch
(`openai_batch.OpenAIBatchBackend`, a subclass: the registry entry's `modes`).
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from typing import Any

import openai
from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential, wait_random

from xlcons.generation.backends.http_deadline import bound_requests, deadline
from xlcons.generation.base import Backend, GenerationError, ModelSpec, Request, Result, register
from xlcons.redaction import key_env_problem, redact, remember
from xlcons.schemas import PROMPT_TOO_LONG

OPENAI_BASE_URL = "https://api.openai.com/v1"
# Finish reasons kept as they are; everything else the API may report (content_filter,
# Gemini's recitation/safety/blocklist/prohibited_content/spii, ...) means the provider
# withheld the answer, except these, which mean the server failed to produce one.
NORMAL_FINISH = {"stop", "length"}
FAILED_FINISH = {"abort", "error"}
# Longest wait between two attempts, and the longest Retry-After honoured, in seconds.
MAX_BACKOFF_S = 60.0


def _retryable(error: BaseException) -> bool:
    """Rate limits, server errors, timeouts and connection failures; never a client error."""
    if isinstance(error, openai.APIConnectionError):  # APITimeoutError is one
        return True
    if isinstance(error, openai.APIStatusError):
        return error.status_code == 429 or error.status_code == 408 or error.status_code >= 500
    return False


# Errors that every other request would meet too: stop the job at the first one.
FATAL_ERRORS = (openai.AuthenticationError, openai.PermissionDeniedError, openai.NotFoundError)


def describe_error(error: BaseException) -> str:
    """`<ExceptionType>: <status> <message>` (no status for errors without a response), with
    any key in it redacted: an endpoint may quote the Authorization header back (a 401), and
    this text is logged and stored with the item."""
    if isinstance(error, openai.APIStatusError):
        return redact(f"{type(error).__name__}: {error.status_code} {error.message}")
    message = getattr(error, "message", None) or str(error)
    return redact(f"{type(error).__name__}: {message}")


# How servers word a refusal for length: OpenAI ("This model's maximum context length is ..."),
# vLLM ("... is longer than the maximum model length of ...", "... exceeds model's maximum
# context length ..."), Gemini ("The input token count (...) exceeds the maximum number of tokens allowed").
_CONTEXT_LENGTH_MESSAGE = re.compile(
    r"maximum context length|context_length_exceeded|longer than the maximum model length"
    r"|exceeds the maximum number of tokens allowed",
    re.IGNORECASE,
)


def refused_for_length(code: Any, message: Any) -> bool:
    """Whether an error's code or message says the prompt is too long for the model's context."""
    return code == "context_length_exceeded" or bool(_CONTEXT_LENGTH_MESSAGE.search(str(message or "")))


def context_length_exceeded(error: BaseException) -> bool:
    """Whether the server refused a request (HTTP 400) because its prompt is too long for the model."""
    if not isinstance(error, openai.BadRequestError):
        return False
    return refused_for_length(getattr(error, "code", None), error.message)


def _field(value: Any, name: str) -> Any:
    """A field of a response object: the client's object, or the parsed JSON (a batch output line's body)."""
    return value.get(name) if isinstance(value, Mapping) else getattr(value, name, None)


def cached_prompt_tokens(completion: Any) -> int:
    """The prompt tokens a provider served from its prompt cache (`usage.prompt_tokens_details.
    cached_tokens`, OpenAI's and vLLM's field); 0 where the response does not say."""
    cached = _field(_field(_field(completion, "usage"), "prompt_tokens_details"), "cached_tokens")
    return cached if isinstance(cached, int) else 0


def _token_count(value: Any) -> int | None:
    """A usage figure as the tables store it: a whole number, or None when the server sent none (or no number)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def message_text(content: Any) -> str:
    """A message's `content` as text, in each shape a chat completions server may send it: a
    string; nothing (None: no text); a list of content parts, whose text parts (`{"type": "text",
    "text": ...}`, or bare strings) are joined. Anything else (a number, an object, a part that
    is not text) raises ValueError, which makes the request a failed one."""
    if content is None or isinstance(content, str):
        return content or ""
    if not isinstance(content, list):
        raise ValueError(f"the message's content is a {type(content).__name__}, not text")
    texts = []
    for part in content:
        kind = _field(part, "type") if not isinstance(part, str) else "text"
        text = part if isinstance(part, str) else _field(part, "text")
        if kind not in ("text", None) or not isinstance(text, str):
            raise ValueError(f"the message's content holds a part of type {kind!r}, not text")
        texts.append(text)
    return "".join(texts)


def parse_completion(key: str, completion: Any) -> Result:
    """A chat completion (the client's object, anything shaped like it, or its JSON) as a Result.

    `stop`/`length` are kept; a refusal, or any other finish reason (`content_filter`,
    Gemini's `recitation`/`safety`, ...), is `refused` with the reason in `error`; `abort`
    is an `error`. Empty content gives an empty response with the API's finish reason:
    `base.finalize` records it as "empty". A missing finish reason counts as `stop`. Content
    sent as a list of text parts is their text joined (message_text); a response without
    choices, a choice without a message, or content that is not text is an `error`.
    """
    usage = _field(completion, "usage")
    prompt_tokens, completion_tokens = (
        _token_count(_field(usage, name)) for name in ("prompt_tokens", "completion_tokens")
    )
    choices = _field(completion, "choices") or []
    if not isinstance(choices, list) or not choices:
        return Result(key, "", "error", prompt_tokens, completion_tokens, "the response has no choices")
    choice = choices[0]
    message = _field(choice, "message")
    if message is None:
        return Result(
            key, "", "error", prompt_tokens, completion_tokens, "unreadable response: the choice has no message"
        )
    try:
        content = message_text(_field(message, "content"))
    except ValueError as error:
        return Result(key, "", "error", prompt_tokens, completion_tokens, f"unreadable response: {error}")
    refusal = _field(message, "refusal")
    reason = _field(choice, "finish_reason") or "stop"
    normalized = str(reason).lower()
    if refusal:
        return Result(key, content, "refused", prompt_tokens, completion_tokens, f"refusal: {refusal}")
    if normalized in FAILED_FINISH:
        return Result(key, content, "error", prompt_tokens, completion_tokens, f"finish_reason={reason}")
    if normalized not in NORMAL_FINISH:
        return Result(key, content, "refused", prompt_tokens, completion_tokens, f"finish_reason={reason}")
    return Result(key, content, normalized, prompt_tokens, completion_tokens)


class _Backoff:
    """Exponential backoff with jitter; a server's Retry-After (capped) when it asks for longer."""

    def __init__(self, multiplier: float):
        self._exponential = wait_exponential(multiplier=multiplier, max=MAX_BACKOFF_S) + wait_random(0, multiplier)

    def __call__(self, retry_state) -> float:
        wait = self._exponential(retry_state)
        error = retry_state.outcome.exception() if retry_state.outcome else None
        response = getattr(error, "response", None)
        header = response.headers.get("retry-after") if response is not None else None
        try:
            asked = float(header) if header is not None else 0.0
        except ValueError:  # an HTTP date: rare, not worth parsing
            asked = 0.0
        return max(wait, min(asked, MAX_BACKOFF_S))


@register
class OpenAIBackend(Backend):
    """Chat completions, `max_concurrency` requests in flight, results yielded as they complete."""

    name = "openai"
    # Overridden per instance: 8 x max_concurrency. Within a chunk the pool stays full
    # until its last requests, so a chunk of many times the pool keeps the workers busy
    # (only the tail of each chunk runs below full concurrency), while a killed job loses
    # at most one chunk of answers (results are yielded, and can be saved, as they come).
    chunk_size = 64

    def __init__(self, spec: ModelSpec, *, backoff_s: float = 1.0):
        super().__init__(spec)
        options = spec.options
        self.model = options.get("model") or spec.hf_id
        if not self.model:
            raise GenerationError(
                f"model '{spec.name}': backend openai needs api.model (or hf_id): the name the endpoint expects"
            )
        key_env = options.get("api_key_env") or "OPENAI_API_KEY"
        if problem := key_env_problem("api.api_key_env", key_env):
            raise GenerationError(f"model '{spec.name}': {problem}")
        api_key = os.environ.get(key_env)
        remember(api_key)
        if not api_key:
            raise GenerationError(
                f"model '{spec.name}' ({self.model}): the API key is read from the environment variable {key_env}, "
                f"which is not set; export it (never put a key in the config), or set api.api_key_env"
            )
        self.max_concurrency = int(options.get("max_concurrency") or 8)
        self.max_retries = int(options.get("max_retries", 6))
        self.backoff_s = backoff_s
        self.chunk_size = 8 * self.max_concurrency
        # Each attempt of a chat completion must end within timeout_s in all (http_deadline), not
        # only each read of it; the client's own timeout bounds each step of the Files and Batches calls.
        self.timeout_s = float(options.get("timeout_s") or 120)
        # base_url None means OpenAI itself, passed explicitly so that an OPENAI_BASE_URL in
        # the environment cannot silently send the requests elsewhere.
        self.client = openai.OpenAI(
            base_url=options.get("base_url") or OPENAI_BASE_URL,
            api_key=api_key,
            timeout=self.timeout_s,
            max_retries=0,
            http_client=bound_requests(openai.DefaultHttpxClient()),
        )
        self.executor = ThreadPoolExecutor(max_workers=self.max_concurrency, thread_name_prefix=f"openai-{spec.name}")
        # The job's usage ledger (engine_stats): attempts repeated, and prompt tokens the provider
        # served from its prompt cache (billed at the cached-input price).
        self._counts = {"retries": 0, "cached_prompt_tokens": 0}
        self._counts_lock = threading.Lock()

    def _count(self, **counts: int) -> None:
        with self._counts_lock:
            for name, value in counts.items():
                self._counts[name] += value

    def engine_stats(self) -> dict[str, int]:
        with self._counts_lock:
            return dict(self._counts)

    def request_kwargs(self, request: Request) -> dict[str, Any]:
        """The chat completions arguments for one request."""
        decoding = self.spec.decoding
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": [dict(message) for message in request.messages],
            "max_tokens": request.max_new_tokens,
            "temperature": decoding.temperature,
            "top_p": decoding.top_p,
            "seed": decoding.seed,
        }
        # Not an OpenAI parameter; vllm serve reads it from the body.
        if decoding.repetition_penalty != 1.0:
            kwargs["extra_body"] = {"repetition_penalty": decoding.repetition_penalty}
        return kwargs

    def retrying(self, retryable: Callable[[BaseException], bool] = _retryable) -> Retrying:
        """How one API call is retried: the `retryable` errors, up to api.max_retries times, with backoff."""
        return Retrying(
            retry=retry_if_exception(retryable),
            stop=stop_after_attempt(self.max_retries + 1),
            wait=_Backoff(self.backoff_s),
            reraise=True,
        )

    def _create(self, **kwargs: Any) -> Any:
        """One attempt at a chat completion, ended after api.timeout_s in all however the server paces its answer."""
        with deadline(self.timeout_s):
            return self.client.chat.completions.create(**kwargs)

    def _answer(self, request: Request) -> Result:
        retrying = self.retrying()
        kwargs = self.request_kwargs(request)
        try:
            try:
                completion = retrying(self._create, **kwargs)
            finally:
                self._count(retries=max(0, retrying.statistics.get("attempt_number", 1) - 1))
        except FATAL_ERRORS as error:
            raise GenerationError(
                f"model '{self.spec.name}': the endpoint refused the first request, {describe_error(error)}; "
                f"check the key (api.api_key_env), the model name (api.model) and the endpoint (api.base_url)"
            ) from None
        except Exception as error:  # noqa: BLE001 - every other failure becomes a recorded error result
            if context_length_exceeded(error):
                return Result(
                    request.key,
                    "",
                    PROMPT_TOO_LONG,
                    error=f"the endpoint found the prompt too long for the model: {describe_error(error)}",
                )
            attempts = retrying.statistics.get("attempt_number", 1)
            suffix = f" (gave up after {attempts} attempts)" if _retryable(error) and attempts > 1 else ""
            return Result(request.key, "", "error", error=describe_error(error) + suffix)
        return self.completion_result(request.key, completion)

    def completion_result(self, key: str, completion: Any) -> Result:
        """The result of one answered request (its completion), counting the prompt tokens the
        provider served from its prompt cache; a malformed completion is an error for that item only."""
        self._count(cached_prompt_tokens=cached_prompt_tokens(completion))
        try:
            return parse_completion(key, completion)
        except Exception as error:  # noqa: BLE001 - a malformed body is an error for this item only
            return Result(key, "", "error", error=f"unreadable response: {describe_error(error)}")

    def generate(self, requests: Sequence[Request]) -> Iterator[Result]:
        futures: list[Future[Result]] = [self.executor.submit(self._answer, request) for request in requests]
        try:
            for future in as_completed(futures):
                yield future.result()
        finally:  # the consumer stopped early (or was interrupted): do not send the rest
            for future in futures:
                future.cancel()

    def close(self) -> None:
        self.executor.shutdown(wait=True, cancel_futures=True)
        self.client.close()
