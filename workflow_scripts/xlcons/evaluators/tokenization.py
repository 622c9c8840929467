"""Tokenizer analysis (Holtermann et al. 2024, §4, Table 5): how a model's tokenizer splits each language.

For every prompt language: the prompts are tokenized as plain text (no chat template,
no special tokens), and the 20 most used tokens over all of the language's prompts are
taken once noise tokens are removed (ties: lower token id first). Each is put in a class:

``ascii``
    a byte token, which Holtermann et al. 2024 calls "ASCII" (the "ASCII code tokens" a BPE
    tokenizer falls back to when it knows no piece for a character): SentencePiece
    byte-fallback tokens (``<0xE3>``) and byte-level BPE tokens whose bytes are not a
    whole number of UTF-8 characters (GPT-2/Qwen/SmolLM2 split an unknown CJK character
    into such pieces). The released code used the id range of Llama-2's byte tokens
    (132-236); classifying by content gives the same for Llama-2 and works for any
    tokenizer.
``character``
    a single code point once the word-boundary marker is removed (``▁中``, ``中``,
    ``Ġa``): the paper's "individual characters". Single ASCII letters and digits count
    too (the released code's range 28000-32000 holds Llama-2's single characters, Latin
    letters included).
``subword``
    anything longer.

Noise tokens, never counted: special tokens (the tokenizer's all_special_ids, e.g.
``<s>``), and tokens whose text, once the word-boundary marker is removed, is empty or
only whitespace, punctuation (Unicode category P*) or invisible format characters (Cf,
e.g. the zero-width joiner): a bare ``▁``, ``?``, ``,``, ``？``, ``।``, a byte token of a
newline. This generalises the released code's list for Llama-2 (``<s>``, ``?``, ``,``,
``▁``). Every MultiQ prompt ends in a question mark, so without this the top 20 of every
language would start with ``?``.

A language is ``ascii`` when more than 70% of its top tokens are ascii, else
``character`` when more than 70% are characters, else ``subword`` (each share on its
own, as the paper words it). Byte tokens are recognised in the tokenizer's own
representation: ``<0xNN>`` pieces, and for byte-level tokenizers (a ``ByteLevel``
pre-tokenizer or decoder) the GPT-2 byte-to-character table; word-boundary markers are
``▁`` (SentencePiece/Metaspace), the space byte (byte-level ``Ġ``), and the model's
continuing-subword prefix or end-of-word suffix when it has one (WordPiece ``##``).
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import pyarrow as pa

from xlcons.evaluators.tokenization_tables import TOKENIZATION
from xlcons.schemas import PROMPTS
from xlcons.tables import read_table, write_table

TOP_TOKENS = 20
CLASS_THRESHOLD = 0.7
_BYTE_TOKEN = re.compile(r"^<0x([0-9A-Fa-f]{2})>$")
_METASPACE = "\u2581"


@lru_cache(maxsize=1)
def byte_level_alphabet() -> dict[str, int]:
    """Character → byte of byte-level BPE (GPT-2's table: printable bytes stand for themselves,
    the other 68 are shifted to U+0100 and up, so space is ``Ġ`` and newline ``Ċ``)."""
    printable = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAC + 1), *range(0xAE, 0xFF + 1)]
    table = {chr(byte): byte for byte in printable}
    shifted = 0
    for byte in range(256):
        if byte not in printable:
            table[chr(256 + shifted)] = byte
            shifted += 1
    return table


def _walk_types(node: Any) -> set[str]:
    types = set()
    if isinstance(node, dict):
        if isinstance(node.get("type"), str):
            types.add(node["type"])
        for value in node.values():
            types |= _walk_types(value)
    elif isinstance(node, list):
        for value in node:
            types |= _walk_types(value)
    return types


class TokenView:
    """How to read one tokenizer's pieces: byte-level or not, and its boundary markers."""

    def __init__(self, tokenizer):
        self.tokenizer = tokenizer
        self.byte_level = False
        self.affixes: tuple[str, ...] = ()
        self.suffixes: tuple[str, ...] = ()
        backend = getattr(tokenizer, "backend_tokenizer", None)
        if backend is not None:
            spec = json.loads(backend.to_str())
            self.byte_level = "ByteLevel" in _walk_types(spec.get("pre_tokenizer")) | _walk_types(spec.get("decoder"))
            model = spec.get("model") or {}
            self.affixes = tuple(prefix for prefix in [model.get("continuing_subword_prefix")] if prefix)
            self.suffixes = tuple(suffix for suffix in [model.get("end_of_word_suffix")] if suffix)
        self.special_ids = frozenset(tokenizer.all_special_ids)

    def piece_bytes(self, piece: str) -> tuple[bytes, bool]:
        """(the bytes a piece stands for, whether it is a byte-fallback token)."""
        match = _BYTE_TOKEN.match(piece)
        if match:
            return bytes([int(match.group(1), 16)]), True
        for prefix in self.affixes:
            if piece.startswith(prefix) and len(piece) > len(prefix):
                piece = piece[len(prefix) :]
        for suffix in self.suffixes:
            if piece.endswith(suffix) and len(piece) > len(suffix):
                piece = piece[: -len(suffix)]
        if self.byte_level:
            alphabet = byte_level_alphabet()
            if all(char in alphabet for char in piece):
                return bytes(alphabet[char] for char in piece), False
        return piece.replace(_METASPACE, " ").encode("utf-8"), False

    def classify(self, token_id: int, piece: str) -> str:
        """``noise`` | ``ascii`` | ``character`` | ``subword`` (see the module docstring)."""
        if token_id in self.special_ids:
            return "noise"
        raw, byte_token = self.piece_bytes(piece)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return "ascii"  # part of a character: a byte-level byte token
        if is_noise_text(text):
            return "noise"
        if byte_token:
            return "ascii"
        return "character" if len(text.strip()) == 1 else "subword"


def is_noise_text(text: str) -> bool:
    """Only whitespace, punctuation and format characters (or nothing)."""
    return all(
        char.isspace() or unicodedata.category(char)[0] == "P" or unicodedata.category(char) == "Cf" for char in text
    )


def language_class(classes: Sequence[str]) -> tuple[dict[str, float], str]:
    """Share of each class among a language's top tokens, and the language's class."""
    total = len(classes)
    shares = {
        name: (sum(1 for value in classes if value == name) / total if total else 0.0)
        for name in ("ascii", "character", "subword")
    }
    if shares["ascii"] > CLASS_THRESHOLD:
        return shares, "ascii"
    if shares["character"] > CLASS_THRESHOLD:
        return shares, "character"
    return shares, "subword"


def analyse_tokenizer(
    tokenizer,
    prompts_by_lang: Mapping[str, Sequence[str]],
    *,
    dataset: str,
    model: str,
    tokenizer_name: str,
    top: int = TOP_TOKENS,
) -> pa.Table:
    """TOKENIZATION rows, one per language of `prompts_by_lang` (in its order)."""
    view = TokenView(tokenizer)
    records = []
    every_token: set[int] = set()
    for lang, prompts in prompts_by_lang.items():
        encoded = tokenizer(list(prompts), add_special_tokens=False)["input_ids"] if prompts else []
        counts = Counter(token for ids in encoded for token in ids if token not in view.special_ids)
        every_token |= counts.keys()
        ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        pieces = tokenizer.convert_ids_to_tokens([token for token, _ in ranked])
        chosen = []
        for (token, count), piece in zip(ranked, pieces):
            token_class = view.classify(token, piece)
            if token_class != "noise":
                chosen.append((token, piece, count, token_class))
            if len(chosen) == top:
                break
        shares, language = language_class([token_class for *_, token_class in chosen])
        n_tokens = sum(len(ids) for ids in encoded)
        records.append(
            {
                "dataset": dataset,
                "model": model,
                "tokenizer": tokenizer_name,
                "lang": lang,
                "n_prompts": len(prompts),
                "n_tokens": n_tokens,
                "tokens_per_prompt": n_tokens / len(prompts) if prompts else 0.0,
                "unique_tokens": len(counts),
                "top_tokens": [piece for _, piece, _, _ in chosen],
                "top_token_ids": [token for token, *_ in chosen],
                "top_token_counts": [count for _, _, count, _ in chosen],
                "top_token_classes": [token_class for *_, token_class in chosen],
                "ascii_share": shares["ascii"],
                "character_share": shares["character"],
                "subword_share": shares["subword"],
                "token_class": language,
            }
        )
    for record in records:
        record["unique_tokens_all_languages"] = len(every_token)
    return pa.Table.from_pylist(records, schema=TOKENIZATION)


def prompts_by_language(prompts: pa.Table) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for row in prompts.select(["lang", "prompt"]).to_pylist():
        grouped.setdefault(row["lang"], []).append(row["prompt"])
    return grouped


def load_tokenizer(path: Path | str):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(path), local_files_only=True)


def run_tokenization(
    tokenizer_path: Path | str,
    prompt_files: Sequence[Path | str],
    out_path: Path | str,
    model: str,
    tokenizer_name: str | None = None,
) -> Path:
    """The rule's job: one model's tokenizer and the PROMPTS files (any languages) in, one TOKENIZATION file out."""
    tables = [read_table(path, PROMPTS) for path in prompt_files]
    prompts = pa.concat_tables(tables) if tables else PROMPTS.empty_table()
    datasets = sorted(set(prompts["dataset"].to_pylist())) or ["multiq"]
    table = analyse_tokenizer(
        load_tokenizer(tokenizer_path),
        prompts_by_language(prompts),
        dataset=",".join(datasets),
        model=model,
        tokenizer_name=tokenizer_name or Path(tokenizer_path).name,
    )
    return write_table(table, out_path, TOKENIZATION)


def rule_tokenization(smk) -> None:
    """Rule tokenization: how one generator's tokenizer cuts one data set's prompts."""
    run_tokenization(smk.params.tokenizer, smk.input.prompts, smk.output.tokenization, model=smk.wildcards.model)
