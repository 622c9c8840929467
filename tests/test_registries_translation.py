"""Each fact about a translator backend or a QE backend lives in its entry, declared beside the
backend's code (`BACKEND` of `translation/<name>_translator_entry.py`, `QE_BACKEND` of
`translation/qe_<name>.py`) and collected by its registry (xlcons.translation.registry,
xlcons.translation.quality_backends), which finds those modules by file name; the config
schema, the config checks and the translation job read it from there: a new entry is found,
offered, described and checked without another file naming it."""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from xlcons.config import ConfigError, load_schema, validate_config
from xlcons.config.validation import validate_schema
from xlcons.translation import quality_backends, registry
from xlcons.translation.quality_backends import NO_QE, QE_BACKENDS, QE_MODULES, QEBackend, qe_modules, qe_threshold
from xlcons.translation.registry import (
    ENTRY_MODULES,
    LLM_TRANSLATOR,
    TRANSLATOR_BACKENDS,
    TranslatorBackendInfo,
    checkpoint_backends,
    entry_modules,
)

REPO = Path(__file__).resolve().parent.parent
LIBRARY = REPO / "workflow_scripts"
TRANSLATION_DIR = LIBRARY / "xlcons" / "translation"
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
    marian = TranslatorBackendInfo("marian", summary="Marian NMT checkpoints", module="xlcons.translation.marian")
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
        summary="a chat model translates",
        module="xlcons.translation.chat",
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
        module="xlcons.translation.qe_bleurt",
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
# Each entry beside its backend's code, found by file name and collected
# --------------------------------------------------------------------------------------


def test_the_registries_declare_no_backend_and_only_collect_the_backends_modules():
    for module, infos in [(registry, TRANSLATOR_BACKENDS), (quality_backends, QE_BACKENDS)]:
        tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
        calls = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        assert not calls & {"TranslatorBackendInfo", "QEBackend"}, module.__name__
        named = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
        assert not named & set(infos), f"{module.__name__} names a backend"
    assert registry.collect_backends() == TRANSLATOR_BACKENDS
    assert quality_backends.collect_backends() == QE_BACKENDS


def test_every_translator_entry_module_is_collected_and_names_the_module_beside_it():
    found = sorted(f"xlcons.translation.{path.stem}" for path in TRANSLATION_DIR.glob("*_translator_entry.py"))
    assert found == sorted(ENTRY_MODULES) and len(found) == len(TRANSLATOR_BACKENDS)
    for module in ENTRY_MODULES:
        info = importlib.import_module(module).BACKEND
        assert isinstance(info, TranslatorBackendInfo) and not info.module, module
        assert TRANSLATOR_BACKENDS[info.name].module == module.removesuffix("_entry"), module
        assert (LIBRARY / (module.removesuffix("_entry").replace(".", "/") + ".py")).is_file(), module


def test_every_qe_module_is_collected_and_is_its_entrys_module():
    found = sorted(f"xlcons.translation.{path.stem}" for path in TRANSLATION_DIR.glob("qe_*.py"))
    assert found == sorted(QE_MODULES) and len(found) == len(QE_BACKENDS)
    for module in QE_MODULES:
        info = importlib.import_module(module).QE_BACKEND
        assert isinstance(info, QEBackend) and not info.module, module
        assert QE_BACKENDS[info.name].module == module


def test_a_new_backend_module_is_found_by_its_name_alone_in_the_order_of_the_names(tmp_path):
    for name in ["zeta_translator_entry.py", "alpha_translator_entry.py", "alpha_translator.py", "qe_zeta.py"]:
        (tmp_path / name).write_text("")
    for name in ["qe_alpha.py", "quality_helpers.py", "sentence_translator.py", "helpers_entry.py"]:
        (tmp_path / name).write_text("")
    assert entry_modules(tmp_path, "pkg") == ("pkg.alpha_translator_entry", "pkg.zeta_translator_entry")
    assert qe_modules(tmp_path, "pkg") == ("pkg.qe_alpha", "pkg.qe_zeta")


def test_the_backends_keep_the_order_their_positions_give_whatever_the_names_of_their_modules():
    assert list(TRANSLATOR_BACKENDS) == ["transformers", "ctranslate2", LLM_TRANSLATOR]
    assert [info.position for info in TRANSLATOR_BACKENDS.values()] == [10, 20, 30]
    assert list(QE_BACKENDS) == ["embedding", "comet"]
    positions = [info.position for info in QE_BACKENDS.values()]
    assert positions == sorted(positions)


def test_a_new_backend_module_is_collected_by_its_position_and_else_after_the_built_in_ones(tmp_path, monkeypatch):
    package = tmp_path / "more_backends"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "aaa_translator_entry.py").write_text(
        "from xlcons.translation.backend_info import TranslatorBackendInfo\n"
        "BACKEND = TranslatorBackendInfo('aaa', summary='last: no position')\n"
    )
    (package / "zzz_translator_entry.py").write_text(
        "from xlcons.translation.backend_info import TranslatorBackendInfo\n"
        "BACKEND = TranslatorBackendInfo('zzz', summary='second', position=15)\n"
    )
    (package / "qe_aaa.py").write_text(
        "from xlcons.translation.backend_info import QEBackend\n"
        "QE_BACKEND = QEBackend('aaa', 'org/aaa', 0.1, 'evaluate', position=15)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    found = registry.collect_backends((*entry_modules(package, "more_backends"), *ENTRY_MODULES))
    assert list(found) == ["transformers", "zzz", "ctranslate2", LLM_TRANSLATOR, "aaa"]
    assert found["zzz"].module == "more_backends.zzz_translator"
    qe = quality_backends.collect_backends((*qe_modules(package, "more_backends"), *QE_MODULES))
    assert list(qe) == ["embedding", "aaa", "comet"] and qe["aaa"].module == "more_backends.qe_aaa"
    with pytest.raises(ValueError, match="backend 'ctranslate2' is declared twice"):
        registry.collect_backends((*ENTRY_MODULES, ENTRY_MODULES[0]))


def modules_loaded_by(statement: str) -> list[str]:
    """The top-level packages outside the standard library (and xlcons) that `statement` loads."""
    probe = (
        f"import sys; {statement}; "
        "print(sorted({m.split('.')[0] for m in sys.modules} - set(sys.stdlib_module_names) - {'xlcons'}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(LIBRARY), "PATH": ""},
        cwd=REPO,
    )
    return [name for name in eval(result.stdout) if not name.startswith("_")]  # a printed list of names


@pytest.mark.parametrize("registry_module", ["xlcons.translation.registry", "xlcons.translation.quality_backends"])
def test_importing_a_registry_loads_no_package_outside_the_standard_library(registry_module):
    """The config checks and the plan read the registries (and so every entry and scorer module)
    while the Snakefile builds the DAG."""
    assert not modules_loaded_by(f"import {registry_module}")


@pytest.mark.parametrize("module", [*ENTRY_MODULES, *QE_MODULES])
def test_importing_a_backends_entry_first_loads_no_package_outside_the_standard_library(module):
    """Whichever is imported first, the registry or an entry's module, no import cycle breaks it."""
    assert not modules_loaded_by(f"import {module}, {module.rsplit('.', 1)[0]}.registry")


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
