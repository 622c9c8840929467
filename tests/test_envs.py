"""Every rule runs in a conda env that exists, parses, pins its packages and covers its imports.

Conda cannot run on the project's machines, so the env files are checked statically:
the workflow is loaded through the Snakemake API, and each rule's script is followed
through the xlcons modules it imports to the third-party packages it needs.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from xlcons.evaluators.registry import RULE_JOBS
from xlcons.generation.registry import BACKENDS
from xlcons.translation.quality_backends import QE_BACKENDS
from xlcons.translation.registry import TRANSLATOR_BACKENDS

REPO = Path(__file__).resolve().parent.parent
LIBRARY = REPO / "workflow_scripts"

# Import names whose distribution is named differently.
DISTRIBUTION_OF = {
    "yaml": "pyyaml",
    "fasttext": "fasttext-numpy2",
    "sklearn": "scikit-learn",
    "indicnlp": "indic-nlp-library",
    "google": "protobuf",
    "sentence_transformers": "sentence-transformers",
    "comet": "unbabel-comet",
}
# vLLM pins its own torch build; the vLLM env follows it instead of the CPU test pin.
VLLM_OWN_PINS = {"torch"}
# unbabel-comet 2.2.7 needs transformers < 5, huggingface-hub < 1, numpy < 2 and an older protobuf:
# the COMET QE env pins its own (tested through the fake in tests/test_translation_quality.py).
COMET_OWN_PINS = {"transformers", "huggingface-hub", "numpy", "protobuf"}
# Provided by Snakemake itself when it runs a script (never imported at top level by the library).
PROVIDED = {"snakemake", "xlcons"}


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


# The default config, with MultiQ's answers translated too, so that every rule file defines
# its rules (translation and the CTranslate2 conversion included).
EVERY_STAGE = {"translator": {"datasets": ["multiq", "information", "empathy"]}}


def load_rules():
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings

    with SnakemakeApi(OutputSettings(quiet={"all"})) as api:
        workflow_api = api.workflow(
            resource_settings=ResourceSettings(),
            config_settings=ConfigSettings(config=EVERY_STAGE),
            snakefile=REPO / "Snakefile",
            workdir=REPO,
        )
        workflow_api.dag()
        workflow = workflow_api._workflow
        return list(workflow.rules), workflow.globals["PLAN"]


RULES, PLAN = load_rules()
# Rules that run something; aggregate rules (all, fetch) only name inputs.
COMPUTING_RULES = [rule for rule in RULES if not rule.norun]


def imported_modules(path: Path) -> set[str]:
    """Top-level names of every module a file imports, at any depth of the file."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def third_party_imports(script: Path) -> set[str]:
    """Follow a script through the xlcons modules it uses; return the outside packages."""
    seen, todo, outside = set(), [script], set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for module in imported_modules(path):
            top = module.split(".")[0]
            if top == "xlcons":
                parts = module.split(".")
                candidate = LIBRARY.joinpath(*parts)
                todo += [p for p in (candidate.with_suffix(".py"), candidate / "__init__.py") if p.exists()]
                todo.append(LIBRARY / "xlcons" / "__init__.py")
            elif top not in sys.stdlib_module_names and top not in PROVIDED:
                outside.add(top)
    return outside


def env_packages(env_file: Path) -> dict[str, str]:
    """Package -> pinned version of a conda env file (conda and pip sections)."""
    spec = yaml.safe_load(env_file.read_text(encoding="utf-8"))
    assert isinstance(spec, dict) and spec.get("dependencies"), f"{env_file} has no dependencies"
    pins = {}
    for entry in spec["dependencies"]:
        for item in entry["pip"] if isinstance(entry, dict) else [entry]:
            match = re.fullmatch(r"([A-Za-z0-9_.\-]+)\s*==?\s*([0-9][^\s,;]*)", item)
            assert match, f"{env_file}: '{item}' is not pinned to one version"
            pins[normalise(match.group(1))] = match.group(2)
    return pins


def rule_envs(rule) -> list[Path]:
    """The env file(s) a rule's jobs use; a function picks one per model (generation)."""
    if callable(rule.conda_env):
        return sorted({Path(rule.conda_env(SimpleNamespace(model=model))).resolve() for model in PLAN.generators()})
    return [(Path(rule.snakefile).parent / rule.conda_env).resolve()]


def module_file(module: str) -> Path:
    """A library module's file: `xlcons/a/b.py`, or `xlcons/a/b/__init__.py` for a package."""
    path = LIBRARY.joinpath(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def rule_code(rule) -> list[Path]:
    """The rule's script and, for an evaluator rule (the one evaluator script), the module of the
    function its registry entry names for it."""
    paths = [(Path(rule.snakefile).parent / rule.script).resolve()]
    if rule.name in RULE_JOBS:
        module = RULE_JOBS[rule.name].partition(":")[0]
        paths.append(module_file(module))
    return paths


def test_the_workflow_has_rules_to_check():
    names = {rule.name for rule in COMPUTING_RULES}
    assert {
        "fetch_model",
        "fetch_dataset",
        "prompts",
        "generate_multiq",
        "judge",
        "knowledge_scores",
        "language_confusion",
    } <= names
    assert {"translate_multiq", "convert_translator"} <= names


def needed_distributions(*paths: Path) -> set[str]:
    return {normalise(DISTRIBUTION_OF.get(name, name)) for path in paths for name in third_party_imports(path)}


@pytest.mark.parametrize("rule", COMPUTING_RULES, ids=lambda rule: rule.name)
def test_rule_names_an_env_file_that_exists(rule):
    assert rule.conda_env, f"rule {rule.name} has no conda: directive"
    for env in rule_envs(rule):
        assert env.is_file(), f"rule {rule.name}: {env} does not exist"
        assert env.parent == REPO / "envs"


@pytest.mark.parametrize("rule", COMPUTING_RULES, ids=lambda rule: rule.name)
def test_rule_env_pins_what_its_code_imports(rule):
    assert rule.script, f"rule {rule.name} should call a script under workflow_scripts/"
    needed = needed_distributions(*rule_code(rule))
    for env in rule_envs(rule):
        missing = sorted(needed - set(env_packages(env)))
        assert not missing, f"rule {rule.name}: {env.name} lacks {missing}"


def missing_from_env(module: str, script: str, env: str) -> list[str]:
    """What a backend module imported by name, with the rule script that loads it, needs and envs/<env>.yaml lacks."""
    path = module_file(module)
    return sorted(
        needed_distributions(REPO / "workflow_scripts" / script, path)
        - set(env_packages(REPO / "envs" / f"{env}.yaml"))
    )


@pytest.mark.parametrize("backend", sorted(QE_BACKENDS))
def test_each_qe_backend_runs_in_an_env_that_pins_its_imports(backend):
    """QE backends are imported by name at run time too."""
    missing = missing_from_env(QE_BACKENDS[backend].module, "translation_qe.py", QE_BACKENDS[backend].env)
    assert not missing, f"QE backend {backend}: envs/{QE_BACKENDS[backend].env}.yaml lacks {missing}"


@pytest.mark.parametrize("backend", sorted(TRANSLATOR_BACKENDS))
def test_each_translator_backend_runs_in_the_translation_env_that_pins_its_imports(backend):
    """Translator backends are imported by name at run time too, all in envs/translate.yaml."""
    missing = missing_from_env(TRANSLATOR_BACKENDS[backend].module, "translate.py", "translate")
    assert not missing, f"translator backend {backend}: envs/translate.yaml lacks {missing}"


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_each_generation_backend_runs_in_an_env_that_pins_its_imports(backend):
    """Backends are imported by name at run time, so they are traced here, one by one."""
    missing = missing_from_env(BACKENDS[backend].module, "generate.py", BACKENDS[backend].env)
    assert not missing, f"backend {backend}: envs/{BACKENDS[backend].env}.yaml lacks {missing}"


@pytest.mark.parametrize("env_file", sorted((REPO / "envs").glob("*.yaml")), ids=lambda p: p.name)
def test_env_file_parses_and_pins_everything(env_file):
    pins = env_packages(env_file)
    assert "python" in pins, f"{env_file.name} must pin python"


@pytest.mark.parametrize("env_file", sorted((REPO / "envs").glob("*.yaml")), ids=lambda p: p.name)
def test_env_versions_agree_with_the_tested_requirements(env_file):
    """The conda envs use the versions the test suite ran with, so a cluster run is a tested run."""
    tested = {}
    for line in (REPO / "requirements" / "test.txt").read_text().splitlines():
        match = re.fullmatch(r"([A-Za-z0-9_.\-]+)==(\S+)", line.strip())
        if match:
            tested[normalise(match.group(1))] = match.group(2)
    own_pins = {"generate-vllm.yaml": VLLM_OWN_PINS, "qe-comet.yaml": COMET_OWN_PINS}.get(env_file.name, set())
    disagree = {
        name: (version, tested[name])
        for name, version in env_packages(env_file).items()
        if name in tested and tested[name] != version and name not in own_pins
    }
    assert not disagree, f"{env_file.name} pins differ from requirements/test.txt: {disagree}"


def test_import_analysis_sees_lazy_imports(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import os\nfrom xlcons.config import validate_config\n\ndef f():\n    import torch\n")
    assert third_party_imports(script) >= {"torch", "jsonschema", "yaml"}
    assert "os" not in third_party_imports(script)
