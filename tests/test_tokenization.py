"""The tokenizer analysis of MultiQ (xlcons.evaluators.tokenization, Holtermann et al. 2024 Table 5).

The main tokenizer is built here: a word-level vocabulary split on whitespace, so a prompt
"▁hello 中 <0xE3>" is exactly those three tokens and every count below is known. One
test reads the real byte-level tokenizer of SmolLM2.
"""

from __future__ import annotations

import polars as pl
import pyarrow as pa
import pytest
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast

from xlcons.evaluators.tokenization import (
    TokenView,
    analyse_tokenizer,
    byte_level_alphabet,
    language_class,
    load_tokenizer,
    run_tokenization,
)
from xlcons.evaluators.tokenization_tables import METRICS as RESULT_METRICS
from xlcons.evaluators.tokenization_tables import TOKENIZATION, to_results
from xlcons.schemas import PROMPTS, RESULTS
from xlcons.tables import read_table, write_table

SUBWORDS = ["▁hello", "▁world", "▁how", "▁are", "▁you", "▁北京", "ab", "12"]
CHARACTERS = ["中", "▁国", "的", "是", "▁a", "a", "7"] + [chr(0x4E00 + offset) for offset in range(1, 25)]
BYTES = [f"<0x{byte:02X}>" for byte in range(0x80, 0x98)] + ["<0x41>"]
NOISE = ["?", "▁", "？", "।", ",", "\u200d", "<0x0A>", "<0x20>", "<0x3F>"]
VOCAB = ["<s>", "<unk>", *SUBWORDS, *CHARACTERS, *BYTES, *NOISE]


@pytest.fixture(scope="module")
def tokenizer() -> PreTrainedTokenizerFast:
    model = models.WordLevel({piece: index for index, piece in enumerate(VOCAB)}, unk_token="<unk>")
    backend = Tokenizer(model)
    backend.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return PreTrainedTokenizerFast(tokenizer_object=backend, bos_token="<s>", unk_token="<unk>")


def token_id(piece: str) -> int:
    return VOCAB.index(piece)


def prompts(*counts: tuple[str, int], per_prompt: int = 5) -> list[str]:
    """Prompts holding each piece the given number of times (spread over prompts of `per_prompt` tokens)."""
    stream = [piece for piece, count in counts for _ in range(count)]
    return [" ".join(stream[start : start + per_prompt]) for start in range(0, len(stream), per_prompt)]


def analyse(tokenizer, by_lang: dict[str, list[str]]) -> list[dict]:
    table = analyse_tokenizer(tokenizer, by_lang, dataset="multiq", model="toy", tokenizer_name="toy-wordlevel")
    assert table.schema == TOKENIZATION
    return table.to_pylist()


# --------------------------------------------------------------------------------------
# Classes of single tokens
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("piece", "expected"),
    [
        ("▁hello", "subword"),
        ("▁北京", "subword"),  # two characters
        ("ab", "subword"),
        ("12", "subword"),
        ("中", "character"),
        ("▁国", "character"),  # the word-boundary marker does not count
        ("▁a", "character"),
        ("a", "character"),
        ("7", "character"),
        ("<0x80>", "ascii"),  # byte-fallback tokens: the paper's "ASCII" tokens
        ("<0x97>", "ascii"),
        ("<0x41>", "ascii"),  # a byte token, even of a printable byte
        ("?", "noise"),
        ("▁", "noise"),
        ("？", "noise"),
        ("।", "noise"),
        (",", "noise"),
        ("\u200d", "noise"),  # zero-width joiner
        ("<0x0A>", "noise"),  # the byte token of a newline
        ("<0x20>", "noise"),
        ("<0x3F>", "noise"),
        ("<s>", "noise"),  # a special token
    ],
)
def test_token_classes(tokenizer, piece, expected):
    assert TokenView(tokenizer).classify(token_id(piece), piece) == expected


def test_the_byte_level_alphabet_covers_every_byte_once():
    alphabet = byte_level_alphabet()
    assert sorted(alphabet.values()) == list(range(256))
    assert alphabet["Ġ"] == 0x20 and alphabet["Ċ"] == 0x0A and alphabet["A"] == 0x41


@pytest.fixture(scope="module")
def smollm2(offline_models):
    return load_tokenizer(offline_models["smollm2-135m-instruct"])


@pytest.mark.parametrize(
    ("piece", "expected"),
    [
        ("ĠWhat", "subword"),
        ("Ġis", "subword"),
        ("æ³ķ", "character"),  # 法, whole
        ("çļĦ", "character"),  # 的
        ("Ġa", "character"),
        ("åĽ", "ascii"),  # two of the three bytes of 国
        ("½", "ascii"),  # its last byte
        ("Ġ", "noise"),
        ("Ċ", "noise"),
        ("ĊĊ", "noise"),
        ("?", "noise"),
    ],
)
def test_byte_level_tokens_are_read_as_bytes(smollm2, piece, expected):
    view = TokenView(smollm2)
    assert view.byte_level
    assert view.classify(smollm2.convert_tokens_to_ids(piece), piece) == expected


def test_smollm2_splits_english_into_subwords_and_chinese_into_bytes(smollm2, shared_data):
    import polars as pl

    multiq = pl.read_csv(shared_data / "multiq" / "MultiQ.csv").filter(pl.col("language").is_in(["en", "zh-CN"]))
    by_lang = {lang: multiq.filter(pl.col("language") == lang)["prompt"].to_list() for lang in ("en", "zh-CN")}
    english, chinese = analyse_tokenizer(
        smollm2, by_lang, dataset="multiq", model="smollm2", tokenizer_name="smollm2"
    ).to_pylist()
    assert english["token_class"] == "subword" and len(english["top_tokens"]) == 20
    assert english["top_tokens"][:2] == ["Ġthe", "What"] and "?" not in english["top_tokens"]
    assert chinese["ascii_share"] > 0 and chinese["tokens_per_prompt"] > english["tokens_per_prompt"]


# --------------------------------------------------------------------------------------
# Classes of languages
# --------------------------------------------------------------------------------------


def test_a_language_of_subwords(tokenizer):
    [row] = analyse(
        tokenizer,
        {
            "sub": prompts(
                ("▁hello", 6), ("?", 9), ("▁world", 5), ("▁", 8), ("▁how", 4), ("<0x0A>", 3), ("中", 2), ("ab", 1)
            )
        },
    )
    # noise (?, ▁, the newline byte) is dropped before the top 20 are taken
    assert row["top_tokens"] == ["▁hello", "▁world", "▁how", "中", "ab"]
    assert row["top_token_counts"] == [6, 5, 4, 2, 1]
    assert row["top_token_ids"] == [token_id(piece) for piece in row["top_tokens"]]
    assert row["top_token_classes"] == ["subword", "subword", "subword", "character", "subword"]
    assert row["subword_share"] == pytest.approx(0.8) and row["character_share"] == pytest.approx(0.2)
    assert row["token_class"] == "subword"
    assert row["n_prompts"] == 8 and row["n_tokens"] == 38 and row["tokens_per_prompt"] == pytest.approx(38 / 8)
    assert row["unique_tokens"] == 8  # noise included: every token the prompts use


def test_only_the_20_most_used_count_and_ties_go_to_the_lower_id(tokenizer):
    # 25 single characters, the first 17 three times each, the other 7 once; then 3 subwords once
    many = (
        [(piece, 3) for piece in CHARACTERS[7:24]]
        + [(piece, 1) for piece in CHARACTERS[24:]]
        + [("▁hello", 1), ("▁world", 1), ("▁how", 1)]
    )
    [row] = analyse(tokenizer, {"chr": prompts(*many)})
    assert len(row["top_tokens"]) == 20
    # the 17 frequent ones, then the three with one use and the lowest ids: ▁hello, ▁world, ▁how
    # come first in the vocabulary
    assert row["top_tokens"] == CHARACTERS[7:24] + ["▁hello", "▁world", "▁how"]
    assert row["character_share"] == pytest.approx(17 / 20) and row["token_class"] == "character"


def test_a_language_of_bytes(tokenizer):
    pieces = [(piece, 2) for piece in BYTES[:16]] + [("中", 2), ("的", 2), ("▁hello", 1), ("▁world", 1), ("?", 40)]
    [row] = analyse(tokenizer, {"byt": prompts(*pieces)})
    assert row["ascii_share"] == pytest.approx(16 / 20) and row["token_class"] == "ascii"


@pytest.mark.parametrize(
    ("classes", "expected"),
    [
        (["character"] * 15 + ["subword"] * 5, "character"),
        (["character"] * 14 + ["subword"] * 6, "subword"),  # exactly 70% is not over 70%
        (["ascii"] * 15 + ["character"] * 5, "ascii"),
        (["ascii"] * 10 + ["character"] * 10, "subword"),  # each share on its own
        (["subword"] * 20, "subword"),
        ([], "subword"),
    ],
)
def test_the_70_percent_rule(classes, expected):
    assert language_class(classes)[1] == expected


def test_languages_keep_their_order_and_share_the_all_language_count(tokenizer):
    rows = analyse(tokenizer, {"b": prompts(("中", 3), ("的", 1)), "a": prompts(("中", 1), ("▁hello", 2)), "empty": []})
    assert [row["lang"] for row in rows] == ["b", "a", "empty"]
    assert {row["unique_tokens_all_languages"] for row in rows} == {3}
    assert rows[2]["n_prompts"] == 0 and rows[2]["top_tokens"] == [] and rows[2]["token_class"] == "subword"


def test_special_tokens_never_count(tokenizer):
    [row] = analyse(tokenizer, {"x": ["<s> ▁hello <s> ▁hello"]})
    assert row["top_tokens"] == ["▁hello"] and row["unique_tokens"] == 1 and row["n_tokens"] == 4


# --------------------------------------------------------------------------------------
# The rule's job
# --------------------------------------------------------------------------------------


def test_run_tokenization_reads_prompts_and_writes_the_table(tokenizer, tmp_path):
    tokenizer.save_pretrained(tmp_path / "toy")
    files = []
    for lang, texts in {"sub": prompts(("▁hello", 3), ("▁world", 2)), "chr": prompts(("中", 3), ("的", 2))}.items():
        rows = [
            {
                "dataset": "multiq",
                "item_id": f"q{index}",
                "lang": lang,
                "prompt": text,
                "category": None,
                "references": None,
                "source_lang": lang,
            }
            for index, text in enumerate(texts)
        ]
        path = tmp_path / "prompts" / f"{lang}.parquet"
        write_table(pa.Table.from_pylist(rows, schema=PROMPTS), path, PROMPTS)
        files.append(path)
    out = run_tokenization(tmp_path / "toy", files, tmp_path / "tokenization.parquet", model="toy-model")
    table = read_table(out, TOKENIZATION).to_pylist()
    assert [(row["lang"], row["token_class"], row["model"], row["tokenizer"]) for row in table] == [
        ("sub", "subword", "toy-model", "toy"),
        ("chr", "character", "toy-model", "toy"),
    ]


# --------------------------------------------------------------------------------------
# Rows of the results table
# --------------------------------------------------------------------------------------
def test_the_results_rows_are_a_languages_token_counts_and_class_shares(tokenizer):
    table = analyse_tokenizer(
        tokenizer,
        {
            # 2 prompts, 5 + 2 tokens: hello ×3, world ×2, 中 ×1, ? ×1 (noise: no top token)
            "sub": ["▁hello ▁hello ▁world ▁world 中", "▁hello ?"],
            "noise": ["? ▁ ,"],  # tokens, but none but punctuation and space: no class share
        },
        dataset="multiq",
        model="toy",
        tokenizer_name="toy-wordlevel",
    )
    rows = to_results(table)
    assert rows.schema == pl.from_arrow(RESULTS.empty_table()).schema
    values = {(row["lang"], row["metric"]): row for row in rows.to_dicts()}
    assert set(values) == {(lang, metric) for lang in ("sub", "noise") for metric in RESULT_METRICS}
    sub = {metric: values[("sub", metric)]["value"] for metric in RESULT_METRICS}
    assert sub == pytest.approx(
        {
            "tokens_per_prompt": 7 / 2,
            "unique_tokens": 4.0,  # hello, world, 中, ?
            "ascii_share": 0.0,
            "character_share": 1 / 3,  # 中 of hello, world, 中
            "subword_share": 2 / 3,
        }
    )
    for row in rows.to_dicts():
        assert (row["evaluator"], row["kind"], row["translator"], row["dataset"]) == (
            "tokenization",
            "corpus",
            "",
            "multiq",
        )
        assert row["ci_low"] is None and row["n_excluded"] == 0
    assert values[("sub", "tokens_per_prompt")]["n_items"] == 2
    noise = values[("noise", "subword_share")]
    assert noise["value"] is None and noise["n_items"] == 0 and "undefined" in noise["note"]
    assert values[("noise", "tokens_per_prompt")]["value"] == pytest.approx(3.0)
