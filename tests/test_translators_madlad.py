"""MADLAD-400 (``family: madlad``): the second translator family, on both engines.

MADLAD-400 is a T5 model told the target language by a ``<2xx>`` tag before the source
(``<2en> Das ist gut.``); it is not told the source language, and its decoder starts from
T5's decoder start token (``<pad>``) with nothing forced. The stage still speaks NLLB codes,
so each target code is mapped to the tag the tokenizer has.

All on the tiny random-weight MADLAD (a T5 v1.1 with a T5 tokenizer holding a ``<2xx>`` tag
for each language of config/languages.tsv that has an NLLB code): its translations are noise
that depends on the sentence and on the tag, and it never stops early, so every spec caps
new tokens.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from builders import response_rows
from devtools.offline_models import build_all, build_tiny_madlad, read_stamp
from xlcons.schemas import NO_ANSWER, RESPONSES, TRANSLATIONS
from xlcons.tables import write_table
from xlcons.translation.ctranslate2_conversion import convert
from xlcons.translation.response_translation import run_translation_job
from xlcons.translation.sentence_translator import DegenerationSpec
from xlcons.translation.spec import CT2_MARKER, SamplingSpec, TranslationError, TranslatorSpec
from xlcons.translation.translators import load_translator, madlad_tags

CAP = 6  # new tokens per sentence

SENTENCES = {
    "deu_Latn": ["Wie lautet die chemische Formel für Wasser?", "Hallo Welt.", "Wer schrieb Faust?"],
    "rus_Cyrl": ["Какая самая высокая гора в мире?"],
    "zho_Hans": ["世界上最高的山是哪座？"],
    "arb_Arab": ["ما هي عاصمة مصر؟"],
}


@pytest.fixture(scope="module")
def tiny_madlad(offline_models, shared_data) -> Path:
    """Built on demand beside the other offline models (it is not in build_all's default set)."""
    root = offline_models["tiny-nllb"].parent
    return build_all(root, shared_data, names=["tiny-madlad"])["tiny-madlad"]


@pytest.fixture(scope="module")
def ct2_dir(tiny_madlad, tmp_path_factory) -> Path:
    return convert(tiny_madlad, tmp_path_factory.mktemp("ct2") / "tiny-madlad-ct2")


def madlad_spec(**fields) -> TranslatorSpec:
    return TranslatorSpec(family="madlad", max_new_tokens=CAP, device="cpu", **fields)


@pytest.fixture(scope="module")
def hf(tiny_madlad):
    return load_translator(madlad_spec(location=str(tiny_madlad), dtype="float32"))


@pytest.fixture(scope="module")
def ct2(ct2_dir):
    return load_translator(madlad_spec(backend="ctranslate2", ct2_location=str(ct2_dir), compute_type="float32"))


# --------------------------------------------------------------------------------------
# What the model is fed
# --------------------------------------------------------------------------------------


def test_the_source_is_the_target_tag_then_the_sentence_with_no_source_tag(hf):
    """[<2en>] + pieces + </s>: what the MADLAD tokenizer makes of "<2en> {sentence}"."""
    sentence = SENTENCES["deu_Latn"][0]
    first, forced = hf.language_tags("deu_Latn", "eng_Latn")
    assert forced is None  # nothing is forced on the decoder
    [ids] = hf.encode([sentence], first)
    tokens = hf.tokenizer.convert_ids_to_tokens(ids)
    assert tokens[0] == "<2en>" and tokens[-1] == "</s>"
    assert ids == hf.tokenizer(f"<2en> {sentence}")["input_ids"]
    assert [token for token in tokens if token.startswith("<2")] == ["<2en>"]  # no <2de>, no deu_Latn
    assert hf.language_tags("rus_Cyrl", "eng_Latn") == (first, None)  # the source language is not told


def test_nllb_codes_map_to_the_tag_the_vocabulary_has(hf):
    def tag(code):
        return hf.tokenizer.convert_ids_to_tokens(hf.language_id(code))

    assert [tag(code) for code in ("eng_Latn", "deu_Latn", "arb_Arab", "jpn_Jpan", "zho_Hans", "heb_Hebr")] == [
        "<2en>", "<2de>", "<2ar>", "<2ja>", "<2zh>", "<2he>"]  # fmt: skip
    assert tag("hin_Deva") == "<2hi>"  # the vocabulary's <2hi_Latn> is romanised Hindi
    assert tag("zho_Hant") == "<2zh_Hant>"  # zh-TW: the script-specific form


def test_tags_are_tried_most_specific_first_with_registry_codes_then_iso_codes():
    assert madlad_tags("zho_Hant") == ["<2zh_Hant>", "<2zh-TW>", "<2zh_TW>", "<2zho_Hant>", "<2zho>"]
    tagalog = madlad_tags("tgl_Latn")  # tl, and its duplicate fil (MADLAD's name for it)
    assert tagalog.index("<2tl>") < tagalog.index("<2fil>") < tagalog.index("<2tgl>")
    assert madlad_tags("fur_Latn") == ["<2fur_Latn>", "<2fur>"]  # not in the registry: the ISO 639-3 code


def test_a_target_without_a_tag_is_a_clear_error(hf):
    with pytest.raises(TranslationError, match=r"no target-language tag for 'fur_Latn' \(tried <2fur_Latn>, <2fur>\)"):
        hf.translate(["Hallo Welt."], "deu_Latn", "fur_Latn")  # Friulian: NLLB has it, this vocabulary does not
    with pytest.raises(TranslationError, match="'xyz_Latn'"):
        hf.translate(["Hallo Welt."], "deu_Latn", "xyz_Latn")


# --------------------------------------------------------------------------------------
# What comes out
# --------------------------------------------------------------------------------------


def test_the_decoder_starts_from_pad_with_nothing_forced(hf):
    """The translation is what plain ``generate`` gives for "<2en> {sentence}" (the model card's use):
    the output starts at the pad token, holds max_new_tokens tokens and no tag."""
    import torch

    sentence = SENTENCES["deu_Latn"][1]
    batch = hf.tokenizer([f"<2en> {sentence}"], return_tensors="pt")
    with torch.no_grad():
        [out] = hf.model.generate(**batch, max_new_tokens=CAP, do_sample=False, num_beams=1).tolist()
    assert out[0] == hf.tokenizer.pad_token_id == hf.start_id
    assert len(hf.content_ids(out, None, hf.start_id)) == CAP
    [text] = hf.translate([sentence], "deu_Latn", "eng_Latn")
    assert text == hf.tokenizer.decode(out, skip_special_tokens=True).strip()
    assert text and "<2" not in text and "</s>" not in text and "<pad>" not in text


def test_the_target_tag_changes_the_translation(hf):
    sentences = [s for group in SENTENCES.values() for s in group]
    assert hf.translate(sentences, "deu_Latn", "eng_Latn") != hf.translate(sentences, "deu_Latn", "fra_Latn")


def test_ctranslate2_float32_and_transformers_give_the_same_greedy_output(hf, ct2):
    for src, sentences in SENTENCES.items():
        for tgt in ("eng_Latn", "deu_Latn", "zho_Hans"):
            expected = hf.translate(sentences, src, tgt)
            assert ct2.translate(sentences, src, tgt) == expected
            assert all(isinstance(text, str) and text for text in expected)


def test_the_converted_model_scores_tokens_like_transformers(hf, ct2):
    """Not only the greedy tokens: the probabilities too (CTranslate2 must not rescale the
    outputs of a T5 v1.1, which would change beam search and sampling)."""
    import torch

    sentence = SENTENCES["deu_Latn"][0]
    [source] = hf.encode([sentence], hf.language_id("eng_Latn"))
    [target] = hf._generate([source], "eng_Latn", None, None)
    tokens = hf.tokenizer.convert_ids_to_tokens
    [scored] = ct2.model.score_batch([tokens(source)], [tokens(target)])
    with torch.no_grad():
        logits = hf.model(input_ids=torch.tensor([source]), labels=torch.tensor([target])).logits
    expected = logits.log_softmax(-1)[0, torch.arange(len(target)), torch.tensor(target)].tolist()
    assert scored.log_probs[: len(target)] == pytest.approx(expected, abs=1e-3)


def test_sampling_works_in_both_engines_and_transformers_is_seeded_per_sentence(hf, ct2):
    sampling = SamplingSpec(temperature=5.0, top_p=1.0, seed=3)
    alone = hf.translate(["Hallo Welt."], "deu_Latn", "eng_Latn", sampling=sampling)
    together = hf.translate(["Wer schrieb Faust?", "Hallo Welt."], "deu_Latn", "eng_Latn", sampling=sampling)
    assert together[1] == alone[0] and together[1] != hf.translate(["Hallo Welt."], "deu_Latn", "eng_Latn")[0]
    assert all(ct2.translate(["Hallo Welt.", "Wer schrieb Faust?"], "deu_Latn", "eng_Latn", sampling=sampling))


def test_conversion_of_the_t5_checkpoint_is_self_contained(ct2_dir, tiny_madlad):
    names = {path.name for path in ct2_dir.iterdir()}
    assert {"model.bin", "config.json", "tokenizer.json", "spiece.model", CT2_MARKER} <= names
    assert json.loads((ct2_dir / CT2_MARKER).read_text())["source"] == str(Path(tiny_madlad).resolve())
    # the converted directory alone is enough (its own tokenizer)
    alone = load_translator(madlad_spec(backend="ctranslate2", ct2_location=str(ct2_dir), compute_type="float32"))
    assert alone.tokenizer.convert_ids_to_tokens(alone.language_id("eng_Latn")) == "<2en>"


# --------------------------------------------------------------------------------------
# Cache key and config
# --------------------------------------------------------------------------------------


def test_identity_names_the_family_only_for_madlad():
    section = {"model": {"hf_id": "google/madlad400-3b-mt"}, "backend": "transformers", "dtype": "float32"}
    madlad = TranslatorSpec.from_config(section | {"family": "madlad"}, None, device="cpu")
    nllb = TranslatorSpec.from_config(section, None, device="cpu")
    assert (madlad.family, nllb.family) == ("madlad", "nllb")
    assert madlad.identity() == nllb.identity() | {"family": "madlad"}
    # NLLB keys are exactly what they were before families existed (its cached translations stay valid)
    assert nllb.identity() == {
        "model": "google/madlad400-3b-mt", "revision": None, "backend": "transformers", "dtype": "float32",
        "device": "cpu", "beam_size": 1, "max_input_tokens": 512, "max_new_tokens": 256,
    }  # fmt: skip
    with pytest.raises(TranslationError, match="family"):
        TranslatorSpec(family="m2m")


# --------------------------------------------------------------------------------------
# The translation stage with MADLAD
# --------------------------------------------------------------------------------------


def test_a_translation_job_runs_with_the_madlad_translator_on_both_engines(
    tiny_madlad, ct2_dir, offline_models, tmp_path
):
    responses = response_rows([
        ("1", "de", "Die Hauptstadt von Deutschland ist Berlin. Sie hat fast vier Millionen Einwohner."),
        ("2", "de", "The capital of Germany is Berlin. It has almost four million inhabitants."),
        ("3", "de", NO_ANSWER),
    ])  # fmt: skip
    responses_path = tmp_path / "responses.parquet"
    write_table(responses, responses_path, RESPONSES)
    specs = {
        "transformers": madlad_spec(location=str(tiny_madlad), model_id="tiny-madlad", dtype="float32"),
        "ctranslate2": madlad_spec(backend="ctranslate2", location=str(tiny_madlad), ct2_location=str(ct2_dir),
                                   model_id="tiny-madlad", compute_type="float32"),
    }  # fmt: skip
    out = {}
    for name, spec in specs.items():
        run_translation_job(spec, [responses_path], [tmp_path / f"{name}.parquet"], [tmp_path / f"{name}-s.parquet"],
                            tmp_path / f"{name}.jsonl", language_id_model=offline_models["lid176"],
                            label_scheme="lid176", degeneration=DegenerationSpec(repair=False))  # fmt: skip
        out[name] = pq.read_table(tmp_path / f"{name}.parquet")
        assert out[name].schema.equals(TRANSLATIONS)
    assert out["transformers"]["translation"].to_pylist() == out["ctranslate2"]["translation"].to_pylist()
    rows = {row["item_id"]: row for row in out["transformers"].to_pylist()}
    assert rows["1"]["translation"] and rows["1"]["translation"] != responses.to_pylist()[0]["response"]
    assert rows["2"]["translation"] == responses.to_pylist()[1]["response"]  # already English
    assert rows["3"]["translation"] == NO_ANSWER
    assert rows["1"]["translator"] == "tiny-madlad|transformers|float32|beam1"


# --------------------------------------------------------------------------------------
# The tiny model itself
# --------------------------------------------------------------------------------------


def test_the_tiny_madlad_is_t5_with_a_tag_for_every_translatable_language(tiny_madlad):
    from xlcons.languages import LanguageRegistry

    config = json.loads((tiny_madlad / "config.json").read_text())
    assert config["model_type"] == "t5" and config["decoder_start_token_id"] == config["pad_token_id"] == 0
    assert read_stamp(tiny_madlad)["name"] == "tiny-madlad"
    translator = load_translator(madlad_spec(location=str(tiny_madlad)))
    codes = {language.nllb for language in LanguageRegistry.load() if language.nllb}
    assert len({translator.language_id(code) for code in codes}) == len(codes)  # each its own tag


def test_rebuilding_the_tiny_madlad_gives_identical_files(tiny_madlad, tmp_path, shared_data):
    def hashes(directory):
        import hashlib

        return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in directory.iterdir()
                if p.is_file() and p.name != "xlcons-offline-model.json"}  # fmt: skip

    assert hashes(build_tiny_madlad(tmp_path / "tiny-madlad", shared_data)) == hashes(tiny_madlad)
