"""The vLLM backend (xlcons.generation.backends.vllm) without vLLM: its pure parts.

vLLM runs only in its own environment (envs/generate-vllm.yaml) on a GPU; here the
sampling parameters and the parsing of vLLM's outputs are checked on plain objects, and
a job that picks the backend without vLLM must fail with a message saying where it lives.
tests/gpu/compare_vllm_hf.py compares it with the transformers backend on a GPU machine.
"""

from __future__ import annotations

import sys
from types import SimpleNamespace

import pytest

from xlcons.generation import base
from xlcons.generation.backends.vllm import (
    VLLMBackend,
    engine_kwargs,
    parse_request_output,
    prefix_cache_stats,
    sampling_params_kwargs,
)
from xlcons.generation.base import Decoding, GenerationError, ModelSpec
from xlcons.schemas import NO_ANSWER


def test_greedy_decoding_is_temperature_zero():
    assert sampling_params_kwargs(Decoding(), 256) == {
        "temperature": 0.0,
        "top_p": 1.0,
        "max_tokens": 256,
        "repetition_penalty": 1.0,
        "seed": 0,
    }


def test_sampled_decoding_passes_every_parameter():
    decoding = Decoding(temperature=0.8, top_p=0.95, max_new_tokens=99, repetition_penalty=1.1, seed=7)
    # The request's cap is the effective one (the model's own cap is already folded into it).
    assert sampling_params_kwargs(decoding, 64) == {
        "temperature": 0.8,
        "top_p": 0.95,
        "max_tokens": 64,
        "repetition_penalty": 1.1,
        "seed": 7,
    }


def request_output(*completions, prompt_token_ids=(1, 2, 3, 4)):
    return SimpleNamespace(prompt_token_ids=list(prompt_token_ids), outputs=list(completions))


def completion(text, finish_reason, token_ids=(5, 6)):
    return SimpleNamespace(text=text, finish_reason=finish_reason, token_ids=list(token_ids))


@pytest.mark.parametrize("reason", ["stop", "length"])
def test_finished_outputs_keep_text_reason_and_token_counts(reason):
    result = parse_request_output("k", request_output(completion("Paris.", reason, token_ids=(9, 9, 9))))
    assert result.to_record() == {
        "key": "k",
        "response": "Paris.",
        "finish_reason": reason,
        "prompt_tokens": 4,
        "completion_tokens": 3,
        "error": None,
    }


@pytest.mark.parametrize("reason", ["abort", None, "something-new"])
def test_any_other_finish_reason_is_an_error_naming_it(reason):
    result = parse_request_output("k", request_output(completion("Par", reason)))
    assert result.finish_reason == "error"
    assert str(reason) in result.error
    assert base.finalize(result).response == NO_ANSWER


def test_an_output_without_completions_is_an_error():
    result = parse_request_output("k", request_output())
    assert (result.response, result.finish_reason, result.prompt_tokens) == ("", "error", 4)
    assert "no completion" in result.error


def test_without_vllm_the_backend_says_where_vllm_lives(monkeypatch):
    monkeypatch.setitem(sys.modules, "vllm", None)  # `import vllm` fails even where it is installed
    spec = ModelSpec(name="qwen", backend="vllm", location="/models/qwen", options={"tensor_parallel_size": 1})
    with pytest.raises(GenerationError, match="envs/generate-vllm.yaml") as raised:
        VLLMBackend(spec)
    assert "qwen" in str(raised.value) and "vllm==0.33.0" in str(raised.value)


def test_the_backend_is_registered_under_vllm_with_large_chunks():
    assert base.backend_class("vllm") is VLLMBackend
    assert VLLMBackend.chunk_size >= 1024


def test_the_engine_gets_the_models_vllm_options_with_prefix_caching_and_stats_on_by_default():
    spec = ModelSpec(name="m", backend="vllm", location="/models/m", decoding=Decoding(seed=3))
    assert engine_kwargs(spec) == {
        "model": "/models/m",
        "tensor_parallel_size": 1,
        "gpu_memory_utilization": 0.9,
        "max_model_len": None,
        "dtype": "auto",
        "enable_prefix_caching": True,
        "enforce_eager": False,
        "seed": 3,
        "trust_remote_code": False,
        "disable_log_stats": False,
    }
    options = {
        "tensor_parallel_size": 2,
        "max_model_len": 1024,
        "dtype": "float32",
        "enable_prefix_caching": False,
        "enforce_eager": True,
    }
    tuned = engine_kwargs(ModelSpec(name="m", backend="vllm", location="/m", options=options))
    assert {key: tuned[key] for key in options} == options


def metric(name, value):
    return SimpleNamespace(name=name, value=value)


def test_prefix_cache_counters_say_how_many_prompt_tokens_were_computed():
    metrics = [
        metric("vllm:prefix_cache_queries", 1200),
        metric("vllm:prefix_cache_hits", 900),
        metric("vllm:num_requests_running", 0),
    ]
    assert prefix_cache_stats(metrics) == {
        "prompt_tokens": 1200,
        "cached_prompt_tokens": 900,
        "computed_prompt_tokens": 300,
    }
    assert prefix_cache_stats([metric("vllm:num_requests_running", 0)]) == {}, (
        "no counters: nothing to report, not zeros"
    )


def test_the_job_log_gives_the_share_served_from_the_prefix_cache(caplog):
    from xlcons.generation.stage import log_engine_stats

    class Counted(base.Backend):
        name = "counted"

        def generate(self, requests):
            return iter(())

        def engine_stats(self):
            return {"prompt_tokens": 1200, "cached_prompt_tokens": 900, "computed_prompt_tokens": 300}

    spec = ModelSpec(name="judge", backend="vllm", location="/m")
    with caplog.at_level("INFO"):
        log_engine_stats(spec, Counted(spec))
    assert "judge: prefix cache served 900 of 1200 prompt tokens (75.0%); 300 computed" in caplog.text
