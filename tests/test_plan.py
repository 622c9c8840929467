"""Which models and data sets a config makes the workflow fetch."""

from __future__ import annotations

import copy

import pytest

from xlcons.config import ConfigError, validate_config
from xlcons.datasets.makqa import DOMAINS
from xlcons.plan import Plan

R = "resources"


def plan_of(config: dict) -> Plan:
    return Plan(validate_config(config))


def marker(name: str) -> str:
    return f"{R}/models/{name}/.xlcons-fetched.json"


def test_nothing_enabled_fetches_nothing():
    assert plan_of({"models": {"m": {"hf_id": "org/m"}}}).fetch_targets(R) == []


def test_multiq_needs_the_generators_the_language_id_models_the_word_list_the_judge_and_the_data():
    plan = plan_of({"models": {"m": {"hf_id": "org/m"}}, "datasets": {"multiq": {}}})
    assert plan.fetch_targets(R) == [
        marker("m"),
        marker("glotlid"),
        marker("Qwen2.5-7B-Instruct"),
        marker("lid176"),
        marker("lcb-words"),
        f"{R}/data/multiq/MANIFEST.json",
    ]


def test_language_confusion_fetches_lid176_and_the_word_list_from_their_pinned_urls():
    plan = plan_of({"models": {"m": {"hf_id": "org/m"}}, "datasets": {"multiq": {}}})
    lid, words = plan.hub_models()["lid176"], plan.hub_models()["lcb-words"]
    assert lid["url"] == "https://dl.fbaipublicfiles.com/fasttext/supervised-models/lid.176.bin"
    assert lid["sha256"] == "7e69ec5451bc261cc7844e49e4792a85d7f09c06789ec800fc4a44aec362764e"
    assert words["url"].endswith("/for-ai/language-confusion/0cfdbb4a64502648938c456b2fa9689968f22298/words")
    assert plan.local_path("evaluators.language_confusion.model", R) == f"{R}/models/lid176/lid.176.bin"
    assert plan.local_path("evaluators.language_confusion.words", R) == f"{R}/models/lcb-words/words"


def test_the_strict_language_confusion_rule_uses_the_language_id_model_only():
    config = {
        "models": {"m": {"hf_id": "org/m"}},
        "datasets": {"multiq": {}},
        "evaluators": {"language_confusion": {"rule": "strict"}},
    }
    assert marker("lid176") not in plan_of(config).fetch_targets(R)
    assert plan_of(config).evaluator_model_keys("language_confusion") == ("evaluators.language_id.model",)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ({"url": "https://example.org/lid.bin"}, "give the file's sha256 too"),
        ({"sha256": "0" * 64, "path": "x"}, "sha256': only meaningful together with url"),
        ({"url": "https://example.org/lid.bin", "sha256": "0" * 64, "hf_id": "a/b"}, "give url or hf_id, not both"),
    ],
)
def test_a_url_model_source_needs_its_sha256_and_nothing_else(source, message):
    config = {
        "models": {"m": {"hf_id": "org/m"}},
        "datasets": {"multiq": {}},
        "evaluators": {"language_confusion": {"model": source}},
    }
    with pytest.raises(ConfigError, match=message):
        plan_of(config)


def test_makqa_needs_the_embedder_but_no_translator():
    targets = plan_of({"models": {"m": {"hf_id": "org/m"}}, "datasets": {"makqa": {}}}).fetch_targets(R)
    assert marker("LaBSE") in targets and marker("nllb-200-distilled-600M") not in targets
    assert f"{R}/data/makqa/MANIFEST.json" in targets


def test_translated_prompt_sets_need_the_translator_and_language_id():
    targets = plan_of({"datasets": {"information": {"languages": ["de"]}}}).fetch_targets(R)
    assert marker("nllb-200-distilled-600M") in targets and marker("glotlid") in targets
    assert marker("Qwen2.5-14B-Instruct") in targets
    assert not any("/data/" in t for t in targets), "the information prompts ship with xlcons"


def test_language_id_is_skipped_when_responses_are_assumed_to_be_in_the_prompted_language():
    config = {
        "translator": {"detect_response_language": False, "qe": {"backend": "none"}},
        "evaluators": {"language_confusion": {"datasets": []}},  # which would load it too
        "datasets": {"information": {"languages": ["de"]}},
    }
    assert marker("glotlid") not in plan_of(config).fetch_targets(R)
    # QE checks the language of every translation (off target) with it, whatever the backend.
    config["translator"]["qe"] = {"backend": "comet"}
    assert marker("glotlid") in plan_of(config).fetch_targets(R)


def test_empathy_needs_epitome_and_the_encoder_only_when_fine_tuning():
    tfidf = plan_of({"datasets": {"empathy": {"languages": ["de"]}}}).fetch_targets(R)
    assert f"{R}/data/epitome/MANIFEST.json" in tfidf and marker("ModernBERT-large") not in tfidf
    encoder = plan_of(
        {"evaluators": {"empathy": {"classifier": "encoder"}}, "datasets": {"empathy": {"languages": ["de"]}}}
    )
    assert marker("ModernBERT-large") in encoder.fetch_targets(R)


def test_api_models_and_local_models_are_not_fetched(tmp_path):
    (tmp_path / "local").mkdir()
    config = validate_config(
        {
            "models": {
                "api": {"backend": "openai", "api": {"model": "gpt-4o"}},
                "local": {"path": str(tmp_path / "local"), "backend": "hf"},
            },
            "evaluators": {"judge": {"llm": {"backend": "openai", "api": {"model": "gpt-4"}}}},
            "datasets": {"multiq": {}},
        }
    )
    plan = Plan(config)
    assert plan.fetch_targets(R) == [
        marker("glotlid"),
        marker("lid176"),
        marker("lcb-words"),
        f"{R}/data/multiq/MANIFEST.json",
    ]
    assert plan.model_location("models.local", R) == str(tmp_path / "local")
    assert "api" not in plan.hub_models()


def test_the_models_with_random_weights_are_the_offline_builders_random_ones_by_their_stamp(tmp_path):
    """The summary and the HTML report say when a run loaded random-weight offline models: the
    builder's stamp names the model; a real offline model (SmolLM2) or a folder without a stamp
    is no such model."""
    import json

    from xlcons.fingerprint import OFFLINE_MODEL_STAMP

    for name in ("tiny-llm", "smollm2-135m-instruct", "tiny-nllb", "unstamped"):
        (tmp_path / name).mkdir()
        if name != "unstamped":
            (tmp_path / name / OFFLINE_MODEL_STAMP).write_text(json.dumps({"name": name, "seed": 0}))
    config = validate_config(
        {
            "models": {
                name: {"path": str(tmp_path / name), "backend": "hf"}
                for name in ("tiny-llm", "smollm2-135m-instruct", "unstamped")
            },
            "translator": {"model": {"path": str(tmp_path / "tiny-nllb")}, "backend": "transformers"},
            "datasets": {"information": {}},
        }
    )
    assert Plan(config).random_weight_models(R) == {"models.tiny-llm": "tiny-llm", "translator.model": "tiny-nllb"}


def test_a_model_used_in_two_roles_is_fetched_once():
    judge = {"hf_id": "Qwen/Qwen2.5-7B-Instruct", "backend": "hf"}
    plan = plan_of(
        {
            "evaluators": {"judge": {"llm": judge}, "information": {"llm": dict(judge)}},
            "datasets": {"multiq": {}, "information": {"languages": ["de"]}},
        }
    )
    assert plan.fetch_targets(R).count(marker("Qwen2.5-7B-Instruct")) == 1


def test_a_local_data_set_folder_replaces_the_download(tmp_path):
    plan = plan_of({"datasets": {"multiq": {"path": str(tmp_path)}}})
    assert not any("/data/" in t for t in plan.fetch_targets(R))
    assert plan.dataset_location("multiq", R) == [str(tmp_path)], (
        "no released file in it: the loader says what is missing"
    )


def test_the_prompts_of_a_local_folder_depend_on_its_files_so_an_edit_in_place_reruns_them(shared_data):
    plan = plan_of(
        {"datasets": {"makqa": {"path": str(shared_data / "makqa")}, "multiq": {"path": str(shared_data / "multiq")}}}
    )
    assert plan.dataset_location("multiq", R) == [str(shared_data / "multiq" / "MultiQ.csv")]
    makqa = plan.dataset_location("makqa", R)
    assert len(makqa) == 14 and str(shared_data / "makqa" / "QA_merged_data_dict_geo.json") in makqa


def test_the_information_prompts_ship_with_xlcons_and_depend_on_no_download():
    plan = plan_of({"datasets": {"information": {"languages": ["de"]}}})
    assert plan.dataset_location("information", R) == [] and plan.dataset_folder("information", R) is None


def test_english_only_prompt_sets_are_translated_into_every_other_language_with_english_as_reference():
    plan = plan_of(
        {
            "datasets": {
                "multiq": {"languages": ["de"]},
                "information": {"languages": ["de", "ar"]},
                "empathy": {"languages": ["en", "hi"]},
            }
        }
    )
    assert plan.native_datasets() == ["multiq"]
    assert plan.prompt_translated_datasets() == ["information", "empathy"]
    assert plan.source_languages() == ["en"]
    assert plan.languages("information") == ["en", "de", "ar"], "English is added: every language is compared with it"
    assert plan.languages("multiq") == ["de"]
    assert plan.prompt_translation_languages("information") == ["de", "ar"]
    assert plan.prompt_translation_languages("empathy") == ["hi"]
    assert plan.prompt_review_file("empathy", "hi") == "results/prompts/empathy/review/hi.tsv"


def test_all_languages_of_an_english_only_prompt_set_are_gupta2025s_thirty_plus_english():
    from xlcons.languages import GUPTA2025_LANGUAGES

    assert plan_of({"datasets": {"information": {}}}).languages("information") == ["en", *GUPTA2025_LANGUAGES]


def test_the_translationese_check_runs_per_model_for_the_configured_pivot_languages():
    config = {
        "models": {"a": {"hf_id": "org/a"}, "b": {"hf_id": "org/b"}},
        "evaluators": {"information": {"round_trip_languages": ["hi", "ja"]}},
        "datasets": {"information": {"languages": ["de"]}},
    }
    plan = plan_of(config)
    round_trips = [path for m in "ab" for path in plan.round_trip_files("information", m)]
    assert round_trips == [f"results/round_trips/information/{m}/{lang}.parquet" for m in "ab" for lang in ("hi", "ja")]
    config["datasets"]["information"]["enabled"] = False
    disabled = plan_of(config)
    assert disabled.round_trip_datasets() == [] and disabled.round_trip_languages() == [], (
        "the check scores information answers: none without that set"
    )


def test_fetch_parameters_carry_the_hub_coordinates_and_the_mirror_of_the_makqa_repository():
    plan = plan_of({"datasets": {"makqa": {"source_url": "https://example.org/makqa/"}}})
    assert plan.hub_models()["glotlid"] == {
        "hf_id": "cis-lmu/glotlid",
        "revision": None,
        "hf_file": "model.bin",
        "url": None,
        "sha256": None,
    }
    assert plan.dataset_fetch_params("makqa") == {"source": "makqa", "mirror": "https://example.org/makqa/"}
    assert plan.dataset_fetch_params("makqa-released-gpt35")["mirror"] == "https://example.org/makqa/", (
        "same repository"
    )
    assert plan_of({}).dataset_fetch_params("makqa") == {"source": "makqa", "mirror": None}


def test_wildcard_patterns_match_exactly_the_configured_names():
    import re

    plan = plan_of({"models": {"a.b": {"hf_id": "org/a"}}})
    pattern = re.compile(f"^(?:{plan.hub_model_pattern()})$")
    assert pattern.match("a.b") and not pattern.match("aXb")
    assert re.compile(f"^(?:{plan_of({}).hub_model_pattern()})$").match("glotlid")


def test_a_paper_model_named_as_released_model_is_scored_on_its_fetched_released_outputs():
    plan = plan_of({"released_model": "llama2-7b", "datasets": {"makqa": {}}})

    assert plan.generators() == ["llama2-7b"]
    assert plan.config["models"]["llama2-7b"] == {
        **plan.config["models"]["llama2-7b"],
        "backend": "file",
        "released": "llama2-7b",
    }
    assert plan.fetched_sources() == ["makqa", "makqa-released-llama2-7b"]
    assert plan.model_inputs("models.llama2-7b", R) == [f"{R}/data/makqa-released-llama2-7b/MANIFEST.json"]
    assert plan.local_path("models.llama2-7b", R) == f"{R}/data/makqa-released-llama2-7b"
    assert f"{R}/data/makqa-released-llama2-7b/MANIFEST.json" in plan.fetch_targets(R)
    assert plan.llm_spec("models.llama2-7b", R)["released"] == "llama2-7b", (
        "the release is part of what the answers are"
    )


def test_released_outputs_can_be_listed_as_models_and_name_no_local_path():
    config = {
        "models": {"b": {"backend": "file", "released": "bloomz-560m"}, "g": {"backend": "file", "released": "gpt35"}},
        "datasets": {"makqa": {}},
    }
    plan = plan_of(config)
    assert plan.fetched_sources() == ["makqa", "makqa-released-bloomz-560m", "makqa-released-gpt35"]
    with pytest.raises(ConfigError, match=r"models.b.released.*backend: file"):
        plan_of({"models": {"b": {"backend": "hf", "released": "bloomz-560m"}}, "datasets": {"makqa": {}}})
    with pytest.raises(ConfigError, match=r"models.b.*released or hf_id, not both"):
        plan_of(
            {
                "models": {"b": {"backend": "file", "hf_id": "org/b", "released": "bloomz-560m"}},
                "datasets": {"makqa": {}},
            }
        )


def test_an_unknown_released_model_without_a_folder_names_the_released_ones():
    with pytest.raises(ConfigError, match=r"released_model.*'llama3'.*gpt35, llama2-7b.*released_outputs"):
        plan_of({"released_model": "llama3", "datasets": {"makqa": {}}})


def test_all_of_xing2024s_released_models_or_a_list_of_them_in_one_run():
    from xlcons.data_sources.catalog import RELEASED_MODELS

    every = plan_of({"released_model": "all", "datasets": {"makqa": {}}})
    assert every.generators() == list(RELEASED_MODELS) and len(RELEASED_MODELS) == 11
    assert every.fetched_sources() == ["makqa", *(f"makqa-released-{name}" for name in RELEASED_MODELS)]
    two = plan_of({"released_model": ["mistral-7b", "gpt35"], "datasets": {"makqa": {}}})
    assert two.generators() == ["mistral-7b", "gpt35"]
    with pytest.raises(ConfigError, match=r"released_model.*'llama3' not among"):
        plan_of({"released_model": ["gpt35", "llama3"], "datasets": {"makqa": {}}})


def test_a_folder_of_model_folders_is_one_model_per_folder_named_after_it(tmp_path):
    for name in ("gpt35", "my-model", "notes"):
        (tmp_path / "result" / name).mkdir(parents=True)
    for name in ("gpt35", "my-model"):  # valid releases: their files are read before scheduling
        for domain in DOMAINS:
            (tmp_path / "result" / name / f"result_{domain}.json").write_text(
                '[{"head_entity_id": "Q1", "rel_id": "P1", "en": {"answer": "x"}}]'
            )
    config = {"released_outputs": str(tmp_path / "result"), "datasets": {"makqa": {}}}
    plan = plan_of(config)
    assert plan.generators() == ["gpt35", "my-model"], "a folder without result_<domain>.json is not a model"
    assert plan.config["models"]["my-model"]["path"] == str(tmp_path / "result" / "my-model")
    with pytest.raises(
        ConfigError,
        match=r"released_model.*holds the outputs of 2 models \(gpt35, my-model\).*leave released_model unset",
    ):
        plan_of({**config, "released_model": "mine"})
    single = plan_of(
        {"released_outputs": str(tmp_path / "result" / "gpt35"), "released_model": "gpt-3.5", "datasets": {"makqa": {}}}
    )
    assert single.generators() == ["gpt-3.5"], "one model's folder is scored under the name given"


def test_every_data_source_has_a_fetch_job_pattern():
    import re

    from xlcons.data_sources import DATA_SOURCES

    pattern = re.compile(f"^(?:{plan_of({}).fetched_dataset_pattern()})$")
    assert all(pattern.match(name) for name in DATA_SOURCES) and not pattern.match("makqa-released-llama3")


def test_an_llm_job_takes_env_gpus_and_memory_from_its_own_backend_not_the_generators():
    """The judge runs on the OpenAI API while the generator runs on vLLM: the judge's job is
    small (before the registries it was sized like the generator's)."""
    from types import SimpleNamespace

    plan = plan_of(
        {
            "models": {"big": {"hf_id": "org/big", "backend": "vllm", "vllm": {"tensor_parallel_size": 4}}},
            "evaluators": {"judge": {"llm": {"backend": "openai", "api": {"model": "gpt-4"}}}},
            "datasets": {"multiq": {}},
        }
    )
    wildcards = SimpleNamespace(model="big", dataset="multiq")
    generator, judge = plan.llm_job("models.{model}", R, "envs"), plan.llm_job("evaluators.judge.llm", R, "envs")
    assert (generator.gpus(wildcards), generator.mem_mb(wildcards, 1), generator.env(wildcards)) == (
        4,
        64000,
        "envs/generate-vllm.yaml",
    )
    assert (judge.gpus(wildcards), judge.mem_mb(wildcards, 2), judge.env(wildcards)) == (0, 4000, "envs/generate.yaml")
    assert generator.weights(wildcards) == [marker("big")] and judge.weights(wildcards) == []


def test_a_user_parallel_file_and_every_evaluator_pairing_follow_from_the_config(tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text("id,lang,prompt\n1,en,Hi?\n1,de,Hallo?\n")
    plan = plan_of(
        {
            "models": {"m": {"hf_id": "org/m"}},
            "datasets": {"mine": {"path": str(path)}, "multiq": {}},
            "evaluators": {"judge": {"datasets": ["mine", "multiq"]}},
        }
    )
    assert plan.languages("mine") == ["en", "de"], "`all`: the languages of the file"
    assert plan.evaluator_datasets("judge") == ["mine", "multiq"]
    assert plan.evaluator_datasets("language_id") == ["multiq"], "the papers' pairing by default"
    assert plan.evaluator_datasets("language_confusion") == ["mine", "multiq"], "every data set by default"
    assert plan.results_inputs()["judgments"] == [
        "results/evaluations/mine/m/judgments.parquet",
        "results/evaluations/multiq/m/judgments.parquet",
    ]


def test_translation_jobs_do_not_read_the_list_of_data_sets_to_translate():
    plan = plan_of({"translator": {"datasets": ["multiq"]}, "datasets": {"multiq": {}}})
    assert plan.translation_datasets() == ["multiq"]
    assert "datasets" not in plan.translator_fields() and plan.translator_fields()["beam_size"] == 1


def test_every_translated_set_gets_a_qe_job_whose_settings_do_not_rerun_the_translations():
    config = {
        "models": {"a": {"hf_id": "org/a"}},
        "datasets": {"information": {"languages": ["de"]}, "multiq": {"languages": ["de"]}},
    }
    plan = plan_of(config)
    assert plan.qe_datasets() == ["information"], "the translated sets"
    assert plan.qe_files("information", "a") == [
        "results/translations/information/a/en.qe.parquet",
        "results/translations/information/a/de.qe.parquet",
    ]
    assert "qe" not in plan.translator_fields(), "a QE change reruns QE and the results, no translation"
    assert plan.qe_fields()["model"]["hf_id"] == "sentence-transformers/LaBSE" and plan.qe_threshold() == 0.7
    assert "translator.qe.model" in plan.required_model_keys() and marker("LaBSE") in plan.fetch_targets("resources")
    assert plan.results_inputs()["translation_qe"] == plan.qe_files("information", "a")
    assert plan.qe_env("envs") == "envs/evaluate.yaml"
    comet = plan_of({**config, "translator": {"qe": {"backend": "comet", "gpus": 1, "threshold": 0.4}}})
    assert comet.qe_model_name() == "Unbabel/wmt22-cometkiwi-da" and comet.qe_env("envs") == "envs/qe-comet.yaml"
    assert comet.qe_threshold() == 0.4
    off = plan_of({**config, "translator": {"qe": {"backend": "none"}}})
    assert (
        off.qe_datasets() == []
        and "translation_qe" not in off.results_inputs()
        and "translator.qe.model" not in off.required_model_keys()
    )


def test_caches_from_before_the_data_set_level_are_found_again():
    """Information, translationese and round-trip caches used to sit under cache/<stage>/<model>.jsonl;
    the workflow moves them under the data set once, so no LLM answer is paid for twice."""
    config = {
        "models": {"a": {"hf_id": "org/a"}},
        "evaluators": {"information": {"round_trip_languages": ["hi"]}},
        "datasets": {"information": {"languages": ["de"]}},
    }
    assert plan_of(config).legacy_caches() == [
        ("results/cache/information/a.jsonl", "results/cache/information/information/a.jsonl"),
        ("results/cache/translationese/a.jsonl", "results/cache/translationese/information/a.jsonl"),
        ("results/cache/round_trip/a.jsonl", "results/cache/round_trip/information/a.jsonl"),
    ]


def test_the_run_asks_for_evaluations_and_only_the_answers_nothing_reads():
    config = {
        "models": {"m": {"hf_id": "org/m"}},
        "translator": {"datasets": ["multiq"]},
        "evaluators": {
            "language_confusion": {"datasets": ["makqa"]},
            "language_id": {"datasets": []},
            "judge": {"datasets": []},
            "tokenization": {"datasets": []},
            "knowledge": {"datasets": []},
        },
        "datasets": {"multiq": {"languages": ["en", "de"]}, "makqa": {"languages": ["en"]}},
    }
    targets = plan_of(config).final_targets(R)
    assert "results/responses/multiq/m/de.parquet" in targets, "nothing scores MultiQ here: its answers are the target"
    assert "results/translations/multiq/m/de.parquet" in targets, "translated, and read by no evaluator"
    assert "results/responses/makqa/m/en.parquet" not in targets, "language confusion reads it"
    assert "results/evaluations/makqa/m/language_confusion.parquet" in targets


def test_data_sets_without_a_model_to_answer_them_are_named():
    assert (
        "config key 'models': no model to evaluate on multiq" in plan_of({"datasets": {"multiq": {}}}).missing_models()
    )
    assert plan_of({"models": {"m": {"hf_id": "org/m"}}, "datasets": {"multiq": {}}}).missing_models() is None
    assert plan_of({"released_model": "gpt35", "datasets": {"makqa": {}}}).missing_models() is None


class TestMissingApiKeys:
    """The config check of the machine that submits (rules/common.smk's onstart): every API
    model a job to run calls has its key's variable set; the message names the config key and
    the variable, never a value."""

    CONFIG = {
        "models": {
            "served": {"backend": "openai", "api": {"model": "gpt-4o-mini", "api_key_env": "SERVED_KEY"}},
            "other": {"backend": "openai", "api": {"model": "gpt-4o", "api_key_env": "OTHER_KEY"}},
        },
        "evaluators": {"judge": {"llm": {"backend": "openai", "api": {"model": "gpt-4", "api_key_env": "JUDGE_KEY"}}}},
        "datasets": {"multiq": {}},
    }

    def jobs_params(self, plan, *keys):
        """What jobs calling these models carry: a generator's `model`, a judge's `judge`."""
        from types import SimpleNamespace

        wildcards = SimpleNamespace(model="served", dataset="multiq")
        return [[plan.llm_job(key, R, "envs", "multiq").spec(wildcards), {"cache": "x.jsonl"}] for key in keys]

    def test_a_called_model_without_its_variable_is_named_with_the_variable(self):
        plan = plan_of(copy.deepcopy(self.CONFIG))
        problems = plan.missing_api_keys(self.jobs_params(plan, "models.served"), environ={"OTHER_KEY": "unused"})
        assert problems == [
            "config key 'models.served' (backend openai) reads its API key from the environment variable "
            "SERVED_KEY, which is not set on this machine: export SERVED_KEY before starting the run (never put "
            "the key in the config), or name another variable in models.served.api.api_key_env"
        ]

    def test_models_no_job_calls_and_set_variables_pass_and_no_value_is_repeated(self):
        plan = plan_of(copy.deepcopy(self.CONFIG))
        params = self.jobs_params(plan, "models.served", "evaluators.judge.llm")
        assert plan.missing_api_keys(params, environ={"SERVED_KEY": "sk-secret-value-1234", "JUDGE_KEY": "k"}) == []
        assert plan.missing_api_keys([], environ={}) == []
        problems = plan.missing_api_keys(params, environ={"SERVED_KEY": "", "OTHER_KEY": "sk-secret-value-1234"})
        assert [problem.split(" (")[0] for problem in problems] == [
            "config key 'models.served'",
            "config key 'evaluators.judge.llm'",
        ]
        assert not any("sk-secret" in problem for problem in problems)

    def test_without_api_models_no_job_params_are_worked_out(self):
        """A run of local models only never pays for expanding every job's params."""
        plan = plan_of({"models": {"m": {"hf_id": "org/m"}}, "datasets": {"multiq": {}}})

        def never_read():
            raise AssertionError("job params were read")
            yield

        assert plan.missing_api_keys(never_read(), environ={}) == []


def test_every_data_set_an_evaluator_scored_gets_its_report_whatever_its_name(tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text("id,lang,prompt,answer\n1,en,Hi?,Yes\n1,de,Hallo?,Ja\n")
    plan = plan_of(
        {
            "models": {"m": {"hf_id": "org/m"}, "api": {"hf_id": "org/api", "backend": "openai"}},
            "datasets": {"mine": {"path": str(path), "columns": {"reference": "answer"}}, "multiq": {}},
            "evaluators": {
                "judge": {"datasets": ["mine"]},
                "knowledge": {"datasets": ["mine"]},
                "tokenization": {"datasets": ["mine", "multiq"]},
            },
        }
    )
    reports = plan.evaluator_reports()
    assert reports == [
        ("language_id", "multiq"),
        ("judge", "mine"),
        ("tokenization", "mine"),
        ("tokenization", "multiq"),
        ("knowledge", "mine"),
        ("language_confusion", "mine"),
        ("language_confusion", "multiq"),
    ]
    assert plan.evaluator_report_dir("judge", "mine") == "results/tables/evaluators/judge/mine"
    # knowledge is drawn over language pairs: every model's pair file of the set; the others read the results table only
    assert plan.pair_figure_files("knowledge", "mine") == [
        "results/evaluations/mine/m/knowledge_pairs.parquet",
        "results/evaluations/mine/api/knowledge_pairs.parquet",
    ]
    assert plan.pair_figure_files("judge", "mine") == []
    # a tokenizer analysis needs a local tokenizer: without a model that has one, no job and no report
    api_only = plan_of(
        {
            "models": {"api": {"hf_id": "org/api", "backend": "openai"}},
            "datasets": {"multiq": {}},
            "evaluators": {"tokenization": {"datasets": ["multiq"]}},
        }
    )
    assert "tokenization" not in {evaluator for evaluator, _ in api_only.evaluator_reports()}
