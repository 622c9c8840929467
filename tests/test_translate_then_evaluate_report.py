"""The Translate-then-Evaluate report (xlcons.reports.translate_then_evaluate) on a hand-made RESULTS table.

Two models. ``llama-3.1-8b`` is one of Gupta et al. 2025's (published averages .32 / .45, and the
published self-consistency row), trained on en de fr it pt hi es th (config/paper); ``my-model``
is not, and its training languages are unknown.

Information F per language (English is the reference and is never averaged):
    llama-3.1-8b: en 1.0 | fr .6  cs .4  sw .3 (Latin) | hi .3  ta .1 (Indic) | ar .2 (Perso-Arabic) | ja .5 (Other)
    my-model:     fr .8 | ja .6 | qq .4 (not in the registry: no script group, no family group)
Families (Gupta et al. 2025's): Rom fr; Slav cs; Indo-Aryan hi; Dravidian ta; Other ar ja; sw and qq ungrouped.
Empathy consistency: llama-3.1-8b fr .5, hi .4, sw .6; my-model has no empathy rows.
Translationese F: llama-3.1-8b fr .95, hi .90, sw .80; my-model fr .90.
"""

from __future__ import annotations

import csv

import polars as pl
import pyarrow as pa
import pytest

from xlcons.reports import translate_then_evaluate as tte
from xlcons.reports import translate_then_evaluate_published as paper
from xlcons.reports import translate_then_evaluate_tables as tables
from xlcons.schemas import RESULTS

LLAMA, MINE = "llama-3.1-8b", "my-model"
LLAMA_TRAINING = ["en", "de", "fr", "it", "pt", "hi", "es", "th"]
TRAINING = {LLAMA: LLAMA_TRAINING, MINE: None}
INFORMATION = {
    LLAMA: {"en": 1.0, "fr": 0.6, "cs": 0.4, "sw": 0.3, "hi": 0.3, "ta": 0.1, "ar": 0.2, "ja": 0.5},
    MINE: {"fr": 0.8, "ja": 0.6, "qq": 0.4},
}
EMPATHY = {LLAMA: {"fr": 0.5, "hi": 0.4, "sw": 0.6}}
TRANSLATIONESE = {LLAMA: {"fr": 0.95, "hi": 0.90, "sw": 0.80}, MINE: {"fr": 0.90}}
EVALUATIONS = [
    {
        "kind": "tfidf",
        "mechanism": "ER",
        "train_on": "train+dev",
        "n_test": 600,
        "test": {"n": 600, "accuracy": 0.80, "macro_f1": 0.75, "positive_f1": 0.70},
    },
]


def _row(dataset, evaluator, model, lang, metric, value, kind="mean"):
    return {
        "dataset": dataset,
        "evaluator": evaluator,
        "model": model,
        "lang": lang,
        "metric": metric,
        "kind": kind,
        "value": value,
        "ci_low": value - 0.1,
        "ci_high": value + 0.1,
        "n_items": 20,
        "n_excluded": 1,
        "excluded_reasons": "refusal:1",
        "n_resamples": 1000,
        "ci_level": 0.95,
    }


def results() -> pl.DataFrame:
    rows = []
    for model, values in INFORMATION.items():
        for lang, value in values.items():
            rows.append(_row("information", "information", model, lang, "F", value, "derived"))
            rows.append(_row("information", "information", model, lang, "precision", min(1.0, value + 0.05)))
            rows.append(_row("information", "information", model, lang, "recall", max(0.0, value - 0.05)))
    for model, values in TRANSLATIONESE.items():
        for lang, value in values.items():
            rows.append(_row("information", "translationese", model, lang, "F", value, "derived"))
    for model, values in EMPATHY.items():
        for lang, value in values.items():
            rows.append(_row("empathy", "empathy", model, lang, "consistency", value))
            rows.append(_row("empathy", "empathy", model, lang, "ER", 0.9))
    return pl.from_arrow(pa.Table.from_pylist(rows, schema=RESULTS))


def model_row(table: pl.DataFrame, model: str, **where) -> dict:
    found = table.filter(pl.col("model") == model, *(pl.col(k) == v for k, v in where.items()))
    assert found.height == 1, found
    return found.row(0, named=True)


def markdown_rows(path) -> dict[str, dict[str, str]]:
    """A Markdown table as {first cell: {column: cell}} (first row per key)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    rows = {}
    for line in lines[2:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows.setdefault(cells[0], dict(zip(header, cells)))
    return rows


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("tte")
    written = tte.write_report(
        results(),
        out,
        training_languages=TRAINING,
        classifier_evaluations=EVALUATIONS,
        table_formats=("csv", "markdown", "latex"),
        figure_formats=("png", "pdf"),
    )
    return out, written


# -- Averaged consistency (Gupta et al. 2025's main table) ---------------------------------------


def test_group_values_are_the_hand_computed_means():
    table = tables.averaged_table(results(), training_languages=TRAINING)
    assert table["model"].to_list() == [LLAMA, MINE]
    llama = model_row(table, LLAMA)
    expected = {
        "Avg": (0.6 + 0.4 + 0.3 + 0.3 + 0.1 + 0.2 + 0.5) / 7,  # en left out
        "Latin": (0.6 + 0.4 + 0.3) / 3,  # fr cs sw
        "Indic": (0.3 + 0.1) / 2,
        "Perso-Arabic": 0.2,
        "Other (script)": 0.5,
        "Rom": 0.6,
        "Slav": 0.4,
        "Indo-Aryan": 0.3,
        "Dravidian": 0.1,
        "Other (family)": (0.2 + 0.5) / 2,
        "ungrouped (family)": 0.3,  # sw: no family group, averaged, not dropped
        "In": (0.6 + 0.3) / 2,  # fr hi
        "Out": (0.4 + 0.3 + 0.1 + 0.2 + 0.5) / 5,  # cs sw ta ar ja
    }
    for column, value in expected.items():
        assert llama[f"information {column}"] == pytest.approx(value), column
    assert llama["information n_languages"] == 7
    # Empathy: fr .5, hi .4, sw .6; no Perso-Arabic language -> empty.
    assert llama["empathy Avg"] == pytest.approx(0.5)
    assert llama["empathy Latin"] == pytest.approx(0.55)
    assert llama["empathy Indic"] == pytest.approx(0.4)
    assert llama["empathy Perso-Arabic"] is None
    assert llama["empathy In"] == pytest.approx(0.45)
    assert llama["empathy Out"] == pytest.approx(0.6)
    mine = model_row(table, MINE)
    assert mine["information Avg"] == pytest.approx(0.6)
    assert mine["information ungrouped (script)"] == pytest.approx(0.4)  # qq
    assert "qq" in mine["ungrouped languages"] and "sw" in llama["ungrouped languages"]


def test_published_average_and_difference_for_a_paper_model():
    table = tables.averaged_table(results(), training_languages=TRAINING)
    llama = model_row(table, LLAMA)
    assert llama["information published"] == pytest.approx(0.32)
    assert llama["information difference"] == pytest.approx(2.4 / 7 - 0.32)
    assert llama["empathy published"] == pytest.approx(0.45)
    assert llama["empathy difference"] == pytest.approx(0.05)
    mine = model_row(table, MINE)
    assert mine["information published"] is None and mine["information difference"] is None
    assert mine["empathy Avg"] is None and mine["empathy n_languages"] == 0  # no empathy rows: empty, not dropped


def test_paper_model_names():
    assert paper.paper_model("llama-3.1-8b") == "Llama-3.1-8B"
    assert paper.paper_model("gemini-2.0-flash-lite") == "gemini-2.0-lite"
    assert paper.paper_model("Llama-3.1-8B") == "Llama-3.1-8B"
    assert paper.paper_model("my-model") is None
    assert set(paper.PAPER_MODELS.values()) == set(paper.PUBLISHED_AVERAGES)


def test_unknown_training_languages_are_a_dash(report):
    out, _ = report
    rows = markdown_rows(out / "averaged_consistency.md")
    assert rows[MINE]["information In"] == "–" and rows[MINE]["information Out"] == "–"
    assert rows[LLAMA]["information In"] == "0.45" and rows[LLAMA]["information Out"] == "0.30"
    assert rows[LLAMA]["information published"] == "0.32"
    with open(out / "averaged_consistency.csv", encoding="utf-8") as handle:
        mine = next(row for row in csv.DictReader(handle) if row["model"] == MINE)
    assert mine["information In"] == "" and mine["information Out"] == ""
    assert "\\toprule" in (out / "averaged_consistency.tex").read_text(encoding="utf-8")


def test_averaged_metrics():
    table = tables.metrics_table(results())
    llama = model_row(table, LLAMA)
    assert llama["information F"] == pytest.approx(2.4 / 7)
    assert llama["information precision"] == pytest.approx((0.65 + 0.45 + 0.35 + 0.35 + 0.15 + 0.25 + 0.55) / 7)
    assert llama["empathy ER"] == pytest.approx(0.9)
    assert model_row(table, MINE)["empathy consistency"] is None


# -- Self-consistency (translationese) --------------------------------------------------


def test_self_consistency_table_with_published_llama_row():
    table = tables.self_consistency_table(results())
    # our pivots plus the paper's, by script group then code
    assert table.columns == ["model", "source", "Avg", "cs", "es", "fr", "sw", "hi", "ml", "ta", "ar", "fa", "ja", "ru"]
    assert table.select("model", "source").rows() == [
        (LLAMA, "ours"),
        (LLAMA, "published"),
        (LLAMA, "difference"),
        (MINE, "ours"),
    ]
    ours = model_row(table, LLAMA, source="ours")
    assert ours["fr"] == pytest.approx(0.95) and ours["cs"] is None
    assert ours["Avg"] == pytest.approx((0.95 + 0.90 + 0.80) / 3)
    published = model_row(table, LLAMA, source="published")
    assert {
        code: published[code] for code in ("ar", "cs", "fr", "hi", "ja", "ml", "fa", "ru", "es", "ta")
    } == paper.PUBLISHED_SELF_CONSISTENCY["Llama-3.1-8B"]
    assert published["sw"] is None
    difference = model_row(table, LLAMA, source="difference")
    assert difference["fr"] == pytest.approx(0.02) and difference["hi"] == pytest.approx(-0.01)
    assert difference["sw"] is None and difference["ar"] is None
    assert difference["Avg"] == pytest.approx(0.005)
    assert model_row(table, MINE, source="ours")["fr"] == pytest.approx(0.90)


def test_self_consistency_markdown(report):
    out, _ = report
    text = (out / "self_consistency.md").read_text(encoding="utf-8")
    assert "| llama-3.1-8b | published | " in text and "0.93" in text


# -- Per-language and classifier tables -------------------------------------------------


def test_per_language_table(report):
    out, _ = report
    numbers = pl.read_csv(out / "per_language.csv")
    llama_fr = model_row(numbers, LLAMA, lang="fr")
    assert llama_fr["information_F"] == pytest.approx(0.6)
    assert llama_fr["information_F_ci_low"] == pytest.approx(0.5) and llama_fr[
        "information_F_ci_high"
    ] == pytest.approx(0.7)
    assert llama_fr["information_F_n_items"] == 20 and llama_fr["empathy_consistency_n_excluded"] == 1
    assert llama_fr["empathy_consistency"] == pytest.approx(0.5)
    assert "en" not in numbers["lang"].to_list()
    assert model_row(numbers, MINE, lang="qq")["script_group"] == "ungrouped"
    # languages by script group: Latin (cs fr sw), Indic (hi ta), Perso-Arabic (ar), Other (ja)
    assert numbers.filter(pl.col("model") == LLAMA)["lang"].to_list() == ["cs", "fr", "sw", "hi", "ta", "ar", "ja"]
    text = (out / "per_language.md").read_text(encoding="utf-8")
    assert "| llama-3.1-8b | fr | Latin | 0.60 [0.50, 0.70] | 20 | 0.50 [0.40, 0.60] | 20 |" in text
    assert "| my-model | fr | Latin | 0.80 [0.70, 0.90] | 20 | – | – |" in text


def test_classifier_table_beside_the_paper():
    table = tables.classifier_table(EVALUATIONS)
    assert table["mechanism"].to_list() == ["ER", "IP", "EX"]
    er = table.row(0, named=True)
    assert (
        er["accuracy"] == pytest.approx(80.0)
        and er["macro-F1"] == pytest.approx(75.0)
        and er["positive F1"] == pytest.approx(70.0)
    )
    assert er["test pairs"] == 600
    assert (er["paper F1"], er["paper accuracy"]) == (86.1, 87.2)
    assert er["accuracy − paper"] == pytest.approx(-7.2)
    ex = table.row(2, named=True)
    assert ex["accuracy"] is None and (ex["paper F1"], ex["paper accuracy"]) == (92.0, 95.8)


# -- Files ------------------------------------------------------------------------------


def test_report_outputs_are_exactly_the_files_written(report):
    out, written = report
    expected = tte.report_outputs(
        out, [LLAMA, MINE], ("csv", "markdown", "latex"), ("png", "pdf"), translationese=True, classifiers=True
    )
    assert written == expected
    assert sorted(path for path in out.iterdir()) == sorted(expected)
    assert all(path.stat().st_size > 0 for path in expected)


def test_heatmaps_exist(report):
    out, _ = report
    for name in ("heatmap_information_F", "heatmap_empathy_consistency"):
        png, pdf = out / f"{name}.png", out / f"{name}.pdf"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
        assert pdf.read_bytes()[:5] == b"%PDF-" and pdf.stat().st_size > 1000


def test_every_declared_file_is_written_without_data(tmp_path):
    empty = pl.from_arrow(RESULTS.empty_table())
    written = tte.write_report(
        empty,
        tmp_path,
        training_languages={},
        classifier_evaluations=[],
        table_formats=("csv", "markdown"),
        figure_formats=("png",),
        models=[LLAMA],
        translationese=True,
    )
    expected = tte.report_outputs(
        tmp_path, [LLAMA], ("csv", "markdown"), ("png",), translationese=True, classifiers=True
    )
    assert written == expected
    assert all(path.is_file() and path.stat().st_size > 0 for path in expected)
    averaged = pl.read_csv(tmp_path / "averaged_consistency.csv")
    assert averaged["model"].to_list() == [LLAMA] and averaged["information published"].to_list() == [0.32]


def test_optional_parts_and_bad_formats(tmp_path):
    frame = results().filter(pl.col("evaluator") != "translationese")
    written = tte.write_report(
        frame,
        tmp_path,
        training_languages=TRAINING,
        classifier_evaluations=None,
        table_formats=("markdown",),
        figure_formats=("pdf",),
        languages=["fr", "hi"],
    )
    assert written == tte.report_outputs(
        tmp_path, [LLAMA, MINE], ("markdown",), ("pdf",), translationese=False, classifiers=False
    )
    rows = markdown_rows(tmp_path / "averaged_consistency.md")
    assert rows[LLAMA]["information Avg"] == "0.45"  # restricted to fr and hi
    with pytest.raises(ValueError, match="unknown output formats"):
        tte.write_report(frame, tmp_path, table_formats=("html",), figure_formats=("png",))
