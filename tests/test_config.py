"""The config contract: a schema with defaults everywhere, and errors that name the key."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml

from xlcons.config import ConfigError, load_config, load_schema, validate_config
from xlcons.languages import LanguageRegistry

SHIPPED = [
    "config/config.yaml",
    *sorted(
        str(p.relative_to(Path(__file__).parent.parent))
        for p in (Path(__file__).parent.parent / "config" / "paper").glob("*.yaml")
    ),
]


def errors_of(config: dict, tmp_path: Path | None = None) -> str:
    with pytest.raises(ConfigError) as caught:
        validate_config(config, base_dir=tmp_path or Path("."))
    return str(caught.value)


def walk_properties(schema: dict, root: dict, path: str = "", required: set[str] | None = None):
    """Every (dotted key, property schema) of the schema, through $refs and allOf; the dotted
    keys that their object requires are added to `required`."""
    parts = [schema] + [root["$defs"][p["$ref"].split("/")[-1]] for p in schema.get("allOf", []) if "$ref" in p]
    if "$ref" in schema:
        parts.append(root["$defs"][schema["$ref"].split("/")[-1]])
    for part in parts:
        if required is not None:
            required.update(f"{path}{name}" for name in part.get("required", ()))
        for key, prop in part.get("properties", {}).items():
            yield f"{path}{key}", prop
            yield from walk_properties(prop, root, f"{path}{key}.", required)
        if isinstance(part.get("additionalProperties"), dict):
            yield from walk_properties(part["additionalProperties"], root, f"{path}<name>.", required)


class TestSchema:
    def test_every_key_has_a_description_and_a_default(self):
        schema = load_schema()
        required: set[str] = set()
        keys = list(walk_properties(schema, schema, required=required))
        assert len(keys) > 80
        for key, prop in keys:
            target = (
                prop if "description" in prop or "$ref" not in prop else schema["$defs"][prop["$ref"].split("/")[-1]]
            )
            assert "description" in target, f"{key} has no description"
            if key.startswith("translators.<name>.") and not key.startswith("translators.<name>.llm."):
                # an extra translator's unset key is the primary translator's (expand_translators)
                assert "default" not in prop, f"{key} has a default of its own"
            elif key in required:  # must be given (a model's prices): a default would never apply
                assert "default" not in prop, f"{key} is required and has a default"
            else:
                assert "default" in prop, f"{key} has no default"

    def test_the_schema_is_draft_2020_12(self):
        assert load_schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"

    def test_an_empty_config_gets_every_default(self):
        config = validate_config({})
        assert config["models"] == {}
        assert config["translator"]["model"]["hf_id"] == "facebook/nllb-200-distilled-600M"
        assert config["translator"]["beam_size"] == 1
        assert config["translator"]["degeneration"] == {
            "repair": True,
            "max_length_ratio": 3.0,
            "max_ngram_repeats": 4,
            "temperature": 0.7,
            "top_p": 0.95,
            "tries": 3,
        }
        assert config["evaluators"]["language_id"]["unsupported_languages"] == ["mni-Mtei", "doi"]
        assert config["evaluators"]["knowledge"]["timeliness_ranking"] == "recency"
        assert all(not spec["enabled"] for spec in config["datasets"].values())
        assert config["output"]["results_dir"] == "results"

    def test_a_model_gets_greedy_decoding_and_vllm_by_default(self):
        config = validate_config({"models": {"m": {"hf_id": "org/m"}}})
        model = config["models"]["m"]
        assert model["backend"] == "vllm"
        assert model["decoding"]["temperature"] == 0.0
        assert model["system_prompt"] is None
        assert model["vllm"]["tensor_parallel_size"] == 1
        assert model["training_languages"] is None

    def test_naming_a_data_set_turns_it_on(self):
        config = validate_config({"datasets": {"multiq": {"languages": ["de"]}}})
        assert config["datasets"]["multiq"]["enabled"] is True
        assert config["datasets"]["multiq"]["items"] == {"ids": None, "limit": None, "domains": None}
        assert config["datasets"]["makqa"]["enabled"] is False

    def test_each_empathy_mechanism_keeps_its_own_defaults_under_a_partial_override(self):
        config = validate_config({"evaluators": {"empathy": {"hyperparameters": {"EX": {"epochs": 3}}}}})
        schedules = config["evaluators"]["empathy"]["hyperparameters"]
        assert schedules["EX"] == {"epochs": 3, "learning_rate": 5.5e-5}, "EX keeps Gupta et al. 2025's learning rate"
        assert schedules["ER"] == schedules["IP"] == {"epochs": 10, "learning_rate": 2.5e-5}

    def test_an_evaluators_options_are_checked_as_its_registry_entry_declares_them(self):
        assert "evaluators.language_confusion.min_confidence" in errors_of(
            {"evaluators": {"language_confusion": {"min_confidence": 2}}}
        )
        assert "evaluators.knowledge.embeder" in errors_of({"evaluators": {"knowledge": {"embeder": None}}})

    def test_anchor_keys_starting_with_x_are_ignored(self):
        validate_config({"x-languages": ["de", "fr"], "datasets": {"multiq": {"languages": ["de"]}}})


class TestShippedConfigs:
    @pytest.mark.parametrize("path", SHIPPED)
    def test_validates(self, repo_root, path):
        config = load_config(repo_root / path, base_dir=repo_root)
        assert config["datasets"], path

    def test_offline_config_validates_once_its_models_exist(self, repo_root, offline_models):
        config = load_config(repo_root / "config/offline.yaml", base_dir=repo_root)
        assert all(spec.get("path") for spec in config["models"].values())

    def test_gupta2025_config_asks_for_the_30_languages(self, repo_root):
        from xlcons.languages import GUPTA2025_LANGUAGES

        config = load_config(repo_root / "config/paper/gupta2025-translate-then-evaluate.yaml", base_dir=repo_root)
        assert sorted(config["datasets"]["information"]["languages"]) == sorted(["en", *GUPTA2025_LANGUAGES])
        assert len(config["models"]) == 12

    def test_xing2024_config_asks_for_the_12_languages(self, repo_root):
        from xlcons.languages import XING2024_LANGUAGES

        config = load_config(repo_root / "config/paper/xing2024-knowledge.yaml", base_dir=repo_root)
        assert sorted(config["datasets"]["makqa"]["languages"]) == sorted(XING2024_LANGUAGES)
        assert config["evaluators"]["knowledge"]["timeliness_ranking"] == "list_position"


def reversed_keys(value):
    """The same config with every mapping's keys in reverse order."""
    if isinstance(value, dict):
        return {key: reversed_keys(value[key]) for key in reversed(list(value))}
    return value


class TestCanonicalOrder:
    """Job params are made from config sections, and Snakemake compares params by their repr:
    the validated config has one key order, whatever order the YAML gave."""

    def test_a_config_with_its_keys_reordered_validates_to_the_same_config_in_the_same_order(self, repo_root):
        given = yaml.safe_load((repo_root / "config/config.yaml").read_text())
        mine = validate_config(copy.deepcopy(given), base_dir=repo_root)
        reordered = validate_config(reversed_keys(copy.deepcopy(given)), base_dir=repo_root)
        assert list(reordered["models"]) == list(reversed(list(mine["models"])))  # the user's order of models stays
        reordered["models"] = {name: reordered["models"][name] for name in mine["models"]}
        reordered["datasets"] = {name: reordered["datasets"][name] for name in mine["datasets"]}
        assert repr(reordered) == repr(mine)

    def test_keys_inside_sections_and_entries_are_sorted_lists_keep_their_order(self):
        from xlcons.config import canonical_order

        config = {
            "output": {"seed": 1, "comparisons": [["b", "a"]]},
            "models": {"z": {"hf": {"dtype": "x", "batch_size": 2}, "backend": "hf"}, "a": {}},
        }
        canonical_order(config)
        assert list(config["output"]) == ["comparisons", "seed"] and config["output"]["comparisons"] == [["b", "a"]]
        assert list(config["models"]) == ["z", "a"]
        assert list(config["models"]["z"]) == ["backend", "hf"] and list(config["models"]["z"]["hf"]) == [
            "batch_size",
            "dtype",
        ]


class TestErrorsNameTheKey:
    def test_misspelt_top_level_key(self):
        message = errors_of({"modells": {}})
        assert "'modells' is not allowed" in message
        assert "did you mean 'models'" in message

    def test_misspelt_nested_key(self):
        message = errors_of({"models": {"m": {"hf_id": "org/m", "decodng": {}}}})
        assert "models.m.decodng" in message
        assert "did you mean 'decoding'" in message

    def test_misspelt_data_set_key(self):
        message = errors_of({"datasets": {"makqa": {"domain": ["geo"]}}})
        assert "datasets.makqa.domain" in message and "did you mean 'domains'" in message

    def test_wrong_type(self):
        message = errors_of({"models": {"m": {"hf_id": "org/m", "decoding": {"temperature": "hot"}}}})
        assert "models.m.decoding.temperature" in message and "'hot'" in message

    def test_unknown_backend(self):
        message = errors_of({"models": {"m": {"hf_id": "org/m", "backend": "vlm"}}})
        assert "models.m.backend" in message and "'vlm'" in message

    def test_bad_model_name(self):
        assert "'my model'" in errors_of({"models": {"my model": {"hf_id": "org/m"}}})

    def test_every_problem_is_reported_at_once(self):
        message = errors_of({"modells": {}, "translator": {"beam_size": 0}})
        assert "modells" in message and "translator.beam_size" in message

    def test_unknown_language_code(self):
        message = errors_of({"datasets": {"multiq": {"languages": ["de", "deu"]}}})
        assert "datasets.multiq.languages[1]" in message
        assert "'deu'" in message and "did you mean" in message

    @pytest.mark.parametrize("key", ["datasets.multiq.languages", "models.m.languages", "models.m.training_languages"])
    def test_a_language_name_is_refused_with_its_code(self, key):
        """Wherever the config takes language codes, a language's name (any case) is refused
        with the code the registry gives it, before any job is scheduled."""
        section, name, field = key.split(".")
        entry = (
            {"languages": ["de", "BENGALI"]} if section == "datasets" else {"hf_id": "org/m", field: ["de", "BENGALI"]}
        )
        message = errors_of({section: {name: entry}})
        assert f"{key}[1]" in message and "did you mean 'bn' (Bengali)?" in message

    def test_unknown_training_language(self):
        message = errors_of({"models": {"m": {"hf_id": "org/m", "training_languages": ["english"]}}})
        assert "models.m.training_languages[0]" in message and "'english'" in message

    def test_language_without_nllb_code_is_rejected_only_where_it_is_translated(self):
        registry = LanguageRegistry.load()
        untranslatable = next(code for code in registry.codes if not registry[code].translatable)
        validate_config({"datasets": {"multiq": {"languages": [untranslatable]}}})
        message = errors_of({"datasets": {"information": {"languages": ["de", untranslatable]}}})
        assert "datasets.information.languages[1]" in message
        assert untranslatable in message and "NLLB" in message

    def test_pivot_languages_of_the_translationese_check_must_be_translatable(self):
        registry = LanguageRegistry.load()
        untranslatable = next(code for code in registry.codes if not registry[code].translatable)
        message = errors_of({"evaluators": {"information": {"round_trip_languages": ["hi", untranslatable]}}})
        assert "evaluators.information.round_trip_languages[1]" in message and "NLLB" in message

    def test_missing_local_model_path(self, tmp_path):
        message = errors_of({"models": {"m": {"path": "models/nowhere", "backend": "hf"}}}, tmp_path)
        assert "models.m.path" in message and "models/nowhere" in message and "does not exist" in message

    def test_existing_local_model_path_is_accepted(self, tmp_path):
        (tmp_path / "models" / "here").mkdir(parents=True)
        validate_config({"models": {"m": {"path": "models/here", "backend": "hf"}}}, base_dir=tmp_path)

    def test_model_needs_exactly_one_source(self):
        assert "give hf_id or path, not both" in errors_of({"models": {"m": {"hf_id": "o/m", "path": "."}}})
        assert "models.m" in errors_of({"models": {"m": {"backend": "hf"}}})

    def test_an_api_model_needs_no_weights(self):
        validate_config({"models": {"gpt": {"backend": "openai", "api": {"model": "gpt-4o"}}}})

    def test_missing_data_set_folder(self, tmp_path):
        message = errors_of({"datasets": {"multiq": {"path": "data/multiq"}}}, tmp_path)
        assert "datasets.multiq.path" in message

    def test_two_different_models_cannot_share_a_folder(self):
        config = {
            "models": {"m": {"hf_id": "org/LaBSE"}},
            "evaluators": {"knowledge": {"embedder": {"hf_id": "sentence-transformers/LaBSE", "name": "m"}}},
        }
        assert "resources/models/m" in errors_of(config)

    def test_local_models_with_the_same_folder_name_do_not_collide(self, tmp_path):
        """Only Hub models are fetched into resources/models/<name>; a path is used where it is."""
        for run in ("run-a", "run-b"):
            (tmp_path / run / "checkpoint").mkdir(parents=True)
        validate_config(
            {
                "models": {
                    "a": {"path": "run-a/checkpoint", "backend": "hf"},
                    "b": {"path": "run-b/checkpoint", "backend": "hf"},
                },
                "evaluators": {"judge": {"llm": {"path": "run-a/checkpoint", "backend": "hf", "name": "b"}}},
            },
            base_dir=tmp_path,
        )

    def test_the_same_model_in_two_roles_shares_its_folder(self):
        judge = {"hf_id": "Qwen/Qwen2.5-7B-Instruct", "backend": "hf"}
        validate_config({"evaluators": {"judge": {"llm": judge}, "information": {"llm": copy.deepcopy(judge)}}})

    def test_load_config_names_the_file(self, tmp_path):
        path = tmp_path / "bad.yaml"
        path.write_text(yaml.safe_dump({"modells": {}}))
        with pytest.raises(ConfigError, match="bad.yaml"):
            load_config(path)


class TestItemSelectionIsCheckedAgainstTheData:
    """items.ids and items.domains that name nothing in the data stop the run before scheduling,
    when the data is on disk (a local path or the fetched copy)."""

    def model(self):
        return {"m": {"hf_id": "org/m"}}

    def test_multiq_ids_and_domains(self, shared_data):
        wrong = {"ids": ["gpt-1", "lmsys-7", "gtp-2"], "domains": ["chemistry", "cooking"]}
        message = errors_of(
            {"models": self.model(), "datasets": {"multiq": {"path": str(shared_data / "multiq"), "items": wrong}}}
        )
        assert (
            "config key 'datasets.multiq.items.ids': not MultiQ ids (they look like gpt-1, lmsys-7): ['gtp-2']"
            in message
        )
        assert (
            "config key 'datasets.multiq.items.domains': no items in ['cooking']; the data has ['animals', 'art',"
            in message
        )

    def test_makqa_ids_need_the_form_and_a_domain_of_the_run_before_any_data_is_read(self):
        spec = {
            "domains": ["geo", "timeliness"],
            "items": {"ids": ["geo/Q1085-P30", "Q1085-P30", "history/Q1-P2"], "domains": ["movie"]},
        }
        message = errors_of(
            {"models": self.model(), "datasets": {"makqa": spec}}
        )  # no path, nothing fetched: no data needed
        assert "'datasets.makqa.items.ids[1]': 'Q1085-P30' is not '<domain>/<QID>-<PID>'" in message
        assert (
            "'datasets.makqa.items.ids[2]': 'history/Q1-P2' is in domain "
            "'history', not among the run's domains ['geo', 'timeliness']"
        ) in message
        assert "'datasets.makqa.items.domains': ['movie'] not among the run's domains" in message

    def test_makqa_ids_that_the_domain_file_lacks(self, shared_data):
        spec = {
            "path": str(shared_data / "makqa"),
            "domains": ["geo"],
            "items": {"ids": ["geo/Q1085-P30", "geo/Q0-P0"]},
        }
        message = errors_of({"models": self.model(), "datasets": {"makqa": spec}})
        assert (
            "config key 'datasets.makqa.items.ids': not MAKQA questions of the run's domains: ['geo/Q0-P0']" in message
        )

    def test_epitome_seeker_posts(self, shared_data):
        spec = {"path": str(shared_data / "epitome"), "items": {"ids": ["65m92s", "not-a-post"]}}
        message = errors_of({"models": self.model(), "datasets": {"empathy": spec}})
        assert message.endswith(
            "config key 'datasets.empathy.items.ids': not EPITOME seeker posts (sp_id): ['not-a-post']"
        )

    def test_known_ids_pass(self, shared_data):
        validate_config(
            {
                "models": self.model(),
                "datasets": {"multiq": {"path": str(shared_data / "multiq"), "items": {"ids": ["gpt-1"]}}},
            }
        )


def test_the_config_reference_is_generated_from_the_schema(repo_root):
    from xlcons.schema_docs import current_block, render

    reference = (repo_root / "config" / "README.md").read_text(encoding="utf-8")
    assert current_block(reference) == render(), "run: python -m xlcons.schema_docs --write config/README.md"


class TestRecordedAnswersAreCheckedBeforeScheduling:
    """A recorded-responses file (backend file) is read and checked whole by the config check,
    as a user prompt file is: each problem names the config key, the file, the line and the
    column, before any job is queued."""

    @staticmethod
    def model(path: str) -> dict:
        return {"models": {"api-run": {"backend": "file", "path": path}}}

    def test_a_missing_column_names_the_file_and_its_columns(self, tmp_path):
        (tmp_path / "answers.csv").write_text("question,language,response\nq1,en,Paris\n")
        message = errors_of(self.model("answers.csv"), tmp_path)
        assert (
            "config key 'models.api-run.path': answers.csv: no column 'item_id' or 'id' "
            "(its columns: question, language, response)" in message
        )

    def test_a_repeated_item_and_language_names_both_lines(self, tmp_path):
        (tmp_path / "answers.csv").write_text(
            'item_id,language,response\nq1,en,Paris\nq2,en,"Eight,\nor so"\nq1,de,Paris\nq1,en,Lyon\n'
        )
        message = errors_of(self.model("answers.csv"), tmp_path)
        assert (
            "config key 'models.api-run.path': answers.csv, line 6, column 'item_id': "
            "item 'q1' in language 'en' appears twice (first at line 2)" in message
        )

    def test_a_windows_1252_file_is_named_by_line_with_the_encoding_it_looks_like(self, tmp_path):
        (tmp_path / "answers.csv").write_bytes(
            "item_id,language,response\nq1,fr,Paris\nq2,fr,Caf\u00e9\n".encode("cp1252")
        )
        message = errors_of(self.model("answers.csv"), tmp_path)
        assert (
            "answers.csv, line 3: not UTF-8: byte 0xe9 at byte 10 of the line (byte offset 47 in the file; "
            "'é' in Windows-1252, the encoding of a spreadsheet's plain CSV on Windows: choose CSV UTF-8); "
            "save the file as UTF-8"
        ) in message

    def test_a_value_that_is_not_text_is_named_by_line_and_column(self, tmp_path):
        lines = [{"id": "q1", "lang": "en", "response": "Paris"}, {"id": "q2", "lang": "en", "response": ["8"]}]
        (tmp_path / "answers.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
        message = errors_of(self.model("answers.jsonl"), tmp_path)
        assert "answers.jsonl, line 2, column 'response': the response is a list, not text" in message

    @pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
    def test_id_and_lang_name_the_columns_as_in_a_prompt_file_and_long_answers_are_read(self, tmp_path, suffix):
        """A prompt file's column names serve the answers too, and an answer of 3 MB (over
        pyarrow's block and csv's field limits) is read whole."""
        from xlcons.generation.backends.recorded import read_recorded

        long = "A long answer, line after line.\n" * 100_000
        path = tmp_path / f"answers{suffix}"
        if suffix == ".csv":
            path.write_text(f'id,lang,response\nq1,en,"{long}"\nq2,en,Eight.\n')
        else:
            path.write_text(
                "".join(
                    json.dumps({"id": i, "lang": "en", "response": r}) + "\n" for i, r in [("q1", long), ("q2", "8")]
                )
            )
        validate_config(self.model(path.name), base_dir=tmp_path)
        records = read_recorded(path)
        assert set(records) == {("q1", "en"), ("q2", "en")}
        assert records[("q1", "en")]["response"] == long
