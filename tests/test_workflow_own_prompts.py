"""The README's quick starts, end to end: config/quickstart.yaml, which is the "your own prompts"
example (config/examples/own-prompts.yaml's two prompt sets: a CSV of parallel prompts in three
languages, one item with a gold answer, and a text file of English prompts to translate) with a
second model, the judge, tokenization and two EPITOME posts for empathy. One run serves both
quick starts: the example's prompt sets are checked to be the quickstart's, and every evaluator
the example runs is asserted on them here."""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys

import pyarrow.parquet as pq
import pytest
import yaml

from builders import shipped_config
from test_config import reversed_keys
from test_explorer_browser import (
    browser,  # noqa: F401  (a fixture)
    check_overview_matches_results,
    click_and_wait,
    open_view,
    severe_console_errors,
)
from test_workflow import REPO, job_counts, snakemake

EXAMPLE = REPO / "config" / "examples" / "own-prompts.yaml"
QUICKSTART = REPO / "config" / "quickstart.yaml"
MODELS = ["smollm2-135m", "tiny-llm"]


def test_the_quickstart_prompts_are_the_own_prompts_example():
    """The README shows own-prompts.yaml's prompt sets; the quickstart (whose run the test below
    checks) must run exactly those, so the example in the docs and the quickstart cannot drift."""
    example = yaml.safe_load(EXAMPLE.read_text())
    quickstart = yaml.safe_load(QUICKSTART.read_text())
    assert quickstart["datasets"]["clinic_qa"] == example["datasets"]["clinic_qa"]
    assert quickstart["datasets"]["my_english_prompts"] == example["datasets"]["my_english_prompts"]
    own = set(example["datasets"])
    assert set(quickstart["datasets"]) - own == {"empathy"}
    # Every evaluator the example turns on for its sets, the quickstart turns on for them too.
    for name, section in example["evaluators"].items():
        wanted = own if section["datasets"] == "all" else set(section["datasets"])
        runs = quickstart["evaluators"][name]["datasets"]
        assert runs == "all" or wanted <= set(runs), name
    assert list(quickstart["models"]) == MODELS
    assert quickstart["models"]["smollm2-135m"] == example["models"]["smollm2-135m"]


def quickstart_in(workdir, shared_data):
    """config/quickstart.yaml with its paths made absolute, run in `workdir` as `make quickstart` runs it."""
    config = shipped_config(REPO, "quickstart.yaml")
    for name in ("clinic_qa", "my_english_prompts"):
        config["datasets"][name]["path"] = str(REPO / config["datasets"][name]["path"])
    config["datasets"]["empathy"]["path"] = str(shared_data / "epitome")
    path = workdir / "config.yaml"
    path.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False))
    return [
        "--snakefile",
        str(REPO / "Snakefile"),
        "--directory",
        str(workdir),
        "--configfile",
        str(path),
        "--cores",
        "2",
        "--max-threads",
        "1",
    ]


def results_rows(results):
    with open(results / "tables" / "results.csv", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def quickstart_run(tmp_path_factory, offline_models, shared_data):
    """One cold quickstart run, shared by the tests below: (its folder, the snakemake arguments)."""
    workdir = tmp_path_factory.mktemp("quickstart")
    run = quickstart_in(workdir, shared_data)
    # The estimate before anything runs (what `xlcons estimate` prints), checked against the ledger below.
    estimate = subprocess.run(
        [sys.executable, "-m", "xlcons.estimate", "--configfile", "config.yaml", "--csv", "estimate.csv"],
        cwd=workdir,
        env={**os.environ, "PYTHONPATH": str(REPO / "workflow_scripts"), "HF_HUB_OFFLINE": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert estimate.returncode == 0, estimate.stdout + estimate.stderr
    result = snakemake(*run, timeout=1200)
    assert result.returncode == 0, result.output[-6000:]
    return workdir, run


def test_the_quickstart_model_jobs_leave_their_progress_and_xlcons_progress_sums_the_run(quickstart_run):
    """Each model job kept its progress beside its log (docs/cluster.md, "Watching"): finished,
    every item done, the tokens the model wrote counted; `xlcons progress` reads the run."""
    workdir, _ = quickstart_run
    status = json.loads((workdir / "logs" / "generate" / "clinic_qa" / "tiny-llm.progress.json").read_text())
    (part,) = status["parts"]
    assert part["job"] == "generate clinic_qa/tiny-llm" and part["state"] == "finished"
    assert part["done"] == part["total"] > 0 and part["tokens"] > 0 and part["tokens_per_s"] > 0
    translations = [
        part
        for path in (workdir / "logs" / "translate").rglob("*.progress.json")
        for part in json.loads(path.read_text())["parts"]
    ]
    assert translations and all(part["unit"] == "sentences" and part["state"] == "finished" for part in translations)
    assert all(part["tokens"] > 0 for part in translations), "the translator's written tokens are rated too"
    shown = subprocess.run(
        [sys.executable, "-m", "xlcons.run_progress", "--directory", str(workdir)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(REPO / "workflow_scripts")},
    ).stdout.splitlines()
    assert re.match(r"run started .*: (\d+) of \1 jobs done \(100%\) - ended", shown[0]), shown
    # Over every model job the run planned (its onstart recorded them), each done.
    assert re.match(
        r"model jobs: (\d+) planned: 0 running, 0 silent, \1 finished, 0 not started; 100% of their work done; "
        r"items in all: (\d+)/\2 items, (\d+)/\3 sentences",
        shown[1],
    ), shown
    assert len(shown) == 2, "nothing is left running"


@pytest.mark.browser
@pytest.mark.slow
def test_the_quickstart_explorer_goes_from_a_heatmap_cell_to_an_item_with_its_translation_qe_and_facts(
    browser,  # noqa: F811  (the fixture imported above)
    quickstart_run,
):
    """The explorer of the real run, opened from file:// in Chromium: the overview holds every
    metric of results.csv with its value, a cell lists its items, an item shows its translated
    sentences with their QE, its facts and the judge's verdict, and no script error is logged."""
    from selenium.webdriver.common.by import By

    workdir, _ = quickstart_run
    results = workdir / "results" / "quickstart"
    site = results / "explorer"
    check_overview_matches_results(browser, site, results / "tables" / "results.csv")
    open_view(browser, site, "#overview/clinic_qa")
    cells = browser.find_elements(By.CSS_SELECTOR, "td[data-metric='judge||accuracy'][data-lang='de'] a")
    assert len(cells) == 2, "a cell per model"
    fragments = []
    for index in range(len(cells)):
        open_view(browser, site, "#overview/clinic_qa")
        cell = browser.find_elements(By.CSS_SELECTOR, "td[data-metric='judge||accuracy'][data-lang='de'] a")[index]
        click_and_wait(browser, cell)
        items = browser.find_elements(By.CSS_SELECTOR, "#items tbody tr a")
        assert len(items) == 6, "clinic_qa's six questions"
        fragments += ["#" + item.get_attribute("href").split("#", 1)[1] for item in items]
    # Every item shows the judge's verdict; an answer translated sentence by sentence shows each
    # sentence's QE, and an answer whose facts were extracted shows them (which of the random
    # models' answers got that far is the models' noise: some item of the two cells must).
    with_sentences = with_facts = 0
    for fragment in fragments:
        open_view(browser, site, fragment)
        assert browser.find_element(By.CSS_SELECTOR, "[data-output='judgments']")
        sentences = browser.find_elements(By.CSS_SELECTOR, "#sentences tbody tr")
        qe = browser.find_elements(By.CSS_SELECTOR, "#sentences tbody tr td.qe")
        assert len(qe) == len(sentences), "each translated sentence shows its QE"
        with_sentences += bool(sentences)
        with_facts += bool(browser.find_elements(By.CSS_SELECTOR, "[data-output='information_facts']"))
    assert with_sentences and with_facts, (with_sentences, with_facts)
    assert severe_console_errors(browser) == []
    # language confusion's lines, each with its language-ID label, for the items that have judged lines
    lines = [
        row
        for path in (site / "data" / "items" / "clinic_qa").rglob("*.js")
        for item in json.loads(path.read_text(encoding="utf-8").split("(", 1)[1].rsplit(");", 1)[0])["items"]
        for row in item["details"].get("language_confusion_lines", {}).get("rows", [])
    ]
    assert lines and all(row["label"] and row["line"] for row in lines if row["judged"])


# The quickstart's jobs that call a model, by usage.csv's `stage` (docs/usage.md).
MODEL_STAGES = {"generate", "translate_prompts", "translate", "translation_qe", "judge", "information"}


def test_the_quickstart_usage_table_counts_the_requests_and_tokens_of_every_model_stage(quickstart_run):
    """results/tables/usage.csv of a cold run: every stage that called a model sent requests with
    tokens (nothing was cached yet), the totals add the rows up, and without `pricing` no cost."""
    workdir, _ = quickstart_run
    with open(workdir / "results" / "quickstart" / "tables" / "usage.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    stages = [row for row in rows if row["stage"] != "total"]
    assert {row["stage"] for row in stages} == MODEL_STAGES
    for stage in MODEL_STAGES:
        mine = [row for row in stages if row["stage"] == stage]
        assert all(int(row["requests"]) > 0 for row in mine), (stage, mine)
        assert all(int(row["prompt_tokens"]) > 0 for row in mine), (stage, mine)
        if stage != "translation_qe":  # an encoder writes no tokens
            assert all(int(row["completion_tokens"]) > 0 for row in mine), (stage, mine)
        assert all(int(row["cached_requests"]) == 0 for row in mine), "a cold run has nothing cached"
        assert all(float(row["wall_s"]) > 0 for row in mine if int(row["jobs"])), (stage, mine)
    assert {(row["stage"], row["dataset"], row["model"]) for row in stages if row["stage"] == "generate"} == {
        ("generate", dataset, model) for dataset in ("clinic_qa", "my_english_prompts", "empathy") for model in MODELS
    }
    # The judge and the information evaluator's LLM are named by what they are, not by their role.
    assert {row["called_model"] for row in stages if row["stage"] == "judge"} == {"smollm2-135m-instruct"}
    run = rows[-1]
    assert (run["stage"], run["called_model"]) == ("total", "")
    for column in ("jobs", "requests", "prompt_tokens", "completion_tokens"):
        assert int(run[column]) == sum(int(row[column]) for row in stages), column
    assert {row["cost_usd"] for row in rows} == {""}


def _by_group(rows):
    keys = ("stage", "dataset", "model", "translator", "called_model")
    return {tuple(row[key] for key in keys): row for row in rows if row["stage"] != "total"}


def test_the_quickstart_estimate_before_the_run_matches_its_usage_ledger(quickstart_run, figures):
    """`xlcons estimate` on the quickstart before it ran, against the usage.csv the run wrote
    (docs/usage.md#before-a-run-the-estimate): the same groups; generation of the sets whose
    prompts exist before the run exact in requests and prompt tokens (the models' own
    tokenizers); every `exact` or `bound` row at least what was sent, in requests and prompt
    tokens, and every completion bound at least what was written. The `approx` rows' ratios are
    reported, not asserted; the `bound` rows' prompt tokens too, beside the assertion."""
    workdir, _ = quickstart_run
    with open(workdir / "estimate.csv", encoding="utf-8") as handle:
        estimate = _by_group(csv.DictReader(handle))
    with open(workdir / "results" / "quickstart" / "tables" / "usage.csv", encoding="utf-8") as handle:
        ledger = _by_group(csv.DictReader(handle))
    assert set(estimate) == set(ledger)
    exact = {group for group, row in estimate.items() if row["basis"] == "exact"}
    assert {(group[0], group[1]) for group in exact} >= {("generate", "clinic_qa")}
    for group, row in estimate.items():
        sent = ledger[group]
        if row["basis"] == "exact":
            assert int(row["requests"]) == int(sent["requests"]), group
            assert int(row["prompt_tokens"]) == int(sent["prompt_tokens"]), group
        if row["basis"] in ("exact", "bound"):
            assert int(row["requests"]) >= int(sent["requests"]), group
            assert int(row["prompt_tokens"]) >= int(sent["prompt_tokens"]), (group, row, sent)
            assert int(row["max_completion_tokens"]) >= int(sent["completion_tokens"]), group
            if row["basis"] == "bound":
                figures[f"estimate/ledger bound {'/'.join(group[:3])}"] = (
                    f"prompt tokens {row['prompt_tokens']}/{sent['prompt_tokens']}"
                )
        else:
            figures[f"estimate/ledger {'/'.join(group[:3])}"] = (
                f"requests {row['requests']}/{sent['requests']}, prompt tokens {row['prompt_tokens']}/"
                f"{sent['prompt_tokens']}, completion {row['max_completion_tokens']}/{sent['completion_tokens']}"
            )
        assert int(row["cached_requests"]) == 0, "a cold run: nothing cached"


def test_the_quickstart_runs_end_to_end_and_lands_in_the_results_table(quickstart_run):
    tmp_path, run = quickstart_run
    results = tmp_path / "results" / "quickstart"  # output.results_dir
    assert not (tmp_path / "results" / "tables").exists()

    rows = results_rows(results)
    clinic = {(row["evaluator"], row["metric"], row["model"]) for row in rows if row["dataset"] == "clinic_qa"}
    for model in MODELS:
        for evaluator, metric in [
            ("fidelity", "fidelity_same"),
            ("information", "F"),
            ("language_confusion", "line_pass"),
            ("language_confusion", "lcpr"),
            ("knowledge", "xSC"),
            ("judge", "accuracy"),
        ]:
            assert (evaluator, metric, model) in clinic, f"clinic_qa lacks {evaluator} {metric} of {model}"
        # (tokenization has no results rows: its table, how the model's tokenizer cuts each language)
        tokens = pq.read_table(results / f"evaluations/clinic_qa/{model}/tokenization.parquet").to_pylist()
        assert {(row["lang"], row["n_prompts"]) for row in tokens} == {("en", 6), ("de", 6), ("hi", 6)}
    assert {row["lang"] for row in rows if row["dataset"] == "clinic_qa" and row["evaluator"] == "fidelity"} == {
        "en",
        "de",
        "hi",
    }
    # Hindi is written in Devanagari: its answers are checked for English words; German's are not.
    word = {
        row["lang"]: row
        for row in rows
        if row["dataset"] == "clinic_qa" and row["metric"] == "word_pass" and row["model"] == "smollm2-135m"
    }
    assert (
        word["de"]["value"] == ""
        and int(word["de"]["n_excluded"]) == 6
        and "latin_script" in word["de"]["excluded_reasons"]
    )
    # (the benchmark's WPR: over the Hindi answers without a line-level error, which may be none of them)
    assert "latin_script" not in word["hi"]["excluded_reasons"]
    assert word["hi"]["value"] != "" or "line_error" in word["hi"]["excluded_reasons"]

    # The English prompts were translated into German and Hindi, with a review file each, and scored.
    prompts = pq.read_table(results / "prompts/my_english_prompts/de.parquet").to_pylist()
    assert [row["item_id"] for row in prompts] == ["1", "2", "3"] and {row["source_lang"] for row in prompts} == {"en"}
    assert (results / "prompts/my_english_prompts/review/hi.tsv").stat().st_size > 0
    mine = {(row["evaluator"], row["lang"]) for row in rows if row["dataset"] == "my_english_prompts"}
    assert {("information", "de"), ("information", "hi"), ("language_confusion", "hi")} <= mine
    responses = pq.read_table(results / "responses/my_english_prompts/smollm2-135m/en.parquet")
    assert responses.num_rows == 3

    # The built-in EPITOME posts: two items, empathy consistency per mechanism and language.
    empathy = [row for row in rows if row["dataset"] == "empathy" and row["evaluator"] == "empathy"]
    assert {(row["model"], row["lang"], row["metric"]) for row in empathy} >= {
        (model, "de", mechanism) for model in MODELS for mechanism in ("ER", "IP", "EX")
    }
    assert {
        int(row["n_items"]) + int(row["n_excluded"])
        for row in empathy
        if row["lang"] == "de" and row["metric"] in ("ER", "IP", "EX")
    } == {2}

    # Measurability: each LID evaluator's faithful-text check of each set it scored (the set's own
    # prompts as answers), one row per language; a language it cannot measure has no value in
    # the results table, its items excluded with the reason, in every model's row, never a low score.
    with open(results / "tables" / "measurability.csv", encoding="utf-8") as handle:
        checks = list(csv.DictReader(handle))
    assert list(checks[0]) == [
        "evaluator",
        "dataset",
        "lang",
        "metric",
        "faithful_score",
        "n_items",
        "threshold",
        "verdict",
        "reason",
    ]
    scored = {
        (row["evaluator"].replace("fidelity", "language_id"), row["dataset"], row["lang"])
        for row in rows
        if row["evaluator"] in ("fidelity", "language_confusion")
    }
    assert {(row["evaluator"], row["dataset"], row["lang"]) for row in checks} == scored
    assert {row["threshold"] for row in checks} == {"0.95"}
    for check in checks:
        evaluator = "fidelity" if check["evaluator"] == "language_id" else check["evaluator"]
        shown = [
            row
            for row in rows
            if (row["evaluator"], row["dataset"], row["lang"], row["metric"])
            == (evaluator, check["dataset"], check["lang"], check["metric"])
        ]
        assert {row["model"] for row in shown} == set(MODELS), check
        for row in shown:
            # (fidelity's own language-level exclusions, e.g. lid_unsupported_language, keep their names)
            excluded = bool(check["reason"]) and check["reason"] in row["excluded_reasons"]
            if check["verdict"] == "not_measurable":
                assert row["value"] == "" and excluded and int(row["n_excluded"]) > 0, (check, row)
            else:
                assert not excluded and "not_measurable:faithful_text" not in row["excluded_reasons"], (check, row)
        if check["verdict"] == "measurable" and check["reason"] == "":
            assert float(check["faithful_score"]) >= 0.95, check
    assert "## Measurability" in (results / "summary.md").read_text(encoding="utf-8")

    # The two models compared item by item; the heatmaps have a row per model.
    with open(results / "tables" / "comparisons.csv", encoding="utf-8") as handle:
        compared = list(csv.DictReader(handle))
    assert {(row["dataset"], row["model_a"], row["model_b"]) for row in compared} >= {
        ("clinic_qa", "smollm2-135m", "tiny-llm")
    }, compared[:3]
    assert list((results / "tables").rglob("heatmap_*.png"))

    # The run's summary: a section per data set, the headline metric of each evaluator that scored it.
    summary = (results / "summary.md").read_text(encoding="utf-8")
    assert "## clinic_qa" in summary and "## my_english_prompts" in summary and "## empathy" in summary
    for model in MODELS:
        assert f"| fidelity | fidelity_same | {model} |" in summary and f"| knowledge | xSC | {model} |" in summary
    # Every evaluator that scored one of the sets draws its figure and table of it, the user's
    # sets as the paper sets: chosen by the evaluator, never by the data set's name.
    evaluators = results / "tables" / "evaluators"
    reported = {
        ("language_id", "clinic_qa"),
        ("language_id", "my_english_prompts"),
        ("judge", "clinic_qa"),
        ("tokenization", "clinic_qa"),
        ("information", "clinic_qa"),
        ("information", "my_english_prompts"),
        ("empathy", "empathy"),
        ("knowledge", "clinic_qa"),
        ("language_confusion", "clinic_qa"),
        ("language_confusion", "my_english_prompts"),
        ("language_confusion", "empathy"),
    }
    assert {(path.parent.parent.name, path.parent.name) for path in evaluators.glob("*/*/heatmaps.png")} == reported
    for evaluator, dataset in reported:
        folder = evaluators / evaluator / dataset
        assert all((folder / name).stat().st_size > 0 for name in ("heatmaps.png", "table.csv")), folder
    with open(evaluators / "language_id" / "clinic_qa" / "table.csv", encoding="utf-8") as handle:
        table = list(csv.DictReader(handle))
    assert {row["lang"] for row in table} == {"en", "de", "hi"} and "fidelity_same_ci_low" in table[0]
    assert {row["model"] for row in table} == set(MODELS)
    # It opens the HTML report (its category sorts first), with its caption; each evaluator has its category.
    report = snakemake(*run, "--report", str(results / "report.html"))
    assert report.returncode == 0, report.output[-3000:]
    html = (results / "report.html").read_text(encoding="utf-8")
    assert "At a glance" in html and "The run at a glance" in html and "summary.md" in html
    assert "Evaluator - knowledge" in html and "Evaluator - language_id" in html and "heatmaps.png" in html
    assert "System Message" not in html, "no caption, and not the first page, renders with a docutils warning"
    assert "Usage" in html and "usage.csv" in html, "the usage table has its section"
    # It opens on its first page, the run's summary (the report has metadata: without, it opens on
    # the workflow graph), which says first that the run's models have random weights, links the
    # summary files and the explorer, and holds the summary's tables.
    assert 'var metadata = {"More in this report"' in html
    page = (results / "summary.rst").read_text(encoding="utf-8")
    assert page.index("random weights") < page.index("Start here") < page.index("list-table")
    assert "models.tiny-llm (tiny-llm)" in page and "translator.model (tiny-nllb)" in page
    assert "models.smollm2-135m" not in page.split("Start here")[0], "SmolLM2 has real weights"
    assert (results / "explorer" / "index.html").resolve().as_uri() in html
    assert "The run at a glance" in html and "say nothing about any model" in html
    assert "showResultInfo(" in html and "summary.md" in html
    summary = (results / "summary.md").read_text(encoding="utf-8").splitlines()
    assert summary[2].startswith("**This run used offline models with random weights: ")
    assert "models.tiny-llm (tiny-llm)" in summary[2] and "smollm2" not in summary[2]

    assert "Nothing to be done" in snakemake(*run, "-n").output, "a finished run is a no-op"

    # Every key of the config in another order (the models and data sets themselves keep
    # theirs, the order of the tables), and a checkout that touches a rule script (the default
    # rerun triggers leave out `code`): still nothing to do.
    config = yaml.safe_load((tmp_path / "config.yaml").read_text())
    reordered = reversed_keys(config)
    for section in ("models", "datasets"):
        reordered[section] = {name: reordered[section][name] for name in config[section]}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(reordered, allow_unicode=True, sort_keys=False))
    (REPO / "workflow_scripts" / "generate.py").touch()
    idle = snakemake(*run, "-n")
    assert "Nothing to be done" in idle.output, idle.output[-3000:]

    # Reporting-only model metadata reruns the tables, nothing upstream of them.
    config = yaml.safe_load((tmp_path / "config.yaml").read_text())
    config["models"]["smollm2-135m"]["training_languages"] = ["en"]
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config, allow_unicode=True))
    planned = snakemake(*run, "-n")
    reports = {
        "results",
        "usage",  # (its rows follow the data sets' order, which the rewritten file sorts)
        "evaluator_report",
        "translate_then_evaluate_report",
        "translation_quality_report",
        "explorer",
        "all",
    }
    assert set(job_counts(planned.stdout)) <= reports, planned.stdout[-3000:]
