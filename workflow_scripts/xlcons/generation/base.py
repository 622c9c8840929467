"""What every generation backend shares: the model spec, requests, results, the registry.

A backend only turns requests into results. Building the chat messages, the cache key,
the decoding hash and the normalisation of empty or failed answers happen here, once,
so the vLLM, transformers, OpenAI-compatible and recorded-file backends cannot drift
apart in what they send or what they record.
"""

from __future__ import annotations

import hashlib
import importlib
import json
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

from xlcons.fingerprint import content_digest, local_content
from xlcons.generation.registry import backend_info
from xlcons.redaction import redact
from xlcons.schemas import NO_ANSWER, PROMPT_TOO_LONG


class GenerationError(RuntimeError):
    """A model cannot be run as configured; the message names the model and what to change."""


@dataclass(frozen=True)
class Decoding:
    temperature: float = 0.0
    top_p: float = 1.0
    max_new_tokens: int | None = None
    repetition_penalty: float = 1.0
    seed: int = 0

    @property
    def greedy(self) -> bool:
        return self.temperature == 0.0


@dataclass(frozen=True)
class ModelSpec:
    """One configured model, resolved: where its weights are and how to run it.

    `location` is the local directory/file of the weights (a configured path or the
    fetched copy under resources/models), or None for an API model. `options` holds the
    backend's own section of the config (`vllm`, `hf` or `api`). `state_path` is not the
    model's but the job's: a file beside the job's cache where a backend keeps what must outlive
    the process (the Batch API's submitted batches); `generation.stage.generate_missing` sets it.
    """

    name: str
    backend: str
    location: str | None
    decoding: Decoding = field(default_factory=Decoding)
    system_prompt: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    hf_id: str | None = None
    revision: str | None = None
    state_path: str | None = None

    @classmethod
    def from_config(cls, name: str, spec: Mapping[str, Any], location: str | None) -> ModelSpec:
        backend = spec["backend"]
        section = backend_info(backend).options_key
        return cls(
            name=name,
            backend=backend,
            location=location,
            decoding=Decoding(**spec["decoding"]),
            system_prompt=spec.get("system_prompt"),
            options=dict(spec.get(section, {})) if section else {},
            hf_id=spec.get("hf_id"),
            revision=spec.get("revision"),
        )

    def identity(self) -> dict[str, Any]:
        """What makes two runs of this model comparable: not where the files happen to lie.

        A served model is its name at the endpoint, a Hub model its id and revision, recorded
        responses the digest of their files, and a local model (`path`) its folder's name
        (what tables show) with the digest of its files under `content`, so that another
        checkpoint under the same name, or one retrained in place, gets answers of its own.
        """
        info = backend_info(self.backend)
        content = None
        if not info.local_files:
            model = self.options.get("model") or self.hf_id or self.name  # a served model: its name
        elif info.recorded:
            model = "sha256:" + content_digest(self.location)
        elif self.hf_id:
            model = self.hf_id
        elif self.location:
            model, content = Path(self.location).name, local_content(self.location)
        else:
            model = self.name
        identity = {
            "backend": self.backend,
            "model": model,
            "revision": self.revision,
            "system_prompt": self.system_prompt,
        }
        return identity | ({"content": content} if content else {})


def ledger_name(spec: ModelSpec) -> str:
    """A model's name in the usage ledger (xlcons.usage) and in `pricing`: what it is (an API's
    model name, a Hub id, a local folder's name), not the role a job gives it (`judge`,
    `information`); recorded answers go by the model's name in the config."""
    return spec.name if backend_info(spec.backend).recorded else str(spec.identity()["model"])


@dataclass(frozen=True)
class Request:
    """One prompt to answer. `key` identifies it in the cache."""

    key: str
    item_id: str
    lang: str
    messages: tuple[Mapping[str, str], ...]
    max_new_tokens: int

    @property
    def prompt(self) -> str:
        return self.messages[-1]["content"]


@dataclass(frozen=True)
class Result:
    """A backend's answer to one request (or the reason there is none)."""

    key: str
    response: str
    finish_reason: str  # stop | length | refused | empty | error | prompt_too_long
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    error: str | None = None

    def to_record(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "response": self.response,
            "finish_reason": self.finish_reason,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "error": self.error,
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Result:
        return cls(
            **{
                name: record.get(name)
                for name in ("key", "response", "finish_reason", "prompt_tokens", "completion_tokens", "error")
            }
        )


def _digest(payload: Any) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def decoding_hash(spec: ModelSpec, max_new_tokens: int) -> str:
    """Model identity + decoding parameters (with the effective token cap), short."""
    decoding = {**spec.decoding.__dict__, "max_new_tokens": max_new_tokens}
    return _digest({"model": spec.identity(), "decoding": decoding})[:16]


def chat_messages(spec: ModelSpec, prompt: str) -> tuple[dict[str, str], ...]:
    """The conversation sent for one prompt: the config's system prompt (if any), then the prompt."""
    system = ({"role": "system", "content": spec.system_prompt},) if spec.system_prompt else ()
    return system + ({"role": "user", "content": prompt},)


def build_requests(spec: ModelSpec, rows: Iterable[Mapping[str, str]], max_new_tokens: int) -> list[Request]:
    """Requests for prompt rows (`item_id`, `lang`, `prompt`); the key covers all that shapes the answer."""
    model_hash = decoding_hash(spec, max_new_tokens)
    requests = []
    for row in rows:
        messages = chat_messages(spec, row["prompt"])
        payload = {"decoding": model_hash, "messages": messages}
        if backend_info(spec.backend).recorded:  # recorded answers belong to an item, not to a prompt text
            payload["item"] = [row["item_id"], row["lang"]]
        key = _digest(payload)
        requests.append(Request(key, row["item_id"], row["lang"], messages, max_new_tokens))
    return requests


def chat_prompt_ids(tokenizer: Any, messages: Sequence[Mapping[str, str]]) -> list[int]:
    """A conversation's prompt token ids as a local model reads them: rendered by its chat
    template with the generation prompt, then tokenized without adding special tokens (the
    template writes every one the model expects, a BOS token included where it has one)."""
    text = tokenizer.apply_chat_template(list(messages), add_generation_prompt=True, tokenize=False)
    return tokenizer(text, add_special_tokens=False)["input_ids"]


def effective_max_new_tokens(spec: ModelSpec, dataset_cap: int) -> int:
    """A model's own cap wins over the data set's."""
    return spec.decoding.max_new_tokens or dataset_cap


def fits_context(prompt_tokens: int, context: int | None) -> bool:
    """Whether a prompt leaves room in the model's context for at least one new token."""
    return context is None or prompt_tokens < context


def room_for_answer(prompt_tokens: int, max_new_tokens: int, context: int | None) -> int:
    """The new tokens a request may generate: its cap, or what the context leaves after the
    prompt when that is less (the answer then ends at the context with finish reason `length`,
    as vLLM ends it)."""
    return max_new_tokens if context is None else min(max_new_tokens, context - prompt_tokens)


def prompt_too_long(request: Request, prompt_tokens: int, context: int, source: str) -> Result:
    """The result of a request whose prompt does not fit the model's context (`source` says where
    the limit comes from): never generated, recorded as "No answer" with the counts in `error`."""
    return Result(
        request.key,
        "",
        PROMPT_TOO_LONG,
        prompt_tokens,
        0,
        f"the prompt is {prompt_tokens} tokens, the model's context {context} ({source}): no room for an answer",
    )


# Finish reasons that say why there is no answer; an empty answer with any other is `empty`.
_NO_ANSWER_REASONS = ("error", "refused", PROMPT_TOO_LONG)


def finalize(result: Result) -> Result:
    """One rule for every backend: an answer without text is recorded as "No answer" with a
    reason; the text a refused or failed answer came with (a content filter stopping part way)
    is kept after the reason, in `error`, not lost. An answer that is not text at all is a failed
    request (never an exception that would lose the rest of the chunk). The error text, which may
    quote what an endpoint sent back, is stored with any API key in it redacted (xlcons.redaction)."""
    if not isinstance(result.response, str):
        why = f"the backend returned a {type(result.response).__name__} as the answer, not text"
        return Result(result.key, NO_ANSWER, "error", result.prompt_tokens, result.completion_tokens, why)
    if result.finish_reason in _NO_ANSWER_REASONS or not result.response.strip():
        reason = result.finish_reason if result.finish_reason in _NO_ANSWER_REASONS else "empty"
        why = result.error or ("the model returned no text" if reason == "empty" else reason)
        if result.response.strip():
            why = f"{why}; partial text: {result.response}"
        return Result(result.key, NO_ANSWER, reason, result.prompt_tokens, result.completion_tokens, redact(why))
    return replace(result, error=redact(result.error))


class Backend(ABC):
    """Turns requests into results. One instance per job: the model is loaded once, in __init__."""

    name: ClassVar[str]
    # How many requests the stage hands over at once; the cache is flushed after each chunk,
    # so this bounds the work a killed job loses. Backends that batch internally take many.
    chunk_size: int = 64

    def __init__(self, spec: ModelSpec):
        self.spec = spec

    @abstractmethod
    def generate(self, requests: Sequence[Request]) -> Iterator[Result]:
        """Yield one result per request, in any order, as they complete."""

    def engine_stats(self) -> dict[str, int]:
        """The engine's own counters for this job (vLLM: prompt tokens computed and served from
        the prefix cache); logged before close. Empty when the engine keeps none."""
        return {}

    def close(self) -> None:  # noqa: B027 - an optional hook: a backend with nothing to free keeps this one
        """Free the model (GPU memory, threads); called once at the end of the job."""


BACKENDS: dict[str, type[Backend]] = {}


def register(cls: type[Backend]) -> type[Backend]:
    """Class decorator: make a backend available under its `name`."""
    BACKENDS[cls.name] = cls
    return cls


def backend_class(name: str, options: Mapping[str, Any] | None = None) -> type[Backend]:
    """The class of a registered backend, importing its module (xlcons.generation.registry) on
    first use, so that, say, vllm is never imported by a job that runs transformers. An option
    of `options` that names one of the backend's modes (`BackendInfo.modes`) gives that mode's class."""
    try:
        info = backend_info(name)
    except KeyError as error:
        raise GenerationError(error.args[0]) from None
    if name not in BACKENDS:
        importlib.import_module(info.module)
    for option, target in info.modes.items():
        if options and options.get(option):
            module, _, class_name = target.partition(":")
            return getattr(importlib.import_module(module), class_name)
    return BACKENDS[name]


def load_backend(spec: ModelSpec) -> Backend:
    """The backend instance for a model (loads the model), in the mode its options ask for."""
    return backend_class(spec.backend, spec.options)(spec)
