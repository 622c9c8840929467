"""The `hf` backend (xlcons.generation.backends.hf): what it must do with requests.

Most tests run the tiny random-weight Llama of the offline models: it never emits its eos
token, so every answer runs to the cap, and its outputs are meaningless but deterministic.
One slow test runs the real SmolLM2-135M-Instruct on a few MultiQ prompts.
"""

from __future__ import annotations

import csv
import random
import shutil
from pathlib import Path

import pytest

from xlcons.generation.backends.hf import HFBackend, completion_length, context_length, without_cut_character
from xlcons.generation.base import (
    Decoding,
    GenerationError,
    ModelSpec,
    build_requests,
    chat_messages,
    load_backend,
)

# Five prompts of clearly different token lengths.
PROMPTS = [
    "Hi?",
    "What is the capital of France?",
    "Name three primary colours and explain why they are called primary.",
    "Why is the sky blue?",
    "Describe, in a few sentences, how water boils at sea level and why the boiling point drops on a mountain.",
]


def _spec(path: Path, batch_size: int = 4, decoding: Decoding | None = None, **fields) -> ModelSpec:
    return ModelSpec(
        name=fields.pop("name", "tiny"),
        backend="hf",
        location=str(path),
        decoding=decoding or Decoding(max_new_tokens=8),
        options={"device": "cpu", "dtype": "float32", "batch_size": batch_size},
        **fields,
    )


def _rows(prompts: list[str], lang: str = "en") -> list[dict[str, str]]:
    return [{"item_id": f"q{index}", "lang": lang, "prompt": prompt} for index, prompt in enumerate(prompts)]


def _answers(backend, requests) -> dict:
    """Results by key; fails on a missing, extra or repeated key."""
    results = list(backend.generate(requests))
    by_key = {result.key: result for result in results}
    assert len(by_key) == len(results) == len(requests)
    assert set(by_key) == {request.key for request in requests}
    return by_key


@pytest.fixture(scope="module")
def tiny_path(offline_models) -> Path:
    return offline_models["tiny-llm"]


@pytest.fixture(scope="module")
def tiny(tiny_path):
    backend = load_backend(_spec(tiny_path))
    yield backend
    backend.close()


# --------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------


def test_is_registered_as_hf(tiny):
    assert isinstance(tiny, HFBackend) and tiny.name == "hf"


def test_every_request_gets_a_result_that_ran_to_the_cap(tiny, tiny_path):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_path, local_files_only=True)
    requests = build_requests(tiny.spec, _rows(PROMPTS), 8)
    results = _answers(tiny, requests)
    for request in requests:
        result = results[request.key]
        assert isinstance(result.response, str) and result.error is None
        assert result.finish_reason == "length"  # the random model never emits <|end|>
        assert result.completion_tokens == 8
        # The chat prompt as transformers itself tokenises it (no special tokens added on top).
        expected = tokenizer.apply_chat_template(list(request.messages), add_generation_prompt=True, tokenize=True)
        assert result.prompt_tokens == len(expected["input_ids"])


def test_each_request_keeps_its_own_cap(tiny):
    short = build_requests(tiny.spec, _rows(PROMPTS[:3]), 3)
    long = build_requests(tiny.spec, _rows(PROMPTS[2:]), 7)
    results = _answers(tiny, short + long)
    assert [results[request.key].completion_tokens for request in short] == [3, 3, 3]
    assert [results[request.key].completion_tokens for request in long] == [7, 7, 7]


def test_batching_does_not_change_greedy_answers(tiny_path):
    """Left padding is right: a prompt padded in a batch of five is answered as it is alone."""
    alone = load_backend(_spec(tiny_path, batch_size=1))
    together = load_backend(_spec(tiny_path, batch_size=5))
    requests = build_requests(alone.spec, _rows(PROMPTS), 8)
    assert len({len(together.prompt_ids(request)) for request in requests}) == len(PROMPTS)
    assert _answers(alone, requests) == _answers(together, requests)
    alone.close()
    together.close()


def test_results_are_matched_by_key_whatever_the_order(tiny):
    requests = build_requests(tiny.spec, _rows(PROMPTS), 8)
    shuffled = requests[:]
    random.Random(1).shuffle(shuffled)
    assert shuffled != requests
    assert _answers(tiny, shuffled) == _answers(tiny, requests)


def test_results_come_batch_by_batch(tiny):
    """The stage checkpoints between results: the first batch arrives before the rest is run."""
    requests = build_requests(tiny.spec, _rows(PROMPTS * 2), 4)
    stream = tiny.generate(requests)
    first = [next(stream) for _ in range(tiny.batch_size)]
    assert len(first) == 4
    assert len(list(stream)) == len(requests) - 4
    assert tiny.chunk_size % tiny.batch_size == 0


def _prompt_of(backend, tokens: int) -> str:
    """A prompt that is exactly `tokens` tokens once the chat template is applied (the tiny
    tokenizer has one token for each " a")."""

    def length(prompt: str) -> int:
        return len(backend.prompt_ids(build_requests(backend.spec, _rows([prompt]), 8)[0]))

    prompt = " ".join(["a"] * (tokens - (length("a") - 1)))
    assert length(prompt) == tokens
    return prompt


def test_a_prompt_longer_than_the_context_is_refused_and_the_others_answered(tiny):
    """The tiny model's context is 4,096 tokens (max_position_embeddings): a 9,007-token prompt is
    not generated (a rotary model would run past its positions and answer with noise) but gets
    `prompt_too_long` with its token count and the limit; the prompts beside it are answered as
    they are without it."""
    assert (tiny.context, tiny.context_source) == (4096, "max_position_embeddings in config.json")
    requests = build_requests(tiny.spec, _rows(PROMPTS[:2] + [_prompt_of(tiny, 9007)]), 8)
    results = _answers(tiny, requests)
    long = results[requests[2].key]
    assert (long.response, long.finish_reason, long.prompt_tokens, long.completion_tokens) == (
        "",
        "prompt_too_long",
        9007,
        0,
    )
    assert long.error == (
        "the prompt is 9007 tokens, the model's context 4096 "
        "(max_position_embeddings in config.json): no room for an answer"
    )
    assert [results[request.key].finish_reason for request in requests[:2]] == ["length", "length"]
    assert {key: results[key] for key in (requests[0].key, requests[1].key)} == _answers(tiny, requests[:2])


def test_a_prompt_must_leave_room_for_one_new_token_and_the_answer_ends_with_the_context(tiny):
    """prompt + 1 new token must fit: 4,096 tokens is refused, 4,095 gets one token; a prompt that
    leaves less room than max_new_tokens is answered up to the end of the context (`length`)."""
    requests = build_requests(tiny.spec, _rows([_prompt_of(tiny, n) for n in (4096, 4095, 4092, 400)]), 8)
    results = _answers(tiny, requests)
    got = [
        (results[r.key].finish_reason, results[r.key].prompt_tokens, results[r.key].completion_tokens) for r in requests
    ]
    assert got == [("prompt_too_long", 4096, 0), ("length", 4095, 1), ("length", 4092, 4), ("length", 400, 8)]


def test_the_context_is_the_smaller_of_the_configs_positions_and_the_tokenizers_limit():
    from types import SimpleNamespace

    gpt2 = SimpleNamespace(n_positions=1024)
    assert context_length(gpt2, SimpleNamespace(model_max_length=int(1e30))) == (1024, "n_positions in config.json")
    llama = SimpleNamespace(max_position_embeddings=32768)
    assert context_length(llama, SimpleNamespace(model_max_length=4096)) == (4096, "model_max_length of the tokenizer")
    assert context_length(SimpleNamespace(), SimpleNamespace(model_max_length=int(1e30))) is None


def test_sampling_is_seeded(tiny_path):
    sampled = Decoding(temperature=0.9, top_p=0.9, seed=7, max_new_tokens=8)
    backend = load_backend(_spec(tiny_path, decoding=sampled))
    requests = build_requests(backend.spec, _rows(PROMPTS), 8)
    first = _answers(backend, requests)
    assert _answers(backend, requests) == first
    other = load_backend(_spec(tiny_path, decoding=Decoding(temperature=0.9, top_p=0.9, seed=8, max_new_tokens=8)))
    assert [result.response for result in _answers(other, requests).values()] != [
        result.response for result in first.values()
    ]
    backend.close()
    other.close()


def test_a_system_prompt_reaches_the_chat_template(tiny_path):
    system = "You answer in one word."
    backend = load_backend(_spec(tiny_path, system_prompt=system))
    (request,) = build_requests(backend.spec, _rows(["What colour is the sky?"]), 4)
    assert request.messages == chat_messages(backend.spec, "What colour is the sky?")
    text = backend.prompt_text(request)
    assert system in text and "What colour is the sky?" in text
    assert text.index(system) < text.index("What colour is the sky?")
    assert text.endswith("<|assistant|>\n")  # the generation prompt
    (result,) = backend.generate([request])
    assert result.prompt_tokens == len(backend.prompt_ids(request))
    backend.close()


@pytest.mark.parametrize(
    ("generated", "expected"),
    [
        ([5, 6, 7, 8], (4, "length")),  # ran into the cap
        ([5, 2, 0, 0], (2, "stop")),  # eos, then the batch's padding: not counted
        ([5, 6, 7, 2], (4, "stop")),  # eos as the last allowed token is still a stop
        ([2, 2, 2, 2], (1, "stop")),  # pad == eos (SmolLM2): only the first one counts
    ],
)
def test_completion_tokens_run_up_to_and_including_eos(generated, expected):
    assert completion_length(generated, {2}) == expected


# --------------------------------------------------------------------------------------
# Misconfiguration
# --------------------------------------------------------------------------------------


def test_a_missing_model_directory_names_model_and_path(tmp_path):
    missing = tmp_path / "no-such-model"
    with pytest.raises(GenerationError) as error:
        load_backend(_spec(missing, name="my-llm"))
    assert "my-llm" in str(error.value) and str(missing) in str(error.value)


def test_a_directory_that_is_no_model_names_model_and_path(tmp_path):
    with pytest.raises(GenerationError) as error:
        load_backend(_spec(tmp_path, name="my-llm"))
    assert "my-llm" in str(error.value) and str(tmp_path) in str(error.value)


def test_a_tokenizer_without_chat_template_is_refused(tiny_path, tmp_path):
    base_model = tmp_path / "base-model"
    base_model.mkdir()
    for file in tiny_path.iterdir():
        if file.name != "chat_template.jinja":
            shutil.copy(file, base_model)
    with pytest.raises(GenerationError, match="chat template") as error:
        load_backend(_spec(base_model, name="base-llm"))
    assert "base-llm" in str(error.value)


@pytest.mark.parametrize(
    "options",
    [{"device": "tpu"}, {"dtype": "int4"}, {"batch_size": 0}, {"batch_size": "4"}],
)
def test_invalid_options_are_refused(tiny_path, options):
    spec = ModelSpec(name="tiny", backend="hf", location=str(tiny_path), options={"device": "cpu", **options})
    with pytest.raises(GenerationError, match="tiny"):
        load_backend(spec)


# --------------------------------------------------------------------------------------
# A real model
# --------------------------------------------------------------------------------------


def _multiq_rows(shared_data: Path, languages: tuple[str, ...], per_language: int) -> list[dict[str, str]]:
    """The first `per_language` MultiQ prompts (in file order) of each language."""
    rows: dict[str, list[dict[str, str]]] = {lang: [] for lang in languages}
    with open(shared_data / "multiq" / "MultiQ.csv", newline="", encoding="utf-8") as file:
        for record in csv.DictReader(file):
            chosen = rows.get(record["language"])
            if chosen is not None and len(chosen) < per_language:
                chosen.append({"item_id": record["id"], "lang": record["language"], "prompt": record["prompt"]})
    return [row for lang in languages for row in rows[lang]]


@pytest.mark.slow
def test_smollm2_answers_multiq_prompts(offline_models, shared_data):
    rows = _multiq_rows(shared_data, ("en", "de", "fr"), 2)
    assert [row["item_id"] for row in rows] == ["gpt-1", "gpt-2"] * 3
    spec = _spec(offline_models["smollm2-135m-instruct"], name="smollm2", decoding=Decoding(max_new_tokens=24))
    backend = load_backend(spec)
    requests = build_requests(spec, rows, 24)
    first = _answers(backend, requests)
    assert _answers(backend, requests) == first  # greedy: a second run answers the same
    backend.close()

    for result in first.values():
        assert result.response.strip()
        assert result.finish_reason in ("stop", "length")
        assert 0 < result.completion_tokens <= 24 and result.prompt_tokens > 0
        if result.finish_reason == "length":
            assert result.completion_tokens == 24
    (water,) = [request for request in requests if request.item_id == "gpt-1" and request.lang == "en"]
    assert water.prompt == "What is the chemical formula for water?"
    assert "H2O" in first[water.key].response or "H₂O" in first[water.key].response


def test_a_character_cut_by_the_token_cap_is_dropped_not_kept_as_a_replacement_mark():
    """SmolLM2's byte-level tokens split 福 over several tokens: an answer cut after the first
    ones decodes to U+FFFD, which vLLM's detokenizer holds back; so does this backend."""
    assert without_cut_character("水的化学式是一种福\ufffd") == "水的化学式是一种福"
    assert without_cut_character("complete.") == "complete."
