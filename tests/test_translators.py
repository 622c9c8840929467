"""The NLLB translators: one interface, two engines, the same greedy output.

All on the tiny random-weight NLLB (real NllbTokenizer): its translations are noise, but
noise that depends on the input deterministically, which is all that comparing engines,
batch layouts and seeds needs. It never stops early, so every spec caps new tokens.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from xlcons.translation.ctranslate2_conversion import convert, quantization_for
from xlcons.translation.ctranslate2_translator import CTranslate2Translator
from xlcons.translation.spec import CT2_MARKER, SamplingSpec, TranslationError, TranslatorSpec
from xlcons.translation.transformers_translator import TransformersTranslator
from xlcons.translation.translators import load_translator, translator_class

CAP = 6  # new tokens per sentence: small keeps the suite fast on two cores

SENTENCES = {
    "deu_Latn": ["Wie lautet die chemische Formel für Wasser?", "Hallo Welt.", "Wer schrieb Faust?"],
    "rus_Cyrl": ["Какая самая высокая гора в мире?", "Кто написал «Войну и мир»?"],
    "zho_Hans": ["世界上最高的山是哪座？", "谁写了红楼梦？"],
    "hin_Deva": ["भारत की राजधानी क्या है?"],
    "arb_Arab": ["ما هي عاصمة مصر؟"],
}


@pytest.fixture(scope="module")
def tiny_nllb(offline_models) -> Path:
    return offline_models["tiny-nllb"]


@pytest.fixture(scope="module")
def ct2_dir(tiny_nllb, tmp_path_factory) -> Path:
    return convert(tiny_nllb, tmp_path_factory.mktemp("ct2") / "tiny-nllb-ct2")


@pytest.fixture(scope="module")
def hf(tiny_nllb):
    return load_translator(TranslatorSpec(location=str(tiny_nllb), dtype="float32", max_new_tokens=CAP, device="cpu"))


@pytest.fixture(scope="module")
def ct2(ct2_dir):
    return load_translator(
        TranslatorSpec(
            backend="ctranslate2", ct2_location=str(ct2_dir), compute_type="float32", max_new_tokens=CAP, device="cpu"
        )
    )


def test_backends_are_registered_by_name():
    assert translator_class("transformers") is TransformersTranslator
    assert translator_class("ctranslate2") is CTranslate2Translator
    with pytest.raises(TranslationError, match="unknown translator backend"):
        translator_class("fairseq")


def test_source_is_nllb_format_src_tag_pieces_eos(hf):
    """[src] + pieces + </s>: what NllbTokenizer itself produces with src_lang set."""
    sentence = SENTENCES["deu_Latn"][0]
    [ids] = hf.encode([sentence], hf.language_id("deu_Latn"))
    tokens = hf.tokenizer.convert_ids_to_tokens(ids)
    assert tokens[0] == "deu_Latn" and tokens[-1] == "</s>"
    hf.tokenizer.src_lang = "deu_Latn"
    assert ids == hf.tokenizer(sentence)["input_ids"]


def test_ctranslate2_float32_and_transformers_give_the_same_greedy_output(hf, ct2):
    for src, sentences in SENTENCES.items():
        for tgt in ("eng_Latn", "fra_Latn"):
            expected = hf.translate(sentences, src, tgt)
            assert ct2.translate(sentences, src, tgt) == expected
            assert all(isinstance(text, str) and text for text in expected)


def test_output_holds_no_language_tag_or_special_token(hf):
    [text] = hf.translate(["Hallo Welt."], "deu_Latn", "eng_Latn")
    assert "eng_Latn" not in text and "</s>" not in text and "<pad>" not in text


def test_batching_and_deduplication_do_not_change_outputs(tiny_nllb):
    sentences = [s for group in SENTENCES.values() for s in group]
    # Mixed scripts share one source code here: only the model's arithmetic matters.
    one_by_one = TransformersTranslator(
        TranslatorSpec(location=str(tiny_nllb), dtype="float32", max_new_tokens=CAP, max_batch_tokens=1, device="cpu")
    )
    expected = [one_by_one.translate([s], "deu_Latn", "eng_Latn")[0] for s in sentences]
    batched = TransformersTranslator(
        TranslatorSpec(location=str(tiny_nllb), dtype="float32", max_new_tokens=CAP, max_batch_tokens=64, device="cpu")
    )
    doubled = sentences + list(reversed(sentences))
    assert batched.translate(doubled, "deu_Latn", "eng_Latn") == expected + list(reversed(expected))
    assert 1 < batched.calls < len(sentences)  # several batches, each of several sentences


def test_identical_sentences_are_translated_once(hf, monkeypatch):
    seen = []
    original = hf._generate

    def spy(batch, tgt, tgt_id, sampling):
        seen.extend(tuple(ids) for ids in batch)
        return original(batch, tgt, tgt_id, sampling)

    monkeypatch.setattr(hf, "_generate", spy)
    out = hf.translate(["Hallo Welt.", "Wer schrieb Faust?", "Hallo Welt.", "  "], "deu_Latn", "eng_Latn")
    assert len(seen) == 2 and len(set(seen)) == 2
    assert out[0] == out[2] and out[3] == ""  # a blank sentence is not sent to the model


def test_batches_are_length_sorted_and_within_the_token_budget(hf):
    encoded = [[0] * length for length in (5, 30, 12, 7, 30, 200, 3, 12)]
    batches = hf.batches(encoded)  # budget 4096 fits everything...
    assert batches == [[5, 1, 4, 2, 7, 3, 0, 6]]  # ...longest first, ties in input order
    small = TranslatorSpec(location=hf.spec.location, max_batch_tokens=60, max_new_tokens=CAP)
    hf_small = object.__new__(TransformersTranslator)
    hf_small.spec = small
    batches = hf_small.batches(encoded)
    assert sorted(i for batch in batches for i in batch) == list(range(len(encoded)))
    for batch in batches:
        widest = max(len(encoded[i]) for i in batch)
        assert len(batch) == 1 or len(batch) * widest <= 60
    assert batches[0] == [5]  # longer than the budget: alone


def test_long_sentences_are_cut_to_max_input_tokens(tiny_nllb):
    translator = TransformersTranslator(
        TranslatorSpec(location=str(tiny_nllb), max_input_tokens=8, max_new_tokens=CAP, device="cpu")
    )
    long = "Das ist ein sehr langer Satz mit sehr vielen Wörtern, der abgeschnitten werden muss."
    [ids] = translator.encode([long], translator.language_id("deu_Latn"))
    assert len(ids) == 8 and ids[-1] == translator.eos_id
    assert translator.translate([long], "deu_Latn", "eng_Latn")[0]
    assert translator.truncated == 2


def test_transformers_sampling_is_seeded_per_sentence(hf):
    sampling = SamplingSpec(temperature=5.0, top_p=1.0, seed=3)  # hot, so draws visibly differ
    alone = hf.translate(["Hallo Welt."], "deu_Latn", "eng_Latn", sampling=sampling)
    together = hf.translate(["Wer schrieb Faust?", "Hallo Welt."], "deu_Latn", "eng_Latn", sampling=sampling)
    assert together[1] == alone[0]  # independent of what else is sampled in the call
    draws = {
        hf.translate(["Hallo Welt."], "deu_Latn", "eng_Latn", sampling=SamplingSpec(5.0, 1.0, seed))[0]
        for seed in range(6)
    }
    assert len(draws) > 1  # and the seed matters


def test_ctranslate2_sampling_is_one_stream_per_loaded_model(ct2_dir):
    """CTranslate2 cannot reseed per call: the same calls on a freshly loaded model give the same draws."""
    spec = TranslatorSpec(
        backend="ctranslate2", ct2_location=str(ct2_dir), compute_type="float32", max_new_tokens=CAP, device="cpu"
    )
    sampling = SamplingSpec(temperature=5.0, top_p=1.0)
    runs = []
    for _ in range(2):
        translator = load_translator(spec)
        runs.append(
            [
                translator.translate(["Hallo Welt.", "Wer schrieb Faust?"], "deu_Latn", "eng_Latn", sampling=sampling)
                for _ in range(3)
            ]
        )
    assert runs[0] == runs[1]
    assert len({tuple(call) for call in runs[0]}) > 1  # the stream moves on between calls


def test_an_unknown_language_code_is_an_error(hf):
    with pytest.raises(TranslationError, match="no language code 'deu'"):
        hf.translate(["Hallo"], "deu", "eng_Latn")


def test_the_moe_checkpoint_loads_through_the_auto_class(tiny_nllb, hf, tmp_path):
    from devtools.offline_models import write_tiny_nllb_moe

    write_tiny_nllb_moe(tiny_nllb, tmp_path)
    moe = load_translator(TranslatorSpec(location=str(tmp_path), max_new_tokens=CAP, device="cpu", gpus=2))
    assert type(moe.model).__name__ == "NllbMoeForConditionalGeneration"
    sentences = SENTENCES["deu_Latn"]
    out = moe.translate(sentences, "deu_Latn", "eng_Latn")
    assert len(out) == 3 and all(out)
    assert [moe.translate([s], "deu_Latn", "eng_Latn")[0] for s in sentences] == out


def test_conversion_is_self_contained_and_atomic(ct2_dir, tiny_nllb):
    names = {path.name for path in ct2_dir.iterdir()}
    assert {"model.bin", "config.json", "tokenizer.json", CT2_MARKER} <= names
    marker = json.loads((ct2_dir / CT2_MARKER).read_text())
    assert marker["quantization"] is None and marker["source"] == str(Path(tiny_nllb).resolve())
    leftovers = [path.name for path in ct2_dir.parent.iterdir() if path.name.startswith(".")]
    assert leftovers == []  # the staging directory is gone


def test_conversion_replaces_an_old_model_and_refuses_the_moe(tiny_nllb, tmp_path):
    out = tmp_path / "converted"
    out.mkdir()
    (out / "stale").write_text("old")
    convert(tiny_nllb, out, quantization="int8")
    assert not (out / "stale").exists()
    assert json.loads((out / CT2_MARKER).read_text())["quantization"] == "int8"
    moe = tmp_path / "moe"
    moe.mkdir()
    (moe / "config.json").write_text(json.dumps({"model_type": "nllb-moe"}))
    with pytest.raises(TranslationError, match="MoE"):
        convert(moe, tmp_path / "moe-ct2")


def test_int8_runs_and_its_identity_differs(tiny_nllb, tmp_path):
    out = convert(tiny_nllb, tmp_path / "int8", quantization=quantization_for("int8"))
    spec = TranslatorSpec(
        backend="ctranslate2", ct2_location=str(out), compute_type="int8", max_new_tokens=CAP, device="cpu"
    )
    assert all(load_translator(spec).translate(SENTENCES["deu_Latn"], "deu_Latn", "eng_Latn"))
    float32 = TranslatorSpec(
        backend="ctranslate2", ct2_location=str(out), compute_type="float32", max_new_tokens=CAP, device="cpu"
    )
    assert spec.identity() != float32.identity()


def test_identity_names_the_model_not_where_it_lies():
    a = TranslatorSpec(location="/scratch/a/nllb", model_id="facebook/nllb-200-distilled-600M")
    b = TranslatorSpec(location="/home/b/models/nllb", model_id="facebook/nllb-200-distilled-600M")
    assert a.identity() == b.identity()
    assert (
        TranslatorSpec(location="/x", model_id="m", beam_size=4).identity()
        != TranslatorSpec(location="/x", model_id="m").identity()
    )
    assert (
        TranslatorSpec(location="/x", model_id="m", max_new_tokens=9).identity()
        != TranslatorSpec(location="/x", model_id="m").identity()
    )


def test_spec_from_config_reads_the_translator_section():
    section = {
        "model": {"hf_id": "facebook/nllb-200-3.3B", "revision": "abc"},
        "backend": "ctranslate2",
        "compute_type": "int8_float16",
        "dtype": "auto",
        "beam_size": 4,
        "max_batch_tokens": 2048,
        "max_input_tokens": 256,
        "gpus": 1,
        "detect_response_language": True,
        "degeneration": {},
    }
    spec = TranslatorSpec.from_config(section, "resources/models/nllb", "resources/ctranslate2/nllb-int8", threads=2)
    assert (spec.backend, spec.model_id, spec.revision, spec.beam_size, spec.max_input_tokens, spec.threads) == (
        "ctranslate2",
        "facebook/nllb-200-3.3B",
        "abc",
        4,
        256,
        2,
    )
    with pytest.raises(TranslationError, match="compute_type"):
        TranslatorSpec(compute_type="int4")


def test_missing_models_give_clear_errors(tmp_path):
    with pytest.raises(TranslationError, match="no CTranslate2 model"):
        load_translator(TranslatorSpec(backend="ctranslate2", ct2_location=str(tmp_path)))
    with pytest.raises(TranslationError, match="tokenizer"):
        load_translator(TranslatorSpec(location=str(tmp_path)))
