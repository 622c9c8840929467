"""The workflow as users run it: `snakemake` on the command line, from the repository root."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
SNAKEMAKE = [sys.executable, "-m", "snakemake"]
PAPER_CONFIGS = sorted(str(p.relative_to(REPO)) for p in (REPO / "config" / "paper").glob("*.yaml"))


def snakemake(*args: str, cwd: Path = REPO, timeout: int = 300) -> subprocess.CompletedProcess:
    """Run the CLI; Snakemake prints errors on either stream, so `output` holds both."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    result = subprocess.run([*SNAKEMAKE, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    result.output = result.stdout + result.stderr
    return result


def job_counts(output: str) -> dict[str, int]:
    """The 'Job stats' table of a dry run, as rule -> count."""
    table = (
        output.split("Job stats:")[1].split("Reasons:")[0] if "Reasons:" in output else output.split("Job stats:")[1]
    )
    counts = {}
    for line in table.splitlines():
        match = re.fullmatch(r"\s*([A-Za-z_]\w*)\s+(\d+)\s*", line)
        if match and match.group(1) != "total":
            counts[match.group(1)] = int(match.group(2))
    return counts


def write_config(tmp_path: Path, config: dict) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


class TestStyle:
    def test_lint_is_clean(self):
        result = snakemake("--lint")
        assert result.returncode == 0, result.output
        assert "Congratulations, your workflow is in a good condition!" in result.output

    def test_snakefmt_leaves_the_smk_files_unchanged(self):
        files = ["Snakefile", *sorted(str(p.relative_to(REPO)) for p in (REPO / "rules").glob("*.smk"))]
        result = subprocess.run(
            [sys.executable, "-m", "snakefmt", "--check", *files], cwd=REPO, capture_output=True, text=True
        )
        assert result.returncode == 0, result.stdout + result.stderr

    def test_ruff_finds_nothing(self):
        """The lint rules of pyproject.toml ([tool.ruff]) over the library, tests and benchmarks."""
        result = subprocess.run(
            [sys.executable, "-m", "ruff", "check", "--no-cache", "."], cwd=REPO, capture_output=True, text=True
        )
        assert result.returncode == 0, result.stdout + result.stderr

    def test_ruff_format_leaves_every_file_as_it_is(self):
        """The code is formatted by `ruff format` ([tool.ruff.format]): it would change nothing."""
        result = subprocess.run(
            [sys.executable, "-m", "ruff", "format", "--check", "--no-cache", "."],
            cwd=REPO,
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0, result.stdout + result.stderr

    def test_mypy_finds_nothing_in_the_library(self, tmp_path):
        """The type check of pyproject.toml ([tool.mypy]: its files, its strictness), from a cold cache."""
        result = subprocess.run(
            [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy")],
            cwd=REPO,
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0, result.stdout + result.stderr

    def test_the_snakefile_requires_snakemake_9(self):
        assert 'min_version("9.0")' in (REPO / "Snakefile").read_text()


class TestDryRuns:
    def test_default_config_fetches_then_prompts_and_generates(self):
        result = snakemake("-n", "--forceall")
        assert result.returncode == 0, result.output
        counts = job_counts(result.stdout)
        # 6 models, lid.176 and the benchmark's word list (language confusion), and 3 data sets
        # to fetch; MultiQ's 7 and MAKQA's 6 languages; one job per model and data set for
        # generation and for each evaluator. The English-only sets get their English prompts,
        # one translation job each (into the other 6 languages), and their answers are
        # translated back by NLLB, converted once to CTranslate2.
        assert counts == {
            "fetch_model": 8,
            "fetch_dataset": 3,
            "prompts": 13,
            "prompt_table": 4,
            "generate_multiq": 2,
            "generate_makqa": 2,
            "all": 1,
            "results": 1,
            "explorer": 1,
            "translate_then_evaluate_report": 1,
            "language_id": 2,
            "judge": 2,
            "tokenization": 2,
            "multiq_report": 1,
            "knowledge_scores": 2,
            "knowledge_report": 1,
            "language_confusion": 8,
            # the faithful-text checks: each data set's own prompts scored as answers (measurability)
            "language_confusion_faithful": 4,
            "language_id_faithful": 1,
            # a figure and a table per evaluator and data set it scores (language confusion: 4 sets)
            "evaluator_report": 10,
            "source_prompts": 2,
            "translate_prompts_information": 1,
            "translate_prompts_empathy": 1,
            "convert_translator": 1,
            "generate_information": 2,
            "generate_empathy": 2,
            "translate_information": 2,
            "translate_empathy": 2,
            "information_consistency": 2,
            "train_empathy_classifier": 3,
            "empathy_consistency": 2,
            # the quality estimate of every translated sentence (LaBSE, the knowledge embedder's download)
            "translation_qe_information": 2,
            "translation_qe_empathy": 2,
            "translation_quality_report": 1,
            "usage": 1,  # what every model job asked and took, in one table
        }

    def test_the_fetch_target_downloads_the_same_and_nothing_else(self):
        result = snakemake("-n", "--forceall", "fetch")
        assert result.returncode == 0, result.output
        assert job_counts(result.stdout) == {"fetch_model": 8, "fetch_dataset": 3, "fetch": 1}

    def test_no_fetch_of_the_default_config_is_bound_to_fail(self):
        """What `make run` downloads first: every data file from a URL pinned to a commit,
        every model from a Hub id (checked here without the network: the URLs and ids)."""
        from xlcons.config import load_config
        from xlcons.data_sources import DATA_SOURCES
        from xlcons.plan import Plan

        result = snakemake("-n", "--forceall", "fetch")
        assert result.returncode == 0, result.output
        sources = set(re.findall(r"resources/data/([^/\s]+)/MANIFEST\.json", result.stdout))
        models = set(re.findall(r"resources/models/([^/\s]+)/\.xlcons-fetched\.json", result.stdout))
        assert sources == {"multiq", "makqa", "epitome"} and len(models) == 8
        for name in sources:
            for f in DATA_SOURCES[name].files:
                assert re.fullmatch(
                    r"https://raw\.githubusercontent\.com/[\w.-]+/[\w.-]+/[0-9a-f]{40}/\S+", DATA_SOURCES[name].url(f)
                )
        hub = Plan(load_config(REPO / "config" / "config.yaml")).hub_models()
        # a Hub id, or one file at a URL pinned by its sha256 (lid.176.bin, the benchmark's word list)
        assert all(
            re.fullmatch(r"[\w.-]+/[\w.-]+", hub[name]["hf_id"] or "")
            or (hub[name]["url"] and re.fullmatch(r"[0-9a-f]{64}", hub[name]["sha256"]))
            for name in models
        )
        assert {name for name in models if hub[name]["url"]} == {"lid176", "lcb-words"}

    def test_the_slurm_profile_is_found_by_its_name_from_the_repository_root(self):
        env = {k: v for k, v in os.environ.items() if not k.startswith("XLCONS_SLURM_")}
        result = subprocess.run(
            [*SNAKEMAKE, "--profile", "slurm", "-n", "--configfile", "config/offline.yaml"],
            cwd=REPO,
            env={**env, "HF_HUB_OFFLINE": "1"},
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        assert "This was a dry-run" in result.stdout

    @pytest.mark.parametrize("config", PAPER_CONFIGS)
    def test_paper_config(self, config):
        result = snakemake("-n", "--configfile", config)
        assert result.returncode == 0, result.output
        assert job_counts(result.stdout)["fetch_model"] >= 1

    def test_a_paper_config_replaces_the_default_models(self):
        result = snakemake("-n", "--configfile", "config/paper/xing2024-knowledge.yaml")
        assert "qwen2.5-0.5b-instruct" not in result.stdout
        assert "resources/models/mistral-7b/" in result.stdout
        assert "resources/models/gpt-3.5-turbo" not in result.stdout, "API models have nothing to fetch"
        assert "results/responses/makqa/gpt-3.5-turbo/en.parquet" in result.stdout, "but they answer"

    def test_offline_config_needs_no_download(self, offline_models):
        result = snakemake("-n", "--forceall", "--configfile", "config/offline.yaml")
        assert result.returncode == 0, result.output
        assert "fetch_model" not in result.stdout and "fetch_dataset" not in result.stdout
        assert job_counts(result.stdout) == {
            "prompts": 9,
            "prompt_table": 4,
            "generate_multiq": 2,
            "generate_makqa": 2,
            "all": 1,
            "results": 1,
            "explorer": 1,
            "translate_then_evaluate_report": 1,
            "language_id": 2,
            "judge": 2,
            "tokenization": 2,
            "multiq_report": 1,
            "language_confusion": 8,
            # the faithful-text checks: each data set's own prompts scored as answers (measurability)
            "language_confusion_faithful": 4,
            "language_id_faithful": 1,
            # a figure and a table per evaluator and data set it scores (knowledge: MultiQ and MAKQA,
            # language confusion: 4 sets, the translationese check: information)
            "evaluator_report": 12,
            "knowledge_scores": 4,
            "knowledge_report": 1,
            "translate_multiq": 2,
            # Gupta et al. 2025's English-only sets: English prompts, translated into de/ar, answered,
            # answers translated back; the English information answers also go en -> ar -> en
            "source_prompts": 2,
            "translate_prompts_information": 1,
            "translate_prompts_empathy": 1,
            # answers translated back, by each of the two tiny NLLBs (translators: tiny-nllb-b)
            "generate_information": 2,
            "generate_empathy": 2,
            "translate_information": 4,
            "translate_empathy": 4,
            "round_trip": 2,
            "translationese_check": 2,
            "information_consistency": 4,
            "train_empathy_classifier": 3,
            "empathy_consistency": 4,
            # the quality estimate of every translated sentence (the MiniLM stand-in); MultiQ's
            # answers are translated by the primary translator alone (translator.datasets)
            "translation_qe_multiq": 2,
            "translation_qe_information": 4,
            "translation_qe_empathy": 4,
            "translation_quality_report": 1,
            "usage": 1,  # what every model job asked and took, in one table
        }

    def test_holtermann2024_schedules_one_generation_job_per_model_over_137_languages(self):
        result = snakemake("-n", "--forceall", "--configfile", "config/paper/holtermann2024-multiq.yaml")
        counts = job_counts(result.stdout)
        assert counts["prompts"] == 137 and counts["generate_multiq"] == 6


class TestBadConfigsFailBeforeScheduling:
    def test_misspelt_key(self, tmp_path):
        result = snakemake("-n", "--configfile", str(write_config(tmp_path, {"modells": {"m": {"hf_id": "org/m"}}})))
        assert result.returncode != 0
        assert "config key 'modells' is not allowed; did you mean 'models'?" in result.output
        assert "Job stats" not in result.stdout

    def test_unknown_language_code(self, tmp_path):
        config = {"datasets": {"multiq": {"languages": ["en", "xx-unknown"]}}}
        result = snakemake("-n", "--configfile", str(write_config(tmp_path, config)))
        assert result.returncode != 0
        assert "datasets.multiq.languages[1]" in result.output and "'xx-unknown'" in result.output
        assert "Job stats" not in result.stdout

    def test_a_bad_row_of_a_users_prompt_file_names_file_line_and_column(self, tmp_path):
        prompts = tmp_path / "clinic_qa.csv"
        prompts.write_text("id,lang,prompt\nq1,en,What is a fever?\nq1,de,   \n", encoding="utf-8")
        config = {"datasets": {"clinic_qa": {"path": str(prompts), "languages": ["en", "de"]}}}
        result = snakemake("-n", "--configfile", str(write_config(tmp_path, config)))
        assert result.returncode != 0
        assert f"datasets.clinic_qa: {prompts}, line 3, column 'prompt': the prompt is blank" in result.output
        assert "Job stats" not in result.stdout

    def test_an_evaluator_that_cannot_score_a_data_set_is_named_with_it(self, tmp_path):
        prompts = tmp_path / "clinic_qa.csv"
        prompts.write_text("id,lang,prompt\nq1,en,What is a fever?\nq1,de,Was ist Fieber?\n", encoding="utf-8")
        config = {
            "datasets": {"clinic_qa": {"path": str(prompts)}},
            "evaluators": {"empathy": {"datasets": ["clinic_qa"]}},
        }
        result = snakemake("-n", "--configfile", str(write_config(tmp_path, config)))
        assert result.returncode != 0 and "evaluator 'empathy' cannot score data set 'clinic_qa'" in result.output

    def test_command_line_override_is_validated_too(self):
        result = snakemake("-n", "--config", "translator={'beam_size': 0}")
        assert result.returncode != 0 and "translator.beam_size" in result.output

    def test_a_dotted_command_line_key_says_how_to_set_a_nested_key(self):
        """Snakemake's --config takes top-level keys only; a dotted one stopped it with a traceback."""
        result = snakemake("-n", "--configfile", "config/offline.yaml", "--config", "output.bootstrap_resamples=50")
        assert result.returncode != 0
        assert "Traceback" not in result.output, result.output[-2000:]
        assert (
            "xlcons: --config output.bootstrap_resamples=50: --config sets top-level keys only (KEY=VALUE)"
            in result.output
        )
        assert "output:\n  bootstrap_resamples: 50\n" in result.output
        assert "--configfile config/config.yaml overrides.yaml" in result.output

    def test_a_nested_key_given_as_a_top_level_key_is_pointed_to_its_section(self):
        result = snakemake("-n", "--configfile", "config/offline.yaml", "--config", "bootstrap_resamples=50")
        assert result.returncode != 0
        assert "config key 'bootstrap_resamples' is not allowed; did you mean 'output.bootstrap_resamples'?" in (
            result.output
        )

    def test_an_api_model_without_its_key_stops_the_run_before_any_job_but_not_a_dry_run(self, tmp_path, monkeypatch):
        """On the machine that submits, before any job is scheduled (rules/common.smk's onstart),
        naming the config key and the variable; a dry run needs no key."""
        (tmp_path / "clinic_qa.csv").write_text("id,lang,prompt\nq1,en,What is a fever?\nq1,de,Was ist Fieber?\n")
        variable = "XLCONS_TEST_KEY_THAT_IS_NOT_SET"
        config = {
            "models": {"served": {"backend": "openai", "api": {"model": "gpt-4o-mini", "api_key_env": variable}}},
            "datasets": {"clinic_qa": {"path": "clinic_qa.csv", "languages": ["en", "de"]}},
        }
        args = ("--snakefile", str(REPO / "Snakefile"), "--configfile", str(write_config(tmp_path, config)))
        monkeypatch.delenv(variable, raising=False)
        dry = snakemake(*args, "-n", cwd=tmp_path, timeout=120)
        assert dry.returncode == 0, dry.output[-2000:]
        run = snakemake(*args, "--cores", "1", cwd=tmp_path, timeout=120)
        assert run.returncode != 0
        assert (
            f"config key 'models.served' (backend openai) reads its API key from the environment variable {variable}, "
            "which is not set on this machine" in run.output
        ), run.output[-2000:]
        assert not (tmp_path / "results").exists() and not (tmp_path / "resources").exists()
        assert "rule " not in run.output and "localrule " not in run.output


@pytest.mark.parametrize(
    "config", ["config/offline.yaml", "config/quickstart.yaml", "config/examples/own-prompts.yaml"]
)
def test_the_smoke_configs_ask_for_no_gpu(config):
    """A smoke run's jobs never wait in a GPU queue: no job of theirs requests a GPU."""
    result = snakemake("-n", "--forceall", "--configfile", config)
    assert result.returncode == 0, result.output[-2000:]
    resources = [line.strip() for line in result.output.splitlines() if line.strip().startswith("resources:")]
    assert resources
    gpus = [line for line in resources if re.search(r"\bgpus?=[1-9]", line)]
    assert gpus == [], gpus


class TestFetchRulesRunForReal:
    """The fetch rules on a machine without internet: pre-seeded copies are verified and used as is."""

    @pytest.fixture()
    def workdir(self, tmp_path, shared_data, offline_models):
        seeded_model = tmp_path / "resources" / "models" / "tiny"
        seeded_model.mkdir(parents=True)
        (seeded_model / "config.json").write_text(json.dumps({"model_type": "llama"}))
        shutil.copytree(shared_data / "multiq", tmp_path / "resources" / "data" / "multiq")
        config = {
            "models": {"tiny": {"hf_id": "example/tiny", "backend": "hf"}},
            "evaluators": {
                "language_id": {"model": {"hf_id": "cis-lmu/glotlid", "hf_file": "model.bin"}},
                "judge": {"llm": {"backend": "openai", "api": {"model": "gpt-4"}}},
                # the benchmark's word list comes from its pinned URL (pre-seeded here); lid.176 from a path
                "language_confusion": {"model": {"path": str(offline_models["lid176"])}},
            },
            "datasets": {"multiq": {"languages": ["en", "de"]}},
        }
        words = tmp_path / "resources" / "models" / "lcb-words"
        words.mkdir(parents=True)
        shutil.copyfile(shared_data / "lcb" / "words", words / "words")
        glotlid = tmp_path / "resources" / "models" / "glotlid"
        glotlid.mkdir(parents=True)
        (glotlid / "model.bin").write_bytes(b"pre-seeded")
        write_config(tmp_path, config)
        return tmp_path

    def test_fetch_then_nothing_to_do(self, workdir):
        run = [
            "--snakefile",
            str(REPO / "Snakefile"),
            "--directory",
            str(workdir),
            "--configfile",
            str(workdir / "config.yaml"),
            "--cores",
            "1",
        ]
        first = snakemake(*run, "fetch")
        assert first.returncode == 0, first.output
        marker = json.loads((workdir / "resources/models/tiny/.xlcons-fetched.json").read_text())
        assert marker["hf_id"] == "example/tiny"
        words = json.loads((workdir / "resources/models/lcb-words/.xlcons-fetched.json").read_text())
        assert (
            words["pre_seeded"]
            and words["sha256"] == "1ec8230beef2a7c955742b089fc3cea2833866cf5482bf018d7c4124eef104bd"
        )
        manifest = json.loads((workdir / "resources/data/multiq/MANIFEST.json").read_text())
        assert [entry["relpath"] for entry in manifest["files"]] == ["MultiQ.csv"]
        assert (workdir / "logs/fetch/data-multiq.log").exists()
        second = snakemake(*run, "-n", "fetch")
        assert second.returncode == 0 and "Nothing to be done" in second.output


def test_a_config_without_models_stops_before_scheduling(tmp_path):
    config = write_config(tmp_path, {"models": {}, "datasets": {"multiq": {"languages": ["en"]}}})
    result = snakemake("-n", "--configfile", str(config))
    assert result.returncode != 0 and "config key 'models': no model to evaluate on multiq" in result.output


def test_the_docs_commands_run_the_venvs_snakemake():
    """The set-up (`make env`, `make run`) puts Snakemake in .venv/ and nothing on PATH, so every
    command the README and docs give runs `.venv/bin/snakemake`, never a bare `snakemake`."""
    bare = re.compile(r"(^|`|\$\()\s*snakemake\s", re.MULTILINE)
    found = [
        f"{path.relative_to(REPO)}:{text[: match.start()].count(chr(10)) + 1}"
        for path in [REPO / "README.md", REPO / "CONTRIBUTING.md", *sorted((REPO / "docs").glob("*.md"))]
        for text in [path.read_text(encoding="utf-8")]
        for match in bare.finditer(text)
    ]
    assert found == [], f"write .venv/bin/snakemake at: {found}"
