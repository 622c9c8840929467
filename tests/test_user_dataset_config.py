"""A user's own prompt set in the config: checked before anything is scheduled, scored by
the evaluators that fit it, refused by those that do not, with file, line, column,
evaluator and data set named."""

from __future__ import annotations

import pytest

from xlcons.config import ConfigError, validate_config
from xlcons.plan import Plan

HEADER = "id,lang,prompt,answer\n"
GOOD = HEADER + "".join(
    f"q{i},{lang},Question {i} in {lang}?,{'42' if i == 1 else ''}\n"
    for i in range(1, 3)
    for lang in ("en", "de", "hi")
)


def config_for(path, **evaluators) -> dict:
    return {
        "models": {"m": {"hf_id": "org/m"}},
        "datasets": {
            "clinic_qa": {"path": str(path), "languages": ["en", "de", "hi"], "columns": {"reference": "answer"}}
        },
        "evaluators": {name: {"datasets": datasets} for name, datasets in evaluators.items()},
    }


def write(tmp_path, text, name="clinic_qa.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_user_set_is_a_data_set_like_any_other_to_the_plan(tmp_path):
    plan = Plan(
        validate_config(
            config_for(
                write(tmp_path, GOOD), language_id=["clinic_qa"], knowledge=["clinic_qa"], information=["clinic_qa"]
            )
        )
    )
    assert plan.languages("clinic_qa") == ["en", "de", "hi"]
    assert plan.evaluator_datasets("knowledge") == ["clinic_qa"]
    assert plan.translation_datasets() == ["clinic_qa"], "information reads translations"
    assert plan.dataset_location("clinic_qa", "resources") == [str(tmp_path / "clinic_qa.csv")], "the file is the input"
    assert plan.evaluation_files("language_id") == ["results/evaluations/clinic_qa/m/fidelity.parquet"]
    assert "results/evaluations/clinic_qa/m/language_confusion.parquet" in plan.evaluation_targets(), "on by default"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (HEADER + "q1,en,,\n", "line 2, column 'prompt': the prompt is blank"),
        (HEADER + "q1,en,A?,\nq1,en,B?,\n", "line 3"),
        (HEADER + "q1,xx,A?,\n", "line 2, column 'lang'"),
        ("id,lang,question\nq1,en,A?\n", "datasets.clinic_qa.columns.prompt"),
    ],
    ids=["blank prompt", "duplicate id and language", "unknown language", "missing column"],
)
def test_a_malformed_row_fails_validation_naming_file_line_and_column(tmp_path, text, expected):
    config = config_for(write(tmp_path, text))
    with pytest.raises(ConfigError) as error:
        validate_config(config)
    assert "clinic_qa.csv" in str(error.value) and expected in str(error.value)


def test_a_non_utf8_byte_is_reported_with_its_line(tmp_path):
    path = tmp_path / "clinic_qa.csv"
    path.write_bytes(HEADER.encode() + b"q1,en,caf\xe9?,\n")
    with pytest.raises(ConfigError, match=r"clinic_qa.csv.*line 2"):
        validate_config(config_for(path))


def test_ids_missing_in_some_languages_are_allowed_and_counted(tmp_path):
    plan = Plan(validate_config(config_for(write(tmp_path, GOOD + "q3,en,Only English?,\n"))))
    (note,) = plan.notes()
    assert "clinic_qa" in note and "q3" in note


def test_empathy_on_a_user_set_is_refused_naming_evaluator_and_data_set(tmp_path):
    with pytest.raises(ConfigError, match=r"evaluator 'empathy' cannot score data set 'clinic_qa'.*seeker posts"):
        validate_config(config_for(write(tmp_path, GOOD), empathy=["clinic_qa"]))


def test_the_judge_needs_an_english_question(tmp_path):
    no_english = HEADER + "".join(f"q{i},{lang},Q{i} {lang}?,\n" for i in (1, 2) for lang in ("de", "hi"))
    config = config_for(write(tmp_path, no_english), judge=["clinic_qa"])
    config["datasets"]["clinic_qa"]["languages"] = ["de", "hi"]
    with pytest.raises(ConfigError, match=r"evaluator 'judge' cannot score data set 'clinic_qa'.*English question"):
        validate_config(config)
    with_question = "id,lang,prompt,q_en\n" + "".join(
        f"q{i},{lang},Q{i} {lang}?,Q{i}?\n" for i in (1, 2) for lang in ("de", "hi")
    )
    config = config_for(write(tmp_path, with_question), judge=["clinic_qa"])
    config["datasets"]["clinic_qa"].update(languages=["de", "hi"], columns={"question_en": "q_en"})
    plan = Plan(validate_config(config))
    assert plan.english_question_files("clinic_qa") == ["results/prompts/clinic_qa.parquet"], "every language's prompts"


def test_information_consistency_needs_english_among_the_languages(tmp_path):
    config = config_for(write(tmp_path, GOOD), information=["clinic_qa"])
    config["datasets"]["clinic_qa"]["languages"] = ["de", "hi"]
    with pytest.raises(ConfigError, match=r"evaluator 'information' cannot score data set 'clinic_qa'.*English among"):
        validate_config(config)


def test_an_evaluator_naming_an_undeclared_data_set_fails(tmp_path):
    with pytest.raises(ConfigError, match=r"evaluators.judge.datasets\[0\]': 'clinc_qa' is not a data set"):
        validate_config(config_for(write(tmp_path, GOOD), judge=["clinc_qa"]))


def test_a_translated_set_of_english_prompts_runs_in_every_configured_language(tmp_path):
    path = write(tmp_path, "First prompt?\n\nSecond prompt?\n", "prompts_en.txt")
    config = {"datasets": {"mine": {"type": "translated", "path": str(path), "languages": ["de", "hi"]}}}
    plan = Plan(validate_config(config))
    assert plan.languages("mine") == ["en", "de", "hi"], "English first: it is what is translated"
    assert plan.prompt_translated_datasets() == ["mine"] and plan.prompt_translation_languages("mine") == ["de", "hi"]


def test_the_data_sets_system_prompt_reaches_its_generation_job_unless_the_model_has_one(tmp_path):
    from types import SimpleNamespace

    config = config_for(write(tmp_path, GOOD))
    config["datasets"]["clinic_qa"]["system_prompt"] = "Answer briefly."
    plan = Plan(validate_config(config))
    job = plan.llm_job("models.{model}", "resources", "envs", "clinic_qa")
    assert job.spec(SimpleNamespace(model="m"))["system_prompt"] == "Answer briefly."
    config["models"]["m"]["system_prompt"] = "You are a doctor."
    assert (
        plan.llm_job("models.{model}", "resources", "envs", "clinic_qa").spec(SimpleNamespace(model="m"))[
            "system_prompt"
        ]
        == "You are a doctor."
    )
