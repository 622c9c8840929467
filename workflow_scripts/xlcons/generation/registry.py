"""The generation backends, one entry each: every fact the workflow needs about a backend.

The plan reads this table to decide what a job of a backend needs (its conda env, its
weights as an input, GPUs and memory) and the generation stage to find the backend's
class; the config schema's `backend` enum is checked against it by a test. Adding a
backend is an entry here and its module under `xlcons.generation.backends` (see
docs/extending.md). Standard library only: the Snakefile imports it while it builds the DAG.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


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
    has_tokenizer: bool  # its tokenizer can be loaded from the local files (paper 004's analysis)
    options_key: str | None  # the backend's own section of a model's config
    mem_mb: int  # memory of one job on the first attempt; each retry asks for this much more
    gpus: Callable[[Mapping[str, Any]], int] = _no_gpus
    recorded: bool = False  # `path` holds answers already given (a responses file or released outputs)


BACKENDS: dict[str, BackendInfo] = {
    info.name: info
    for info in (
        # vLLM pins its own torch and transformers, hence its own env.
        BackendInfo("vllm", "xlcons.generation.backends.vllm", "generate-vllm", True, True, "vllm", 64000, _tensor_parallel_gpus),
        BackendInfo("hf", "xlcons.generation.backends.hf", "generate", True, True, "hf", 16000, _one_gpu_unless_cpu),
        BackendInfo("openai", "xlcons.generation.backends.openai_api", "generate", False, False, "api", 2000),
        BackendInfo("file", "xlcons.generation.backends.recorded", "generate", True, False, None, 2000, recorded=True),
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
        picked[info.options_key] = spec.get(info.options_key, {})
    return picked
