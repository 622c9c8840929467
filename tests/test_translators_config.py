"""Several translators (`translators`): what each extra one inherits, where its files go,
which jobs run once per translator, and what is checked before anything runs."""

from __future__ import annotations

import pytest

from xlcons.config import ConfigError, validate_config
from xlcons.plan import Plan

R = "resources"
SECOND = "by-translator/nllb-1.3B/"


def plan_of(config: dict) -> Plan:
    return Plan(validate_config(config))


def two_translators(**second) -> dict:
    """Two NLLBs by default; `second` changes the extra one (a key set to None is left out)."""
    entry = {"model": {"hf_id": "facebook/nllb-200-distilled-1.3B"}, **second}
    if second.get("backend") == "llm":
        entry.pop("model")
    return {
        "models": {"m": {"hf_id": "org/m"}},
        "translator": {"degeneration": {"tries": 5}, "beam_size": 2},
        "translators": {"nllb-1.3B": {key: value for key, value in entry.items() if value is not None}},
        "datasets": {
            "information": {"languages": ["de"]},
            "empathy": {"languages": ["de"]},
            "multiq": {"languages": ["en", "de"]},
        },
        "evaluators": {"language_confusion": {"datasets": []}},
    }


class TestWhatAnExtraTranslatorInherits:
    def test_unset_keys_are_the_primary_translators_and_degeneration_is_merged_key_by_key(self):
        config = validate_config(two_translators(degeneration={"temperature": 0.5}))
        extra = config["translators"]["nllb-1.3B"]
        assert extra["beam_size"] == 2 and extra["backend"] == "transformers"
        assert extra["degeneration"]["tries"] == 5 and extra["degeneration"]["temperature"] == 0.5
        assert extra["model"]["hf_id"] == "facebook/nllb-200-distilled-1.3B"
        assert "datasets" not in extra and "qe" not in extra and "name" not in extra

    def test_the_primary_is_named_after_its_model_unless_it_has_a_name(self):
        assert plan_of(two_translators()).translators() == ["nllb-200-distilled-600M", "nllb-1.3B"]
        config = two_translators()
        config["translator"]["name"] = "nllb-600M"
        assert plan_of(config).translators() == ["nllb-600M", "nllb-1.3B"]

    def test_an_llm_translator_has_no_checkpoint_of_its_own_but_its_llm(self):
        config = validate_config(
            two_translators(backend="llm", llm={"hf_id": "Qwen/Qwen2.5-7B-Instruct", "backend": "hf"})
        )
        extra = config["translators"]["nllb-1.3B"]
        assert "model" not in extra and extra["llm"]["hf_id"] == "Qwen/Qwen2.5-7B-Instruct"


class TestBadTranslatorsAreNamedBeforeAnythingRuns:
    @pytest.mark.parametrize(
        ("second", "message"),
        [
            (
                {"beam_sise": 2},
                "config key 'translators.nllb-1.3B.beam_sise' is not allowed; did you mean 'beam_size'?",
            ),
            ({"backend": "llm"}, "'translators.nllb-1.3B.llm': backend llm needs the generation model that translates"),
            (
                {"llm": {"hf_id": "org/llm", "backend": "hf"}},
                "'translators.nllb-1.3B.llm': only a translator with backend: llm has one",
            ),
            (
                {"prompt": "Translate {text}"},
                "'translators.nllb-1.3B.prompt': only a translator with backend: llm has a prompt",
            ),
            (
                {"backend": "llm", "llm": {"hf_id": "org/llm", "backend": "vllm"}},
                "'translators.nllb-1.3B.llm.backend': vllm does not run inside a translation job",
            ),
            (
                {"backend": "llm", "llm": {"backend": "openai", "api": {"model": "gpt-4o", "batch": True}}},
                "'translators.nllb-1.3B.llm.api.batch': the LLM translator asks sentence by sentence",
            ),
            ({"qe": {"backend": "none"}}, "config key 'translators.nllb-1.3B.qe' is not allowed"),
        ],
    )
    def test_a_misconfigured_extra_translator(self, second, message):
        with pytest.raises(ConfigError) as error:
            validate_config(two_translators(**second))
        assert message in str(error.value)

    def test_an_extra_translator_may_not_take_the_primarys_name(self):
        config = two_translators()
        config["translators"] = {"nllb-200-distilled-600M": {"beam_size": 4}}
        with pytest.raises(
            ConfigError, match="'translators.nllb-200-distilled-600M': the name is the primary translator's"
        ):
            validate_config(config)


class TestFilesAndJobs:
    def test_one_translator_keeps_the_plain_paths(self):
        plan = plan_of({"models": {"m": {"hf_id": "org/m"}}, "datasets": {"information": {"languages": ["de"]}}})
        assert plan.vias() == [""] and plan.extra_translators() == []
        assert plan.evaluation_files("information") == ["results/evaluations/information/m/information_scores.parquet"]

    def test_each_translation_reading_evaluator_runs_once_per_translator(self):
        plan = plan_of(two_translators())
        assert plan.vias() == ["", SECOND]
        assert plan.evaluation_files("information") == [
            "results/evaluations/information/m/information_scores.parquet",
            f"results/{SECOND}evaluations/information/m/information_scores.parquet",
        ]
        assert f"results/{SECOND}evaluations/empathy/m/empathy_items.parquet" in plan.evaluation_files(
            "empathy", "empathy_items"
        )
        assert all(SECOND not in path for path in plan.evaluation_files("language_id")), (
            "language ID reads no translation"
        )

    def test_only_the_sets_an_evaluator_reads_translations_of_are_translated_again(self):
        plan = plan_of(two_translators() | {"translator": {"datasets": ["multiq"]}})
        assert plan.translator_vias("information") == ["", SECOND] and plan.translator_vias("multiq") == [""]
        assert f"results/{SECOND}translations/information/m/de.qe.parquet" in plan.all_qe_files()
        assert not any(f"{SECOND}translations/multiq" in path for path in plan.all_qe_files())

    def test_the_results_know_the_translator_behind_each_file(self):
        files = plan_of(two_translators()).file_translators()
        assert files["results/evaluations/information/m/information_items.parquet"] == "nllb-200-distilled-600M"
        assert files[f"results/{SECOND}evaluations/empathy/m/empathy_items.parquet"] == "nllb-1.3B"
        assert files[f"results/{SECOND}translations/empathy/m/de.qe.parquet"] == "nllb-1.3B"
        assert not any("language_id" in path for path in files), "language ID rests on no translator"

    def test_the_round_trips_rest_on_the_primary_translator_alone(self):
        config = two_translators()
        config["evaluators"]["information"] = {"round_trip_languages": ["hi"]}
        plan = plan_of(config)
        assert (
            plan.file_translators()["results/evaluations/information/m/translationese_items.parquet"]
            == "nllb-200-distilled-600M"
        )
        assert plan.evaluation_files("translationese") == [
            "results/evaluations/information/m/translationese_scores.parquet"
        ]

    def test_each_translator_has_its_own_caches(self):
        plan = plan_of(two_translators())
        assert (
            plan.cache_file("translate", "information", "m", SECOND)
            == f"results/{SECOND}cache/translate/information/m.jsonl"
        )
        assert plan.translator_of(SECOND) == "nllb-1.3B" and plan.translator_of("") == "nllb-200-distilled-600M"

    def test_the_extra_translators_model_is_fetched(self):
        targets = plan_of(two_translators()).fetch_targets(R)
        assert f"{R}/models/nllb-200-distilled-1.3B/.xlcons-fetched.json" in targets
        assert f"{R}/models/nllb-200-distilled-600M/.xlcons-fetched.json" in targets

    def test_translators_that_share_a_checkpoint_and_compute_type_share_one_conversion(self):
        config = two_translators(
            backend="ctranslate2", model={"hf_id": "facebook/nllb-200-distilled-600M"}, max_new_tokens=64
        )
        config["translator"]["backend"] = "ctranslate2"
        plan = plan_of(config)
        folder = f"{R}/ctranslate2/nllb-200-distilled-600M-auto"
        assert plan.ctranslate2_conversions(R) == {folder: "nllb-200-distilled-600M"}
        assert plan.translator_weights(R, "nllb-1.3B") == [folder]

    def test_a_translation_job_reads_its_own_translators_settings_but_not_the_runs(self):
        plan = plan_of(two_translators(beam_size=4))
        fields = plan.translator_fields("nllb-1.3B")
        assert fields["beam_size"] == 4 and fields["model"]["hf_id"] == "facebook/nllb-200-distilled-1.3B"
        assert not {"datasets", "qe", "name"} & set(fields)
        assert "family" not in plan.translator_fields(), "the default family is left out: older jobs do not rerun"

    def test_an_llm_translator_job_gets_its_models_params_and_its_backends_gpus(self):
        plan = plan_of(
            two_translators(
                backend="llm",
                llm={
                    "hf_id": "Qwen/Qwen2.5-7B-Instruct",
                    "backend": "openai",
                    "api": {"base_url": "http://localhost:8000/v1"},
                },
            )
        )
        fields = plan.translator_fields("nllb-1.3B", R)
        assert fields["llm"]["backend"] == "openai" and fields["llm"]["location"] is None
        assert plan.translator_gpus("nllb-1.3B") == 0 and plan.translator_gpus() == 1
        assert plan.translator_weights(R, "nllb-1.3B") == [], "a served model has no files to wait for"
