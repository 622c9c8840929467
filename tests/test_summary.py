"""The run's summary (xlcons.reports.summary): per data set, each evaluator's headline metric per
model, with the mean over the languages, the highest and lowest language and its interval, and
the exclusions; written the same twice; and every evaluator entry declares a headline metric
that its adapter (or its derived metrics) writes to the results table."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pyarrow as pa
import pytest

from test_results_empty_values import every_kind_of_results
from xlcons.evaluators.info import EvaluatorInfo
from xlcons.evaluators.information.derived import INFORMATION_F
from xlcons.evaluators.registry import EVALUATORS
from xlcons.reports.results import results_table, sort_results
from xlcons.reports.summary import (
    ExplorerLink,
    declared_headlines,
    merge_reasons,
    random_weights_note,
    summary_report_page,
    summary_table,
    write_summary,
)
from xlcons.schemas import ITEM_SCORES, RESULTS


def scores(rows) -> pl.DataFrame:
    """ITEM_SCORES from (dataset, evaluator, model, lang, item_id, metric, value or a reason string)."""
    records = [
        {
            "dataset": dataset,
            "evaluator": evaluator,
            "translator": "",
            "model": model,
            "item_id": item,
            "lang": lang,
            "metric": metric,
            "value": None if isinstance(value, str) else float(value),
            "status": value if isinstance(value, str) else "ok",
        }
        for dataset, evaluator, model, lang, item, metric, value in rows
    ]
    return pl.from_arrow(pa.Table.from_pylist(records, schema=ITEM_SCORES))


def realistic_results() -> pl.DataFrame:
    """MultiQ scored by language fidelity and the judge for two models (English, German, Hindi),
    with exclusions, QE rows (no headline) and the information set with F and a language without a value."""
    rows = []
    fidelity = {  # (model, lang): per-item same-language outcome, or a reason
        ("a", "en"): [1, 1, 1, 1],
        ("a", "de"): [1, 1, 1, 0],
        ("a", "hi"): [1, 0, "no_answer", "error"],
        ("b", "en"): [1, 1, 1, 1],
        ("b", "de"): [1, 1, 1, 1],
        ("b", "hi"): [1, 1, 1, 0],
    }
    for (model, lang), values in fidelity.items():
        for i, value in enumerate(values):
            rows.append(("multiq", "fidelity", model, lang, f"q{i}", "fidelity_same", value))
            rows.append(
                ("multiq", "fidelity", model, lang, f"q{i}", "fidelity_english", value if isinstance(value, str) else 0)
            )
    for model, lang, values in [("a", "de", [1, 0, 0, 1]), ("a", "hi", [0, 0, 1, "judge_error"])]:
        for i, value in enumerate(values):
            rows.append(("multiq", "judge", model, lang, f"q{i}", "accuracy", value))
    for i in range(2):
        rows.append(("multiq", "translation_qe", "a", "de", f"q{i}", "qe", 0.8))
    for model, lang, item, precision, recall in [
        ("a", "de", "1", 0.5, 1.0),
        ("a", "de", "2", 1.0, 0.5),
        ("a", "ar", "1", "no_facts", "no_facts"),
    ]:
        rows.append(("information", "information", model, lang, item, "precision", precision))
        rows.append(("information", "information", model, lang, item, "recall", recall))
    return sort_results(results_table(scores(rows), derived=[INFORMATION_F], n_resamples=50, seed=1))


def line(text: str, *cells: str) -> str:
    found = [row for row in text.splitlines() if all(f"| {cell} |" in row for cell in cells)]
    assert len(found) == 1, (cells, text)
    return found[0]


def test_the_summary_has_a_line_per_model_and_evaluator_with_its_headline_metric():
    results = realistic_results()
    summary = summary_table(results)
    assert summary.select("dataset", "evaluator", "metric", "model").rows() == [
        ("information", "information", "F", "a"),
        ("multiq", "fidelity", "fidelity_same", "a"),
        ("multiq", "fidelity", "fidelity_same", "b"),
        ("multiq", "judge", "accuracy", "a"),
    ]
    a = summary.filter(evaluator="fidelity", model="a").row(0, named=True)
    # English left out: de 3/4, hi 1/2 (two excluded) -> mean 0.625; highest de, lowest hi.
    assert a["n_languages"] == 2 and a["mean"] == pytest.approx(0.625)
    assert (a["best_lang"], a["best_value"], a["worst_lang"], a["worst_value"]) == ("de", 0.75, "hi", 0.5)
    de = results.filter(evaluator="fidelity", model="a", lang="de", metric="fidelity_same").row(0, named=True)
    assert (a["best_ci_low"], a["best_ci_high"]) == (de["ci_low"], de["ci_high"])
    # Exclusions of every language, English included: hi's no_answer and error.
    assert (a["n_items"], a["n_excluded"], a["excluded_reasons"]) == (10, 2, "error:1; no_answer:1")
    b = summary.filter(evaluator="fidelity", model="b").row(0, named=True)
    assert b["excluded_reasons"] is None and b["n_excluded"] == 0 and b["mean"] == pytest.approx(0.875)
    # Arabic has no scored item: the F line says why, from its value's note.
    info = summary.filter(evaluator="information").row(0, named=True)
    assert info["n_languages"] == 1 and info["best_lang"] == info["worst_lang"] == "de"
    assert info["without_value"].startswith("ar: ") and "no_facts" in info["without_value"]


def test_the_markdown_names_models_values_intervals_languages_and_exclusions(tmp_path):
    results = realistic_results()
    md, csv = write_summary(results, tmp_path / "summary.md", tmp_path / "summary.csv")
    text = md.read_text()
    assert text.splitlines()[0] == "# Summary"
    assert "## multiq" in text and "## information" in text
    de = results.filter(evaluator="fidelity", model="a", lang="de", metric="fidelity_same").row(0, named=True)
    hi = results.filter(evaluator="fidelity", model="a", lang="hi", metric="fidelity_same").row(0, named=True)
    row = line(text, "fidelity", "fidelity_same", "a")
    assert f"| de 0.750 [{de['ci_low']:.3f}, {de['ci_high']:.3f}] |" in row
    assert f"| hi 0.500 [{hi['ci_low']:.3f}, {hi['ci_high']:.3f}] |" in row
    assert "| 0.625 (2) |" in row and "| 2 (error:1; no_answer:1) |" in row
    assert "| none |" in line(text, "fidelity", "fidelity_same", "b")
    assert "| 1 (judge_error:1) |" in line(text, "judge", "accuracy", "a")
    assert "- information F, a: ar: " in text  # the language without a value, and why
    assert "Not summarised (no headline metric declared): translation_qe." in text
    assert "fidelity_english" not in text  # headline metrics only
    assert pl.read_csv(csv).height == 4


def test_the_summary_is_the_same_bytes_twice_whatever_the_row_order(tmp_path):
    results = realistic_results()
    first = write_summary(results, tmp_path / "1.md", tmp_path / "1.csv")
    second = write_summary(results.reverse(), tmp_path / "2.md", tmp_path / "2.csv")
    assert [path.read_bytes() for path in first] == [path.read_bytes() for path in second]


def test_an_empty_results_table_gives_a_summary_without_data_sets(tmp_path):
    md, csv = write_summary(pl.from_arrow(RESULTS.empty_table()), tmp_path / "s.md", tmp_path / "s.csv")
    assert "##" not in md.read_text() and csv.read_text().startswith("dataset,evaluator")


def test_languages_of_equal_value_show_as_the_first_and_the_last_by_code():
    rows = [("s", "judge", "m", lang, "q", "accuracy", 1) for lang in ("hi", "de", "ar")]
    row = summary_table(results_table(scores(rows), n_resamples=10)).row(0, named=True)
    assert (row["best_lang"], row["worst_lang"], row["n_languages"]) == ("ar", "hi", 3)


def test_reasons_are_summed_most_frequent_first():
    assert merge_reasons(["no_answer:2; error:1", None, "error:3"]) == "error:4; no_answer:2"
    assert merge_reasons([None, ""]) is None


@pytest.mark.parametrize("info", EVALUATORS.values(), ids=lambda info: info.name)
def test_every_evaluator_entry_declares_a_headline_metric_its_adapter_writes_or_says_why_not(info: EvaluatorInfo):
    if info.headline is None:
        assert not info.results and info.no_headline.strip(), f"{info.name}: no headline metric and no reason"
        return
    results = every_kind_of_results()  # every evaluator's adapter, from its own per-item table
    assert info.headline in set(results["metric"].to_list()), f"{info.name}: {info.headline} is in no results row"
    summarised = summary_table(results)
    assert info.headline in set(summarised["metric"].to_list())


def test_every_evaluator_of_the_results_table_but_qe_gets_a_headline():
    results = every_kind_of_results()
    summarised = set(summary_table(results)["evaluator"].to_list())
    assert summarised == set(results["evaluator"].to_list()) - {"translation_qe"}
    assert declared_headlines()[:2] == ("fidelity_same", "accuracy")  # the registry's order


RANDOM = {"models.tiny-llm": "tiny-llm", "translator.model": "tiny-nllb"}


def test_a_run_on_random_weight_offline_models_says_so_first(tmp_path):
    """A random-weight model can 'win' (empathy 1.000 to 0.000): the summary says, before any
    number, which models were random and that the numbers say nothing about any model."""
    md, _ = write_summary(realistic_results(), tmp_path / "s.md", tmp_path / "s.csv", random_weights=RANDOM)
    first = md.read_text().split("\n\n")[1]
    assert first == f"**{random_weights_note(RANDOM)}**"
    assert "random weights: models.tiny-llm (tiny-llm), translator.model (tiny-nllb)" in first
    assert "say nothing about any model" in first
    plain, _ = write_summary(realistic_results(), tmp_path / "p.md", tmp_path / "p.csv")
    assert "random" not in plain.read_text()


def rendered(page: str, targets: list[str]) -> str:
    """The report page as Snakemake's HTML report renders its description: Jinja first, then
    docutils, with the report's own links to its results appended (its `rst_links`)."""
    from docutils.core import publish_parts
    from jinja2 import Environment

    links = "".join(f"\n.. _{target}: javascript:app.showResultInfo('{target}')\n" for target in targets)
    source = Environment().from_string(page + links).render(snakemake=None, categories={}, files=[])
    return publish_parts(source, writer="html", settings_overrides={"report_level": 2, "halt_level": 2})["html_body"]


REPORTED = ["summary.md", "summary.csv", "results.csv", "At a glance"]


def test_the_report_opens_on_the_summary_with_links_to_its_files_and_the_explorer(tmp_path):
    results = realistic_results()
    explorer = ExplorerLink(tmp_path / "explorer")
    _, page, _ = write_summary(
        results, tmp_path / "s.md", tmp_path / "s.csv", tmp_path / "s.rst", random_weights=RANDOM, explorer=explorer
    )
    html = rendered(page.read_text(), REPORTED)  # halts on any docutils warning (an unknown link, a bad table)
    assert html.index("random weights") < html.index("Start here") < html.index("<table")
    for target in ("summary.md", "summary.csv", "results.csv"):
        assert f"href=\"javascript:app.showResultInfo('{target}')\"" in html
    assert f'href="{(tmp_path / "explorer" / "index.html").as_uri()}"' in html
    assert "<th" in html and ">fidelity_same<" in html and ">0.625 (2)<" in html
    assert ">hi 0.500 [" in html and "information F, a: ar:" in html
    in_report = summary_report_page(summary_table(results), results, explorer=ExplorerLink(Path("r/explorer"), True))
    assert "href=\"javascript:app.showResultInfo('explorer')\"" in rendered(in_report, [*REPORTED, "explorer"])
    assert "random" not in in_report


def test_text_from_the_data_cannot_become_markup_or_a_template_on_the_report_page():
    results = realistic_results().with_columns(pl.col("model").replace("a", "{{ x }}*_|`a`_ {% raw %}"))
    html = rendered(summary_report_page(summary_table(results), results), REPORTED)
    assert "{{ x }}*_|`a`_ {% raw %}" in html.replace("&amp;", "&")


def test_the_summary_counts_the_languages_each_evaluator_cannot_measure(tmp_path):
    rows = [
        ("language_confusion", "multiq", "co", 0.8, "not_measurable", "faithful_text_below_0.95"),
        ("language_confusion", "multiq", "de", 0.99, "measurable", None),
        ("language_confusion", "multiq", "ha", None, "not_measurable", "no_lid_label"),
        ("language_confusion", "multiq", "qu", 0.4, "not_measurable", "faithful_text_below_0.95"),
        ("language_id", "multiq", "de", 1.0, "measurable", None),
    ]
    checks = pl.DataFrame(
        [
            {
                "evaluator": evaluator,
                "dataset": dataset,
                "lang": lang,
                "metric": "m",
                "faithful_score": score,
                "n_items": 10,
                "threshold": 0.95,
                "verdict": verdict,
                "reason": reason,
            }
            for evaluator, dataset, lang, score, verdict, reason in rows
        ]
    )
    md, _ = write_summary(realistic_results(), tmp_path / "s.md", tmp_path / "s.csv", measurability=checks)
    text = md.read_text()
    assert "\n## Measurability\n" in text
    assert (
        "- language_confusion on multiq: 3 of 4 languages not measurable "
        "(faithful_text_below_0.95: 2, no_lid_label: 1): co, ha, qu\n" in text
    )
    assert "- language_id on multiq: 0 of 1 languages not measurable\n" in text
    plain, _ = write_summary(realistic_results(), tmp_path / "p.md", tmp_path / "p.csv")
    assert "Measurability" not in plain.read_text(), "no check, no section"
