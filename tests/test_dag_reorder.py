"""What a reordered config reruns, as Snakemake decides it: a finished job reruns when its
params change (the workflow profile's `params` trigger; its input trigger compares sorted file
lists, so the order of inputs never counts). Each test builds the DAG of the default config
and of a reordered copy through Snakemake's API and compares every job's params as Snakemake's
persistence records them. docs/cluster.md#what-reruns-a-job says the same in words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
BASE = REPO / "config" / "config.yaml"
ENTRY_SECTIONS = ("models", "datasets")  # whose entries' order is the order of the tables' rows


def planned_params(config: dict, folder: Path) -> dict[tuple[str, tuple[str, ...]], tuple[list[str], bool]]:
    """Every job of `config` (forced, as if nothing were done): (rule, outputs) -> (its params as
    Snakemake records them for the rerun trigger, whether its rule is a local rule: a light job
    on the machine that runs Snakemake, never a model's)."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, DAGSettings, OutputSettings, ResourceSettings

    configfile = folder / "config.yaml"
    configfile.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    with SnakemakeApi(OutputSettings(quiet={"all"})) as api:
        workflow_api = api.workflow(
            resource_settings=ResourceSettings(),
            config_settings=ConfigSettings(configfiles=[configfile]),
            snakefile=REPO / "Snakefile",
            workdir=REPO,
        )
        workflow_api.dag(dag_settings=DAGSettings(forceall=True))
        workflow = workflow_api._workflow
        workflow._prepare_dag(forceall=True, ignore_incomplete=True, lock_warn_only=True, nolock=True)
        workflow._build_dag()
        return {
            (job.rule.name, tuple(sorted(map(str, job.output)))): (
                workflow.persistence._params(job),
                job.rule.name in workflow._localrules,
            )
            for job in workflow.dag.jobs
        }


def reversed_keys(value: Any) -> Any:
    """Every mapping's keys in reverse order, at every depth; lists as they are."""
    if isinstance(value, dict):
        return {key: reversed_keys(value[key]) for key in reversed(list(value))}
    if isinstance(value, list):
        return [reversed_keys(item) for item in value]
    return value


def changed_rules(before: dict, after: dict) -> dict[str, bool]:
    """The rules of the jobs whose params differ -> whether all those jobs are local ones."""
    assert sorted(before) == sorted(after), "the reordered config plans other jobs"
    changed: dict[str, bool] = {}
    for key, (params, local) in before.items():
        if after[key][0] != params:
            changed[key[0]] = changed.get(key[0], True) and local
    return changed


@pytest.fixture(scope="module")
def base() -> dict:
    return yaml.safe_load(BASE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def base_params(base, tmp_path_factory) -> dict:
    return planned_params(base, tmp_path_factory.mktemp("base"))


def test_reordered_keys_and_training_languages_rerun_nothing(base, base_params, tmp_path):
    """Keys in another order at every depth (the entries of `models` and `datasets` kept in
    theirs), and each model's `training_languages` in another order: every job's params are
    the same."""
    reordered = {
        section: {name: reversed_keys(entry) for name, entry in value.items()}
        if section in ENTRY_SECTIONS
        else reversed_keys(value)
        for section, value in reversed(list(base.items()))
    }
    for spec in reordered["models"].values():
        spec["training_languages"] = spec["training_languages"][::-1]
    assert changed_rules(base_params, planned_params(reordered, tmp_path)) == {}


def test_reordered_models_and_data_sets_rerun_only_the_local_reports_whose_rows_follow_that_order(
    base, base_params, tmp_path
):
    """The order of `models` and `datasets` is the order of the tables' and figures' rows: the
    local report jobs that write them rerun; no job that loads a model does."""
    reordered = {
        **base,
        **{section: dict(reversed(list(base[section].items()))) for section in ENTRY_SECTIONS},
    }
    assert changed_rules(base_params, planned_params(reordered, tmp_path)) == {
        "evaluator_report": True,
        "explorer": True,
        "translate_then_evaluate_report": True,
        "translation_quality_report": True,
        "usage": True,
    }


def test_a_data_sets_languages_in_another_order_rerun_its_prompts_and_generation(base, base_params, tmp_path):
    """A data set's `languages` are the order of its answer files: its generation jobs (which
    then answer from their caches) and its prompt translation rerun, and what follows them."""
    reordered = {**base, "datasets": {**base["datasets"]}}
    reordered["datasets"]["empathy"] = {**base["datasets"]["empathy"]}
    reordered["datasets"]["empathy"]["languages"] = base["datasets"]["empathy"]["languages"][::-1]
    assert changed_rules(base_params, planned_params(reordered, tmp_path)) == {
        "generate_empathy": False,
        "translate_prompts_empathy": False,
    }
