"""The `hf` backend: answers with transformers' `generate`, for models vLLM cannot run and for CPU runs.

Options (the model's `hf:` section of the config):

- ``device``: ``auto`` (CUDA when available, else CPU), ``cpu`` or ``cuda``.
- ``dtype``: ``auto``, ``float32``, ``float16`` or ``bfloat16``. ``auto`` is bfloat16 on a GPU
  that supports it and float32 otherwise. It is deliberately not the checkpoint's own dtype: that
  records how the weights were saved (SmolLM2, for one, is saved in float32), not how to run them,
  and float16 is left to an explicit choice because some models overflow in it.
- ``batch_size``: prompts per `generate` call (default 8).

Decoding follows the model's `decoding` section and nothing else: greedy when the temperature is
0, otherwise sampling with that temperature and top_p and with top-k switched off, so sampling
defaults in a checkpoint's generation_config.json do not silently change what the cache key
(which covers the decoding section) describes. Sampling is seeded with `decoding.seed` before
every batch, so a batch's answers do not depend on what ran before it in the job; they still
depend on which prompts share the batch (padding and batch shape change the random draws), so
sampled answers are reproducible for the same requests and batch size, not across batch sizes.

The model's context is the smaller of the positions its config gives it (`max_position_embeddings`,
or `n_positions`, ... for other architectures) and the tokenizer's `model_max_length` (when set):
transformers enforces neither (a rotary model runs past its trained positions and answers with
noise), so the backend does. A prompt that, rendered by the chat template, leaves no room for one
new token is not generated: its result is `prompt_too_long` (base.prompt_too_long). A prompt that
fits but leaves less room than `max_new_tokens` is generated up to the end of the context, and ends
with finish reason `length`, as vLLM ends it.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from itertools import groupby
from pathlib import Path

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from xlcons.generation.base import (
    Backend,
    GenerationError,
    ModelSpec,
    Request,
    Result,
    chat_prompt_ids,
    fits_context,
    prompt_too_long,
    register,
    room_for_answer,
)

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
DEVICES = ("auto", "cpu", "cuda")
DEFAULT_BATCH_SIZE = 8
# The stage hands over `CHUNK_BATCHES` full batches at a time: enough for sorting by length to
# group similar prompts, few enough that a killed job loses only a few batches of work.
CHUNK_BATCHES = 8


# Where model configs keep the number of positions the model was trained on, by architecture.
POSITION_ATTRIBUTES = ("max_position_embeddings", "n_positions", "max_sequence_length", "seq_length", "n_ctx")
# transformers' stand-in for "no limit" in a tokenizer's model_max_length (int(1e30)); anything
# this large is no limit either.
_NO_LIMIT = 10**12


def context_length(config, tokenizer) -> tuple[int, str] | None:
    """The model's context in tokens and where it comes from: the smaller of its config's number
    of positions and the tokenizer's `model_max_length`; None when neither says."""
    text_config = config.get_text_config() if hasattr(config, "get_text_config") else config
    limits = []
    for name in POSITION_ATTRIBUTES:
        value = getattr(text_config, name, None)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            limits.append((value, f"{name} in config.json"))
            break
    declared = getattr(tokenizer, "model_max_length", None)
    if isinstance(declared, int) and 0 < declared < _NO_LIMIT:
        limits.append((declared, "model_max_length of the tokenizer"))
    return min(limits) if limits else None


def completion_length(new_tokens: Sequence[int], eos_ids: set[int]) -> tuple[int, str]:
    """How many generated tokens belong to the answer, and why it ended.

    `generate` pads a sequence that finished early (with the pad token, often the eos token
    itself) until the whole batch is done, so the answer runs up to and including the first
    eos token; without one it ran into the cap.
    """
    for index, token in enumerate(new_tokens):
        if token in eos_ids:
            return index + 1, "stop"
    return len(new_tokens), "length"


def without_cut_character(text: str) -> str:
    """An answer cut off by the token cap can end in the first bytes of a character (a Chinese
    character spans several byte tokens), which decode to U+FFFD: those are dropped, as vLLM's
    detokenizer drops them, so both backends give the same text for the same tokens."""
    return text.rstrip("\ufffd")


@register
class HFBackend(Backend):
    name = "hf"

    def __init__(self, spec: ModelSpec):
        super().__init__(spec)
        options = spec.options
        self.device = self._device(options.get("device", "auto"))
        self.dtype = self._dtype(options.get("dtype", "auto"))
        self.batch_size = self._batch_size(options.get("batch_size", DEFAULT_BATCH_SIZE))
        # An instance attribute over the class default: chunks are whole batches.
        self.chunk_size = CHUNK_BATCHES * self.batch_size

        location = Path(spec.location) if spec.location else None
        if location is None or not location.is_dir():
            raise GenerationError(
                f"model '{spec.name}': no model directory at {spec.location!r}; fetch the model or fix its path"
            )
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(location, local_files_only=True)
        except (OSError, ValueError) as error:
            raise GenerationError(f"model '{spec.name}': cannot load a tokenizer from {location}: {error}") from error
        if not self.tokenizer.chat_template:
            # Prompts without the model's chat format would be answered, badly, without any sign.
            raise GenerationError(
                f"model '{spec.name}': the tokenizer in {location} has no chat template; "
                "use an instruction-tuned model or add its chat_template.jinja"
            )
        self.tokenizer.padding_side = "left"  # new tokens must follow each prompt directly
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        try:
            model = AutoModelForCausalLM.from_pretrained(location, dtype=self.dtype, local_files_only=True)
        except (OSError, ValueError) as error:
            raise GenerationError(f"model '{spec.name}': cannot load a causal LM from {location}: {error}") from error
        self.model = model.to(self.device).eval()
        # Stop on the generation config's eos tokens and the tokenizer's (the chat models' end of
        # turn), and count an answer as stopped on exactly the same set.
        configured = self.model.generation_config.eos_token_id
        configured = [configured] if isinstance(configured, int) else list(configured or [])
        self.eos_ids = set(configured) | (
            {self.tokenizer.eos_token_id} if self.tokenizer.eos_token_id is not None else set()
        )
        if not self.eos_ids:
            raise GenerationError(
                f"model '{spec.name}': neither the tokenizer nor the generation config in {location} names an eos token"
            )
        self.context, self.context_source = context_length(self.model.config, self.tokenizer) or (None, None)

    def _device(self, device: str) -> str:
        if device not in DEVICES:
            raise GenerationError(
                f"model '{self.spec.name}': hf.device must be one of {', '.join(DEVICES)}, not {device!r}"
            )
        if device == "auto":
            return "cuda" if torch.cuda.is_available() else "cpu"
        if device == "cuda" and not torch.cuda.is_available():
            raise GenerationError(f"model '{self.spec.name}': hf.device is cuda but no CUDA device is available")
        return device

    def _dtype(self, dtype: str) -> torch.dtype:
        if dtype == "auto":
            return torch.bfloat16 if self.device == "cuda" and torch.cuda.is_bf16_supported() else torch.float32
        if dtype not in DTYPES:
            raise GenerationError(
                f"model '{self.spec.name}': hf.dtype must be auto or one of {', '.join(DTYPES)}, not {dtype!r}"
            )
        return DTYPES[dtype]

    def _batch_size(self, batch_size: object) -> int:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise GenerationError(
                f"model '{self.spec.name}': hf.batch_size must be a positive integer, not {batch_size!r}"
            )
        return batch_size

    def prompt_text(self, request: Request) -> str:
        """The request's conversation as the model sees it, rendered by the model's chat template."""
        return self.tokenizer.apply_chat_template(list(request.messages), add_generation_prompt=True, tokenize=False)

    def prompt_ids(self, request: Request) -> list[int]:
        """The prompt's token ids. The template writes every special token the model expects
        (a BOS token, where the model has one, is part of it), so the tokenizer adds none."""
        return chat_prompt_ids(self.tokenizer, request.messages)

    def generate(self, requests: Sequence[Request]) -> Iterator[Result]:
        """Answer in batches of similar prompt length, longest first, so a batch too large for
        memory fails at once rather than hours in; results are yielded batch by batch. Prompts
        that do not fit the context are answered first, without the model."""
        encoded = []
        for request in requests:
            ids = self.prompt_ids(request)
            if fits_context(len(ids), self.context):
                encoded.append((request, ids, room_for_answer(len(ids), request.max_new_tokens, self.context)))
            else:
                yield prompt_too_long(request, len(ids), self.context, self.context_source)
        # One cap per batch (the request's, or less where the context leaves less): group by it,
        # then sort by length within the group.
        encoded.sort(key=lambda entry: (entry[2], -len(entry[1])))
        for cap, entries in groupby(encoded, key=lambda entry: entry[2]):
            group = [(request, ids) for request, ids, _ in entries]
            for start in range(0, len(group), self.batch_size):
                yield from self._generate_batch(group[start : start + self.batch_size], cap)

    def _generate_batch(self, batch: list[tuple[Request, list[int]]], max_new_tokens: int) -> list[Result]:
        width = max(len(ids) for _, ids in batch)
        pad_id = self.tokenizer.pad_token_id
        input_ids = torch.tensor([[pad_id] * (width - len(ids)) + ids for _, ids in batch], device=self.device)
        attention_mask = torch.tensor(
            [[0] * (width - len(ids)) + [1] * len(ids) for _, ids in batch], device=self.device
        )
        decoding = self.spec.decoding
        sampling = (
            {"temperature": decoding.temperature, "top_p": decoding.top_p, "top_k": 0} if not decoding.greedy else {}
        )
        torch.manual_seed(decoding.seed)
        with torch.inference_mode():
            output = self.model.generate(
                input_ids=input_ids,
                attention_mask=attention_mask,
                max_new_tokens=max_new_tokens,
                do_sample=not decoding.greedy,
                repetition_penalty=decoding.repetition_penalty,
                pad_token_id=pad_id,
                eos_token_id=sorted(self.eos_ids),
                **sampling,
            )
        results = []
        for (request, ids), row in zip(batch, output[:, width:].tolist()):
            length, finish_reason = completion_length(row, self.eos_ids)
            text = self.tokenizer.decode(row[:length], skip_special_tokens=True)
            if finish_reason == "length":
                text = without_cut_character(text)
            results.append(Result(request.key, text, finish_reason, prompt_tokens=len(ids), completion_tokens=length))
        return results

    def close(self) -> None:
        """Drop the model so its memory (on the GPU above all) is free for whatever runs next."""
        if getattr(self, "model", None) is None:
            return
        self.model = None
        gc.collect()
        if self.device == "cuda":
            torch.cuda.empty_cache()
