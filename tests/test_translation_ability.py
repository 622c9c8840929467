"""Translation ability (Xing et al. 2024 §5): what of an answer is scored, chrF per direction at corpus
level, per-language means, and their correlation with xSC/xAC, against hand-computed values."""

from __future__ import annotations

import math

import polars as pl
import pyarrow as pa
import pytest

from builders import response_rows, write_flores_sample
from xlcons.datasets.flores import load
from xlcons.evaluators.knowledge.tables import KNOWLEDGE_PAIRS
from xlcons.evaluators.translation_ability import (
    TRANSLATION_DIRECTIONS,
    TranslationAbilityError,
    item_table,
    language_means,
    run_translation_ability,
    score_items,
    scored_text,
    to_results,
)
from xlcons.reports.translation_ability import report_outputs, run_report
from xlcons.reports.translation_ability_tables import consistency_by_language, correlation, correlations
from xlcons.schemas import PROMPTS
from xlcons.tables import read_table, write_table


@pytest.mark.parametrize("mode", ["answer", "first_line"])  # the default, and the first line alone
def test_the_first_line_is_scored_without_an_echoed_target_label(mode):
    assert scored_text("  French: Le chat dort.\n\n(Note: literal translation)", "French", mode) == "Le chat dort."
    assert scored_text("\n\nLe chat dort.\nLe chat dort encore.", "French", mode) == "Le chat dort."
    assert scored_text("french :Le chat", "French", mode) == "Le chat", "the label in any case, spaced either way"
    assert scored_text("Chinese (Simplified): 猫在睡觉。", "Chinese (Simplified)", mode) == "猫在睡觉。"
    assert scored_text(" Le chat.\nNote ", "French", "whole") == "Le chat.\nNote"
    with pytest.raises(ValueError, match="'last_line' is not one of"):
        scored_text("x", "French", "last_line")


def _items(rows):
    """An item table from (item_id, source, target, hypothesis, reference[, status])."""
    return pl.DataFrame(
        [
            {
                "dataset": "flores",
                "model": "m",
                "item_id": item,
                "lang": source,
                "target": target,
                "status": (rest[0] if rest else "ok"),
                "hypothesis": hypothesis,
                "reference": reference,
            }
            for item, source, target, hypothesis, reference, *rest in rows
        ],
        schema={
            name: pl.String
            for name in ("dataset", "model", "item_id", "lang", "target", "status", "hypothesis", "reference")
        },
    )


def test_chrf_is_corpus_level_per_direction_not_the_mean_of_sentences():
    """Hand-computed: 'abcd' = 'abcd' and 'x' vs 'y'. Characters: 4 of 5 match (0.8); 2-, 3- and
    4-grams all match (1, 1, 1); 5- and 6-grams exist in neither. Mean precision = mean recall =
    (0.8 + 1 + 1 + 1) / 4 = 0.95, so chrF = 95.0; the sentences alone score 100 and 0 (mean 50)."""
    items, directions = score_items(_items([("1:de", "en", "de", "abcd", "abcd"), ("2:de", "en", "de", "x", "y")]))
    (row,) = directions.to_dicts()
    assert row["chrf"] == pytest.approx(95.0)
    assert items["chrf"].to_list() == pytest.approx([100.0, 0.0])
    assert row["chrf_pp"] < row["chrf"], "chrF++ adds word unigrams and bigrams, none of 'x'/'y' matching"
    assert (row["n_items"], row["n_empty"], row["n_failed"]) == (2, 0, 0)


def test_a_failed_request_is_left_out_and_an_empty_answer_scores_zero():
    items, directions = score_items(
        _items(
            [
                ("1:de", "en", "de", "abcd", "abcd"),
                ("2:de", "en", "de", None, "zzzz", "error"),
                ("3:de", "en", "de", "", "abcd", "empty"),
            ]
        )
    )
    (row,) = directions.to_dicts()
    assert (row["n_items"], row["n_empty"], row["n_failed"]) == (2, 1, 1)
    # The empty answer adds 4 reference characters and nothing to the hypothesis: recall halves.
    precision, recall = 1.0, 0.5
    assert row["chrf"] == pytest.approx(100 * 5 * precision * recall / (4 * precision + recall))
    assert items["chrf"].to_list()[1] is None


def test_a_prompt_too_long_for_the_model_is_left_out_and_named_among_the_exclusions(tmp_path):
    """A prompt that did not fit the model's context is not scored, like a failed request, and
    the results say which of the two each unscored sentence was."""
    prompts = load(write_flores_sample(tmp_path / "flores"), ["en"], {"limit": 3}, run_languages=["en", "de"])
    responses = response_rows(
        [
            ("1:de", "en", "Der Fluss ist früh zugefroren."),
            ("2:de", "en", None, "prompt_too_long"),
            ("3:de", "en", None, "error"),
        ],
        dataset="flores",
    )
    items, directions = score_items(item_table(prompts, responses))
    assert items.select("item_id", "status").rows() == [("1:de", "ok"), ("2:de", "prompt_too_long"), ("3:de", "error")]
    assert items["chrf"].to_list()[1:] == [None, None]
    (row,) = directions.to_dicts()
    assert (row["n_items"], row["n_failed"], row["n_too_long"]) == (1, 2, 1)
    results = to_results(directions.to_arrow())
    assert set(results["excluded_reasons"].to_list()) == {"error:1; prompt_too_long:1"}
    assert set(results["n_excluded"].to_list()) == {2}


def test_a_refusal_is_not_scored_but_counted_and_named_among_the_exclusions(tmp_path):
    """A refusal, in the model's words or the provider's (`finish_reason` refused), is no
    translation: status `refused`, no chrF, out of its direction's corpus chrF, counted in
    `n_refused` and in the results' `n_excluded` / `excluded_reasons`. An empty answer is still
    the model's failure, scored as the empty translation."""
    prompts = load(write_flores_sample(tmp_path / "flores"), ["en"], {"limit": 4}, run_languages=["en", "de"])
    reference = prompts.to_pylist()[0]["references"][0]
    responses = response_rows(
        [
            ("1:de", "en", f"Here is the translation:\n\n{reference}"),
            ("2:de", "en", "I'm sorry, but I can't translate this sentence."),
            ("3:de", "en", None, "refused"),
            ("4:de", "en", None, "empty"),
        ],
        dataset="flores",
    )
    items, directions = score_items(item_table(prompts, responses))
    assert items.select("item_id", "status", "hypothesis", "changed").rows() == [
        ("1:de", "ok", reference, True),
        ("2:de", "refused", None, None),
        ("3:de", "refused", None, None),
        ("4:de", "empty", "", None),
    ]
    assert items["chrf"].to_list() == [pytest.approx(100.0), None, None, 0.0]
    (row,) = directions.to_dicts()
    assert (row["n_items"], row["n_empty"], row["n_failed"], row["n_refused"]) == (2, 1, 0, 2)
    # The direction's corpus chrF is that of the two scored sentences alone.
    from sacrebleu.metrics import CHRF

    references = [row["references"][0] for row in prompts.to_pylist()]
    assert row["chrf"] == pytest.approx(CHRF().corpus_score([reference, ""], [[references[0], references[3]]]).score)
    results = to_results(directions.to_arrow())
    assert set(results["excluded_reasons"].to_list()) == {"refused:2"}
    assert set(results["n_excluded"].to_list()) == {2}
    assert set(results["n_items"].to_list()) == {2}


def test_answers_are_matched_to_their_prompts_and_failed_requests_marked(tmp_path):
    prompts = load(write_flores_sample(tmp_path / "flores"), ["en"], {"limit": 2}, run_languages=["en", "de"])
    responses = response_rows(
        [("1:de", "en", "German: Der Fluss ist früh zugefroren."), ("2:de", "en", "x", "error")], dataset="flores"
    )
    table = item_table(prompts, responses)
    assert table.select("item_id", "target", "status", "hypothesis").rows() == [
        ("1:de", "de", "ok", "Der Fluss ist früh zugefroren."),
        ("2:de", "de", "error", None),
    ]
    with pytest.raises(TranslationAbilityError, match=r"no answer to prompt 2:de in en \(1 prompts unanswered\)"):
        item_table(prompts, response_rows([("1:de", "en", "x")], dataset="flores"))
    not_translation = pa.Table.from_pylist([{**prompts.to_pylist()[0], "category": None}], schema=PROMPTS)
    with pytest.raises(TranslationAbilityError, match="1:de in en is not a translation request"):
        item_table(not_translation, responses)


def _directions(values):
    """TRANSLATION_DIRECTIONS rows from {(model, source, target): chrF}."""
    return pl.DataFrame(
        [
            {
                "dataset": "flores",
                "model": model,
                "source": s,
                "target": t,
                "chrf": v,
                "chrf_pp": v / 2,
                "n_items": 10,
                "n_empty": 0,
                "n_failed": 1,
                "n_too_long": 0,
                "n_refused": 0,
                "n_changed": 0,
            }
            for (model, s, t), v in values.items()
        ],
        schema=pl.from_arrow(TRANSLATION_DIRECTIONS.empty_table()).schema,
    )


def test_a_languages_chrf_is_the_mean_of_its_directions_out_of_it_into_it_and_both():
    frame = _directions(
        {
            ("m", "en", "de"): 60.0,
            ("m", "de", "en"): 40.0,
            ("m", "en", "zh"): 30.0,
            ("m", "zh", "en"): 10.0,
            ("m", "de", "zh"): 20.0,
            ("m", "zh", "de"): 0.0,
        }
    )
    means = {row["lang"]: row for row in language_means(frame).to_dicts()}
    assert means["en"]["chrF as source"] == pytest.approx(45.0) and means["en"]["chrF as target"] == pytest.approx(25.0)
    assert means["en"]["chrF"] == pytest.approx(35.0) and means["en"]["chrF++"] == pytest.approx(17.5)
    assert means["zh"]["chrF"] == pytest.approx((30 + 10 + 20 + 0) / 4)
    results = {(row["lang"], row["metric"]): row for row in to_results(frame.to_arrow()).to_dicts()}
    assert results[("de", "chrF")]["value"] == pytest.approx(30.0) and results[("de", "chrF")]["kind"] == "corpus"
    assert results[("de", "chrF")]["n_excluded"] == 4 and results[("de", "chrF")]["excluded_reasons"] == "error:4"


def test_correlations_against_hand_computed_values():
    # Pearson of (1,2,3,4) and (1,3,2,4): covariance 4 over variance 5 -> 0.8; Spearman the same (ranks).
    result = correlation([1, 2, 3, 4], [1, 3, 2, 4])
    assert result["pearson"] == pytest.approx(0.8) and result["spearman"] == pytest.approx(0.8)
    # Exact p over the 24 pairings: |rho| >= 0.8 for the identity, the three swaps of neighbours
    # and the reverses of these four (the values are their ranks, so Pearson's p is the same).
    assert result["spearman_p"] == pytest.approx(8 / 24) and result["pearson_p"] == pytest.approx(8 / 24)
    assert result["spearman_ci_low"] is None and result["note"] == "4 points: no interval below 5"
    # Monotone but not linear: Spearman 1, Pearson below it; no interval at 4 points.
    curved = correlation([1, 2, 3, 4], [1, 2, 4, 16])
    assert curved["spearman"] == pytest.approx(1.0) and curved["pearson"] < 1 and curved["spearman_ci_low"] is None
    assert curved["spearman_p"] == pytest.approx(2 / 24)
    assert correlation([1, 2], [2, 1])["spearman"] is None, "fewer than three points"
    assert correlation([1, 2, 3], [5, 5, 5])["pearson"] is None, "a constant has no correlation"


def _pairs(model, metric, values):
    """KNOWLEDGE_PAIRS rows (both orders) from {(lang_i, lang_j): value}."""
    rows = []
    for (i, j), value in values.items():
        for a, b in ((i, j), (j, i)):
            rows.append(
                {
                    "dataset": "makqa",
                    "model": model,
                    "variant": "few_shot",
                    "metric": metric,
                    "domain": "all",
                    "lang_i": a,
                    "lang_j": b,
                    "value": value,
                    "n_items": 5,
                }
            )
    return pl.from_arrow(pa.Table.from_pylist(rows, schema=KNOWLEDGE_PAIRS))


def test_translation_chrf_is_correlated_with_each_languages_mean_consistency_within_and_across_models():
    chrf = {
        ("en", "de"): 60.0,
        ("de", "en"): 60.0,
        ("en", "zh"): 30.0,
        ("zh", "en"): 30.0,
        ("de", "zh"): 20.0,
        ("zh", "de"): 20.0,
        ("en", "ja"): 25.0,
        ("ja", "en"): 25.0,
        ("de", "ja"): 15.0,
        ("ja", "de"): 15.0,
        ("zh", "ja"): 35.0,
        ("ja", "zh"): 35.0,
    }
    directions = pl.concat(
        [
            _directions({(model, s, t): v * scale for (s, t), v in chrf.items()})
            for model, scale in (("a", 1.0), ("b", 0.5), ("c", 0.8))
        ]
    )
    pair_values = {
        ("en", "de"): 0.9,
        ("en", "zh"): 0.5,
        ("de", "zh"): 0.4,
        ("en", "ja"): 0.6,
        ("de", "ja"): 0.3,
        ("zh", "ja"): None,
    }
    pairs = pl.concat(
        [
            _pairs(model, "xAC", {k: (None if v is None else v * scale) for k, v in pair_values.items()})
            for model, scale in (("a", 1.0), ("b", 0.5), ("c", 0.7))
        ]
    )
    per_language = {
        (row["model"], row["lang"]): row["consistency"] for row in consistency_by_language(pairs).to_dicts()
    }
    assert per_language[("a", "zh")] == pytest.approx((0.5 + 0.4 + 0.0) / 3), "an undefined pair counts as 0, as in xAC"
    rows = {(row["scope"], row["model"], row["consistency"]): row for row in correlations(directions, pairs).to_dicts()}
    # Model a per language: chrF en 38.33, de 31.67, zh 28.33, ja 25; xAC en 0.667, de 0.533, zh 0.3, ja 0.3.
    within = rows[("languages", "a", "xAC")]
    assert within["n"] == 4 and within["spearman"] == pytest.approx(0.9486833, abs=1e-6)
    # Across models: mean chrF a 30.83, b 15.42, c 24.67 against overall xAC 0.45, 0.225, 0.315 (same order).
    across = rows[("models", "all", "xAC")]
    assert across["n"] == 3 and across["spearman"] == pytest.approx(1.0)
    assert ("languages", "a", "xSC") not in rows, "no xSC pairs, no xSC rows"


def test_the_report_writes_its_tables_and_figures_with_and_without_makqa(tmp_path):
    directions = _directions(
        {
            ("m", "en", "de"): 50.0,
            ("m", "de", "en"): 40.0,
            ("m", "en", "zh"): 20.0,
            ("m", "zh", "en"): 10.0,
            ("m", "de", "zh"): 5.0,
            ("m", "zh", "de"): 1.0,
        }
    )
    direction_file = write_table(directions.to_arrow(), tmp_path / "directions.parquet", TRANSLATION_DIRECTIONS)
    pairs = pl.concat(
        [
            _pairs("m", "xSC", {("en", "de"): 0.8, ("en", "zh"): 0.5, ("de", "zh"): 0.4}),
            _pairs("m", "xAC", {("en", "de"): 0.6, ("en", "zh"): 0.3, ("de", "zh"): 0.2}),
        ]
    )
    pair_file = write_table(pairs.to_arrow(), tmp_path / "pairs.parquet", KNOWLEDGE_PAIRS)
    alone = run_report([direction_file], [], tmp_path / "alone", table_formats=["csv"], figure_formats=["png"])
    assert sorted(p.name for p in alone) == sorted(
        p.name for p in report_outputs(tmp_path / "alone", ["m"], ["csv"], ["png"])
    )
    both = run_report([direction_file], [pair_file], tmp_path / "both", table_formats=["csv"], figure_formats=["png"])
    assert sorted(p.name for p in both) == sorted(
        p.name for p in report_outputs(tmp_path / "both", ["m"], ["csv"], ["png"], consistency=True)
    )
    table = pl.read_csv(tmp_path / "both" / "translation_vs_consistency.csv")
    within = table.filter((pl.col("scope") == "languages") & (pl.col("consistency") == "xAC")).row(0, named=True)
    assert within["spearman"] == pytest.approx(1.0), "en > de > zh in both"
    assert all(path.stat().st_size > 0 for path in both)


def test_the_job_writes_both_tables(tmp_path):
    prompts = load(write_flores_sample(tmp_path / "flores"), ["en", "de"], {"limit": 2}, run_languages=["en", "de"])
    prompt_file = write_table(prompts, tmp_path / "prompts.parquet", PROMPTS)
    sentences = {row["item_id"] + row["lang"]: row["references"][0] for row in prompts.to_pylist()}
    responses = response_rows(
        [(row["item_id"], row["lang"], sentences[row["item_id"] + row["lang"]]) for row in prompts.to_pylist()],
        dataset="flores",
    )
    response_file = tmp_path / "responses.parquet"
    import pyarrow.parquet as pq

    pq.write_table(responses, response_file)
    run_translation_ability([prompt_file], [response_file], tmp_path / "items.parquet", tmp_path / "directions.parquet")
    directions = read_table(tmp_path / "directions.parquet", TRANSLATION_DIRECTIONS).to_pylist()
    assert [(row["source"], row["target"], row["chrf"], row["n_items"]) for row in directions] == [
        ("en", "de", 100.0, 2),
        ("de", "en", 100.0, 2),
    ]
    assert not any(math.isnan(row["chrf_pp"]) for row in directions)


def test_an_undefined_xsc_pair_is_left_out_of_the_means_as_the_metric_leaves_it_out():
    """Four languages, one pair (zh, ja) without a shared question: its xSC is undefined. The
    metric leaves it out of its mean over the 12 ordered pairs: 2 * (0.9 + 0.6 + 0.7 + 0.5 + 0.4)
    / 10 = 0.62 (counted as 0 it would be 6.2 / 12 = 0.517); so do the report's means."""
    import numpy as np

    from xlcons.evaluators.knowledge.measures import mean_over_pairs

    languages = ["en", "de", "zh", "ja"]
    values = {
        ("en", "de"): 0.9,
        ("en", "zh"): 0.6,
        ("en", "ja"): 0.7,
        ("de", "zh"): 0.5,
        ("de", "ja"): 0.4,
        ("zh", "ja"): None,
    }
    matrix = np.full((4, 4), np.nan)
    for (i, j), value in values.items():
        matrix[languages.index(i), languages.index(j)] = matrix[languages.index(j), languages.index(i)] = (
            np.nan if value is None else value
        )
    assert mean_over_pairs(matrix, nan_as_zero=False) == pytest.approx(0.62), "the metric's xSC"
    pairs = pl.concat(
        [
            _pairs("a", "xSC", {pair: 0.55 for pair in values}),
            _pairs("b", "xSC", values),
            _pairs("c", "xSC", {pair: 0.7 for pair in values}),
            _pairs("b", "xAC", {pair: (None if value is None else value / 2) for pair, value in values.items()}),
        ]
    )
    per_language = {
        (row["model"], row["metric"], row["lang"]): row["consistency"]
        for row in consistency_by_language(pairs).to_dicts()
    }
    assert per_language[("b", "xSC", "zh")] == pytest.approx((0.6 + 0.5) / 2), "the undefined pair left out"
    assert per_language[("b", "xSC", "en")] == pytest.approx((0.9 + 0.6 + 0.7) / 3)
    assert per_language[("b", "xAC", "zh")] == pytest.approx((0.3 + 0.25 + 0.0) / 3), (
        "xAC: an undefined pair counts 0, as in the metric"
    )
    # Across models: mean chrF 10, 20, 30 against overall xSC 0.55, 0.62, 0.70 (0.517 for b if
    # the undefined pair counted 0, and the order would break: Spearman 0.5 instead of 1).
    chrf = {(s, t): 1.0 for s in languages for t in languages if s != t}
    directions = pl.concat(
        [
            _directions({(model, s, t): v * scale for (s, t), v in chrf.items()})
            for model, scale in (("a", 10.0), ("b", 20.0), ("c", 30.0))
        ]
    )
    across = {
        row["consistency"]: row for row in correlations(directions, pairs).to_dicts() if row["scope"] == "models"
    }["xSC"]
    assert across["n"] == 3 and across["spearman"] == pytest.approx(1.0)
    assert across["pearson"] == pytest.approx(np.corrcoef([10, 20, 30], [0.55, 0.62, 0.70])[0, 1])
