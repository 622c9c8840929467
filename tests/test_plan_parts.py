"""The plan is small parts with one concern each, composed by `Plan`; the rules read the config
only through it, and the evaluators' own decisions stay in their packages (their `plan` module)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from xlcons.config import validate_config
from xlcons.evaluators.empathy.plan import Planner as EmpathyPlanner
from xlcons.evaluators.information.plan import Planner as InformationPlanner
from xlcons.evaluators.registry import EVALUATORS, LANGUAGE_ID_MODEL_KEY
from xlcons.plan import FORWARDED, LLMJob, Plan, alternation, via_alternation
from xlcons.plan.scoring import planner_class

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "workflow_scripts" / "xlcons" / "plan"
R = "resources"
MODEL = {"models": {"m": {"hf_id": "org/m"}}}


def plan_of(config: dict) -> Plan:
    return Plan(validate_config(config))


# -- the facade --------------------------------------------------------------------------------


def test_every_name_the_plan_answers_for_a_part_is_that_parts_method_and_belongs_to_one_part_only():
    plan = plan_of(MODEL)
    names = [name for names in FORWARDED.values() for name in names]
    assert len(names) == len(set(names)), "a name forwarded to two parts"
    for part, forwarded in FORWARDED.items():
        for name in forwarded:
            assert callable(getattr(getattr(plan, part), name)), f"plan.{part} has no method {name}"
            assert getattr(plan, name) == getattr(getattr(plan, part), name), f"plan.{name} is not plan.{part}.{name}"


def test_the_plan_answers_as_its_parts_do():
    plan = plan_of({**MODEL, "datasets": {"multiq": {"languages": ["en", "de"]}}})
    assert (
        plan.prompt_files("multiq")
        == plan.layout.prompt_files("multiq")
        == ["results/prompts/multiq/en.parquet", "results/prompts/multiq/de.parquet"]
    )
    assert plan.sources is plan.models.sources and plan.names is plan.models.names
    assert isinstance(plan.llm_job("models.{model}", R, "envs", "multiq"), LLMJob)


def test_the_package_keeps_the_names_the_rules_and_tests_import():
    import xlcons.plan

    assert {"Plan", "LLMJob", "alternation", "via_alternation"} <= set(xlcons.plan.__all__)
    assert alternation(["b", "a.b"]) == r"a\.b|b" and alternation([]) == "(?!x)x"
    assert via_alternation(["", "by-translator/x/"]) == "(?:|by\\-translator/x/)"


@pytest.mark.parametrize("path", sorted(PACKAGE.glob("*.py")), ids=lambda path: path.name)
def test_each_part_stays_small(path):
    assert len(path.read_text().splitlines()) <= 300


@pytest.mark.parametrize("path", sorted(PACKAGE.glob("*.py")), ids=lambda path: path.name)
def test_no_part_names_an_evaluator_or_spells_an_evaluators_config_key(path):
    """What an evaluator decides is in its registry entry or its package's planner, never here."""
    text = path.read_text()
    for name in {*EVALUATORS, *(info.section for info in EVALUATORS.values())}:
        assert f'"{name}"' not in text, f"{path.name} names the evaluator {name}"
    assert '"evaluators.' not in text, f"{path.name} spells an evaluator's config key"
    if path.name != "scoring.py":
        assert '["evaluators"]' not in text, f"{path.name} reads an evaluator's section (xlcons.plan.scoring does)"


# -- the rules ask the plan ----------------------------------------------------------------------


def rule_files() -> list[Path]:
    return [REPO / "Snakefile", *sorted((REPO / "rules").glob("*.smk"))]


@pytest.mark.parametrize("path", rule_files(), ids=lambda path: path.name)
def test_no_rule_reads_the_config_itself(path):
    """Every params value (a rerun trigger) comes from a plan method named for what it returns."""
    assert "config[" not in path.read_text()


def test_the_shared_rule_functions_know_no_evaluator():
    text = (REPO / "rules" / "common.smk").read_text()
    for name in {*EVALUATORS, *(info.section for info in EVALUATORS.values())}:
        assert f'"{name}"' not in text, f"common.smk names the evaluator {name}"
    assert '"evaluators.' not in text, "common.smk spells an evaluator's config key (the registry has it)"


# -- where files go --------------------------------------------------------------------------------


def test_each_file_has_one_place_under_the_results_folder_and_a_translators_files_lie_under_its_prefix():
    layout = plan_of(
        {**MODEL, "output": {"results_dir": "out"}, "datasets": {"multiq": {"languages": ["en", "de"]}}}
    ).layout
    assert layout.response_file("multiq", "m", "de") == "out/responses/multiq/m/de.parquet"
    assert layout.response_files("multiq", "m", english=False) == ["out/responses/multiq/m/de.parquet"]
    assert layout.response_table("multiq", "m") == "out/responses/multiq/m.parquet"
    assert (
        layout.translation_file("multiq", "m", "de", via="by-translator/b/")
        == "out/by-translator/b/translations/multiq/m/de.parquet"
    )
    assert layout.translation_files("multiq", "m", "sentences", english=False) == [
        "out/translations/multiq/m/de.sentences.parquet"
    ]
    assert layout.qe_files("multiq", "m") == [
        "out/translations/multiq/m/en.qe.parquet",
        "out/translations/multiq/m/de.qe.parquet",
    ]
    assert layout.round_trip_file("multiq", "m", "hi") == "out/round_trips/multiq/m/hi.parquet"
    assert layout.evaluation_file("multiq", "m", "fidelity") == "out/evaluations/multiq/m/fidelity.parquet"
    assert (
        layout.cache_file("judge", "multiq", "m", "by-translator/b/")
        == "out/by-translator/b/cache/judge/multiq/m.jsonl"
    )
    assert layout.cache_file("translate_prompts", "multiq") == "out/cache/translate_prompts/multiq.jsonl"
    assert layout.prompt_review_file("multiq", "de") == "out/prompts/multiq/review/de.tsv"


# -- evaluators: the registry's entries and their packages' planners ----------------------------------


def test_an_evaluator_package_with_a_plan_module_has_a_planner_found_by_its_section():
    assert planner_class("information") is InformationPlanner
    assert planner_class("empathy") is EmpathyPlanner
    assert planner_class("judge") is None, "a plain module: no planner"
    assert planner_class("knowledge") is None, "a package without a plan module"
    plan = plan_of(MODEL)
    assert isinstance(plan.planner("translationese"), InformationPlanner), (
        "the translationese check shares information's section"
    )
    assert plan.planner("language_id") is None


def test_an_evaluators_options_are_read_from_its_own_section():
    plan = plan_of({**MODEL, "evaluators": {"knowledge": {"oracle": True}}})
    assert plan.evaluator_option("knowledge", "oracle") is True
    assert plan.evaluator_section("translationese") is plan.evaluator_section("information")


def test_round_trips_are_what_the_translationese_check_asks_for_and_only_while_it_scores_something():
    config = {
        **MODEL,
        "evaluators": {"information": {"round_trip_languages": ["hi", "ja"]}},
        "datasets": {"information": {"languages": ["en", "de"]}},
    }
    plan = plan_of(config)
    assert plan.scoring.round_trips() == {"translationese": ["hi", "ja"]}
    assert plan.round_trip_languages() == ["hi", "ja"] and plan.round_trip_datasets() == ["information"]
    assert plan.round_trip_files("information", "m") == [
        "results/round_trips/information/m/hi.parquet",
        "results/round_trips/information/m/ja.parquet",
    ]
    nothing_scored = plan_of({**config, "datasets": {"multiq": {}}})
    assert nothing_scored.round_trip_languages() == [] and nothing_scored.round_trip_files("multiq", "m") == []


def test_the_information_planner_decides_the_jobs_options_round_trips_and_old_caches():
    section = {
        "extraction_max_new_tokens": 256,
        "verification_max_new_tokens": 32,
        "max_facts_per_sentence": 24,
        "round_trip_languages": ["hi"],
        "llm": {},
    }
    planner = InformationPlanner(section)
    assert list(planner.options(0.1).items()) == [
        ("extraction_max_new_tokens", 256),
        ("verification_max_new_tokens", 32),
        ("max_facts_per_sentence", 24),
        ("max_failed_share", 0.1),
    ]
    assert (
        planner.round_trip_languages("translationese") == ["hi"] and planner.round_trip_languages("information") == []
    )
    assert planner.llm_key == "evaluators.information.llm"

    def cache_file(stage, dataset, model):
        return f"new/{stage}/{dataset}/{model}"

    assert planner.legacy_caches("information", "r", lambda name: ["information"], ["a"], cache_file) == [
        ("r/cache/information/a.jsonl", "new/information/information/a")
    ]
    assert [
        old for old, _ in planner.legacy_caches("translationese", "r", lambda name: ["information"], ["a"], cache_file)
    ] == ["r/cache/translationese/a.jsonl", "r/cache/round_trip/a.jsonl"]
    assert planner.legacy_caches("information", "r", lambda name: ["multiq"], ["a"], cache_file) == [], (
        "only Gupta et al. 2025's information set had caches without the data set in their path"
    )


def test_the_empathy_planner_trains_tfidf_on_a_cpu_and_fine_tunes_an_encoder_on_a_gpu():
    tfidf = EmpathyPlanner({"classifier": "tfidf", "train_on": "train+dev", "tfidf": {"max_features": 10}})
    assert not tfidf.fine_tunes() and tfidf.gpus() == 0
    assert (tfidf.training_mem_mb(2), tfidf.training_runtime(2)) == (8000, 30), "grows with the retry"
    assert tfidf.training_options("ER", "ignored") == {"train_on": "train+dev", "max_features": 10}
    assert tfidf.classifier_dir("res", "ER") == "res/classifiers/empathy-tfidf/ER"
    assert tfidf.classifier_evaluation("out", "IP") == "out/evaluations/empathy/classifiers/IP.json"
    assert tfidf.mechanisms == ("ER", "IP", "EX")

    encoder = EmpathyPlanner(
        {
            "classifier": "encoder",
            "train_on": "train",
            "seed": 7,
            "encoder_training": {"batch_size": 8},
            "hyperparameters": {"ER": {"learning_rate": 1e-5, "epochs": 3}},
        }
    )
    assert encoder.fine_tunes() and encoder.gpus() == 1 and encoder.training_mem_mb(1) == 32000
    assert encoder.training_options("ER", "res/models/enc") == {
        "train_on": "train",
        "batch_size": 8,
        "learning_rate": 1e-5,
        "epochs": 3,
        "model": "res/models/enc",
        "seed": 7,
    }
    assert encoder.classifier_dir("res", "EX") == "res/classifiers/empathy-encoder/EX"


def test_the_empathy_planner_reads_the_validated_configs_section():
    plan = plan_of({**MODEL, "evaluators": {"empathy": {"classifier": "encoder"}}})
    planner = plan.planner("empathy")
    assert planner.fine_tunes() and planner.encoder_key in plan.evaluator_model_keys("empathy")


# -- translation, QE and the run's options ----------------------------------------------------------


def test_the_language_id_model_picks_the_translations_source_language_only_when_asked_to():
    config = {**MODEL, "datasets": {"information": {"languages": ["en", "de"]}}}
    on, off = plan_of(config), plan_of({**config, "translator": {"detect_response_language": False}})
    assert on.detects_response_language() and not off.detects_response_language()
    assert on.translation_lid_inputs(R) == on.model_inputs(LANGUAGE_ID_MODEL_KEY, R) != []
    assert on.translation_lid_path(R) == on.local_path(LANGUAGE_ID_MODEL_KEY, R)
    assert (off.translation_lid_inputs(R), off.translation_lid_path(R), off.translation_lid_content()) == (
        [],
        None,
        None,
    )


def test_every_job_that_reads_the_language_id_model_gets_its_label_scheme():
    plan = plan_of({**MODEL, "evaluators": {"language_id": {"label_scheme": "lid176"}}})
    assert plan.lid_label_scheme() == "lid176" and plan_of(MODEL).lid_label_scheme() == "glotlid"
    assert plan.qe_fields()["label_scheme"] == plan.lid_label_scheme()
    assert plan.qe_gpus() == plan.qe_section()["gpus"]


def test_the_output_options_and_training_languages_come_from_the_config():
    plan = plan_of(
        {
            "models": {"m": {"hf_id": "org/m", "training_languages": ["en"]}, "n": {"hf_id": "org/n"}},
            "output": {"table_formats": ["csv"], "figure_formats": ["png"], "seed": 3, "bootstrap_resamples": 10},
        }
    )
    assert (plan.table_formats(), plan.figure_formats(), plan.seed(), plan.bootstrap_resamples()) == (
        ["csv"],
        ["png"],
        3,
        10,
    )
    assert plan.comparisons() == plan.config["output"]["comparisons"]
    assert plan.training_languages() == {"m": ["en"], "n": None}
    assert plan.max_failed_share() == plan.config["generation"]["max_failed_share"]


def test_no_rule_file_defines_a_function_outside_common_smk():
    """snakemake --lint wants rule files without functions: an evaluator's rule file uses its planner."""
    for path in rule_files():
        if path.name != "common.smk":
            assert not re.search(r"^def ", path.read_text(), re.M), path.name
