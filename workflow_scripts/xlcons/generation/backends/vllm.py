"""vLLM's offline engine: the model loaded once per job, each chunk generated in one batched call.

vLLM is imported inside the backend, never at module level: it lives in its own conda
environment (envs/generate-vllm.yaml, with its own torch), and the parsing functions here
are tested without it.

The context is the engine's `max_model_len` (the `vllm.max_model_len` option, else the model's).
vLLM refuses a prompt that leaves no room for one new token by raising for the whole call, so
every prompt is counted first, rendered by the chat template as `LLM.chat` renders it (the
template, then the tokenizer without special tokens), and one that does not fit gets
`prompt_too_long` without reaching the engine. A prompt that fits but leaves less room than
`max_new_tokens` is generated up to the end of the context: vLLM ends it there with finish
reason `length` (its scheduler stops a request at `max_model_len`).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from typing import Any

from xlcons.generation.base import (
    Backend,
    Decoding,
    GenerationError,
    ModelSpec,
    Request,
    Result,
    chat_prompt_ids,
    fits_context,
    prompt_too_long,
    register,
)

MISSING_VLLM = (
    "the vllm backend needs vLLM, which lives in its own conda environment: envs/generate-vllm.yaml "
    "(run the workflow with --sdm conda, or install vllm==0.33.0 into a separate environment)"
)


def sampling_params_kwargs(decoding: Decoding, max_new_tokens: int) -> dict[str, Any]:
    """Keyword arguments of vllm.SamplingParams for one request.

    Temperature 0 is vLLM's greedy decoding (top_p is then irrelevant but harmless). The
    seed is per request, so a sampled answer does not depend on what it was batched with.
    """
    return {
        "temperature": decoding.temperature,
        "top_p": decoding.top_p,
        "max_tokens": max_new_tokens,
        "repetition_penalty": decoding.repetition_penalty,
        "seed": decoding.seed,
    }


def engine_kwargs(spec: ModelSpec) -> dict[str, Any]:
    """Keyword arguments of vllm.LLM for a model: its `vllm` options, with the defaults of the schema.

    Stats stay on (`disable_log_stats=False`) so that the prefix-cache counters of
    :func:`prefix_cache_stats` can be read at the end of the job.
    """
    options = spec.options
    return {
        "model": spec.location,
        "tensor_parallel_size": int(options.get("tensor_parallel_size", 1)),
        "gpu_memory_utilization": float(options.get("gpu_memory_utilization", 0.9)),
        "max_model_len": options.get("max_model_len"),
        "dtype": options.get("dtype", "auto"),
        "enable_prefix_caching": bool(options.get("enable_prefix_caching", True)),
        "enforce_eager": bool(options.get("enforce_eager", False)),
        "seed": spec.decoding.seed,
        "trust_remote_code": False,
        "disable_log_stats": False,
    }


# vLLM's counters (Prometheus names) of prompt tokens looked up in the prefix cache, and found.
_PREFIX_QUERIES, _PREFIX_HITS = "vllm:prefix_cache_queries", "vllm:prefix_cache_hits"


def prefix_cache_stats(metrics: Sequence[Any]) -> dict[str, int]:
    """Prompt tokens looked up in the prefix cache and served from it, from ``LLM.get_metrics()``.

    ``computed`` is what the engine had to run through the model. Empty when the engine
    reports neither counter (stats off, or a vLLM without them).
    """
    totals = {name: 0 for name in (_PREFIX_QUERIES, _PREFIX_HITS)}
    seen = False
    for metric in metrics:
        if getattr(metric, "name", None) in totals:
            totals[metric.name] += int(getattr(metric, "value", 0))
            seen = True
    if not seen:
        return {}
    prompt, cached = totals[_PREFIX_QUERIES], totals[_PREFIX_HITS]
    return {"prompt_tokens": prompt, "cached_prompt_tokens": cached, "computed_prompt_tokens": prompt - cached}


def parse_request_output(key: str, output: Any) -> Result:
    """A vllm RequestOutput (or anything shaped like it) as a Result.

    `stop` and `length` are kept; any other finish reason (`abort`, or none at all) is an
    error naming it. An output without completions is an error too.
    """
    prompt_ids = getattr(output, "prompt_token_ids", None)
    prompt_tokens = len(prompt_ids) if prompt_ids is not None else None
    completions = getattr(output, "outputs", None) or []
    if not completions:
        return Result(key, "", "error", prompt_tokens, None, "vLLM returned no completion for this request")
    completion = completions[0]
    text = completion.text or ""
    token_ids = getattr(completion, "token_ids", None)
    completion_tokens = len(token_ids) if token_ids is not None else None
    reason = completion.finish_reason
    if reason in ("stop", "length"):
        return Result(key, text, reason, prompt_tokens, completion_tokens)
    return Result(key, text, "error", prompt_tokens, completion_tokens, f"vLLM finish_reason={reason}")


@register
class VLLMBackend(Backend):
    """All requests of a chunk in one `LLM.chat` call; vLLM schedules and batches them itself."""

    name = "vllm"
    # vLLM needs many requests at once to batch well; a chunk is also the work a killed job
    # loses (the stage saves after each chunk, and vLLM returns only when the whole call is
    # done). 4096 prompts keep the GPU saturated while bounding a loss to minutes; the
    # model's `vllm.chunk_size` sets another size.
    chunk_size = 4096

    def __init__(self, spec: ModelSpec):
        super().__init__(spec)
        try:
            import vllm
        except ImportError as error:
            raise GenerationError(f"model '{spec.name}': {MISSING_VLLM}; import failed: {error}") from None
        if not spec.location:
            raise GenerationError(f"model '{spec.name}': the vllm backend needs local weights (fetch the model first)")
        self._vllm = vllm
        self.chunk_size = int(spec.options.get("chunk_size", self.chunk_size))
        self.llm = vllm.LLM(**engine_kwargs(spec))
        self.context = int(self.llm.model_config.max_model_len)
        self.context_source = (
            "vllm.max_model_len" if spec.options.get("max_model_len") else "the model's max_model_len in vLLM"
        )
        self.tokenizer = self.llm.get_tokenizer()

    def prompt_tokens(self, request: Request) -> int:
        """The length of the prompt `LLM.chat` sends for a request: the chat template's text,
        tokenized without special tokens (the template writes them)."""
        return len(chat_prompt_ids(self.tokenizer, [dict(message) for message in request.messages]))

    def generate(self, requests: Sequence[Request]) -> Iterator[Result]:
        fitting = []
        for request in requests:
            length = self.prompt_tokens(request)
            if fits_context(length, self.context):
                fitting.append(request)
            else:
                yield prompt_too_long(request, length, self.context, self.context_source)
        yield from self._generate(fitting)

    def _generate(self, requests: Sequence[Request]) -> Iterator[Result]:
        if not requests:
            return
        conversations = [[dict(message) for message in request.messages] for request in requests]
        params = [
            self._vllm.SamplingParams(**sampling_params_kwargs(self.spec.decoding, request.max_new_tokens))
            for request in requests
        ]
        outputs = self.llm.chat(conversations, sampling_params=params, use_tqdm=len(requests) > 1)
        if len(outputs) != len(requests):
            raise GenerationError(
                f"model '{self.spec.name}': vLLM returned {len(outputs)} outputs for {len(requests)} requests"
            )
        for request, output in zip(requests, outputs):
            yield parse_request_output(request.key, output)

    def engine_stats(self) -> dict[str, int]:
        llm = getattr(self, "llm", None)
        get_metrics = getattr(llm, "get_metrics", None)
        if not callable(get_metrics):
            return {}
        try:
            return prefix_cache_stats(get_metrics())
        except AssertionError:  # an engine made with stats off (vLLM asserts "Stat logging disabled")
            return {}

    def close(self) -> None:
        llm = getattr(self, "llm", None)
        if llm is None:
            return
        engine = getattr(llm, "llm_engine", None)
        shutdown = getattr(getattr(engine, "engine_core", None), "shutdown", None)
        if callable(shutdown):  # vLLM's engine core runs in its own process
            try:
                shutdown()
            except Exception:  # noqa: BLE001 - freeing memory at the end of a job is best effort
                pass
        del engine
        self.llm = None
        del llm
        try:
            from vllm.distributed import parallel_state
        except ImportError:
            parallel_state = None
        for name in ("destroy_model_parallel", "destroy_distributed_environment"):
            destroy = getattr(parallel_state, name, None)
            if callable(destroy):
                try:
                    destroy()
                except Exception:  # noqa: BLE001
                    pass
        gc.collect()
        try:
            import torch

            if torch.cuda.is_available():
                torch.cuda.empty_cache()
        except ImportError:
            pass
