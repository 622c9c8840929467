"""FLORES answers extracted fairly, and Xing et al. 2024's Figure 2 pair by pair: the answers the
extraction changed, counted per direction and model; each direction's chrF against the xSC /
xAC of its language pair, correlated; against hand-computed values."""

from __future__ import annotations

import math

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from sacrebleu.metrics import CHRF

from builders import response_rows, write_flores_sample
from xlcons.datasets.flores import load
from xlcons.evaluators.knowledge.tables import KNOWLEDGE_PAIRS
from xlcons.evaluators.translation_ability import (
    TRANSLATION_DIRECTIONS,
    TRANSLATION_ITEMS,
    item_table,
    run_translation_ability,
    score_items,
)
from xlcons.reports.correlations import MANTEL_NOTE
from xlcons.reports.translation_ability import report_outputs, run_report
from xlcons.reports.translation_ability_tables import correlations, models_table, pair_cells
from xlcons.schemas import PROMPTS
from xlcons.tables import read_table, write_table

REFERENCE = "Das Museum, das 1998 eröffnet wurde, zieht jedes Jahr mehr als zwei Millionen Besucher an."


def _prompts(tmp_path, sentence=REFERENCE):
    """Prompts en -> de of a FLORES sample whose German line 1 is `sentence`."""
    sample = {
        "eng_Latn": ["The museum, which opened in 1998, attracts more than two million visitors every year.", "Two."],
        "deu_Latn": [sentence, "Zwei."],
    }
    return load(write_flores_sample(tmp_path / "flores", sample), ["en"], {"limit": 2}, run_languages=["en", "de"])


def test_the_findings_two_chat_answers_score_as_the_translation_they_hold(tmp_path):
    """The issue's examples: a preamble line, and a label line, before a correct translation.
    `first_line` scored the preamble (chrF 12.3 here) and the empty label (0, `empty`); the
    default extraction scores the translation itself: 100."""
    prompts = _prompts(tmp_path)
    answers = {
        "preamble": f"Sure! Here is the translation of the sentence into German:\n\n{REFERENCE}",
        "label": f"German:\n{REFERENCE}",
    }
    chrf = CHRF()
    for mode, expected in (
        ("answer", {"preamble": (100.0, "ok"), "label": (100.0, "ok")}),
        (
            "first_line",
            {
                "preamble": (
                    chrf.sentence_score(
                        "Sure! Here is the translation of the sentence into German:", [REFERENCE]
                    ).score,
                    "ok",
                ),
                "label": (0.0, "empty"),
            },
        ),
    ):
        for name, answer in answers.items():
            responses = response_rows([("1:de", "en", answer), ("2:de", "en", "Zwei.")], dataset="flores")
            items, _ = score_items(item_table(prompts, responses, mode))
            row = items.filter(pl.col("item_id") == "1:de").row(0, named=True)
            assert (row["chrf"], row["status"]) == (pytest.approx(expected[name][0]), expected[name][1]), (mode, name)
    assert expected["preamble"][0] == pytest.approx(12.34, abs=0.01), "the preamble's few shared characters"
    # The default is the extraction.
    responses = response_rows([("1:de", "en", answers["label"]), ("2:de", "en", "Zwei.")], dataset="flores")
    assert item_table(prompts, responses)["hypothesis"].to_list()[0] == REFERENCE


def test_each_answer_says_whether_the_extraction_changed_it_and_directions_count_them(tmp_path):
    prompts = load(write_flores_sample(tmp_path / "flores"), ["en"], {"limit": 2}, run_languages=["en", "de", "zh"])
    responses = response_rows(
        [
            ("1:de", "en", "Here is the translation:\n\n„Der Fluss ist früh zugefroren.“"),  # changed
            ("2:de", "en", "  Plain translation.  \n"),  # only surrounding space: not changed
            ("1:zh", "en", "x", "error"),  # failed: neither
            ("2:zh", "en", "No answer", "empty"),  # the stage's empty answer: neither
        ],
        dataset="flores",
    )
    items, directions = score_items(item_table(prompts, responses))
    assert items.select("item_id", "target", "status", "changed").rows() == [
        ("1:de", "de", "ok", True),
        ("2:de", "de", "ok", False),
        ("1:zh", "zh", "error", None),
        ("2:zh", "zh", "empty", None),
    ]
    counts = {row["target"]: (row["n_items"], row["n_changed"]) for row in directions.to_dicts()}
    assert counts == {"de": (2, 1), "zh": (1, 0)}
    assert items.columns == [field.name for field in TRANSLATION_ITEMS]


def test_the_models_table_gives_each_models_share_of_changed_answers():
    directions = pl.DataFrame(
        [
            {
                "dataset": "flores",
                "model": model,
                "source": s,
                "target": t,
                "chrf": chrf,
                "chrf_pp": chrf / 2,
                "n_items": n,
                "n_empty": empty,
                "n_failed": failed,
                "n_too_long": 0,
                "n_refused": 0,
                "n_changed": changed,
            }
            for model, s, t, chrf, n, empty, failed, changed in [
                ("chat", "en", "de", 60.0, 10, 1, 0, 9),
                ("chat", "de", "en", 40.0, 10, 0, 2, 6),
                ("base", "en", "de", 30.0, 10, 0, 0, 1),
                ("base", "de", "en", 20.0, 0, 0, 10, 0),
            ]
        ],
        schema=pl.from_arrow(TRANSLATION_DIRECTIONS.empty_table()).schema,
    )
    rows = {row["model"]: row for row in models_table(directions).to_dicts()}
    # chat: (9 + 6) of 20 scored answers; base: 1 of 10 (its second direction failed entirely).
    assert rows["chat"]["changed"] == pytest.approx(0.75) and rows["base"]["changed"] == pytest.approx(0.1)
    assert (rows["chat"]["chrF"], rows["chat"]["sentences"], rows["chat"]["empty"], rows["chat"]["failed"]) == (
        50.0,
        20,
        1,
        2,
    )
    assert rows["base"]["chrF"] == pytest.approx(25.0) and rows["base"]["directions"] == 2


def test_the_job_writes_the_changed_flag_and_count(tmp_path):
    prompts = _prompts(tmp_path)
    prompt_file = write_table(prompts, tmp_path / "prompts.parquet", PROMPTS)
    pq.write_table(
        response_rows([("1:de", "en", f"Deutsch:\n{REFERENCE}"), ("2:de", "en", "Zwei.")], dataset="flores"),
        tmp_path / "responses.parquet",
    )
    run_translation_ability(
        [prompt_file], [tmp_path / "responses.parquet"], tmp_path / "items.parquet", tmp_path / "directions.parquet"
    )
    items = read_table(tmp_path / "items.parquet", TRANSLATION_ITEMS).to_pylist()
    assert [(row["hypothesis"], row["changed"], row["chrf"]) for row in items] == [
        (REFERENCE, True, 100.0),
        ("Zwei.", False, 100.0),
    ]
    (direction,) = read_table(tmp_path / "directions.parquet", TRANSLATION_DIRECTIONS).to_pylist()
    assert (direction["chrf"], direction["n_changed"]) == (100.0, 1)


# -- Figure 2, pair by pair ----------------------------------------------------------------
# Four languages, 12 directions, 6 pairs. Each pair's directions are its mean chrF +- 3, so
# the pair means are 10, 20, ..., 60; xSC rises with them but for de-fr / en-fr, swapped.
PAIR_MEANS = {
    ("fr", "zh"): 10.0,
    ("de", "zh"): 20.0,
    ("en", "zh"): 30.0,
    ("de", "fr"): 40.0,
    ("en", "fr"): 50.0,
    ("de", "en"): 60.0,
}
XSC = {("fr", "zh"): 0.3, ("de", "zh"): 0.4, ("en", "zh"): 0.5, ("de", "fr"): 0.8, ("en", "fr"): 0.7, ("de", "en"): 0.9}


def _directions(chrf):
    return pl.DataFrame(
        [
            {
                "dataset": "flores",
                "model": model,
                "source": s,
                "target": t,
                "chrf": v,
                "chrf_pp": v,
                "n_items": 5,
                "n_empty": 0,
                "n_failed": 0,
                "n_too_long": 0,
                "n_refused": 0,
                "n_changed": 0,
            }
            for (model, s, t), v in chrf.items()
        ],
        schema=pl.from_arrow(TRANSLATION_DIRECTIONS.empty_table()).schema,
    )


def _tiny_directions(model="m"):
    chrf = {}
    for (a, b), mean in PAIR_MEANS.items():
        chrf[(model, a, b)], chrf[(model, b, a)] = mean + 3, mean - 3
    return _directions(chrf)


def _pairs(model, metric, values, reverse=None):
    """KNOWLEDGE_PAIRS rows, both orders, from {(lang_i, lang_j): value}; `reverse` overrides
    the value of the (lang_j, lang_i) order."""
    rows = []
    for (i, j), value in values.items():
        for a, b, v in ((i, j, value), (j, i, (reverse or {}).get((i, j), value))):
            rows.append(
                {
                    "dataset": "makqa",
                    "model": model,
                    "variant": "few_shot",
                    "metric": metric,
                    "domain": "all",
                    "lang_i": a,
                    "lang_j": b,
                    "value": v,
                    "n_items": 5,
                }
            )
    return pl.from_arrow(pa.Table.from_pylist(rows, schema=KNOWLEDGE_PAIRS))


def test_each_direction_meets_the_consistency_of_its_language_pair():
    xac = {pair: 0.1 * index for index, pair in enumerate(PAIR_MEANS, start=1)}
    xac[("fr", "zh")] = None  # an undefined xAC pair counts 0, as in the metric
    xsc = {**XSC, ("de", "zh"): None}  # an undefined xSC pair is left out, as in the metric
    pairs = pl.concat([_pairs("m", "xSC", xsc, reverse={("de", "en"): 1.0}), _pairs("m", "xAC", xac)])
    cells = {(row["source"], row["target"]): row for row in pair_cells(_tiny_directions(), pairs).to_dicts()}
    assert len(cells) == 12, "every direction with a scored pair"
    # Both directions of a pair meet the same value: C_st = C_ts (two orders that differ: their mean).
    assert cells[("de", "en")]["xSC"] == cells[("en", "de")]["xSC"] == pytest.approx(0.95)
    assert cells[("en", "fr")]["xSC"] == cells[("fr", "en")]["xSC"] == pytest.approx(0.7)
    assert (cells[("en", "fr")]["chrF"], cells[("fr", "en")]["chrF"]) == (53.0, 47.0)
    assert cells[("zh", "fr")]["xAC"] == 0.0 and cells[("de", "zh")]["xSC"] is None
    assert cells[("zh", "en")]["xAC"] == pytest.approx(0.3)


def test_direction_and_pair_correlations_against_hand_computed_values():
    rows = {
        (row["scope"], row["consistency"]): row
        for row in correlations(_tiny_directions(), _pairs("m", "xSC", XSC)).to_dicts()
    }
    pairs, directions = rows[("pairs", "xSC")], rows[("directions", "xSC")]
    # Pairs (6 points): chrF means 10..60 against xSC .3 .4 .5 .8 .7 .9. Ranks differ only at
    # de-fr / en-fr (d = +-1): rho = 1 - 6 * 2 / (6 * 35) = 0.942857. Pearson: centred chrF
    # -25 -15 -5 5 15 25, centred xSC -.3 -.2 -.1 .2 .1 .3; sum of products 21, squares 1750
    # and 0.28: r = 21 / sqrt(490) = 0.948683.
    assert (
        pairs["n"] == 6
        and pairs["spearman"] == pytest.approx(1 - 12 / 210)
        and pairs["pearson"] == pytest.approx(21 / math.sqrt(490))
    )
    # Directions (12 points, each pair's value twice): the +-3 cancels in the products, sum 2 * 21
    # = 42; chrF squares 2 * 1750 + 12 * 9 = 3608, xSC squares 0.56: r = 42 / sqrt(2020.48).
    # Ranks: chrF 1..12 (centred squares 143), xSC tied in twos (average ranks 1.5, 3.5, ...,
    # centred squares 140), products 132: rho = 132 / sqrt(143 * 140).
    assert directions["n"] == 12
    assert directions["pearson"] == pytest.approx(42 / math.sqrt(3608 * 0.56))
    assert directions["spearman"] == pytest.approx(132 / math.sqrt(143 * 140))
    # The cells share languages: p-values from relabelling the languages of the xSC matrix
    # (Mantel), all 24 relabellings of the 4 languages. Only two reach the observed |coefficient|:
    # the identity and swapping de and en (which exchanges de-zh 0.4 with en-zh 0.5 and de-fr 0.8
    # with en-fr 0.7, the ranks that differ, and keeps the coefficient). So p = 2 / 24 in both
    # scopes (in `directions` the +-3 cancels against the symmetric xSC, as above), where treating
    # the 6 pairs as independent points gave an exact p of 1 / 60 for rho at 6 points.
    for row in (pairs, directions):
        assert row["spearman_p"] == pytest.approx(2 / 24) and row["pearson_p"] == pytest.approx(2 / 24)
        assert row["pearson_ci_low"] is None and row["spearman_ci_high"] is None
        assert row["note"] == MANTEL_NOTE
    assert ("directions", "xAC") not in rows, "no xAC pairs, no xAC rows"


def test_a_model_without_consistency_scores_gets_no_pair_rows():
    directions = pl.concat([_tiny_directions("m"), _tiny_directions("other")])
    table = correlations(directions, _pairs("m", "xSC", XSC))
    assert set(table.filter(pl.col("scope").is_in(["directions", "pairs"]))["model"].to_list()) == {"m"}
    assert set(pair_cells(directions, _pairs("m", "xSC", XSC))["model"].to_list()) == {"m"}


def test_the_report_writes_the_models_and_pairs_tables_and_the_pair_figure(tmp_path):
    direction_file = write_table(_tiny_directions().to_arrow(), tmp_path / "directions.parquet", TRANSLATION_DIRECTIONS)
    pair_file = write_table(
        pl.concat([_pairs("m", "xSC", XSC), _pairs("m", "xAC", XSC)]).to_arrow(),
        tmp_path / "pairs.parquet",
        KNOWLEDGE_PAIRS,
    )
    written = run_report([direction_file], [pair_file], tmp_path / "out", table_formats=["csv"], figure_formats=["png"])
    names = {path.name for path in written}
    assert {"translation_models.csv", "translation_pairs.csv", "figure2_pairs_vs_consistency.png"} <= names
    assert names == {path.name for path in report_outputs(tmp_path / "out", ["m"], ["csv"], ["png"], consistency=True)}
    table = pl.read_csv(tmp_path / "out" / "translation_pairs.csv")
    assert table.columns == ["model", "source", "target", "chrF", "xSC", "xAC"] and table.height == 12
    scopes = pl.read_csv(tmp_path / "out" / "translation_vs_consistency.csv")["scope"].to_list()
    assert {"languages", "models", "directions", "pairs"} <= set(scopes)
    models = pl.read_csv(tmp_path / "out" / "translation_models.csv").row(0, named=True)
    assert models["changed"] == 0.0 and models["directions"] == 12
    alone = run_report([direction_file], [], tmp_path / "alone", table_formats=["csv"], figure_formats=["png"])
    assert "translation_models.csv" in {path.name for path in alone} and "translation_pairs.csv" not in {
        path.name for path in alone
    }
