"""Each fact about a translator backend or a QE backend lives in its registry entry
(xlcons.translation.registry, xlcons.translation.quality_backends), and the config schema,
the config checks and the translation job read it from there: a new entry is offered,
described and checked without another file naming it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from xlcons.config import ConfigError, load_schema, validate_config
from xlcons.config.validation import validate_schema
from xlcons.translation.quality_backends import NO_QE, QE_BACKENDS, QEBackend, qe_threshold
from xlcons.translation.registry import LLM_TRANSLATOR, TRANSLATOR_BACKENDS, TranslatorBackendInfo, checkpoint_backends

REPO = Path(__file__).resolve().parent.parent
RAW = yaml.safe_load((REPO / "config" / "schema" / "config.schema.yaml").read_text())
SCHEMA = load_schema()
TRANSLATOR = SCHEMA["properties"]["translator"]["properties"]
EXTRA = SCHEMA["properties"]["translators"]["additionalProperties"]["properties"]
QE = TRANSLATOR["qe"]["properties"]


def fresh_schema() -> dict:
    """The schema built again from the registries as they are now (load_schema caches its first)."""
    return load_schema.__wrapped__()


# --------------------------------------------------------------------------------------
# Translator backends
# --------------------------------------------------------------------------------------


def test_translator_offers_the_checkpoint_backends_and_a_translators_entry_every_backend():
    assert TRANSLATOR["backend"]["enum"] == checkpoint_backends() == ["transformers", "ctranslate2"]
    assert EXTRA["backend"]["enum"] == list(TRANSLATOR_BACKENDS) == ["transformers", "ctranslate2", LLM_TRANSLATOR]
    assert TRANSLATOR["backend"]["default"] == "transformers"


def test_the_schema_file_names_no_translator_backend():
    assert set(RAW["properties"]["translator"]["properties"]["backend"]) == {"default"}


def test_each_backend_is_described_by_its_entrys_summary():
    for name, info in TRANSLATOR_BACKENDS.items():
        assert info.summary, name
        if info.generation:
            assert f"`{name}`: {info.summary}." in EXTRA["backend"]["description"]
            assert f"`{name}`" not in TRANSLATOR["backend"]["description"], "the primary translator runs a checkpoint"
        else:
            assert f"`{name}` ({info.summary})" in TRANSLATOR["backend"]["description"]
            assert f"`{name}` ({info.summary})" in EXTRA["backend"]["description"]


def test_a_generation_backends_model_and_options_are_keys_of_a_translators_entry_only():
    for name, info in TRANSLATOR_BACKENDS.items():
        if info.generation:
            assert EXTRA[info.model_key] == {
                "description": f"The generation model of a `backend: {name}` translator.",
                "$ref": "#/$defs/llm",
            }
        for option, schema in info.options.items():
            assert EXTRA[option] == schema and option not in TRANSLATOR, option
            assert schema["description"] and "default" not in schema, option


def test_every_entry_names_the_module_that_registers_its_class():
    from xlcons.translation.translators import translator_class

    for name, info in TRANSLATOR_BACKENDS.items():
        cls = translator_class(name)
        assert cls.name == name and cls.__module__ == info.module


def test_an_unknown_backend_is_refused_naming_the_registered_ones():
    from xlcons.translation.spec import TranslationError, TranslatorSpec
    from xlcons.translation.translators import translator_class

    with pytest.raises(
        TranslationError, match="unknown translator backend 'marian'; known: transformers, ctranslate2, llm"
    ):
        TranslatorSpec(backend="marian")
    with pytest.raises(TranslationError, match="known: ctranslate2, llm, transformers"):
        translator_class("marian")


def test_an_llm_translator_runs_only_through_the_generation_backends_its_entry_lists():
    info = TRANSLATOR_BACKENDS[LLM_TRANSLATOR]
    assert info.generation_backends == ("hf", "openai")
    config = two_translators(backend=LLM_TRANSLATOR, llm={"hf_id": "org/llm", "backend": "vllm"})
    with pytest.raises(
        ConfigError, match=f"vllm does not run inside a translation job; use {' or '.join(info.generation_backends)} "
    ):
        validate_config(config)
    for backend in info.generation_backends:
        validate_config(two_translators(backend=LLM_TRANSLATOR, llm={"hf_id": "org/llm", "backend": backend}))


def test_only_the_ctranslate2_backend_converts_its_checkpoint():
    assert [name for name, info in TRANSLATOR_BACKENDS.items() if info.converted] == ["ctranslate2"]


def test_a_new_translator_backend_is_offered_and_checked_from_its_entry_alone(monkeypatch):
    marian = TranslatorBackendInfo("marian", "xlcons.translation.marian", summary="Marian NMT checkpoints")
    monkeypatch.setitem(TRANSLATOR_BACKENDS, "marian", marian)
    schema = fresh_schema()
    primary = schema["properties"]["translator"]["properties"]["backend"]
    assert primary["enum"] == ["transformers", "ctranslate2", "marian"]
    assert primary["description"].endswith(" or `marian` (Marian NMT checkpoints).")
    validate_schema({"translator": {"backend": "marian"}}, schema)
    extra = schema["properties"]["translators"]["additionalProperties"]["properties"]
    assert "marian" in extra["backend"]["enum"]


def test_a_new_generation_backend_brings_its_model_key_and_options_and_they_are_refused_elsewhere(monkeypatch):
    chat = TranslatorBackendInfo(
        "chat",
        "xlcons.translation.chat",
        summary="a chat model translates",
        generation=True,
        model_key="chat",
        generation_backends=("openai",),
        options={"style": {"description": "Formal or not.", "type": ["string", "null"]}},
    )
    monkeypatch.setitem(TRANSLATOR_BACKENDS, "chat", chat)
    extra = fresh_schema()["properties"]["translators"]["additionalProperties"]["properties"]
    assert "`chat`: a chat model translates." in extra["backend"]["description"]
    assert extra["chat"]["$ref"] == "#/$defs/llm" and extra["style"]["type"] == ["string", "null"]

    from xlcons.config.translators import check_translators

    config = {
        "translator": {"name": "primary", "model": {"hf_id": "org/nllb"}},
        "translators": {"t": {"backend": "transformers", "style": "formal", "chat": {"backend": "hf"}}},
    }
    assert list(check_translators(config)) == [
        "config key 'translators.t.chat': only a translator with backend: chat has one",
        "config key 'translators.t.style': only a translator with backend: chat has a style",
    ]
    config["translators"]["t"] = {"backend": "chat", "chat": {"backend": "hf"}}
    assert list(check_translators(config)) == [
        "config key 'translators.t.chat.backend': hf does not run inside a translation job; use openai "
        "(for vLLM: serve the model with `vllm serve` and point backend: openai at it with api.base_url)",
    ]


# --------------------------------------------------------------------------------------
# QE backends
# --------------------------------------------------------------------------------------


def test_qe_offers_every_registered_backend_and_none():
    assert QE["backend"]["enum"] == [*QE_BACKENDS, NO_QE] == ["embedding", "comet", "none"]
    assert set(RAW["properties"]["translator"]["properties"]["qe"]["properties"]["backend"]) == {"default"}


def test_each_qe_backends_summary_default_model_and_threshold_are_in_the_descriptions():
    for name, info in QE_BACKENDS.items():
        assert info.summary and f"`{name}` ({info.summary})" in QE["backend"]["description"]
        assert f"`{name}`: {info.default_model}" in QE["model"]["description"]
        assert f"{name} {info.threshold}" in QE["threshold"]["description"]
    assert QE["backend"]["description"].endswith(", or `none` (no QE).")


def test_no_placeholder_of_the_schema_file_is_left_in_the_schema():
    text = repr(SCHEMA)
    assert "{default_models}" not in text and "{default_thresholds}" not in text


def test_a_new_qe_backend_is_offered_with_its_defaults_and_used_by_the_checks(monkeypatch):
    bleurt = QEBackend(
        "bleurt",
        "lucadiliello/BLEURT-20",
        0.6,
        "qe-bleurt",
        "xlcons.translation.quality_bleurt",
        summary="a learned metric, reference-free here",
    )
    monkeypatch.setitem(QE_BACKENDS, "bleurt", bleurt)
    qe = fresh_schema()["properties"]["translator"]["properties"]["qe"]["properties"]
    assert qe["backend"]["enum"] == ["embedding", "comet", "bleurt", "none"]
    assert "`bleurt` (a learned metric, reference-free here), or `none`" in qe["backend"]["description"]
    assert "`bleurt`: lucadiliello/BLEURT-20" in qe["model"]["description"]
    assert "bleurt 0.6" in qe["threshold"]["description"]
    assert qe_threshold({"backend": "bleurt", "threshold": None}) == 0.6

    from xlcons.config.translators import qe_model_source

    assert qe_model_source({"backend": "bleurt", "model": None})["hf_id"] == "lucadiliello/BLEURT-20"


def test_every_qe_backend_has_a_scorer_module_and_an_env_file():
    import importlib

    for name, info in QE_BACKENDS.items():
        assert callable(importlib.import_module(info.module).scorer), name
        assert (REPO / "envs" / f"{info.env}.yaml").is_file(), name


def test_the_qe_table_of_docs_translation_md_agrees_with_the_registry():
    text = (REPO / "docs" / "translation.md").read_text()
    for name, info in QE_BACKENDS.items():
        [row] = [line for line in text.splitlines() if line.startswith(f"| `{name}` |")]
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert cells[1].startswith(f"`{info.default_model}`") and cells[3] == str(info.threshold), row


# --------------------------------------------------------------------------------------
# No backend named outside its registry
# --------------------------------------------------------------------------------------


def test_the_config_checks_name_no_translator_or_qe_backend():
    for path in sorted((REPO / "workflow_scripts" / "xlcons" / "config").glob("*.py")):
        text = path.read_text()
        for name in [*TRANSLATOR_BACKENDS, *QE_BACKENDS]:
            # (a subscript such as schema["$defs"]["llm"] is a schema key, not the backend)
            assert not re.search(rf"""(?<!\[)["']{re.escape(name)}["']""", text), (
                f"{path.name} names the backend {name!r}"
            )
        assert not re.search(rf"""[!=]= ?["']{NO_QE}["']""", text), f"{path.name} compares with {NO_QE!r}, not NO_QE"


def two_translators(**second) -> dict:
    entry = {key: value for key, value in second.items() if value is not None}
    return {
        "models": {"m": {"hf_id": "org/m"}},
        "translators": {"extra": entry},
        "datasets": {"information": {"languages": ["de"]}},
        "evaluators": {"language_confusion": {"datasets": []}},
    }
