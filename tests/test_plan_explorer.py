"""The item explorer's plan: on by default, off by `output.explorer`, in the report only by
`output.explorer_report`, and the files it reads, from the evaluator registry."""

from __future__ import annotations

from xlcons.config import validate_config
from xlcons.evaluators.registry import EVALUATORS
from xlcons.plan import Plan
from xlcons.plan.explorer import FIXED_INPUTS
from xlcons.reports.explorer import FIXED_INPUTS as READ_INPUTS
from xlcons.reports.explorer import item_tables

MULTIQ = {
    "models": {"m": {"hf_id": "org/m"}, "n": {"hf_id": "org/n"}},
    "datasets": {"multiq": {"languages": ["en", "de"]}},
}


def plan_of(config: dict) -> Plan:
    return Plan(validate_config(config))


def test_the_explorer_is_on_by_default_and_out_of_the_report():
    plan = plan_of(MULTIQ)
    assert plan.explorer_enabled() and not plan.explorer_in_report()
    assert plan.explorer_dir() == "results/explorer"


def test_output_explorer_false_turns_it_off_and_explorer_report_puts_it_in_the_report():
    off = plan_of({**MULTIQ, "output": {"explorer": False, "explorer_report": True}})
    assert not off.explorer_enabled() and not off.explorer_in_report() and off.explorer_inputs() == {}
    assert plan_of({**MULTIQ, "output": {"explorer_report": True}}).explorer_in_report()


def test_a_run_without_evaluators_has_no_explorer():
    config = {**MULTIQ, "evaluators": {info.section: {"datasets": []} for info in EVALUATORS.values()}}
    plan = plan_of(config)
    assert plan.evaluators() == []
    assert not plan.explorer_enabled() and plan.explorer_inputs() == {}


def test_the_explorer_reads_the_tables_and_every_scored_answer_set():
    plan = plan_of({**MULTIQ, "output": {"results_dir": "out"}})
    inputs = plan.explorer_inputs()
    assert inputs["results"] == ["out/tables/results.parquet"]
    assert inputs["item_scores"] == ["out/tables/item_scores.parquet"]
    assert inputs["prompts"] == ["out/prompts/multiq.parquet"]
    assert inputs["responses"] == ["out/responses/multiq/m.parquet", "out/responses/multiq/n.parquet"]
    # the judge's and language ID's per-item tables, by their registered output names
    assert inputs["judgments"] == [
        "out/evaluations/multiq/m/judgments.parquet",
        "out/evaluations/multiq/n/judgments.parquet",
    ]
    assert inputs["fidelity"] == [
        "out/evaluations/multiq/m/fidelity.parquet",
        "out/evaluations/multiq/n/fidelity.parquet",
    ]
    # MultiQ's answers are translated by default only when an evaluator reads translations
    translated = "multiq" in plan.translation_datasets()
    assert bool(inputs["translations"]) == translated
    if translated:
        assert "out/translations/multiq/m/de.sentences.parquet" in inputs["translation_sentences"]
    # every name is one the explorer's reader knows
    assert set(inputs) <= set(READ_INPUTS) | set(item_tables())
    assert set(FIXED_INPUTS) == set(READ_INPUTS)


def test_translated_answers_bring_their_sentences_and_quality_estimates():
    config = {**MULTIQ, "translator": {"datasets": ["multiq"]}}
    inputs = plan_of(config).explorer_inputs()
    assert inputs["translations"] == [
        f"results/translations/multiq/{model}/{lang}.parquet" for model in ("m", "n") for lang in ("en", "de")
    ]
    assert "results/translations/multiq/n/de.sentences.parquet" in inputs["translation_sentences"]
    assert "results/translations/multiq/n/de.qe.parquet" in inputs["translation_qe"]
    no_qe = plan_of({**config, "translator": {"datasets": ["multiq"], "qe": {"backend": "none"}}}).explorer_inputs()
    assert no_qe["translation_qe"] == [] and no_qe["translation_sentences"]


def test_other_translators_translations_are_read_where_an_evaluator_reads_translations():
    config = {
        **MULTIQ,
        "translator": {"datasets": ["multiq"]},
        "translators": {"nllb-b": {"model": {"hf_id": "org/nllb-b"}}},
        "evaluators": {"information": {"datasets": ["multiq"]}},
    }
    plan = plan_of(config)
    assert plan.translator_vias("multiq") == ["", "by-translator/nllb-b/"], "information reads translations"
    others = plan.explorer_inputs()["other_translations"]
    assert others == [
        f"results/by-translator/nllb-b/translations/multiq/{model}/{lang}.parquet"
        for model in ("m", "n")
        for lang in ("en", "de")
    ]
    assert plan_of({**MULTIQ, "translator": {"datasets": ["multiq"]}}).explorer_inputs()["other_translations"] == []


def test_the_per_item_tables_come_from_the_registry():
    """Each evaluator's per-item results sources and its details; no corpus-level source."""
    tables = item_tables()
    for info in EVALUATORS.values():
        for source in info.results:
            assert (source.output in tables) == (not source.corpus)
        for details in info.details:
            assert tables[details.output] == (info.name, details.schema)
    assert {"information_facts", "judgments", "fidelity"} <= set(tables)
    assert "knowledge_scores" not in tables
