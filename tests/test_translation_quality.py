"""Quality estimation of translated sentences and the sensitivity of the consistency scores to
it: both QE backends behind one interface, each distinct pair scored once, the threshold
applied at the results stage, and the scores on passing items with the interval of their
difference, against hand-computed values."""

from __future__ import annotations

import sys
import types

import numpy as np
import polars as pl
import pyarrow as pa
import pytest

from builders import sentences
from xlcons.evaluators.information.derived import INFORMATION_F
from xlcons.reports.qe_round_trip import item_correlation, qe_round_trip_table
from xlcons.reports.qe_scores import passing_scores, qe_item_scores, sensitivity_metrics
from xlcons.reports.results import primary_rows, results_table, with_translator, write_results
from xlcons.reports.translation_quality import plot_qe_heatmap, report_outputs, run_report, sensitivity_table
from xlcons.reports.translator_spread import spread_table
from xlcons.schemas import ITEM_SCORES, TRANSLATED_SENTENCES, TRANSLATION_QE
from xlcons.tables import read_table, write_table
from xlcons.translation.qe_comet import comet_checkpoint
from xlcons.translation.qe_embedding import embedding_scorer
from xlcons.translation.quality import estimate, make_scorer, run_qe_job
from xlcons.translation.quality_backends import QE_BACKENDS, qe_threshold


def test_each_distinct_pair_is_scored_once_and_every_sentence_gets_its_score():
    calls = []

    def score(sources, translations):
        calls.append(list(zip(sources, translations)))
        return [float(len(t)) for t in translations]

    table = estimate(
        sentences(
            [
                ("1", "de", 0, "Hallo.", "Hello."),
                ("1", "de", 1, "Ja ja ja ja", "Yes yes yes yes yes yes"),
                ("2", "de", 0, "Hallo.", "Hello."),
                ("3", "de", 0, "Hallo.", "Hallo."),
            ]
        ),
        score,
        backend="embedding",
        model_name="LaBSE",
    )
    assert calls == [[("Hallo.", "Hello."), ("Ja ja ja ja", "Yes yes yes yes yes yes"), ("Hallo.", "Hallo.")]]
    assert table.column("qe").to_pylist() == [6.0, 23.0, 6.0, 6.0], "untranslated and degenerate sentences too"
    assert set(table.column("qe_model").to_pylist()) == {"LaBSE"} and table.schema.equals(TRANSLATION_QE)


def test_the_embedding_backend_is_the_cosine_of_the_two_embeddings(offline_models):
    score = embedding_scorer(offline_models["all-minilm-l6-v2"], batch_size=2)
    same, close, unrelated = score(
        ["The river froze early."] * 3,
        ["The river froze early.", "The river was frozen early.", "Quarterly revenue fell."],
    )
    assert same == pytest.approx(1.0, abs=1e-5) and unrelated < close < same

    from sentence_transformers import SentenceTransformer

    encoder = SentenceTransformer(str(offline_models["all-minilm-l6-v2"]), local_files_only=True)
    a, b = encoder.encode(["The river froze early.", "Quarterly revenue fell."])
    assert unrelated == pytest.approx(float(a @ b / np.linalg.norm(a) / np.linalg.norm(b)), abs=1e-5)


class FakeComet:
    """COMET's model interface: predict(samples, batch_size, gpus, progress_bar) -> .scores."""

    def __init__(self):
        self.calls = []

    def predict(self, samples, batch_size, gpus, progress_bar):
        self.calls.append((len(samples), batch_size, gpus, progress_bar))
        return types.SimpleNamespace(
            scores=[len(sample["mt"]) / (len(sample["src"]) + len(sample["mt"])) for sample in samples]
        )


def test_the_comet_backend_loads_the_checkpoint_of_the_model_folder_once_and_predicts_src_mt_pairs(
    tmp_path, monkeypatch
):
    folder = tmp_path / "wmt22-cometkiwi-da"
    (folder / "checkpoints").mkdir(parents=True)
    (folder / "checkpoints" / "model.ckpt").write_bytes(b"weights")
    model, loaded = FakeComet(), []
    monkeypatch.setitem(
        sys.modules, "comet", types.SimpleNamespace(load_from_checkpoint=lambda path: loaded.append(path) or model)
    )
    score = make_scorer({"backend": "comet", "batch_size": 16, "gpus": 1}, folder)
    assert score(["ab", "abcd"], ["ab", "a"]) == pytest.approx([0.5, 0.2])
    assert score([], []) == []
    assert loaded == [str(folder / "checkpoints" / "model.ckpt")] and model.calls == [(2, 16, 1, False)]
    with pytest.raises(FileNotFoundError, match="no COMET checkpoint"):
        comet_checkpoint(tmp_path)


def test_the_job_writes_one_qe_table_per_language_and_the_backends_defaults_are_documented(tmp_path):
    files = []
    for lang in ("de", "ar"):
        table = sentences([("1", lang, 0, f"{lang} one", "one"), ("2", lang, 0, f"{lang} two", "two")])
        files.append(write_table(table, tmp_path / f"{lang}.sentences.parquet", TRANSLATED_SENTENCES))
    empty = write_table(TRANSLATED_SENTENCES.empty_table(), tmp_path / "hi.sentences.parquet", TRANSLATED_SENTENCES)
    outputs = [tmp_path / f"{lang}.qe.parquet" for lang in ("de", "ar", "hi")]
    section = {"backend": "embedding", "batch_size": 8, "gpus": 0}
    run_qe_job([*files, empty], outputs, section, "unused", "stand-in", scorer=lambda s, t: [0.5] * len(s))
    tables = [read_table(path, TRANSLATION_QE) for path in outputs]
    assert [t.num_rows for t in tables] == [2, 2, 0] and set(tables[1].column("lang").to_pylist()) == {"ar"}
    assert (QE_BACKENDS["embedding"].default_model, QE_BACKENDS["comet"].default_model) == (
        "sentence-transformers/LaBSE",
        "Unbabel/wmt22-cometkiwi-da",
    )
    assert (
        qe_threshold({"backend": "comet", "threshold": None}) == 0.5
        and qe_threshold({"backend": "embedding", "threshold": 0.2}) == 0.2
    )


def qe_rows(values):
    """TRANSLATION_QE frame from {(item_id, lang): [sentence QE, ...]}."""
    return pl.from_arrow(
        pa.Table.from_pylist(
            [
                {
                    "dataset": "information",
                    "model": "m",
                    "item_id": item,
                    "lang": lang,
                    "sentence_index": index,
                    "source_lang": lang,
                    "qe": value,
                    "qe_backend": "embedding",
                    "qe_model": "x",
                    "copy": False,
                    "off_target": False,
                }
                for (item, lang), qes in values.items()
                for index, value in enumerate(qes)
            ],
            schema=TRANSLATION_QE,
        )
    )


def scores(rows):
    """ITEM_SCORES frame from (evaluator, item_id, lang, metric, value[, status]); a row with a
    status other than ok has no value."""
    return pl.from_arrow(
        pa.Table.from_pylist(
            [
                {
                    "dataset": "information",
                    "evaluator": evaluator,
                    "model": "m",
                    "item_id": item,
                    "lang": lang,
                    "metric": metric,
                    "value": value if not status else None,
                    "status": status[0] if status else "ok",
                }
                for evaluator, item, lang, metric, value, *status in rows
            ],
            schema=ITEM_SCORES,
        )
    )


def test_an_items_qe_is_the_mean_of_its_sentences_and_it_fails_when_one_is_below_the_threshold():
    rows = qe_item_scores(
        qe_rows({("1", "de"): [0.9, 0.5], ("2", "de"): [0.8], ("3", "de"): [0.7, 0.75]}), threshold=0.7
    )
    by = {(row["item_id"], row["metric"]): row["value"] for row in rows.to_dicts()}
    assert by[("1", "qe")] == pytest.approx(0.7) and by[("1", "qe_below")] == 1.0
    assert by[("2", "qe_below")] == 0.0 and by[("3", "qe_below")] == 0.0, "at the threshold passes"
    assert set(rows["evaluator"].to_list()) == {"translation_qe"}


def test_the_consistency_of_passing_items_and_its_difference_with_the_interval_of_the_difference():
    # Items 1-4 in German; item 2's translation fails QE, item 4 has no translated sentence (passes).
    qe = qe_item_scores(qe_rows({("1", "de"): [0.9], ("2", "de"): [0.1], ("3", "de"): [0.8]}), threshold=0.5)
    base = scores(
        [
            ("information", "1", "de", "precision", 1.0),
            ("information", "2", "de", "precision", 0.0),
            ("information", "3", "de", "precision", 0.5),
            ("information", "4", "de", "precision", 0.9),
            ("information", "1", "de", "recall", 0.8),
            ("information", "2", "de", "recall", 0.2),
            ("information", "3", "de", "recall", 0.4),
            ("information", "4", "de", "recall", 0.6),
            ("judge", "2", "de", "accuracy", 1.0),
        ]
    )
    passing = passing_scores(base, qe)
    assert sorted(set(passing["metric"].to_list())) == ["precision@qe_pass", "recall@qe_pass"], (
        "not the judge's: it reads no translation"
    )
    assert sorted(set(passing.filter(pl.col("status") == "ok")["item_id"].to_list())) == ["1", "3", "4"]
    assert set(passing.filter(pl.col("item_id") == "2")["status"].to_list()) == {"qe_below"}, (
        "excluded, with its reason"
    )
    combined = pl.concat([base, qe, passing])
    derived = [INFORMATION_F, *sensitivity_metrics(combined, [INFORMATION_F])]
    results = {
        row["metric"]: row
        for row in results_table(combined, derived=derived, n_resamples=400, seed=0).to_dicts()
        if row["evaluator"] == "information"
    }
    # Precision: all 4 items 0.6, passing 3 items (1 + 0.5 + 0.9) / 3 = 0.8, difference 0.2.
    assert results["precision"]["value"] == pytest.approx(0.6) and results["precision@qe_pass"][
        "value"
    ] == pytest.approx(0.8)
    assert results["precision@qe_pass-all"]["value"] == pytest.approx(0.2)
    assert results["precision@qe_pass"]["excluded_reasons"] == "qe_below:1"
    # F = 2PR/(P+R): all P 0.6, R 0.5 -> 0.5454...; passing P 0.8, R 0.6 -> 0.6857...
    assert results["F"]["value"] == pytest.approx(2 * 0.6 * 0.5 / 1.1)
    assert results["F@qe_pass"]["value"] == pytest.approx(2 * 0.8 * 0.6 / 1.4)
    assert results["F@qe_pass-all"]["value"] == pytest.approx(2 * 0.8 * 0.6 / 1.4 - 2 * 0.6 * 0.5 / 1.1)
    low, high = results["precision@qe_pass-all"]["ci_low"], results["precision@qe_pass-all"]["ci_high"]
    assert low <= 0.2 <= high and high - low < 1.0
    # The same draws give both means: a resample's difference is never beyond what the items allow.
    assert -0.6 <= low and high <= 0.9

    table = sensitivity_table(results_table(combined, derived=derived, n_resamples=50, seed=0))
    precision = table.filter(pl.col("metric") == "precision").row(0, named=True)
    assert (precision["all"], precision["passing"], precision["difference"]) == pytest.approx((0.6, 0.8, 0.2))
    assert (precision["all n"], precision["passing n"]) == (4, 3)
    assert precision["mean QE"] == pytest.approx(0.6) and precision["share below threshold"] == pytest.approx(1 / 3)


def test_the_qe_heatmap_is_drawn_per_data_set(tmp_path):
    qe = qe_item_scores(qe_rows({("1", "de"): [0.9], ("1", "ar"): [0.3]}), threshold=0.5)
    results = results_table(qe, n_resamples=0)
    written = plot_qe_heatmap(results, tmp_path / "heatmap_qe", ["png"])
    assert [p.name for p in written] == ["heatmap_qe.png"] and written[0].stat().st_size > 0


# -- QE against the round trip -------------------------------------------------------------


def round_trips(values):
    """`translationese` f1 ITEM_SCORES rows from {(item_id, lang): f1, or a status for an excluded item}."""
    return scores(
        [
            ("translationese", item, lang, "f1", value)
            if isinstance(value, float)
            else ("translationese", item, lang, "f1", None, value)
            for (item, lang), value in values.items()
        ]
    )


def test_qe_and_the_round_trip_are_correlated_over_items_per_language_against_hand_computed_values():
    # German: four items, QE the mean of each item's sentences: 0.1, 0.4, 0.35, 0.8 against F1
    # 0.2, 0.5, 0.6, 0.9. Item 5 has no QE (nothing translated), item 6's round trip was
    # excluded: neither enters. French has QE but no round trip: no row.
    qe = qe_item_scores(
        qe_rows(
            {
                ("1", "de"): [0.0, 0.2],
                ("2", "de"): [0.4],
                ("3", "de"): [0.3, 0.4],
                ("4", "de"): [0.8],
                ("6", "de"): [0.9],
                ("1", "fr"): [0.5],
                ("2", "fr"): [0.7],
            }
        ),
        threshold=0.5,
    )
    trips = round_trips(
        {
            ("1", "de"): 0.2,
            ("2", "de"): 0.5,
            ("3", "de"): 0.6,
            ("4", "de"): 0.9,
            ("5", "de"): 0.1,
            ("6", "de"): "no_facts",
        }
    )
    table = qe_round_trip_table(pl.concat([qe, trips]))
    assert table["lang"].to_list() == ["de"], "a language without round trips has no row"
    row = table.row(0, named=True)
    assert row["n items"] == 4 and row["note"] == "4 points: no interval below 5"
    # Ranks: QE 1 3 2 4, F1 1 2 3 4; d^2 sums to 2: rho = 1 - 6 * 2 / (4 * (16 - 1)) = 0.8.
    assert row["spearman"] == pytest.approx(0.8)
    # Centred: QE -0.3125 -0.0125 -0.0625 0.3875, F1 -0.35 -0.05 0.05 0.35.
    assert row["pearson"] == pytest.approx(0.2425 / np.sqrt(0.251875 * 0.25))
    assert row["mean QE"] == pytest.approx(0.4125) and row["mean round-trip f1"] == pytest.approx(0.55)
    # Exact two-sided permutation p-values over the 4! = 24 pairings. Spearman: |rho| >= 0.8 for
    # the identity (1), the three swaps of neighbours (0.8) and the reverses of these four: 8 / 24.
    assert row["spearman p"] == pytest.approx(8 / 24)
    from itertools import permutations

    x, y = [0.1, 0.4, 0.35, 0.8], [0.2, 0.5, 0.6, 0.9]
    extreme = sum(abs(np.corrcoef(x, order)[0, 1]) >= abs(row["pearson"]) - 1e-12 for order in permutations(y))
    assert row["pearson p"] == pytest.approx(extreme / 24)
    assert all(row[f"{name} {end}"] is None for name in ("spearman", "pearson") for end in ("ci_low", "ci_high")), (
        "4 items: no interval"
    )
    again = qe_round_trip_table(pl.concat([trips, qe]))
    assert again.equals(table), "the same items give the same row, whatever the row order"


def test_a_perfect_correlation_or_few_items_have_no_interval_but_an_exact_p_value():
    # Perfectly monotone over five items: rho = r = 1, no Fisher-z interval (atanh(1) is
    # infinite), never a [1, 1] one; the exact p-value counts the 2 of 5! = 120 pairings as
    # extreme (the identity and its reverse).
    row = item_correlation([0.1, 0.2, 0.3, 0.4, 0.5], [0.0, 0.1, 0.2, 0.3, 0.4])
    assert row["spearman"] == pytest.approx(1.0) and row["spearman ci_low"] is None and row["spearman ci_high"] is None
    assert (
        row["pearson ci_low"] is None
        and row["spearman p"] == pytest.approx(2 / 120)
        and row["pearson p"] == pytest.approx(2 / 120)
    )
    assert row["note"].startswith("spearman = +1: no interval")
    # Three items, perfectly decreasing: rho = -1, p = 2 / 3! and no interval below 5 items.
    row = item_correlation([0.9, 0.5, 0.1], [0.1, 0.2, 0.3])
    assert (
        row["spearman"] == pytest.approx(-1.0)
        and row["spearman ci_high"] is None
        and row["spearman p"] == pytest.approx(2 / 6)
    )
    assert row["note"] == "3 points: no interval below 5"
    # Six items: the interval exists and holds the coefficient.
    row = item_correlation([0.1, 0.2, 0.3, 0.4, 0.5, 0.6], [0.2, 0.1, 0.4, 0.3, 0.6, 0.5])
    assert row["note"] is None and -1 < row["spearman ci_low"] < row["spearman"] < row["spearman ci_high"] < 1


def test_too_few_items_a_constant_side_or_a_language_without_qe_give_an_empty_row_with_its_reason():
    qe = qe_item_scores(
        qe_rows(
            {
                ("1", "ar"): [0.5],
                ("1", "de"): [0.5],
                ("2", "de"): [0.5],
                ("3", "de"): [0.5],
                ("1", "ja"): [0.2],
                ("2", "ja"): [0.3],
                ("3", "ja"): [0.4],
                ("1", "ru"): [0.1],
                ("2", "ru"): [0.2],
                ("3", "ru"): [0.3],
            }
        ),
        threshold=0.5,
    )
    trips = round_trips(
        {
            ("1", "ar"): 0.7,
            ("1", "de"): 0.1,
            ("2", "de"): 0.5,
            ("3", "de"): 0.9,
            ("1", "ja"): 1.0,
            ("2", "ja"): 1.0,
            ("3", "ja"): 1.0,
            ("1", "hi"): 0.4,
            ("2", "hi"): 0.6,
            ("1", "ru"): "no_answer",
            ("2", "ru"): "no_facts",
            ("3", "ru"): "no_facts",
        }
    )
    table = qe_round_trip_table(pl.concat([qe, trips]))
    rows = {row["lang"]: row for row in table.to_dicts()}
    assert sorted(rows) == ["ar", "de", "hi", "ja", "ru"]
    assert (
        rows["ar"]["n items"] == 1 and "1 item with both QE and a scored round trip, fewer than 3" in rows["ar"]["note"]
    )
    assert rows["ar"]["mean QE"] == pytest.approx(0.5) and rows["ar"]["mean round-trip f1"] == pytest.approx(0.7)
    assert rows["de"]["note"] == "QE constant over the items" and rows["de"]["n items"] == 3
    assert rows["ja"]["note"] == "round-trip f1 constant over the items"
    assert rows["hi"]["n items"] == 0 and rows["hi"]["note"].startswith("no QE in hi")
    assert rows["ru"]["note"] == "no scored round trip (no_facts: 2, no_answer: 1)"
    for row in rows.values():
        assert all(
            row[column] is None
            for column in ("spearman", "spearman ci_low", "spearman p", "pearson", "pearson ci_high")
        ), row["lang"]
    both_constant = item_correlation([0.5, 0.5, 0.5], [1.0, 1.0, 1.0])
    assert both_constant["note"] == "QE and round-trip f1 constant over the items" and both_constant["spearman"] is None
    assert item_correlation([], [])["note"].startswith("0 items") and item_correlation([], [])["mean QE"] is None


def test_no_row_for_a_data_set_without_qe_and_an_empty_table_without_round_trips():
    trips = round_trips({("1", "de"): 0.2, ("2", "de"): 0.5, ("3", "de"): 0.6})
    assert qe_round_trip_table(trips).height == 0, "round trips of a data set that has no QE at all"
    qe = qe_item_scores(qe_rows({("1", "de"): [0.1]}), threshold=0.5)
    empty = qe_round_trip_table(qe)
    assert (
        empty.height == 0 and empty.columns[:4] == ["dataset", "model", "lang", "n items"] and "note" in empty.columns
    )


def test_the_report_writes_the_round_trip_table_only_when_given_the_item_scores(tmp_path):
    qe = qe_item_scores(qe_rows({(str(i), "de"): [q] for i, q in enumerate([0.1, 0.4, 0.35, 0.8])}), threshold=0.3)
    trips = round_trips({(str(i), "de"): f for i, f in enumerate([0.2, 0.5, 0.6, 0.9])})
    item_scores = with_translator(pl.concat([qe, trips]))
    write_table(item_scores.to_arrow(), tmp_path / "item_scores.parquet", ITEM_SCORES)
    write_results(results_table(item_scores, n_resamples=20), tmp_path / "results")
    assert [p.name for p in report_outputs(tmp_path, ["m"], ["csv", "markdown"], ["png"], round_trip=True)] == [
        "sensitivity.csv",
        "sensitivity.md",
        "qe_round_trip.csv",
        "qe_round_trip.md",
        "heatmap_qe.png",
    ]
    assert "qe_round_trip.csv" not in [p.name for p in report_outputs(tmp_path, ["m"], ["csv"], ["png"])]

    written = run_report(
        tmp_path / "results.parquet",
        tmp_path / "with",
        table_formats=["csv", "markdown"],
        figure_formats=["png"],
        item_scores_path=tmp_path / "item_scores.parquet",
    )
    assert sorted(p.name for p in written) == [
        "heatmap_qe.png",
        "qe_round_trip.csv",
        "qe_round_trip.md",
        "sensitivity.csv",
        "sensitivity.md",
    ]
    table = pl.read_csv(tmp_path / "with/qe_round_trip.csv")
    assert table["spearman"].to_list() == pytest.approx([0.8]) and table["n items"].to_list() == [4]
    assert (
        (tmp_path / "with/qe_round_trip.md")
        .read_text(encoding="utf-8")
        .startswith("| dataset | model | lang | n items | spearman |")
    )
    assert not list((tmp_path / "with").glob(".*.tmp")), "written atomically, no temporary left behind"
    alone = run_report(tmp_path / "results.parquet", tmp_path / "alone", table_formats=["csv"], figure_formats=["png"])
    assert sorted(p.name for p in alone) == ["heatmap_qe.png", "sensitivity.csv"]


# -- Several translators ------------------------------------------------------------------


def translated_scores(values: dict[str, list[float]]) -> pl.DataFrame:
    """ITEM_SCORES rows of information precision and recall per translator: the same items, `values[translator]`."""
    rows = [
        {
            "dataset": "information",
            "evaluator": "information",
            "translator": translator,
            "model": "m",
            "item_id": str(index),
            "lang": "de",
            "metric": metric,
            "value": value,
            "status": "ok",
        }
        for translator, scores in values.items()
        for index, value in enumerate(scores)
        for metric in ("precision", "recall")
    ]
    return pl.from_arrow(pa.Table.from_pylist(rows, schema=ITEM_SCORES))


def test_the_same_cell_under_two_translators_is_two_rows_resampled_alike():
    scores = translated_scores({"nllb": [0.2, 0.4, 0.9], "madlad": [0.2, 0.4, 0.9], "other": [0.5, 0.5, 0.8]})
    results = results_table(scores, derived=[INFORMATION_F], n_resamples=200, seed=1)
    precision = results.filter(metric="precision").sort("translator")
    assert precision["translator"].to_list() == ["madlad", "nllb", "other"]
    assert precision["value"].to_list() == pytest.approx([0.5, 0.5, 0.6])
    by = {row["translator"]: (row["ci_low"], row["ci_high"]) for row in precision.iter_rows(named=True)}
    assert by["nllb"] == by["madlad"], "the same items drawn for every translator: a paired spread"


def test_the_spread_table_gives_each_translators_value_and_their_range():
    scores = translated_scores({"nllb": [0.2, 0.4, 0.9], "madlad": [0.5, 0.5, 0.8]})
    other = pl.from_arrow(
        pa.Table.from_pylist(
            [
                {
                    "dataset": "multiq",
                    "evaluator": "language_id",
                    "translator": "",
                    "model": "m",
                    "item_id": "1",
                    "lang": "de",
                    "metric": "fidelity_same",
                    "value": 1.0,
                    "status": "ok",
                }
            ],
            schema=ITEM_SCORES,
        )
    )
    results = results_table(pl.concat([scores, other]), derived=[INFORMATION_F], n_resamples=0)
    table = spread_table(results, ["nllb", "madlad"])
    assert table.columns == [
        "dataset",
        "evaluator",
        "model",
        "lang",
        "metric",
        "nllb",
        "madlad",
        "lowest",
        "highest",
        "range",
        "n translators",
    ]
    f = table.filter(metric="F").row(0, named=True)
    assert f["nllb"] == pytest.approx(0.5) and f["madlad"] == pytest.approx(0.6)  # F of equal P and R is their value
    assert (
        f["range"] == pytest.approx(0.1)
        and (f["lowest"], f["highest"]) == pytest.approx((0.5, 0.6))
        and f["n translators"] == 2
    )
    assert set(table["evaluator"].to_list()) == {"information"}, "evaluators that read no translation are not in it"
    alone = spread_table(results.filter(pl.col("translator") != "madlad"), ["nllb", "madlad"])
    assert alone.filter(metric="F").row(0, named=True)["range"] is None, "one translator with a value: no range"


def test_the_tables_made_for_one_translator_show_the_primarys_rows():
    scores = translated_scores({"nllb": [0.2, 0.4, 0.9], "madlad": [0.5, 0.5, 0.8]})
    results = results_table(scores, n_resamples=0)
    assert set(primary_rows(results, "nllb")["translator"].to_list()) == {"nllb"}
    assert primary_rows(results, None).height == results.height


def test_the_results_stage_names_the_translator_of_each_file(tmp_path):
    from xlcons.reports.aggregate import collect_qe

    qe = pa.Table.from_pylist(
        [
            {
                "dataset": "information",
                "model": "m",
                "item_id": "1",
                "lang": "de",
                "sentence_index": 0,
                "source_lang": "de",
                "qe": 0.4,
                "qe_backend": "embedding",
                "qe_model": "LaBSE",
                "copy": False,
                "off_target": False,
            }
        ],
        schema=TRANSLATION_QE,
    )
    write_table(qe, tmp_path / "a.qe.parquet", TRANSLATION_QE)
    write_table(qe, tmp_path / "b.qe.parquet", TRANSLATION_QE)
    frame = collect_qe(
        [tmp_path / "a.qe.parquet", tmp_path / "b.qe.parquet"], {str(tmp_path / "b.qe.parquet"): "madlad"}
    )
    assert frame["translator"].to_list() == ["", "madlad"]
    rows = qe_item_scores(frame, threshold=0.5)
    assert sorted(set(rows["translator"].to_list())) == ["", "madlad"] and rows.height == 2 * 5, (
        "five QE metrics per item"
    )


def test_a_cell_under_two_translators_with_different_items_is_resampled_by_item_id():
    """nllb scored items 0-4, madlad items 1-5 (its item 0 excluded). The resamples draw from
    the union of the ids, 0-5, once for both, and each translator's mean takes its own scores
    of the drawn ids; with the same seed, its interval is this plain loop's."""
    from xlcons.derived_metrics import harmonic_mean
    from xlcons.reports.bootstrap import cell_rng

    nllb = {str(i): v for i, v in enumerate([0.2, 0.9, 0.4, 0.7, 0.1])}
    madlad = {str(i + 1): v for i, v in enumerate([0.8, 0.5, 0.6, 0.3, 1.0])}
    rows = [
        {
            "dataset": "information",
            "evaluator": "information",
            "translator": translator,
            "model": "m",
            "item_id": item,
            "lang": "de",
            "metric": metric,
            "value": value * (1.0 if metric == "precision" else 0.5),
            "status": "ok",
        }
        for translator, values in (("nllb", nllb), ("madlad", madlad))
        for item, value in values.items()
        for metric in ("precision", "recall")
    ]
    rows += [
        {
            "dataset": "information",
            "evaluator": "information",
            "translator": "madlad",
            "model": "m",
            "item_id": "0",
            "lang": "de",
            "metric": metric,
            "value": None,
            "status": "no_facts",
        }
        for metric in ("precision", "recall")
    ]
    frame = pl.from_arrow(pa.Table.from_pylist(rows, schema=ITEM_SCORES))
    results = results_table(frame, derived=[INFORMATION_F], n_resamples=300, seed=5)
    ids = [str(i) for i in range(6)]
    for metric in ("precision", "F"):
        draws = cell_rng(5, "information", "information", "m", "de", metric).integers(0, 6, size=(300, 6))
        for translator, values in (("nllb", nllb), ("madlad", madlad)):
            samples = []
            for draw in draws:
                scored = [values[ids[i]] for i in draw if ids[i] in values]
                if not scored:
                    continue
                precision, recall = np.mean(scored), 0.5 * np.mean(scored)
                samples.append(precision if metric == "precision" else float(harmonic_mean(precision, recall)))
            row = results.filter(metric=metric, translator=translator).row(0, named=True)
            assert (row["ci_low"], row["ci_high"]) == pytest.approx(tuple(np.quantile(samples, [0.025, 0.975]))), (
                metric,
                translator,
            )
            assert row["n_items"] == 5


def test_the_difference_spread_gives_each_model_pairs_difference_under_each_translator():
    """F: m1 0.50 / 0.60 and m2 0.45 / 0.62 under nllb / madlad: differences m1 - m2 of +0.05 and
    -0.02, range 0.07, the sign flips. ER: m1 0.5 / 0.6, m2 0.4 / 0.5: each score moves 0.1 with
    the translator, the difference (0.1) not at all."""
    from xlcons.reports.translator_spread import difference_spread_table

    values = {
        ("information", "F"): {
            ("m1", "nllb"): 0.50,
            ("m1", "madlad"): 0.60,
            ("m2", "nllb"): 0.45,
            ("m2", "madlad"): 0.62,
        },
        ("empathy", "ER"): {
            ("m1", "nllb"): 0.5,
            ("m1", "madlad"): 0.6,
            ("m2", "nllb"): 0.4,
            ("m2", "madlad"): 0.5,
            ("m3", "nllb"): 0.3,
        },
    }
    results = pl.DataFrame(
        [
            {
                "dataset": "d",
                "evaluator": evaluator,
                "translator": translator,
                "model": model,
                "lang": "de",
                "metric": metric,
                "value": value,
            }
            for (evaluator, metric), cells in values.items()
            for (model, translator), value in cells.items()
        ]
    )
    table = difference_spread_table(results, ["nllb", "madlad"])
    assert table.columns == [
        "dataset",
        "evaluator",
        "lang",
        "metric",
        "model_a",
        "model_b",
        "nllb",
        "madlad",
        "lowest",
        "highest",
        "range",
        "n translators",
        "same sign",
    ]
    rows = {(r["metric"], r["model_a"], r["model_b"]): r for r in table.to_dicts()}
    assert set(rows) == {("F", "m1", "m2"), ("ER", "m1", "m2"), ("ER", "m1", "m3"), ("ER", "m2", "m3")}
    f = rows[("F", "m1", "m2")]
    assert (f["nllb"], f["madlad"]) == (pytest.approx(0.05), pytest.approx(-0.02))
    assert (f["lowest"], f["highest"], f["range"]) == (pytest.approx(-0.02), pytest.approx(0.05), pytest.approx(0.07))
    assert f["n translators"] == 2 and f["same sign"] is False
    er = rows[("ER", "m1", "m2")]
    assert er["range"] == pytest.approx(0.0) and er["same sign"] is True
    assert spread_table(results, ["nllb", "madlad"]).filter(metric="ER", model="m1")[
        "range"
    ].to_list() == pytest.approx([0.1])
    lone = rows[("ER", "m1", "m3")]  # m3 has no madlad value: one difference, no range or sign
    assert (lone["nllb"], lone["madlad"], lone["range"], lone["same sign"]) == (pytest.approx(0.2), None, None, None)
    chosen = difference_spread_table(results, ["nllb", "madlad"], pairs=[("m2", "m1")])
    assert chosen.select("metric", "model_a", "model_b").rows() == [("ER", "m2", "m1"), ("F", "m2", "m1")]
    assert chosen.filter(metric="F")["nllb"].to_list() == pytest.approx([-0.05])
    assert "translator_difference_spread.csv" in [
        p.name for p in report_outputs("out", ["m1"], ["csv"], ["png"], qe=False, spread=True)
    ]
