"""The generation backends, one entry each: every fact the workflow needs about a backend.

The plan reads this table to decide what a job of a backend needs (its conda env, its
weights as an input, GPUs and memory) and the generation stage to find the backend's
class, and the config schema to offer it: the `backend` enum, its description and the
backend's options section of a model's config are added by xlcons.config.load_schema from
the entries. Adding a backend is an entry here, its module under
`xlcons.generation.backends` and its tests (see docs/extending.md). Standard library only:
the Snakefile imports it while it builds the DAG.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from xlcons.config_sections import closed_section
from xlcons.redaction import ENV_NAME_PATTERN


def _no_gpus(spec: Mapping[str, Any]) -> int:
    return 0


def _tensor_parallel_gpus(spec: Mapping[str, Any]) -> int:
    return spec["vllm"]["tensor_parallel_size"]


def _one_gpu_unless_cpu(spec: Mapping[str, Any]) -> int:
    return 0 if spec["hf"]["device"] == "cpu" else 1


@dataclass(frozen=True)
class BackendInfo:
    name: str
    module: str  # defines and registers the Backend subclass
    env: str  # envs/<env>.yaml of a job running this backend
    # The model is a local file or folder (fetched weights, or recorded responses) that
    # the job reads, so it is an input of the job; False for a served (HTTP) model.
    local_files: bool
    has_tokenizer: bool  # its tokenizer can be loaded from the local files (Holtermann et al. 2024's analysis)
    options_key: str | None  # the backend's own section of a model's config
    mem_mb: int  # memory of one job on the first attempt; each retry asks for this much more
    gpus: Callable[[Mapping[str, Any]], int] = _no_gpus
    recorded: bool = False  # `path` holds answers already given (a responses file or released outputs)
    summary: str = ""  # what it is, in the description of the schema's `backend` key
    # The JSON schema of its options section (a model's config key `options_key`; built by closed_section).
    options: Mapping[str, Any] | None = None
    # Options that name the environment variable holding a secret (never the secret itself):
    # the config check refuses a value that looks like a key, without repeating it.
    key_env_options: tuple[str, ...] = ()
    # Boolean options that run the backend in another mode: option -> "module:Class", a subclass
    # of the backend's class (the openai backend's `batch`: the Batch API). xlcons.generation.base
    # .load_backend picks the mode's class when the model's options section sets the option.
    modes: Mapping[str, str] = field(default_factory=dict)
    # Options added after runs were made with this backend, which change how requests travel and
    # not the answers: at their schema default they stay out of a job's params (model_fields),
    # so those runs do not rerun their jobs. The backend reads such an option with the same
    # default (`option_default`).
    quiet_defaults: tuple[str, ...] = ()

    def option_default(self, option: str) -> Any:
        """An option's default, as the schema declares it."""
        return ((self.options or {}).get("properties") or {})[option]["default"]


BACKENDS: dict[str, BackendInfo] = {
    info.name: info
    for info in (
        # vLLM pins its own torch and transformers, hence its own env.
        BackendInfo(
            "vllm",
            "xlcons.generation.backends.vllm",
            "generate-vllm",
            local_files=True,
            has_tokenizer=True,
            options_key="vllm",
            mem_mb=64000,
            gpus=_tensor_parallel_gpus,
            summary="offline LLM on GPUs",
            options=closed_section(
                "vLLM engine settings.",
                {
                    "tensor_parallel_size": {
                        "description": "GPUs the model is split over; the job requests this many GPUs.",
                        "type": "integer",
                        "minimum": 1,
                        "default": 1,
                    },
                    "gpu_memory_utilization": {
                        "description": "Share of each GPU's memory vLLM may take.",
                        "type": "number",
                        "exclusiveMinimum": 0,
                        "maximum": 1,
                        "default": 0.9,
                    },
                    "max_model_len": {
                        "description": "Context length; the model's own when null.",
                        "type": ["integer", "null"],
                        "minimum": 1,
                        "default": None,
                    },
                    "dtype": {
                        "description": "Weight dtype.",
                        "enum": ["auto", "float16", "bfloat16", "float32"],
                        "default": "auto",
                    },
                    "enable_prefix_caching": {
                        "description": "Reuse the computed attention of prompt prefixes that requests "
                        "share (the information evaluator puts every sentence of a response behind "
                        "one); the job log gives the share of prompt tokens served from the cache.",
                        "type": "boolean",
                        "default": True,
                    },
                    "enforce_eager": {
                        "description": "Run without CUDA graphs (starts faster, generates "
                        "slower); vLLM's CPU build, used by the tests, needs it.",
                        "type": "boolean",
                        "default": False,
                    },
                    "chunk_size": {
                        "description": "Requests handed to vLLM in one call; the answers are saved "
                        "after each call, so a killed job loses at most one call's work.",
                        "type": "integer",
                        "minimum": 1,
                        "default": 4096,
                    },
                },
            ),
        ),
        BackendInfo(
            "hf",
            "xlcons.generation.backends.hf",
            "generate",
            local_files=True,
            has_tokenizer=True,
            options_key="hf",
            mem_mb=16000,
            gpus=_one_gpu_unless_cpu,
            summary="transformers generate, CPU or GPU",
            options=closed_section(
                "transformers generation settings.",
                {
                    "device": {
                        "description": "`auto` (a GPU when the job has one), `cpu` or `cuda`.",
                        "enum": ["auto", "cpu", "cuda"],
                        "default": "auto",
                    },
                    "dtype": {
                        "description": "Weight dtype.",
                        "enum": ["auto", "float32", "float16", "bfloat16"],
                        "default": "auto",
                    },
                    "batch_size": {
                        "description": "Prompts per generate call (left-padded, length-sorted).",
                        "type": "integer",
                        "minimum": 1,
                        "default": 8,
                    },
                },
            ),
        ),
        BackendInfo(
            "openai",
            "xlcons.generation.backends.openai_api",
            "generate",
            local_files=False,
            has_tokenizer=False,
            options_key="api",
            mem_mb=2000,
            summary="any OpenAI-compatible HTTP endpoint",
            key_env_options=("api_key_env",),
            modes={"batch": "xlcons.generation.backends.openai_batch:OpenAIBatchBackend"},
            quiet_defaults=("batch", "batch_poll_s", "batch_max_requests"),
            options=closed_section(
                "OpenAI-compatible endpoint settings (backend openai).",
                {
                    "base_url": {
                        "description": "Endpoint base URL; the OpenAI API when null.",
                        "type": ["string", "null"],
                        "default": None,
                    },
                    "model": {
                        "description": "Model name the endpoint expects; hf_id when null.",
                        "type": ["string", "null"],
                        "default": None,
                    },
                    "api_key_env": {
                        "description": "Name of the environment variable that holds the API key; a value "
                        "shaped like a key is refused (the rule: docs/generation.md#api-keys).",
                        "type": "string",
                        "pattern": ENV_NAME_PATTERN,
                        "default": "OPENAI_API_KEY",
                    },
                    "max_concurrency": {
                        "description": "Requests in flight at once.",
                        "type": "integer",
                        "minimum": 1,
                        "default": 8,
                    },
                    "timeout_s": {
                        "description": "Seconds one attempt at a request may take in all (connecting, sending, "
                        "waiting and reading the whole answer, however slowly the server sends it); past it the "
                        "attempt is a timeout, retried like any (api.max_retries). With api.batch it bounds each "
                        "step of a call to the Files and Batches endpoints instead.",
                        "type": "number",
                        "exclusiveMinimum": 0,
                        "default": 120,
                    },
                    "max_retries": {
                        "description": "Retries (exponential backoff) on 429, 5xx "
                        "and timeouts before the item is recorded as failed.",
                        "type": "integer",
                        "minimum": 0,
                        "default": 6,
                    },
                    "batch": {
                        "description": "Send the requests the cache lacks through the Batch API (one "
                        "uploaded file, answered within 24 h, at half the price on OpenAI) instead of one "
                        "by one; the job records the batch id beside its cache and resumes polling it "
                        "when run again (docs/generation.md#batch-api). Models, the judge and the "
                        "information evaluator; not the LLM translator.",
                        "type": "boolean",
                        "default": False,
                    },
                    "batch_poll_s": {
                        "description": "Seconds between two looks at a submitted batch's status (api.batch).",
                        "type": "number",
                        "exclusiveMinimum": 0,
                        "default": 60,
                    },
                    "batch_max_requests": {
                        "description": "Most requests in one batch (OpenAI's limit: 50,000 and 200 MB); more "
                        "missing requests are split over several batches, submitted together (api.batch).",
                        "type": "integer",
                        "minimum": 1,
                        "default": 50000,
                    },
                },
            ),
        ),
        BackendInfo(
            "file",
            "xlcons.generation.backends.recorded",
            "generate",
            local_files=True,
            has_tokenizer=False,
            options_key=None,
            mem_mb=2000,
            recorded=True,
            summary="responses you already have: `path` names a "
            "CSV/JSONL/Parquet file with item_id (or id), language (or lang), response",
        ),
    )
}


def backend_info(name: str) -> BackendInfo:
    if name not in BACKENDS:
        raise KeyError(f"unknown generation backend '{name}'; known: {', '.join(sorted(BACKENDS))}")
    return BACKENDS[name]


def model_fields(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The part of a model's config that changes its answers: what a job's params carry.

    Reporting-only keys (training_languages) and the prompting filter (languages) stay
    out, so editing them reruns no job upstream of the tables.
    """
    info = backend_info(spec["backend"])
    fields = ("backend", "hf_id", "revision", "hf_file", "path", "released", "system_prompt", "decoding")
    picked = {key: spec.get(key) for key in fields}
    if info.options_key:
        options = spec.get(info.options_key, {})
        quiet = {key for key in info.quiet_defaults if key in options and options[key] == info.option_default(key)}
        picked[info.options_key] = {key: value for key, value in options.items() if key not in quiet}
    return picked
