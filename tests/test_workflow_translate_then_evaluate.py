"""Gupta et al. 2025 end to end through the workflow, on the offline models: English-only prompt sets
translated into the other languages, answered, the answers translated back, then the
information and empathy evaluators and the translationese check."""

from __future__ import annotations

import csv

import pyarrow.parquet as pq
import pytest
import yaml

from builders import offline_config
from devtools.readme_examples import stale_examples
from latex_check import check_tabular
from test_workflow import REPO, job_counts, snakemake
from xlcons.evaluators.empathy.tables import EMPATHY_ITEMS, EMPATHY_SCORES
from xlcons.evaluators.information.tables import INFORMATION_ITEMS, INFORMATION_SCORES
from xlcons.schemas import PROMPTS, ROUND_TRIPS


def usage_rows(results):
    with open(results / "tables" / "usage.csv", encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def gupta2025_subset(workdir, shared_data, *, languages, limit):
    """config/offline.yaml with absolute paths, SmolLM2 only, the two English-only sets."""
    config = offline_config(REPO)
    # SmolLM2 with short answers: enough sentences to split, translate and check.
    config["models"] = {"smollm2-135m": {**config["models"]["smollm2-135m"], "decoding": {"max_new_tokens": 20}}}
    config["output"]["comparisons"] = []
    config["evaluators"]["information"]["round_trip_languages"] = ["hi"]
    # SmolLM2 answers German prompts in English, which language ID would pass through untranslated;
    # translating every answer from the prompt's language (Gupta et al. 2025's way) gives QE sentences to score.
    config["translator"]["detect_response_language"] = False
    config["datasets"] = {
        "information": {"languages": languages, "items": {"limit": limit}},
        "empathy": {"path": str(shared_data / "epitome"), "languages": languages, "items": {"limit": limit}},
    }
    (workdir / "config.yaml").write_text(yaml.safe_dump(config))
    return [
        "--snakefile",
        str(REPO / "Snakefile"),
        "--directory",
        str(workdir),
        "--configfile",
        str(workdir / "config.yaml"),
        "--cores",
        "2",
    ]


def test_translate_then_evaluate_runs_end_to_end_and_adds_a_language_incrementally(
    tmp_path, offline_models, shared_data
):
    run = gupta2025_subset(tmp_path, shared_data, languages=["de"], limit=2)
    result = snakemake(*run, timeout=1200)
    assert result.returncode == 0, result.output
    results = tmp_path / "results"

    # English prompts (English is added as the reference), carried into German with a review file.
    for dataset in ("information", "empathy"):
        english = pq.read_table(results / f"prompts/{dataset}/en.parquet")
        german = pq.read_table(results / f"prompts/{dataset}/de.parquet")
        assert english.schema.equals(PROMPTS, check_metadata=False) and english.num_rows == german.num_rows == 2
        assert german["item_id"].to_pylist() == english["item_id"].to_pylist()
        assert set(german["source_lang"].to_pylist()) == {"en"} and set(german["lang"].to_pylist()) == {"de"}
        with open(results / f"prompts/{dataset}/review/de.tsv", encoding="utf-8", newline="") as handle:
            review = list(csv.DictReader(handle, dialect="excel-tab"))
        assert [row["source"] for row in review] == english["prompt"].to_pylist()

    # Information consistency: one row per (item, German), a language score, the round trip through Hindi.
    information = results / "evaluations/information/smollm2-135m"
    items = pq.read_table(information / "information_items.parquet")
    assert items.schema.names == INFORMATION_ITEMS.names and items.num_rows == 2
    assert set(items["lang"].to_pylist()) == {"de"} and set(items["comparison"].to_pylist()) == {"translation"}
    scores = pq.read_table(information / "information_scores.parquet").to_pylist()
    assert (
        scores[0]["lang"] == "de"
        and scores[0]["n_items"] == 2
        and pq.read_schema(information / "information_scores.parquet").names == INFORMATION_SCORES.names
    )
    trips = pq.read_table(results / "round_trips/information/smollm2-135m/hi.parquet")
    assert trips.schema.names == ROUND_TRIPS.names and trips.num_rows == 2
    check = pq.read_table(information / "translationese_items.parquet")
    assert set(check["comparison"].to_pylist()) == {"round_trip"} and set(check["lang"].to_pylist()) == {"hi"}

    # Empathy: three TF-IDF classifiers trained on the committed split, then profiles.
    for mechanism in ("ER", "IP", "EX"):
        assert (tmp_path / f"resources/classifiers/empathy-tfidf/{mechanism}/classifier.json").exists()
        assert (results / f"evaluations/empathy/classifiers/{mechanism}.json").exists()
    empathy = results / "evaluations/empathy/smollm2-135m"
    assert pq.read_table(empathy / "empathy_items.parquet").schema.names == EMPATHY_ITEMS.names
    assert pq.read_table(empathy / "empathy_scores.parquet").schema.names == EMPATHY_SCORES.names

    # The results table: Gupta et al. 2025's F and empathy consistency per language, with intervals.
    table = pq.read_table(results / "tables/results.parquet").to_pylist()
    cells = {(row["evaluator"], row["lang"], row["metric"]) for row in table}
    assert {("information", "de", "F"), ("translationese", "hi", "F"), ("empathy", "de", "consistency")} <= cells
    assert (results / "tables/groups/groups.parquet").exists()

    # Translation noise: every translated sentence has a quality estimate, the German cells
    # their mean QE, share below the threshold, and F again on the passing items with the difference.
    qe = pq.read_table(results / "translations/information/smollm2-135m/de.qe.parquet")
    sentences = pq.read_table(results / "translations/information/smollm2-135m/de.sentences.parquet")
    assert qe.num_rows == sentences.num_rows > 0 and set(qe["qe_model"].to_pylist()) == {"all-minilm-l6-v2"}
    assert {
        ("translation_qe", "de", "qe"),
        ("translation_qe", "de", "qe_below"),
        ("information", "de", "F@qe_pass"),
        ("information", "de", "F@qe_pass-all"),
        ("empathy", "de", "consistency@qe_pass-all"),
    } <= cells
    sensitivity = (results / "tables/translation_quality/sensitivity.csv").read_text(encoding="utf-8")
    assert sensitivity.splitlines()[0].startswith("dataset,evaluator,translator,model,lang,metric,all,")
    assert (
        "information,tiny-nllb,smollm2-135m,de,F," in sensitivity
        and "information,tiny-nllb-b,smollm2-135m,de,F," in sensitivity
    )

    # A second translator (translators: tiny-nllb-b, the tiny NLLB with another seed): its own
    # translations, QE, information and empathy jobs under by-translator/, the results' rows
    # named by their translator, and the spread between the two.
    second = results / "by-translator/tiny-nllb-b"
    ours = pq.read_table(second / "translations/information/smollm2-135m/de.parquet")["translation"].to_pylist()
    theirs = pq.read_table(results / "translations/information/smollm2-135m/de.parquet")["translation"].to_pylist()
    assert len(ours) == len(theirs) == 2 and ours != theirs, "two random translators, two translations"
    for path in (
        "translations/information/smollm2-135m/de.qe.parquet",
        "evaluations/information/smollm2-135m/information_items.parquet",
        "evaluations/empathy/smollm2-135m/empathy_items.parquet",
    ):
        assert (second / path).stat().st_size > 0, path
    assert not (second / "evaluations/information/smollm2-135m/translationese_items.parquet").exists(), (
        "round trips: the primary's only"
    )
    translators = {(row["evaluator"], row["translator"]) for row in table}
    assert {
        ("information", "tiny-nllb"),
        ("information", "tiny-nllb-b"),
        ("empathy", "tiny-nllb-b"),
        ("translation_qe", "tiny-nllb-b"),
        ("translationese", "tiny-nllb"),
        ("language_confusion", ""),
    } <= translators
    assert ("translationese", "tiny-nllb-b") not in translators
    with open(results / "tables/translation_quality/translator_spread.csv", encoding="utf-8", newline="") as handle:
        spread = {(row["evaluator"], row["lang"], row["metric"]): row for row in csv.DictReader(handle)}
    er = spread[("empathy", "de", "ER")]
    values = [float(er["tiny-nllb"]), float(er["tiny-nllb-b"])]
    by_table = {
        row["translator"]: row["value"]
        for row in table
        if (row["evaluator"], row["lang"], row["metric"]) == ("empathy", "de", "ER")
    }
    assert values == pytest.approx([by_table["tiny-nllb"], by_table["tiny-nllb-b"]])
    assert float(er["range"]) == pytest.approx(max(values) - min(values)) and er["n translators"] == "2"
    # Information: the random translators' "English" has no facts, so F has no value under either.
    assert ("information", "de", "F") in spread and not any(key[2].endswith("@qe_pass") for key in spread)
    assert (results / "tables/translation_quality/heatmap_qe.png").stat().st_size > 0
    # QE against the round trip: one row per round-trip language; Hindi is not among the
    # answered languages, so nothing was translated from it and its row says so.
    with open(results / "tables/translation_quality/qe_round_trip.csv", encoding="utf-8", newline="") as handle:
        agreement = list(csv.DictReader(handle))
    assert [(row["dataset"], row["model"], row["lang"]) for row in agreement] == [("information", "smollm2-135m", "hi")]
    assert agreement[0]["spearman"] == "" and agreement[0]["note"].startswith("no QE in hi")
    assert (results / "tables/translation_quality/qe_round_trip.md").stat().st_size > 0
    paper = results / "tables/translate_then_evaluate"
    for name in ("averaged_consistency.md", "self_consistency.csv", "classifiers.tex", "heatmap_information_F.png"):
        assert (paper / name).stat().st_size > 0
    header = (paper / "averaged_consistency.md").read_text(encoding="utf-8").splitlines()[0]
    for column in (
        "Avg",
        "published",
        "Latin",
        "Indic",
        "Perso-Arabic",
        "Rom",
        "Slav",
        "Indo-Aryan",
        "Dravidian",
        "In",
        "Out",
    ):
        assert f"information {column} |" in header and f"empathy {column} |" in header, column
    for tex in (results / "tables").rglob("*.tex"):
        check_tabular(tex.read_text(encoding="utf-8"))

    # The usage table: every stage that called a model sent requests with tokens, the round trip
    # and the translationese check among them, and each translator's jobs are rows of their own.
    usage = usage_rows(results)
    stages = {"generate", "translate_prompts", "translate", "translation_qe", "round_trip", "information"}
    assert {row["stage"] for row in usage} == stages | {"translationese", "total"}
    for row in usage:
        if row["stage"] != "total":
            assert int(row["requests"]) > 0 and int(row["prompt_tokens"]) > 0, row
    assert {(row["stage"], row["translator"]) for row in usage if row["called_model"] == "tiny-nllb-b"} == {
        ("translate", "tiny-nllb-b"),
        ("total", ""),  # the model's total over the stages
    }
    assert {row["translator"] for row in usage if row["stage"] == "information"} == {"tiny-nllb", "tiny-nllb-b"}

    assert "Nothing to be done" in snakemake(*run, "-n").output, "a finished run is a no-op"

    # The HTML report holds the tables with their captions, the config behind them filled in.
    assert snakemake(*run, "--report", str(tmp_path / "report.html")).returncode == 0
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "All results in one table" in html and "200 resamples" in html
    assert "heatmap_qe.png" in html and "Mean quality estimate of the translated sentences" in html
    assert "qe_round_trip.csv" in html and "Does the cheap QE predict the expensive round trip?" in html

    # The README's example rows are this run's: devtools/readme_examples.py rewrites them from
    # such a run (`--write`), and a change that moves a number fails here until it does.
    assert stale_examples(REPO / "README.md", tmp_path) == []

    # A new language: its prompt translation, the model's jobs over both sets, the evaluators;
    # the classifiers and the English prompts are not redone. The generation job rewrites the
    # English answers too, so the round trip and its check run again, answered from their caches.
    run = gupta2025_subset(tmp_path, shared_data, languages=["de", "ar"], limit=2)
    planned = job_counts(snakemake(*run, "-n").stdout)
    assert planned == {
        "translate_prompts_information": 1,
        "translate_prompts_empathy": 1,
        "generate_information": 1,
        "generate_empathy": 1,
        "translate_information": 1,
        "translate_empathy": 1,
        "information_consistency": 1,
        "empathy_consistency": 1,
        "round_trip": 1,
        "translationese_check": 1,
        "all": 1,
        "results": 1,
        "explorer": 1,
        "translate_then_evaluate_report": 1,
        # the prompts as one table per set, and language confusion (on every set by default)
        "prompt_table": 2,
        "language_confusion": 2,
        # language confusion's faithful-text check of each set's new (translated) prompts
        "language_confusion_faithful": 2,
        # every evaluator report reads the results: information, translationese, empathy, and
        # language confusion on both sets
        "evaluator_report": 5,
        # the quality estimates of the new translations, and their report
        "translation_qe_information": 1,
        "translation_qe_empathy": 1,
        "translation_quality_report": 1,
        "usage": 1,  # the usage table, with the new jobs' ledgers
    } | {  # the second translator's share: a translation, a QE and a score of each set again
        "translate_information": 2,
        "translate_empathy": 2,
        "translation_qe_information": 2,
        "translation_qe_empathy": 2,
        "information_consistency": 2,
        "empathy_consistency": 2,
    }


def test_an_llm_as_second_translator_runs_through_the_workflow(tmp_path, offline_models, shared_data):
    """translators: an LLM (the tiny offline LM on the hf backend) beside the tiny NLLB: its
    translation job translates each sentence with the documented prompt, and the information
    consistency of its translations lands in the results under its name."""
    config = offline_config(REPO)
    config["models"] = {"smollm2-135m": {**config["models"]["smollm2-135m"], "decoding": {"max_new_tokens": 20}}}
    config["output"]["comparisons"] = []
    config["translator"]["detect_response_language"] = False
    config["translator"]["qe"] = {"backend": "none"}
    config["translators"] = {
        "tiny-llm-translator": {
            "backend": "llm",
            "llm": {"path": str(offline_models["tiny-llm"]), "backend": "hf", "hf": {"device": "cpu", "batch_size": 4}},
        }
    }
    config["evaluators"]["information"]["round_trip_languages"] = []
    config["evaluators"]["language_confusion"] = {"datasets": []}
    config["datasets"] = {"information": {"languages": ["de"], "items": {"limit": 1}}}
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
    result = snakemake(*run, timeout=1200)
    assert result.returncode == 0, result.output

    results = tmp_path / "results"
    translations = pq.read_table(
        results / "by-translator/tiny-llm-translator/translations/information/smollm2-135m/de.parquet"
    )
    assert set(translations["translator"].to_pylist()) == {"tiny-llm|llm"} and translations.num_rows == 1
    log = (tmp_path / "logs/translate/by-translator/tiny-llm-translator/information/smollm2-135m.log").read_text(
        encoding="utf-8"
    )
    assert "translator loaded" in log
    table = pq.read_table(results / "tables/results.parquet").to_pylist()
    assert {row["translator"] for row in table if row["evaluator"] == "information"} == {
        "tiny-nllb",
        "tiny-llm-translator",
    }
    spread = (results / "tables/translation_quality/translator_spread.csv").read_text(encoding="utf-8")
    assert (
        spread.splitlines()[0]
        == "dataset,evaluator,model,lang,metric,tiny-nllb,tiny-llm-translator,lowest,highest,range,n translators"
    )
    assert not (results / "tables/translation_quality/sensitivity.csv").exists(), "QE off: the spread alone"
    # The LLM translator's requests and tokens, under the model it prompted.
    (llm,) = [
        row for row in usage_rows(results) if row["translator"] == "tiny-llm-translator" and row["stage"] == "translate"
    ]
    assert llm["called_model"] == "tiny-llm" and int(llm["requests"]) > 0 and int(llm["completion_tokens"]) > 0
