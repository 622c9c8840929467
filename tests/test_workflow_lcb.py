"""The Language Confusion Benchmark through the workflow: its prompts as two data sets, its
released completions as models named `released: lcb-<model>`, its per-(model, task) table."""

from __future__ import annotations

import csv
import shutil

import pytest
import yaml

from local_server import LocalServer
from test_language_confusion_lcb import REFERENCE
from test_workflow import REPO, snakemake
from xlcons.evaluators import lcb_rule


@pytest.mark.slow
def test_the_paper_config_scores_the_released_completions_as_the_benchmarks_script_does(
    tmp_path, shared_data, offline_models
):
    """config/paper/marchisio2024-lcb.yaml with two of its ten models (the two whose completions
    ../shared/data/lcb holds), everything fetched from a local mirror of the benchmark's
    repository: the prompts, the completions (by name) and the word list (a `url` with its
    sha256); lid.176.ftz stands in for lid.176.bin. The table's LPR and WPR are the script's."""
    served = tmp_path / "served"
    (served / "outputs").mkdir(parents=True)
    for name in ("test_sets.zip", "words"):
        shutil.copyfile(shared_data / "lcb" / name, served / name)
    for model in ("command-r-plus", "llama-3-instruct"):
        shutil.copyfile(shared_data / "lcb" / "outputs" / f"{model}.csv", served / "outputs" / f"{model}.csv")
    config = yaml.safe_load((REPO / "config" / "paper" / "marchisio2024-lcb.yaml").read_text())
    config["models"] = {name: config["models"][name] for name in ("command-r-plus", "llama-3-instruct")}
    with LocalServer(served) as server:
        config["datasets"]["lcb-monolingual"]["source_url"] = server.url
        config["evaluators"]["language_confusion"]["model"] = {"path": str(offline_models["lid176"])}
        config["evaluators"]["language_confusion"]["words"] = {
            "url": f"{server.url}/words",
            "sha256": lcb_rule.WORDS_SHA256,
        }
        (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
        run = [
            "--snakefile",
            str(REPO / "Snakefile"),
            "--directory",
            str(tmp_path),
            "--configfile",
            str(tmp_path / "config.yaml"),
            "--cores",
            "2",
        ]
        result = snakemake(*run, timeout=900)
        assert result.returncode == 0, result.output[-6000:]
        assert {"/test_sets.zip", "/outputs/command-r-plus.csv", "/outputs/llama-3-instruct.csv", "/words"} <= set(
            server.requests
        )

    with open(tmp_path / "results/tables/language_confusion/lcb_tasks.csv") as handle:
        rows = {(row["model"], row["task"]): row for row in csv.DictReader(handle)}
    assert set(rows) == set(REFERENCE)
    for key, (lpr, wpr, _) in REFERENCE.items():
        assert float(rows[key]["LPR"]) == pytest.approx(lpr, abs=1e-12), key
        assert float(rows[key]["WPR"]) == pytest.approx(wpr, abs=1e-12), key
    assert rows[("command-r-plus", "monolingual")]["n_languages"] == "15"
    assert rows[("command-r-plus", "crosslingual")]["n_languages"] == "14"
    # the per-language rates are in the results table too, one cell per answer language
    with open(tmp_path / "results/tables/results.csv") as handle:
        cells = [
            row
            for row in csv.DictReader(handle)
            if row["evaluator"] == "language_confusion" and row["metric"] == "line_pass"
        ]
    assert {(row["dataset"], row["lang"]) for row in cells if row["model"] == "llama-3-instruct"} >= {
        ("lcb-crosslingual", "ja"),
        ("lcb-monolingual", "en"),
    }
    assert "Nothing to be done" in snakemake(*run, "-n").output
