"""The MultiQ report (xlcons.reports.multiq and multiq_*): tables from hand-made scored responses.

Two models, four items (gpt-41 is a numeric question), hand-labelled verdicts, fidelity
classes and tokenization classes; every expected number is worked out in the comments.
"""

from __future__ import annotations

import polars as pl
import pyarrow as pa
import pytest

from xlcons.evaluators.fidelity import FIDELITY
from xlcons.evaluators.judge_tables import JUDGMENTS
from xlcons.evaluators.tokenization_tables import TOKENIZATION
from xlcons.reports.formats import to_latex, to_markdown
from xlcons.reports.multiq import build_report, report_outputs, run_report
from xlcons.reports.multiq_tables import (
    accuracy_by_fidelity,
    accuracy_by_language,
    accuracy_by_tokenization,
    accuracy_table,
    fidelity_shares,
    language_matrix,
    per_language,
)
from xlcons.tables import write_table

ITEMS = ["gpt-41", "lmsys-63", "lmsys-72", "lmsys-85"]
# model -> lang -> four (verdict, fidelity class or exclusion reason, response_lang or label, response chars)
DATA = {
    "A": {
        "en": [
            ("yes", "same", "en", 40),
            ("yes", "same", "en", 40),
            ("yes", "same", "en", 40),
            ("no", "same", "en", 40),
        ],
        "de": [
            ("yes", "same", "de", 40),
            ("no", "english", "en", 40),
            ("unparseable", "other", "fr", 40),
            ("no_answer", "no_answer", None, 0),
        ],
        "zh": [
            ("yes", "english", "en", 40),
            ("yes", "same", "zh", 40),
            ("no", "same", "zh", 40),
            ("no", "other", "label:xyz_Latn", 5),
        ],
        "sw": [("no", "unsupported_language", "sw", 40)] * 3 + [("unparseable", "unsupported_language", "sw", 40)],
    },
    "B": {
        "en": [
            ("yes", "same", "en", 40),
            ("yes", "same", "en", 40),
            ("no", "same", "en", 40),
            ("no", "same", "en", 40),
        ],
        "de": [
            ("yes", "english", "en", 40),
            ("yes", "english", "en", 40),
            ("yes", "other", "fr", 40),
            ("yes", "same", "de", 40),
        ],
    },
}
TOKEN_CLASSES = {
    ("A", "en"): "subword",
    ("A", "de"): "subword",
    ("A", "zh"): "character",
    ("A", "sw"): "ascii",
    ("B", "en"): "subword",
    ("B", "de"): "character",
}


def judgments() -> pa.Table:
    rows = [
        {
            "dataset": "multiq",
            "model": model,
            "item_id": item,
            "lang": lang,
            "verdict": verdict,
            "judge_response": None if verdict == "no_answer" else verdict.title(),
            "judge_finish_reason": "stop",
            "judge_model": "judge",
        }
        for model, languages in DATA.items()
        for lang, answers in languages.items()
        for item, (verdict, *_) in zip(ITEMS, answers)
    ]
    return pa.Table.from_pylist(rows, schema=JUDGMENTS)


def fidelity() -> pa.Table:
    rows = []
    for model, languages in DATA.items():
        for lang, answers in languages.items():
            for item, (_, cls, language, chars) in zip(ITEMS, answers):
                excluded = cls not in ("same", "english", "other")
                raw = language.removeprefix("label:") if language else None
                rows.append(
                    {
                        "dataset": "multiq",
                        "model": model,
                        "item_id": item,
                        "lang": lang,
                        "label": raw,
                        "probability": None if raw is None else 0.9,
                        "response_lang": None if (language is None or language.startswith("label:")) else language,
                        "fidelity": "excluded" if excluded else cls,
                        "excluded_reason": cls if excluded else None,
                        "response_chars": chars,
                    }
                )
    return pa.Table.from_pylist(rows, schema=FIDELITY)


def tokenization() -> pa.Table:
    rows = []
    for (model, lang), cls in TOKEN_CLASSES.items():
        rows.append(
            {
                "dataset": "multiq", "model": model, "tokenizer": f"tok-{model}", "lang": lang,
                "n_prompts": 4, "n_tokens": 40, "tokens_per_prompt": 10.0, "unique_tokens": 30,
                "unique_tokens_all_languages": 100 if model == "A" else 60,
                "top_tokens": ["x"], "top_token_ids": [5], "top_token_counts": [9], "top_token_classes": [cls],
                "ascii_share": 1.0 if cls == "ascii" else 0.0, "character_share": 1.0 if cls == "character" else 0.0,
                "subword_share": 1.0 if cls == "subword" else 0.0, "token_class": cls,
            }
        )  # fmt: skip
    return pa.Table.from_pylist(rows, schema=TOKENIZATION)


def rows_by_model(frame) -> dict[str, dict]:
    return {row["model"]: row for row in frame.iter_rows(named=True)}


# --------------------------------------------------------------------------------------
# Table 3: accuracy
# --------------------------------------------------------------------------------------


def test_accuracy_per_language_counts_every_verdict():
    table = {(row["model"], row["lang"]): row for row in accuracy_by_language(judgments()).iter_rows(named=True)}
    de = table[("A", "de")]
    # yes, no, unparseable, no_answer: only the yes is correct, all four are in the denominator
    assert (de["n"], de["n_yes"], de["n_no"], de["n_unparseable"], de["n_no_answer"]) == (4, 1, 1, 1, 1)
    assert de["accuracy"] == pytest.approx(25.0)
    assert table[("A", "sw")]["accuracy"] == 0.0 and table[("B", "de")]["accuracy"] == 100.0


def test_failed_requests_are_counted_and_left_out_of_the_denominator():
    rows = judgments().to_pylist()
    german = [row for row in rows if (row["model"], row["lang"]) == ("A", "de")]
    german[1]["verdict"], german[2]["verdict"] = "error", "judge_error"  # the no and the unparseable
    table = {
        (row["model"], row["lang"]): row
        for row in accuracy_by_language(pa.Table.from_pylist(rows, schema=JUDGMENTS)).iter_rows(named=True)
    }
    de = table[("A", "de")]
    # yes, error, judge_error, no_answer: one correct of the two the model answered or declined
    assert (de["n"], de["n_yes"], de["n_no_answer"], de["n_failed"]) == (4, 1, 1, 2)
    assert de["accuracy"] == pytest.approx(50.0)
    for row in german:
        row["verdict"] = "error"
    alone = accuracy_by_language(pa.Table.from_pylist(german, schema=JUDGMENTS)).row(0, named=True)
    assert alone["n_failed"] == 4 and alone["accuracy"] is None  # nothing the model answered


def test_other_language_answers_by_family_and_the_most_frequent_fallbacks():
    from xlcons.reports.multiq_tables import other_language_fallbacks, other_language_families

    families = rows_by_model(other_language_families(fidelity()))
    # A: de -> fr (both Indo-European), zh -> a GlotLID label outside the registry (family unknown)
    a = families["A"]
    assert (a["n_other"], a["n_languages"], a["n_same_family"], a["n_other_family"], a["n_unknown_family"]) == (
        2,
        2,
        1,
        0,
        1,
    )
    assert a["same_family %"] == 50.0 and a["unknown_family %"] == 50.0
    assert (families["B"]["n_other"], families["B"]["same_family %"]) == (1, 100.0)
    fallbacks = [
        (r["model"], r["rank"], r["language"], r["n"], r["% of other"])
        for r in other_language_fallbacks(fidelity()).to_dicts()
    ]
    assert fallbacks == [("A", 1, "fr", 1, 50.0), ("A", 2, "xyz_Latn", 1, 50.0), ("B", 1, "fr", 1, 100.0)]


def test_figure5_sorts_the_languages_by_the_median_accuracy_over_the_models():
    from xlcons.reports.multiq_figures import languages_by_median_accuracy

    by_language = pl.DataFrame(
        {
            "model": ["A", "B", "C"] * 3,
            "lang": ["de"] * 3 + ["sw"] * 3 + ["en"] * 3,
            "accuracy": [10.0, 90.0, 50.0, 40.0, 45.0, 0.0, 100.0, 0.0, None],
        }
    )
    # medians: de 50, sw 40, en 50 (of A and B only): ties by code
    assert languages_by_median_accuracy(by_language) == ["de", "en", "sw"]


def test_table3_overall_english_and_each_models_own_top_languages():
    table = rows_by_model(accuracy_table(judgments(), top_n=(1, 2, 3, 5)))
    a, b = table["A"], table["B"]
    # A: en 3/4, de 1/4, zh 2/4, sw 0/4 -> pooled 6/16
    assert (a["n_languages"], a["n_responses"]) == (4, 16)
    assert a["all"] == pytest.approx(37.5) and a["en"] == pytest.approx(75.0)
    assert a["top1"] == pytest.approx(75.0)
    assert a["top2"] == pytest.approx((75 + 50) / 2)
    assert a["top3"] == pytest.approx((75 + 50 + 25) / 3)
    assert a["top5"] is None  # only four languages
    assert (a["n_unparseable"], a["n_no_answer"]) == (2, 1)
    # B: en 2/4, de 4/4: its best language is German, not English
    assert b["all"] == pytest.approx(75.0) and b["en"] == pytest.approx(50.0)
    assert b["top1"] == pytest.approx(100.0) and b["top2"] == pytest.approx(75.0) and b["top3"] is None
    assert list(accuracy_table(judgments())["model"]) == ["A", "B"]


# --------------------------------------------------------------------------------------
# Table 4: accuracy by fidelity class
# --------------------------------------------------------------------------------------


def test_table4_accuracy_by_fidelity_class_leaves_excluded_responses_out():
    table = rows_by_model(accuracy_by_fidelity(judgments(), fidelity()))
    a, b = table["A"], table["B"]
    # A same: en x4 (3 yes), de gpt-41 (yes), zh lmsys-63 (yes), zh lmsys-72 (no) -> 5/7
    assert a["same"] == pytest.approx(500 / 7) and a["n_same"] == 7
    # A english: de lmsys-63 (no), zh gpt-41 (yes); other: de lmsys-72 (unparseable), zh lmsys-85 (no)
    assert a["english"] == pytest.approx(50.0) and a["n_english"] == 2
    assert a["other"] == pytest.approx(0.0) and a["n_other"] == 2
    # the No answer and the four Swahili rows are excluded from fidelity: in no class
    assert a["n_same"] + a["n_english"] + a["n_other"] == 11
    assert (
        b["same"] == pytest.approx(60.0) and b["english"] == pytest.approx(100.0) and b["other"] == pytest.approx(100.0)
    )


# --------------------------------------------------------------------------------------
# Table 5: accuracy by tokenization class
# --------------------------------------------------------------------------------------


def test_table5_accuracy_by_tokenization_class():
    table = rows_by_model(accuracy_by_tokenization(judgments(), tokenization()))
    a, b = table["A"], table["B"]
    # A: subword = en + de (4 of 8), character = zh (2 of 4), ascii = sw (0 of 4)
    assert (a["subword"], a["character"], a["ascii"]) == pytest.approx((50.0, 50.0, 0.0))
    assert (a["n_subword"], a["n_character"], a["n_ascii"]) == (8, 4, 4)
    assert (a["languages_subword"], a["languages_character"], a["languages_ascii"]) == (2, 1, 1)
    assert a["unique_tokens"] == 100
    # B has no ascii language
    assert (b["subword"], b["character"], b["ascii"]) == (50.0, 100.0, None)
    assert b["n_ascii"] == 0 and b["unique_tokens"] == 60


# --------------------------------------------------------------------------------------
# Figure 3 and Figure 4 numbers
# --------------------------------------------------------------------------------------


def test_fidelity_shares_main_and_robust():
    shares = {(row["model"], row["variant"]): row for row in fidelity_shares(fidelity()).iter_rows(named=True)}
    main = shares[("A", "main")]
    # 11 scored (en 4, de 3, zh 4): same 7, english 2, other 2; excluded: 1 No answer + 4 Swahili
    assert (main["n_scored"], main["n_excluded"]) == (11, 5)
    assert (main["same"], main["english"], main["other"]) == pytest.approx((700 / 11, 200 / 11, 200 / 11))
    robust = shares[("A", "robust")]
    # robust also drops gpt-41 (en same, de same, zh english) and the 5-character zh answer (other)
    assert (robust["n_scored"], robust["n_excluded"]) == (7, 9)
    assert (robust["same"], robust["english"], robust["other"]) == pytest.approx((500 / 7, 100 / 7, 100 / 7))
    b = shares[("B", "main")]
    assert (b["same"], b["english"], b["other"]) == pytest.approx((62.5, 25.0, 12.5))


def test_language_matrix_shares_per_prompt_language_with_an_other_column():
    matrix = language_matrix(fidelity(), "A", top=3)
    # scored responses: en->en x4; de->de, en, fr; zh->en, zh, zh, xyz_Latn (a label with no registry code)
    # totals en 6, zh 2, then de, fr, xyz_Latn once each: the tie goes to the name, so de is kept
    assert matrix.columns == ["prompt_lang", "n_scored", "en", "zh", "de", "other"]
    rows = {row["prompt_lang"]: row for row in matrix.iter_rows(named=True)}
    assert list(rows) == ["de", "en", "sw", "zh"]  # rows in registry order
    assert (rows["en"]["en"], rows["en"]["other"]) == (100.0, 0.0)
    assert (rows["de"]["en"], rows["de"]["de"], rows["de"]["other"]) == pytest.approx((100 / 3, 100 / 3, 100 / 3))
    assert (rows["zh"]["en"], rows["zh"]["zh"], rows["zh"]["other"]) == pytest.approx((25.0, 50.0, 25.0))
    assert rows["sw"]["n_scored"] == 0 and rows["sw"]["en"] is None  # every Swahili response is excluded


def test_language_matrix_names_unmapped_labels_by_the_label():
    matrix = language_matrix(fidelity(), "A", top=10)
    assert "xyz_Latn" in matrix.columns and "other" not in matrix.columns


def test_per_language_joins_accuracy_fidelity_and_tokenization():
    table = {
        (row["model"], row["lang"]): row
        for row in per_language(judgments(), fidelity(), tokenization()).iter_rows(named=True)
    }
    de = table[("A", "de")]
    assert (de["n"], de["n_yes"], de["accuracy"]) == (4, 1, 25.0)
    assert (de["n_fidelity_scored"], de["n_fidelity_excluded"]) == (3, 1)
    assert (de["fidelity_same"], de["fidelity_english"], de["fidelity_other"]) == pytest.approx(
        (100 / 3, 100 / 3, 100 / 3)
    )
    assert de["token_class"] == "subword"
    assert table[("A", "sw")]["fidelity_same"] is None
    assert len(table) == 6


# --------------------------------------------------------------------------------------
# Writers and the job
# --------------------------------------------------------------------------------------


def test_markdown_and_latex_render_one_decimal_and_empty_cells():
    frame = accuracy_table(judgments())
    markdown = to_markdown(frame)
    assert markdown.splitlines()[0] == (
        "| model | n_languages | n_responses | all | en | top10 | "
        "top20 | top50 | n_unparseable | n_no_answer | n_failed |"
    )
    assert "| A | 4 | 16 | 37.5 | 75.0 | – | – | – | 2 | 1 | 0 |" in markdown
    latex = to_latex(frame)
    assert (
        latex.startswith("\\begin{tabular}{lrrrrrrrrrr}\n\\toprule")
        and "n\\_languages" in latex
        and "A & 4 & 16 & 37.5 & 75.0" in latex
    )
    assert latex.rstrip().endswith("\\bottomrule\n\\end{tabular}"), "booktabs rules"


def test_run_report_writes_every_table_and_figure(tmp_path):
    paths = {}
    for name, table, schema in (
        ("fidelity", fidelity(), FIDELITY),
        ("judgments", judgments(), JUDGMENTS),
        ("tokenization", tokenization(), TOKENIZATION),
    ):
        paths[name] = []
        for model in ("A", "B"):
            subset = table.filter(pa.compute.equal(table["model"], model))
            paths[name].append(write_table(subset, tmp_path / name / f"{model}.parquet", schema))
    out = tmp_path / "report"
    formats = ["csv", "markdown", "latex"]
    written = run_report(paths["fidelity"], paths["judgments"], out, paths["tokenization"], table_formats=formats)
    assert sorted(written) == sorted(report_outputs(out, ["A", "B"], formats))
    for path in written:
        assert path.is_file() and path.stat().st_size > 0, path
    assert (out / "figure3_fidelity.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "figure4_language_matrix_A.pdf").read_bytes()[:5] == b"%PDF-"
    assert (out / "figure5_accuracy_by_language.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "| A | 4 | 16 | 37.5 | 75.0 |" in (out / "table3_accuracy.md").read_text(encoding="utf-8")


def test_a_report_without_tokenization_has_no_table5(tmp_path):
    written = build_report(fidelity(), judgments(), tmp_path, figure_formats=["png"])
    assert sorted(written) == sorted(report_outputs(tmp_path, ["A", "B"], figure_formats=["png"], tokenization=False))
    assert not (tmp_path / "table5_accuracy_by_tokenization.csv").exists()


def test_unknown_output_formats_are_refused(tmp_path):
    with pytest.raises(ValueError, match="unknown output formats"):
        build_report(fidelity(), judgments(), tmp_path, table_formats=["xlsx"])


def test_the_papers_models_are_shown_beside_the_published_table3_and_fidelity():
    from xlcons.reports.multiq_published import versus_published

    accuracy = pl.DataFrame(
        {
            "model": ["Mistral-7B-Instruct", "mine"],
            "all": [20.0, 50.0],
            "en": [80.0, 90.0],
            "top10": [60.0, 70.0],
            "top20": [50.0, 60.0],
            "top50": [40.0, 50.0],
        }
    )
    shares = pl.DataFrame(
        {"model": ["Mistral-7B-Instruct", "Mistral-7B-Instruct"], "variant": ["main", "robust"], "same": [70.0, 75.0]}
    )
    table = {
        (r["metric"]): (r["ours"], r["published"], r["difference"])
        for r in versus_published(accuracy, shares).to_dicts()
    }
    assert table["accuracy all"] == (20.0, 15.4, pytest.approx(4.6))
    assert table["accuracy top50"] == (40.0, 37.6, pytest.approx(2.4))
    assert table["fidelity same"] == (70.0, 62.3, pytest.approx(7.7)), "the main variant, as published"
    assert len(table) == 6, "a model the paper did not run has no rows"
    by_fidelity = pl.DataFrame(
        {"model": ["Llama-2-70b-chat-hf"], "same": [60.0], "english": [20.0], "other": [None]},
        schema_overrides={"other": pl.Float64},
    )
    accuracy = accuracy.with_columns(model=pl.Series(["Llama-2-70b-chat-hf", "mine"]))
    table = {
        (r["metric"]): (r["ours"], r["published"]) for r in versus_published(accuracy, shares, by_fidelity).to_dicts()
    }
    assert table["accuracy all"] == (20.0, 29.1) and table["accuracy answering same"] == (60.0, 61.4)
    assert table["accuracy answering other"] == (None, 48.2), "a class without responses stays empty"
