"""Each fact about a data set, an evaluator or a generation backend lives in its registry
entry, and what the schema, the rules and the plan say about them agrees with it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from xlcons.config import load_schema
from xlcons.data_sources import DATA_SOURCES
from xlcons.datasets import BUILT_IN, CAPABILITIES
from xlcons.evaluators.registry import ENGLISH_ANSWERS, EVALUATORS, explain_need, resolve
from xlcons.generation.registry import BACKENDS, model_fields

REPO = Path(__file__).resolve().parent.parent
SCHEMA = load_schema()
EVALUATOR_SECTIONS = SCHEMA["properties"]["evaluators"]["properties"]


def test_the_backend_enum_of_the_schema_is_the_backend_registry():
    assert SCHEMA["$defs"]["llm"]["properties"]["backend"]["enum"] == list(BACKENDS)


def test_a_backends_enum_entry_description_and_options_section_come_from_its_entry_alone():
    raw = yaml.safe_load((REPO / "config" / "schema" / "config.schema.yaml").read_text())["$defs"]["llm"]["properties"]
    assert set(raw["backend"]) == {"default"}, "the schema file names no backend"
    llm = SCHEMA["$defs"]["llm"]["properties"]
    for name, info in BACKENDS.items():
        assert info.summary and f"`{name}` ({info.summary})" in llm["backend"]["description"]
        assert (info.options_key is None) == (info.options is None), name
        if info.options_key:
            assert info.options_key not in raw, f"{info.options_key}: declared in the schema file too"
            assert llm[info.options_key] == info.options


def test_every_backend_names_an_env_file_and_a_module_that_registers_it():
    from xlcons.generation.base import backend_class

    for name, info in BACKENDS.items():
        assert (REPO / "envs" / f"{info.env}.yaml").is_file(), name
        if name != "vllm":  # vLLM is not installed in the test environment
            assert backend_class(name).name == name


def test_the_built_in_data_sets_are_the_schemas_named_sets_and_their_sources_exist():
    assert sorted(SCHEMA["properties"]["datasets"]["properties"]) == sorted(BUILT_IN)
    for info in BUILT_IN.values():
        assert info.source is None or info.source in DATA_SOURCES
        assert info.provides <= set(CAPABILITIES)


def test_a_built_in_sets_config_section_is_its_entrys_alone_and_offers_what_its_loader_takes():
    raw = yaml.safe_load((REPO / "config" / "schema" / "config.schema.yaml").read_text())
    assert raw["properties"]["datasets"]["properties"] == {}, "the schema file declares no built-in set"
    for name, info in BUILT_IN.items():
        section = SCHEMA["properties"]["datasets"]["properties"][name]
        assert section == info.config_schema and section["default"] == {"enabled": False}, name
        assert set(info.options) <= set(section.get("properties", {})), (
            f"{name}: load() options missing from its section"
        )


def test_every_evaluator_section_has_its_datasets_key_and_a_rule_file():
    for info in EVALUATORS.values():
        assert "datasets" in EVALUATOR_SECTIONS[info.section]["properties"], info.section
        assert (REPO / "rules" / info.rule_file).is_file(), info.rule_file
        assert info.target in info.outputs
        for need in info.needs:
            assert need in CAPABILITIES or need == ENGLISH_ANSWERS
            assert explain_need(need)


def test_every_section_of_the_schemas_evaluators_belongs_to_a_registered_evaluator():
    assert set(EVALUATOR_SECTIONS) == {info.section for info in EVALUATORS.values()}


def test_each_evaluator_section_is_declared_by_exactly_one_entry_and_nowhere_in_the_schema_file():
    """An evaluator's options live in its entry: the schema file leaves `evaluators` empty, and
    load_schema adds one section per entry that declares options."""
    raw = yaml.safe_load((REPO / "config" / "schema" / "config.schema.yaml").read_text())
    assert raw["properties"]["evaluators"]["properties"] == {}
    declaring = [info.section for info in EVALUATORS.values() if info.options is not None]
    assert sorted(declaring) == sorted(set(declaring)) == sorted(EVALUATOR_SECTIONS)
    for info in EVALUATORS.values():
        if info.options is not None:
            assert EVALUATOR_SECTIONS[info.section] == info.options
            assert info.options["additionalProperties"] is False, f"{info.section}: a misspelt option must fail"


def evaluator_rules(rule_file: str) -> list[str]:
    return re.findall(r"^\s*rule (\w+):", (REPO / "rules" / rule_file).read_text(), flags=re.M)


@pytest.mark.parametrize("rule_file", sorted({info.rule_file for info in EVALUATORS.values()}))
def test_every_rule_of_an_evaluator_runs_the_one_evaluator_script_and_a_function_its_entry_names(rule_file):
    from xlcons.evaluators.registry import RULE_JOBS

    owners = {rule: info.name for info in EVALUATORS.values() if info.rule_file == rule_file for rule in info.jobs}
    rules = evaluator_rules(rule_file)
    assert rules and sorted(rules) == sorted(owners), f"{rule_file}: rules {rules}, registered jobs {sorted(owners)}"
    text = (REPO / "rules" / rule_file).read_text()
    assert text.count("script:") == len(rules) == text.count('"../workflow_scripts/evaluate.py"')
    for rule in rules:
        assert callable(resolve(RULE_JOBS[rule])), RULE_JOBS[rule]


@pytest.mark.parametrize("name", sorted(name for name, info in EVALUATORS.items() if info.calls_models))
def test_an_evaluator_that_calls_a_model_names_the_estimator_of_its_jobs(name):
    """`xlcons estimate` and the budget check before scheduling count every model job: an entry
    with calls_models names its estimator (EvaluatorInfo.estimate), which the estimate resolves."""
    from xlcons.estimate.stages import estimator_of

    info = EVALUATORS[name]
    assert info.estimate, f"{name}: calls_models without an estimate"
    assert callable(resolve(info.estimate)) and estimator_of(name) is resolve(info.estimate)


def test_a_stage_without_an_estimator_is_unknown_in_the_estimate_not_an_error():
    from xlcons.estimate.stages import estimate_job

    row = estimate_job(None, {"stage": "a_new_evaluator", "dataset": "d", "model": "m", "translator": ""})
    assert row.basis == "unknown" and "EvaluatorInfo.estimate" in row.note


def test_no_two_evaluators_claim_one_rule():
    rules = [rule for info in EVALUATORS.values() for rule in info.jobs]
    assert len(rules) == len(set(rules))


@pytest.mark.parametrize("name", sorted(EVALUATORS))
def test_every_results_source_resolves_to_a_schema_and_an_adapter(name):
    import pyarrow as pa

    info = EVALUATORS[name]
    for source in info.results:
        assert source.output in info.outputs
        assert isinstance(resolve(source.schema), pa.Schema)
        assert callable(resolve(source.adapter))
    for reference in info.derived:
        assert resolve(reference).name


@pytest.mark.parametrize("name", sorted(EVALUATORS))
def test_an_evaluators_rule_writes_exactly_its_registered_outputs(name):
    info = EVALUATORS[name]
    text = (REPO / "rules" / info.rule_file).read_text()
    for output in info.outputs:
        assert f'evaluation("{output}")' in text, f"{info.rule_file} does not write {output}"


def test_no_backend_or_data_set_is_special_cased_outside_its_registry():
    """The plan, the config checks and the shared rule functions ask the registries, never
    `backend == ...` or a data set's name."""
    sources = {
        **{
            f"plan/{path.name}": path.read_text()
            for path in sorted((REPO / "workflow_scripts/xlcons/plan").glob("*.py"))
        },
        **{
            f"config/{path.name}": path.read_text()
            for path in sorted((REPO / "workflow_scripts/xlcons/config").glob("*.py"))
        },
        "dataset_resolver.py": (REPO / "workflow_scripts/xlcons/dataset_resolver.py").read_text(),
        "common.smk": (REPO / "rules/common.smk").read_text(),
        "generation/base.py": (REPO / "workflow_scripts/xlcons/generation/base.py").read_text(),
    }
    for name, text in sources.items():
        assert not re.search(r"backend\"?\]? ?[!=]= ?\"(vllm|hf|openai|file)\"", text), (
            f"{name} special-cases a backend"
        )
        for dataset in ("multiq", "makqa"):  # (information and empathy are also evaluator sections)
            assert f'"{dataset}"' not in text, f"{name} names the data set {dataset}"


def test_a_generation_jobs_params_leave_out_reporting_only_model_keys():
    spec = {
        "backend": "hf",
        "hf_id": "org/m",
        "training_languages": ["en"],
        "languages": None,
        "decoding": {"temperature": 0.0},
        "hf": {"device": "cpu"},
        "vllm": {"tensor_parallel_size": 2},
    }
    fields = model_fields(spec)
    assert "training_languages" not in fields and "languages" not in fields
    assert fields["hf"] == {"device": "cpu"} and "vllm" not in fields, "only the backend's own section"


def test_the_results_stage_finds_every_results_source_by_its_output_name():
    """The results rule names its inputs by output, so no two evaluators may share one."""
    from xlcons.evaluators.registry import RESULTS_SOURCES

    outputs = [source.output for info in EVALUATORS.values() for source in info.results]
    assert len(outputs) == len(set(outputs)) == len(RESULTS_SOURCES)
    assert RESULTS_SOURCES["judgments"][0].name == "judge"
