"""Prompt tokens before a run: the model's own tokenizer where its files are here, else an approximation.

A local model (a `path`, or a Hub model already fetched under resources/) counts with its
tokenizer (transformers' AutoTokenizer from the model folder), its chat template applied as
the hf and vLLM backends apply it (xlcons.generation.base.chat_prompt_ids): the same count
the backend records. An API model, or a local one whose files are not here yet, counts
ceil(characters / 4) of the messages' text (the usual rule of thumb for English with BPE
tokenizers; scripts other than Latin take more tokens per character, so it is an
approximation, marked `chars/4`). A translator counts the source sentence as its tokenizer
encodes it (language tag and end token included), as the translation stage records it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from xlcons.generation.base import chat_prompt_ids

TOKENIZER = "tokenizer"
CHARS = "chars/4"
NONE = "none"  # recorded answers: no model is called


def approximate_tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


class TokenCounter:
    """Counts a model's prompt tokens; `how` says how (`tokenizer`, `chars/4` or `none`)."""

    def __init__(self, tokenizer: Any = None, how: str | None = None):
        self.tokenizer = tokenizer
        self.how = how or (TOKENIZER if tokenizer is not None else CHARS)
        self._expansion: dict[int, int] = {}  # by the writer's tokenizer

    def chat(self, messages: Sequence[Mapping[str, str]]) -> int:
        """The tokens of a conversation sent to a chat model."""
        if self.how == NONE:
            return 0
        if self.tokenizer is not None and getattr(self.tokenizer, "chat_template", None):
            return len(chat_prompt_ids(self.tokenizer, messages))
        return approximate_tokens("".join(message["content"] for message in messages))

    def expansion(self, writer: TokenCounter) -> int:
        """At most how many of this tokenizer's tokens one token that `writer`'s model writes comes
        to, when this model reads the text (the judge reading a generator's answer): the most
        this tokenizer gives the text of any one token of the writer's vocabulary, decoded alone.
        A text re-tokenized whole takes no more tokens than its pieces re-tokenized apart, as BPE
        merges across the pieces' boundaries join tokens, so an answer of n tokens comes to at
        most n times this. 1 where either tokenizer is not here (a chars/4 approximation either way)."""
        if self.tokenizer is None or writer.tokenizer is None:
            return 1
        key = id(writer.tokenizer)
        if key not in self._expansion:
            pieces = [writer.tokenizer.decode([index]) for index in sorted(set(writer.tokenizer.get_vocab().values()))]
            counts = self.tokenizer(pieces, add_special_tokens=False)["input_ids"]
            self._expansion[key] = max(1, max((len(ids) for ids in counts), default=1))
        return self._expansion[key]

    def text(self, text: str) -> int:
        """The tokens of a plain text (a sentence sent to a translator), special tokens included."""
        if self.how == NONE:
            return 0
        if self.tokenizer is not None:
            return len(self.tokenizer(text)["input_ids"])
        return approximate_tokens(text)


def _load_tokenizer(location: str | None) -> Any:
    """The tokenizer in a local model folder; None where there is none (not fetched yet, an API
    model, a file that is not a transformers folder)."""
    if not location or not (Path(location) / "tokenizer_config.json").is_file():
        return None
    from transformers import AutoTokenizer  # only when a local folder is there: the import takes seconds

    try:
        return AutoTokenizer.from_pretrained(location, local_files_only=True)
    except (OSError, ValueError):
        return None


_counters: dict[tuple[str | None, str | None], TokenCounter] = {}


def counter_for(location: str | None, recorded: bool = False, src_lang: str | None = None) -> TokenCounter:
    """The counter of a model at `location` (None: an API model); `recorded` answers count no
    tokens; `src_lang` sets a translator tokenizer's source language (NLLB code). Loaded once."""
    if recorded:
        return TokenCounter(how=NONE)
    key = (location, src_lang)
    if key not in _counters:
        tokenizer = _load_tokenizer(location)
        if tokenizer is not None and src_lang and hasattr(tokenizer, "src_lang"):
            tokenizer.src_lang = src_lang
        _counters[key] = TokenCounter(tokenizer)
    return _counters[key]
