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

from xlcons.reports.results import INFORMATION_F, results_table
from xlcons.reports.translation_quality import (
    passing_scores,
    plot_qe_heatmap,
    qe_item_scores,
    sensitivity_metrics,
    sensitivity_table,
)
from xlcons.schemas import ITEM_SCORES, TRANSLATED_SENTENCES, TRANSLATION_QE
from xlcons.tables import read_table, write_table
from xlcons.translation.quality import estimate, make_scorer, run_qe_job
from xlcons.translation.quality_comet import comet_checkpoint, comet_scorer
from xlcons.translation.quality_embedding import embedding_scorer
from xlcons.translation.quality_backends import QE_BACKENDS, qe_threshold


def sentences(rows):
    """TRANSLATED_SENTENCES rows from (item_id, lang, index, source, translation)."""
    return pa.Table.from_pylist(
        [{"dataset": "information", "model": "m", "item_id": item, "lang": lang, "sentence_index": index, "source_lang": lang,
          "source": source, "translation": translation, "degenerate_reason": None, "repaired": False, "attempts": 0}
         for item, lang, index, source, translation in rows],
        schema=TRANSLATED_SENTENCES,
    )


def test_each_distinct_pair_is_scored_once_and_every_sentence_gets_its_score():
    calls = []

    def score(sources, translations):
        calls.append(list(zip(sources, translations)))
        return [float(len(t)) for t in translations]

    table = estimate(sentences([("1", "de", 0, "Hallo.", "Hello."), ("1", "de", 1, "Ja ja ja ja", "Yes yes yes yes yes yes"),
                                ("2", "de", 0, "Hallo.", "Hello."), ("3", "de", 0, "Hallo.", "Hallo.")]),
                     score, backend="embedding", model_name="LaBSE")
    assert calls == [[("Hallo.", "Hello."), ("Ja ja ja ja", "Yes yes yes yes yes yes"), ("Hallo.", "Hallo.")]]
    assert table.column("qe").to_pylist() == [6.0, 23.0, 6.0, 6.0], "untranslated and degenerate sentences too"
    assert set(table.column("qe_model").to_pylist()) == {"LaBSE"} and table.schema.equals(TRANSLATION_QE)


def test_the_embedding_backend_is_the_cosine_of_the_two_embeddings(offline_models):
    score = embedding_scorer(offline_models["all-minilm-l6-v2"], batch_size=2)
    same, close, unrelated = score(["The river froze early."] * 3, ["The river froze early.", "The river was frozen early.", "Quarterly revenue fell."])
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
        return types.SimpleNamespace(scores=[len(sample["mt"]) / (len(sample["src"]) + len(sample["mt"])) for sample in samples])


def test_the_comet_backend_loads_the_checkpoint_of_the_model_folder_once_and_predicts_src_mt_pairs(tmp_path, monkeypatch):
    folder = tmp_path / "wmt22-cometkiwi-da"
    (folder / "checkpoints").mkdir(parents=True)
    (folder / "checkpoints" / "model.ckpt").write_bytes(b"weights")
    model, loaded = FakeComet(), []
    monkeypatch.setitem(sys.modules, "comet", types.SimpleNamespace(load_from_checkpoint=lambda path: loaded.append(path) or model))
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
    assert (QE_BACKENDS["embedding"].default_model, QE_BACKENDS["comet"].default_model) == ("sentence-transformers/LaBSE", "Unbabel/wmt22-cometkiwi-da")
    assert qe_threshold({"backend": "comet", "threshold": None}) == 0.5 and qe_threshold({"backend": "embedding", "threshold": 0.2}) == 0.2


def qe_rows(values):
    """TRANSLATION_QE frame from {(item_id, lang): [sentence QE, ...]}."""
    return pl.from_arrow(pa.Table.from_pylist(
        [{"dataset": "information", "model": "m", "item_id": item, "lang": lang, "sentence_index": index, "source_lang": lang,
          "qe": value, "qe_backend": "embedding", "qe_model": "x"}
         for (item, lang), qes in values.items() for index, value in enumerate(qes)], schema=TRANSLATION_QE))


def scores(rows):
    """ITEM_SCORES frame from (evaluator, item_id, lang, metric, value)."""
    return pl.from_arrow(pa.Table.from_pylist(
        [{"dataset": "information", "evaluator": evaluator, "model": "m", "item_id": item, "lang": lang, "metric": metric,
          "value": value, "status": "ok"} for evaluator, item, lang, metric, value in rows], schema=ITEM_SCORES))


def test_an_items_qe_is_the_mean_of_its_sentences_and_it_fails_when_one_is_below_the_threshold():
    rows = qe_item_scores(qe_rows({("1", "de"): [0.9, 0.5], ("2", "de"): [0.8], ("3", "de"): [0.7, 0.75]}), threshold=0.7)
    by = {(row["item_id"], row["metric"]): row["value"] for row in rows.to_dicts()}
    assert by[("1", "qe")] == pytest.approx(0.7) and by[("1", "qe_below")] == 1.0
    assert by[("2", "qe_below")] == 0.0 and by[("3", "qe_below")] == 0.0, "at the threshold passes"
    assert set(rows["evaluator"].to_list()) == {"translation_qe"}


def test_the_consistency_of_passing_items_and_its_difference_with_the_interval_of_the_difference():
    # Items 1-4 in German; item 2's translation fails QE, item 4 has no translated sentence (passes).
    qe = qe_item_scores(qe_rows({("1", "de"): [0.9], ("2", "de"): [0.1], ("3", "de"): [0.8]}), threshold=0.5)
    base = scores([("information", "1", "de", "precision", 1.0), ("information", "2", "de", "precision", 0.0),
                   ("information", "3", "de", "precision", 0.5), ("information", "4", "de", "precision", 0.9),
                   ("information", "1", "de", "recall", 0.8), ("information", "2", "de", "recall", 0.2),
                   ("information", "3", "de", "recall", 0.4), ("information", "4", "de", "recall", 0.6),
                   ("judge", "2", "de", "accuracy", 1.0)])
    passing = passing_scores(base, qe)
    assert sorted(set(passing["metric"].to_list())) == ["precision@qe_pass", "recall@qe_pass"], "not the judge's: it reads no translation"
    assert sorted(set(passing.filter(pl.col("status") == "ok")["item_id"].to_list())) == ["1", "3", "4"]
    assert set(passing.filter(pl.col("item_id") == "2")["status"].to_list()) == {"qe_below"}, "excluded, with its reason"
    combined = pl.concat([base, qe, passing])
    derived = [INFORMATION_F, *sensitivity_metrics(combined, [INFORMATION_F])]
    results = {row["metric"]: row for row in results_table(combined, derived=derived, n_resamples=400, seed=0).to_dicts()
               if row["evaluator"] == "information"}
    # Precision: all 4 items 0.6, passing 3 items (1 + 0.5 + 0.9) / 3 = 0.8, difference 0.2.
    assert results["precision"]["value"] == pytest.approx(0.6) and results["precision@qe_pass"]["value"] == pytest.approx(0.8)
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
