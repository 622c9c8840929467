"""The benchmark runner (`python -m benchmarks`): its table, target checks and --only; and the
GPU check's parts that run on a CPU."""

from __future__ import annotations

import json
import subprocess
import sys
import types
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

# pysbd installs a top-level `benchmarks` package too; the repository's must win.
if sys.path[:1] != [str(REPO)]:
    sys.path.insert(0, str(REPO))
if "benchmarks" in sys.modules and Path(sys.modules["benchmarks"].__file__ or "").parent != REPO / "benchmarks":
    for name in [name for name in sys.modules if name == "benchmarks" or name.startswith("benchmarks.")]:
        del sys.modules[name]

from benchmarks import __main__ as runner  # noqa: E402


def fake_benchmark(monkeypatch, name: str, figures: dict, targets: dict, calls: list[str]):
    module = types.ModuleType(f"benchmarks.{name}")
    module.TARGETS = targets
    module.QUICK = ["--small"]

    def run(argv):
        calls.append((name, list(argv)))
        return figures

    module.figures = run
    monkeypatch.setitem(sys.modules, f"benchmarks.{name}", module)


class TestTable:
    def test_columns_are_padded_under_a_header_and_a_rule(self):
        rows = [
            ("scheduling", "dry_run_s", "13.9", "< 30", "yes"),
            ("multiq_fidelity", "identical_labels", "yes", "== yes", "yes"),
        ]
        lines = runner.format_table(rows).splitlines()
        assert lines[0].split() == ["benchmark", "figure", "value", "target", "met?"]
        assert set(lines[1].replace(" ", "")) == {"-"}
        assert len(lines) == 4
        assert lines[2].split() == ["scheduling", "dry_run_s", "13.9", "<", "30", "yes"]
        # every column starts at the same offset on every line
        start = lines[0].index("figure")
        assert lines[2][start:].startswith("dry_run_s") and lines[3][start:].startswith("identical_labels")

    def test_rows_carry_the_target_and_whether_it_is_met(self):
        targets = {"dry_run_s": ("<", 30.0), "ok": ("==", True)}
        rows = runner.rows_of(
            "scheduling", {"dry_run_s": 31.5, "jobs": 527, "ok": True, "note": "skipped: no GPU"}, targets
        )
        assert rows == [
            ("scheduling", "dry_run_s", "31.5", "< 30", "no"),
            ("scheduling", "jobs", "527", "", ""),
            ("scheduling", "ok", "yes", "== yes", "yes"),
            ("scheduling", "note", "skipped: no GPU", "", ""),
        ]

    def test_met(self):
        assert runner.met(1.0, ("<=", 1.05)) == "yes"
        assert runner.met(1.1, ("<=", 1.05)) == "no"
        assert runner.met(3, None) == ""
        assert runner.met("skipped", (">=", 5.0)) == "n/a"


class TestSelection:
    def test_everything_by_default_in_canonical_order(self):
        assert runner.select(None) == list(runner.BENCHMARKS)

    def test_only_selects_in_canonical_order_and_accepts_commas_and_file_names(self):
        assert runner.select(["multiq_fidelity", "scheduling.py"]) == ["scheduling", "multiq_fidelity"]
        assert runner.select(["translation,gpu"]) == ["translation", "gpu"]

    def test_an_unknown_name_is_an_error_naming_the_known_ones(self):
        with pytest.raises(SystemExit, match="unknown benchmark.*scheduling"):
            runner.select(["schedulng"])

    def test_main_runs_only_the_selected_benchmark_with_quick_arguments(self, monkeypatch, capsys):
        calls = []
        for name in runner.BENCHMARKS:
            fake_benchmark(monkeypatch, name, {"speed": 2.0}, {"speed": (">=", 1.0)}, calls)
        monkeypatch.chdir(REPO)
        assert runner.main(["--only", "results_bootstrap", "--quick"]) == 0
        assert calls == [("results_bootstrap", ["--small"])]
        table = capsys.readouterr().out.split("\n\n")[-1]
        assert "results_bootstrap  speed" in table and "(yes)" in table and "scheduling" not in table

    def test_a_failing_benchmark_is_a_row_and_a_nonzero_exit(self, monkeypatch, capsys):
        module = types.ModuleType("benchmarks.scheduling")

        def broken(argv):
            raise RuntimeError("no snakemake")

        module.figures = broken
        monkeypatch.setitem(sys.modules, "benchmarks.scheduling", module)
        calls = []
        fake_benchmark(monkeypatch, "gpu", {"generation": "skipped: no CUDA device"}, {}, calls)
        assert runner.main(["--only", "scheduling", "--only", "gpu"]) == 1
        out = capsys.readouterr().out
        assert "RuntimeError: no snakemake" in out and "skipped: no CUDA device" in out
        assert calls == [("gpu", [])]


def test_the_package_runs_from_the_repository_root():
    result = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--list"], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == list(runner.BENCHMARKS)


@pytest.fixture(scope="module")
def scheduling():
    from benchmarks import scheduling

    return scheduling


class TestSchedulingConfig:
    """benchmarks/scheduling.py's merged config and --models scaling (no Snakemake run)."""

    def test_the_papers_own_models_by_default(self, scheduling):
        config = scheduling.merged_config()
        assert len(config["models"]) == 29
        assert "holtermann2024-llama2-7b" in config["models"] and "xing2024-llama2-7b" in config["models"]
        assert config["evaluators"]["information"]["llm"]["name"] == "gupta2025-qwen-2.5-14b"
        assert scheduling.targets_for(None) is scheduling.TARGETS

    def test_models_n_repeats_the_papers_models_under_distinct_names(self, scheduling):
        papers = scheduling.merged_config()["models"]
        config = scheduling.merged_config(models=120)
        models = config["models"]
        assert len(models) == 120
        assert list(models)[:29] == list(papers)  # the papers' models first, unchanged
        assert "gupta2025-aya-expanse-8b-2" in models and "xing2024-mistral-7b-4" in models
        # 29 originals, copies 2-4 of each, then copy 5 of the first four: 29 x 4 + 4
        assert "gupta2025-gemma-2-27b-5" in models and "gupta2025-llama-3.1-8b-5" not in models
        assert models["holtermann2024-llama2-7b-3"] == papers["holtermann2024-llama2-7b"]
        assert not any("name" in spec for spec in models.values())  # each key is its own resources folder
        # the evaluators are the papers' own, with the information LLM on the first Qwen-2.5-14B's download
        assert config["evaluators"] == scheduling.merged_config()["evaluators"]
        assert set(config["datasets"]) == {"information", "empathy", "multiq", "makqa", "flores"}
        assert scheduling.targets_for(120)["dry_run_s"] == ("<", 60.0) and scheduling.targets_for(120)["noop_s"] == (
            "<",
            60.0,
        )

    def test_fewer_models_than_the_papers_keeps_the_first(self, scheduling):
        assert list(scheduling.merged_config(["xing2024-knowledge"], models=2)["models"]) == [
            "xing2024-gpt-3.5-turbo",
            "xing2024-bloomz-560m",
        ]
        with pytest.raises(ValueError, match="at least 1"):
            scheduling.merged_config(models=0)

    def test_the_scaled_config_validates(self, scheduling, tmp_path):
        from xlcons.config import DatasetResolver
        from xlcons.languages import LanguageRegistry

        path = scheduling.write_config(scheduling.merged_config(models=60), tmp_path / "merged.yaml")
        config = scheduling.validate(path)
        assert len(config["models"]) == 60
        datasets = DatasetResolver(config, LanguageRegistry.load(), REPO)
        assert {name: len(datasets.languages(name)) for name in datasets.enabled()} == {
            "information": 31,
            "empathy": 31,
            "multiq": 137,
            "makqa": 12,
            "flores": 12,
        }

    def test_extra_translators_join_the_primary_one_and_validate(self, scheduling, tmp_path):
        config = scheduling.validate(
            scheduling.write_config(scheduling.merged_config(models=2, translators=2), tmp_path / "merged.yaml")
        )
        assert list(config["translators"]) == ["nllb-1.3B", "nllb-3.3B"]
        assert "translators" not in scheduling.merged_config(models=2)
        with pytest.raises(ValueError, match="--translators must be between 0 and 3"):
            scheduling.merged_config(translators=4)

    def test_the_summary_marks_the_targets(self, scheduling):
        lines = scheduling.summary(
            {"jobs": 5, "dry_run_s": 61.5, "noop_s": 12.0, "noop_nothing_to_be_done": True}, scheduling.targets_for(120)
        ).splitlines()
        assert lines[0].split() == ["figure", "value", "target", "met?"]
        assert lines[2].split() == ["jobs", "5"]
        assert lines[3].split() == ["dry_run_s", "61.5", "<", "60", "no"]
        assert lines[4].split() == ["noop_s", "12", "<", "60", "yes"]
        assert lines[5].split() == ["noop_nothing_to_be_done", "yes", "==", "yes", "yes"]


def test_the_gpu_check_runs_each_part_it_can_and_writes_one_json(tmp_path, offline_models):
    """`benchmarks/gpu.py --check` on a machine without CUDA (the main test env has no vLLM):
    generation says why it is skipped, translation too (it wants CUDA), and the MoE part runs
    the transformers NllbMoe path on the CPU; every figure lands in the JSON file."""
    from benchmarks import gpu

    out = tmp_path / "check.json"
    found = gpu.figures(
        [
            "--check",
            "--only",
            "generation",
            "--only",
            "moe",
            "--device",
            "cpu",
            "--nllb",
            str(offline_models["tiny-nllb"]),
            "--json",
            str(out),
        ]
    )

    assert json.loads(out.read_text()) == found
    assert found["generation"].startswith("skipped: vLLM is not installed")
    assert found["moe_device"] == "cpu" and found["moe_device_map"] is False and found["moe_sentences_per_s"] > 0


def test_the_explorer_scale_benchmark_builds_a_synthetic_run_and_measures_its_site(tmp_path, capsys):
    """benchmarks/explorer_scale.py at a small size, without the browser: the synthetic tables pass
    the real schemas, the real builder runs, and the sizes are the site's."""
    from benchmarks import explorer_scale

    found = explorer_scale.figures(
        ["--models", "2", "--languages", "3", "--items", "4", "--no-browser", "--out", str(tmp_path), "--keep"]
    )
    site = tmp_path / "results" / "explorer"
    assert found["answers"] == 2 * 3 * 4
    assert found["files"] == sum(1 for path in site.rglob("*") if path.is_file())
    # 3 pages, the index, 10 heatmaps (RESULT_METRICS) and 2 x 3 answer sets of one part each
    assert found["files"] == 3 + 1 + len(explorer_scale.RESULT_METRICS) + 2 * 3
    assert found["largest_file_mb"] * 1e6 == pytest.approx(max(p.stat().st_size for p in site.rglob("*.js")), abs=1e4)
    assert "build_explorer:" in capsys.readouterr().out
