"""Knowledge consistency (Xing et al. 2024): chrF, Spearman, xAC, xTC, xSC, xC — and the published numbers.

The hand-computed values below follow sacrebleu's chrF definition (character n-grams of
order 1..6 with whitespace removed; precision and recall averaged over the orders that
both strings have; F_beta with beta = 2, on a 0-100 scale) and Spearman's rho as the
Pearson correlation of average ranks.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.stats import spearmanr

from builders import gold_prompts
from xlcons.datasets.makqa import LANGUAGES, load
from xlcons.datasets.makqa_released import read_released
from xlcons.embeddings import sentence_transformer_embedder
from xlcons.evaluators.knowledge.measures import (
    ChrF,
    chrf,
    harmonic_mean,
    mean_over_pairs,
    semantic_matrix,
    spearman_matrix,
    timeliness_scores,
)
from xlcons.evaluators.knowledge.metrics import score_knowledge
from xlcons.evaluators.knowledge.tables import KNOWLEDGE_ITEMS, KNOWLEDGE_PAIRS, KNOWLEDGE_SCORES


# -- chrF ------------------------------------------------------------------------------------
def test_chrf_is_lowercased_character_fbeta2_averaged_over_the_shared_orders():
    # "ab" vs "abc": order 1 P = 2/2, R = 2/3; order 2 P = 1/1, R = 1/2; order 3+ absent from
    # the hypothesis. Mean P = 1, mean R = 7/12; F2 = 5PR / (4P + R) = 7/11.
    assert chrf("AB", ["abc"]) == pytest.approx(100 * 7 / 11)
    # "abc" vs "abd": P = R = (2/3 + 1/2 + 0) / 3 = 7/18 at every order present.
    assert chrf("abc", ["abd"]) == pytest.approx(100 * 7 / 18)
    assert chrf("a b c", ["ABC"]) == pytest.approx(100.0), "whitespace is not part of the character n-grams"
    assert chrf("", ["abc"]) == 0.0 and chrf("xyz", ["abc"]) == 0.0


def test_several_gold_answers_score_as_the_best_matching_one():
    golds = ["xyz", "abcd", "abc"]
    scorer = ChrF()
    # "ab" vs "abcd": mean P = 1, mean R = (2/4 + 1/3) / 2 = 5/12, F2 = 25/53
    assert list(scorer.per_reference("AB", golds)) == pytest.approx([0.0, 100 * 25 / 53, 100 * 7 / 11])
    assert chrf("AB", golds) == pytest.approx(100 * 7 / 11)
    assert scorer.score("AB", golds) == scorer.per_reference("AB", golds).max()


# -- Spearman and the pair mean ----------------------------------------------------------
def test_spearman_matrix_matches_hand_computed_values():
    rho, shared = spearman_matrix(np.array([[10, 15, 0, 1], [20, 5, 0, 2], [30, 35, 50, 3], [40, 25, 100, 4]], float))
    assert rho[0, 1] == pytest.approx(0.6)  # ranks 1234 vs 2143: 1 - 6*4 / (4*15)
    assert rho[2, 3] == pytest.approx(math.sqrt(0.9))  # ties: ranks 1.5 1.5 3 4 vs 1 2 3 4
    assert np.allclose(rho, rho.T, equal_nan=True) and np.isnan(np.diag(rho)).all()
    assert (shared == 4).all()


@pytest.mark.filterwarnings("ignore::scipy.stats.ConstantInputWarning")
def test_spearman_matrix_agrees_with_scipy_including_ties_and_missing_answers():
    rng = np.random.default_rng(0)
    values = rng.integers(0, 5, size=(40, 6)).astype(float)  # many ties
    values[rng.random(values.shape) < 0.1] = np.nan
    values[:, 5] = np.where(np.isnan(values[:, 5]), np.nan, 7.0)  # a constant column
    rho, shared = spearman_matrix(values)
    for i, j in itertools.combinations(range(6), 2):
        rows = ~np.isnan(values[:, i]) & ~np.isnan(values[:, j])
        expected = spearmanr(values[rows, i], values[rows, j]).statistic
        assert shared[i, j] == rows.sum()
        assert (np.isnan(rho[i, j]) and np.isnan(expected)) or rho[i, j] == pytest.approx(expected, abs=1e-12)


def test_xac_averages_ordered_pairs_and_counts_nan_as_zero():
    # en/de correlate at 0.6; fr always scores 0, so both of its correlations are NaN -> 0.
    acc = np.array([[10, 15, 0], [20, 5, 0], [30, 35, 0], [40, 25, 0]], float)
    rho, _ = spearman_matrix(acc)
    assert mean_over_pairs(rho) == pytest.approx((0.6 + 0.6 + 0 + 0 + 0 + 0) / 6)
    unordered = np.nan_to_num([rho[i, j] for i, j in itertools.combinations(range(3), 2)]).mean()
    assert mean_over_pairs(rho) == pytest.approx(unordered), "Spearman is symmetric: ordered = unordered mean"


# -- xTC -------------------------------------------------------------------------------------
def test_tscore_is_best_chrf_over_the_rank_of_the_best_candidate():
    # candidates in release order (oldest first)
    scores = [[10.0, 20.0, 90.0], [80.0, 0.0], [0.0, 0.0, 0.0], [50.0, 50.0, 10.0]]
    tscore, rank = timeliness_scores(scores, "list_position")
    assert list(tscore) == pytest.approx([30.0, 80.0, 0.0, 50.0])
    assert list(rank) == [3, 1, 0, 1]
    tscore, rank = timeliness_scores(scores, "recency")
    assert list(tscore) == pytest.approx([90.0, 40.0, 0.0, 25.0]), "ties go to the better rank"
    assert list(rank) == [1, 2, 0, 2]


def _timeliness_case():
    """3 questions x 3 languages; candidates share no characters, so chrF is 100 or 0."""
    candidates = {"Q1-P54": ["aaa", "bbb", "ccc"], "Q2-P54": ["ddd", "eee"], "Q3-P54": ["fff", "ggg", "hhh", "iii"]}
    answers = {
        "en": {"Q1-P54": "ccc", "Q2-P54": "eee", "Q3-P54": "fff"},
        "de": {"Q1-P54": "aaa", "Q2-P54": "eee", "Q3-P54": "iii"},
        "fr": {"Q1-P54": "bbb", "Q2-P54": "zzz", "Q3-P54": "ggg"},
    }
    prompts = [
        {
            "dataset": "makqa",
            "item_id": f"timeliness/{q}",
            "lang": lang,
            "prompt": "?",
            "category": "timeliness",
            "references": refs,
            "source_lang": lang,
        }
        for lang in answers
        for q, refs in candidates.items()
    ]
    responses = [
        {"item_id": f"timeliness/{q}", "lang": lang, "response": text}
        for lang in answers
        for q, text in answers[lang].items()
    ]
    return prompts, responses


def test_xtc_on_a_hand_made_example_differs_between_the_two_rankings():
    prompts, responses = _timeliness_case()
    # list_position Tscores: en 33.3 50 100, de 100 50 25, fr 50 0 50
    #   -> rho(en,de) = -1, rho(en,fr) = 0, rho(de,fr) = 0
    by_position = score_knowledge(responses, prompts, model="m", ranking="list_position")
    assert by_position.value("xTC") == pytest.approx(-1 / 3)
    # recency Tscores: en 100 100 25, de 33.3 100 100, fr 50 0 33.3
    #   -> rho(en,de) = -0.5, rho(en,fr) = 0, rho(de,fr) = -1.5 / sqrt(3)
    by_recency = score_knowledge(responses, prompts, model="m", ranking="recency")
    assert by_recency.value("xTC") == pytest.approx((-0.5 + 0 - 1.5 / math.sqrt(3)) / 3)
    ranks = {(r["item_id"], r["lang"]): r["best_rank"] for r in by_recency.items.to_pylist()}
    assert ranks[("timeliness/Q1-P54", "en")] == 1 and ranks[("timeliness/Q2-P54", "fr")] is None


def test_an_unknown_ranking_is_refused():
    prompts, responses = _timeliness_case()
    with pytest.raises(ValueError, match="ranking"):
        score_knowledge(responses, prompts, model="m", ranking="newest")


# -- xSC -------------------------------------------------------------------------------------
class FakeEmbedder:
    """Deterministic random vectors per text; records what it was asked to embed."""

    def __init__(self, dim: int = 8):
        self.dim, self.vectors, self.calls = dim, {}, []

    def __call__(self, texts):
        self.calls.append(list(texts))
        rng = np.random.default_rng(len(self.vectors))
        for text in texts:
            self.vectors.setdefault(text, rng.normal(size=self.dim) * 3)
        return np.array([self.vectors[t] for t in texts])


def test_semantic_matrix_matches_a_brute_force_double_loop():
    rng = np.random.default_rng(1)
    vectors = rng.normal(size=(7, 4, 5))
    vectors /= np.linalg.norm(vectors, axis=2, keepdims=True)
    present = rng.random((7, 4)) > 0.2
    matrix, shared = semantic_matrix(vectors, present)
    for i, j in itertools.permutations(range(4), 2):
        cosines = [float(vectors[t, i] @ vectors[t, j]) for t in range(7) if present[t, i] and present[t, j]]
        assert shared[i, j] == len(cosines)
        assert matrix[i, j] == pytest.approx(sum(cosines) / len(cosines))


def _geo_case():
    langs = ["en", "de", "fr"]
    golds = {
        "en": {"Q1-P30": ["Europe"], "Q2-P30": ["Asia", "Europe"], "Q3-P30": ["Africa"]},
        "de": {"Q1-P30": ["Europa"], "Q2-P30": ["Asien", "Europa"], "Q3-P30": ["Afrika"]},
        "fr": {"Q1-P30": ["Europe"], "Q2-P30": ["Asie", "Europe"], "Q3-P30": ["Afrique"]},
    }
    prompts = [
        {
            "dataset": "makqa",
            "item_id": f"geo/{q}",
            "lang": lang,
            "prompt": "?",
            "category": "geo",
            "references": refs,
            "source_lang": lang,
        }
        for lang in langs
        for q, refs in golds[lang].items()
    ]
    answers = {
        ("geo/Q1-P30", "en"): "Europe",
        ("geo/Q1-P30", "de"): "Europa",
        ("geo/Q1-P30", "fr"): "Europe de l'Ouest",
        ("geo/Q2-P30", "en"): "Asia",
        ("geo/Q2-P30", "de"): "",
        ("geo/Q2-P30", "fr"): "Asie",
        ("geo/Q3-P30", "en"): "Egypt",
        ("geo/Q3-P30", "fr"): "Afrique",  # de missing
    }
    responses = [{"item_id": i, "lang": lang, "response": text} for (i, lang), text in answers.items()]
    return langs, golds, prompts, answers, responses


def test_xsc_embeds_each_text_once_and_matches_a_brute_force_double_loop():
    langs, golds, prompts, answers, responses = _geo_case()
    embed = FakeEmbedder()
    result = score_knowledge(responses, prompts, model="m", embed=embed)
    assert len(embed.calls) == 1
    texts = embed.calls[0]
    assert len(texts) == len(set(texts)) and "" not in texts

    def unit(text):
        v = embed.vectors[text]
        return v / np.linalg.norm(v)

    def brute(pick):
        pairs = []
        for i, j in itertools.permutations(langs, 2):
            cos = []
            for q in golds["en"]:
                a, b = pick(q, i), pick(q, j)
                if a is None or b is None:
                    continue  # a missing answer leaves the question out of this pair
                cos.append(0.0 if not a or not b else float(unit(a) @ unit(b)))  # empty: cosine 0
            pairs.append(sum(cos) / len(cos))
        return sum(pairs) / len(pairs)

    assert result.value("xSC", "geo") == pytest.approx(brute(lambda q, lang: answers.get((f"geo/{q}", lang))))
    assert result.value("xSC") == pytest.approx(result.value("xSC", "geo")), "one domain: pooled = the domain"
    oracle = brute(lambda q, lang: ", ".join(golds[lang][q]))
    assert result.value("xSC_oracle") == pytest.approx(oracle), "the oracle embeds all gold answers joined"
    row = next(r for r in result.scores.to_pylist() if r["metric"] == "xSC" and r["domain"] == "all")
    assert (row["n_items"], row["n_excluded"], row["n_empty"]) == (3, 1, 1)


def test_xsc_runs_on_any_parallel_data_set_without_gold_answers():
    """MultiQ-like rows: no references, numeric ids, categories. xSC only; xAC absent; xC missing."""
    langs = ["en", "de", "sw"]
    prompts = [
        {
            "dataset": "multiq",
            "item_id": str(i),
            "lang": lang,
            "prompt": "?",
            "category": cat,
            "references": None,
            "source_lang": lang,
        }
        for i, cat in ((0, "science"), (1, "science"), (2, None))
        for lang in langs
    ]
    answers = {
        ("0", "en"): "Water",
        ("0", "de"): "Wasser",
        ("0", "sw"): "Maji",
        ("1", "en"): "Mars",
        ("1", "de"): "Mars",
        ("1", "sw"): "",
        ("2", "en"): "Seven",
        ("2", "de"): "Sieben",
    }  # sw missing
    responses = [{"model": "m", "item_id": i, "lang": lang, "response": t} for (i, lang), t in answers.items()]
    embed = FakeEmbedder()
    result = score_knowledge(responses, prompts, dataset="multiq", embed=embed)
    metrics = {(r["metric"], r["domain"]) for r in result.scores.to_pylist()}
    assert metrics == {("xSC", "science"), ("xSC", "uncategorised"), ("xSC", "all"), ("xC", "all")}
    assert np.isnan(result.value("xC")), "without gold answers there is no xAC, so xC is missing, not zero"

    def unit(text):
        v = embed.vectors[text]
        return v / np.linalg.norm(v)

    pairs = []
    for i, j in itertools.permutations(langs, 2):
        cos = [
            0.0 if not answers[(q, i)] or not answers[(q, j)] else float(unit(answers[(q, i)]) @ unit(answers[(q, j)]))
            for q in ("0", "1", "2")
            if (q, i) in answers and (q, j) in answers
        ]
        pairs.append(sum(cos) / len(cos))
    assert result.value("xSC") == pytest.approx(sum(pairs) / len(pairs)), "all categories pooled under 'all'"
    items = result.items.to_pylist()
    assert len(items) == 9 and all(row["chrf"] is None for row in items)
    assert sorted(row["status"] for row in items).count("missing") == 1


def test_a_data_set_with_gold_answers_gets_xac_grouped_by_category():
    langs, golds, prompts, answers, responses = _geo_case()
    generic = [
        {**row, "dataset": "quiz", "item_id": row["item_id"].split("/")[1], "category": "capitals"} for row in prompts
    ]
    renamed = [{**row, "item_id": row["item_id"].split("/")[1]} for row in responses]
    ours = score_knowledge(renamed, generic, model="m", dataset="quiz")
    makqa = score_knowledge(responses, prompts, model="m")
    assert ours.value("xAC", "capitals") == pytest.approx(makqa.value("xAC", "geo"))
    assert ours.value("xAC") == pytest.approx(makqa.value("xAC"))


def test_items_without_gold_answers_stay_out_of_xac_in_a_set_that_has_some():
    """A user set may give gold answers for some items only: xAC is computed on those, exactly
    as if the others were not there; the others get no chrF."""
    langs, golds, prompts, answers, responses = _geo_case()
    extra = [{**prompts[0], "item_id": "geo/Q9-P30", "lang": lang, "references": None} for lang in langs]
    extra_answers = [{**responses[0], "item_id": "geo/Q9-P30", "lang": lang, "response": "anything"} for lang in langs]
    with_ungraded = score_knowledge(responses + extra_answers, prompts + extra, model="m")
    assert with_ungraded.value("xAC") == pytest.approx(score_knowledge(responses, prompts, model="m").value("xAC"))
    ungraded = [row for row in with_ungraded.items.to_pylist() if row["item_id"] == "geo/Q9-P30"]
    assert len(ungraded) == 3 and all(row["chrf"] is None for row in ungraded)


def test_pair_tables_hold_every_ordered_pair_and_are_symmetric():
    langs, _, prompts, _, responses = _geo_case()
    result = score_knowledge(responses, prompts, model="m", embed=FakeEmbedder())
    pairs = [r for r in result.pairs.to_pylist() if r["metric"] == "xSC" and r["domain"] == "all"]
    assert len(pairs) == 3 * 2
    value = {(r["lang_i"], r["lang_j"]): r["value"] for r in pairs}
    assert all(value[(a, b)] == pytest.approx(value[(b, a)]) for a, b in value)
    assert {r["n_items"] for r in pairs if {r["lang_i"], r["lang_j"]} == {"en", "de"}} == {2}
    assert result.scores.schema == KNOWLEDGE_SCORES and result.pairs.schema == KNOWLEDGE_PAIRS
    assert result.items.schema == KNOWLEDGE_ITEMS


# -- empty and missing answers, xC ------------------------------------------------------------
def test_empty_answers_score_zero_and_errors_are_left_out():
    langs, golds, prompts, answers, responses = _geo_case()
    responses = [dict(r) for r in responses]
    responses[0]["finish_reason"] = "empty"  # Q1/en: the stage wrote "No answer" -> scored as empty
    responses[0]["response"] = "No answer"
    responses.append({"item_id": "geo/Q3-P30", "lang": "de", "response": "No answer", "finish_reason": "error"})
    items = {(r["item_id"], r["lang"]): r for r in score_knowledge(responses, prompts, model="m").items.to_pylist()}
    assert items[("geo/Q1-P30", "en")]["status"] == "empty" and items[("geo/Q1-P30", "en")]["chrf"] == 0.0
    assert items[("geo/Q2-P30", "de")]["status"] == "empty"
    assert items[("geo/Q3-P30", "de")]["status"] == "missing" and items[("geo/Q3-P30", "de")]["chrf"] is None
    assert items[("geo/Q2-P30", "fr")]["chrf"] == pytest.approx(100.0)
    assert items[("geo/Q1-P30", "de")]["chrf"] == pytest.approx(100.0)


@pytest.mark.filterwarnings("ignore::scipy.stats.ConstantInputWarning")
def test_xac_through_score_knowledge_is_the_spearman_mean():
    langs, golds, prompts, answers, responses = _geo_case()
    result = score_knowledge(responses, prompts, model="m")
    acc = np.full((3, 3), np.nan)
    for t, q in enumerate(golds["en"]):
        for j, lang in enumerate(langs):
            text = answers.get((f"geo/{q}", lang))
            if text is not None:
                acc[t, j] = chrf(text, golds[lang][q])
    expected = []
    for i, j in itertools.permutations(range(3), 2):
        rows = ~np.isnan(acc[:, i]) & ~np.isnan(acc[:, j])
        r = spearmanr(acc[rows, i], acc[rows, j]).statistic
        expected.append(0.0 if np.isnan(r) else r)
    assert result.value("xAC") == pytest.approx(np.mean(expected))
    # en-fr over 3 questions: ranks (2.5, 2.5, 1) vs (1, 2.5, 2.5) -> -0.5; de-fr over the two
    # questions de answered: -1; en-de: en is constant there -> NaN -> 0
    assert result.value("xAC") == pytest.approx((2 * -0.5 + 2 * -1 + 2 * 0) / 6)


def test_xc_is_the_harmonic_mean_and_missing_when_a_component_is():
    assert harmonic_mean([0.706, 0.489, 0.508]) == pytest.approx(3 / (1 / 0.706 + 1 / 0.489 + 1 / 0.508))
    assert harmonic_mean([0.706, 0.489, 0.508]) == pytest.approx(0.552, abs=5e-4), "paper Table 6, GPT-3.5"
    assert math.isnan(harmonic_mean([0.7, None, 0.5])) and math.isnan(harmonic_mean([0.7, float("nan"), 0.5]))
    assert harmonic_mean([0.7, 0.0, 0.5]) == 0.0
    langs, _, prompts, _, responses = _geo_case()
    result = score_knowledge(responses, prompts, model="m", embed=FakeEmbedder())
    assert math.isnan(result.value("xC")), "no timeliness questions: no xTC, so no xC (not 0)"


def test_responses_must_answer_the_prompts():
    langs, _, prompts, _, responses = _geo_case()
    with pytest.raises(ValueError, match="not in the prompts"):
        score_knowledge(responses + [{"item_id": "geo/Q9-P30", "lang": "en", "response": "x"}], prompts, model="m")
    with pytest.raises(ValueError, match="twice"):
        score_knowledge(responses + responses[:1], prompts, model="m")


# -- the published numbers -----------------------------------------------------------------------
PUBLISHED_XAC = {
    "geo": 0.5403,
    "history": 0.5112,
    "literature": 0.5561,
    "sport_club": 0.3903,
    "science": 0.3807,
    "movie": 0.4444,
}


@pytest.fixture(scope="module")
def gpt35(shared_data):
    prompts = load(shared_data / "makqa", list(LANGUAGES), None)
    records, report = read_released(shared_data / "makqa" / "result_gpt35")
    return prompts, records, report


@pytest.fixture(scope="module")
def gpt35_by_position(gpt35):
    prompts, records, _ = gpt35
    return score_knowledge(records, prompts, model="gpt-3.5", ranking="list_position")


def test_released_gpt35_reproduces_the_published_xac(gpt35_by_position):
    """Pooled six domains, 12 languages, 132 ordered pairs, the one empty answer scored 0."""
    assert gpt35_by_position.value("xAC") == pytest.approx(0.4893, abs=5e-4)
    for domain, value in PUBLISHED_XAC.items():
        assert gpt35_by_position.value("xAC", domain) == pytest.approx(value, abs=5e-4), domain
    mean_of_domains = np.mean([gpt35_by_position.value("xAC", d) for d in PUBLISHED_XAC])
    assert mean_of_domains == pytest.approx(0.4705, abs=5e-4), "the mean of domains is not the published number"


def test_released_gpt35_reproduces_the_published_xtc_with_list_position_ranking(gpt35, gpt35_by_position):
    assert gpt35_by_position.value("xTC") == pytest.approx(0.5078, abs=5e-4)
    prompts, records, _ = gpt35
    by_recency = score_knowledge(records, prompts, model="gpt-3.5", ranking="recency")
    assert by_recency.value("xTC") == pytest.approx(0.5066, abs=5e-4), "the paper's stated ranking gives another number"


def test_released_gpt35_counts_and_pair_symmetry(gpt35, gpt35_by_position):
    _, _, report = gpt35
    assert sum(report.empty.values()) == 1 and not report.missing
    row = next(r for r in gpt35_by_position.scores.to_pylist() if r["metric"] == "xAC" and r["domain"] == "all")
    assert (row["n_items"], row["n_excluded"], row["n_empty"]) == (1897, 0, 1)
    rho = gpt35_by_position.matrices[("few_shot", "xAC", "all")]
    assert rho.shape == (12, 12) and np.allclose(rho, rho.T, equal_nan=True)
    unordered = np.mean([rho[i, j] for i, j in itertools.combinations(range(12), 2)])
    assert gpt35_by_position.value("xAC") == pytest.approx(unordered)


# -- xSC with a real sentence embedder ----------------------------------------------------------
@pytest.mark.slow
def test_xsc_runs_end_to_end_with_the_offline_minilm(shared_data, offline_models):
    """Plumbing only: MiniLM is English-only, so the numbers say nothing about the paper's LaBSE."""
    languages = ["en", "de", "fr"]
    prompts = load(shared_data / "makqa", languages, {"limit": 4})
    records = [r for r in read_released(shared_data / "makqa" / "result_gpt35")[0] if r["language"] in languages]
    wanted = set(prompts["item_id"].to_pylist())
    records = [r for r in records if r["item_id"] in wanted]
    embed = sentence_transformer_embedder(offline_models["all-minilm-l6-v2"], device="cpu")
    result = score_knowledge(records, prompts, model="gpt-3.5", embed=embed, ranking="list_position")
    xsc, oracle = result.value("xSC"), result.value("xSC_oracle")
    assert -1 <= xsc <= 1 and -1 <= oracle <= 1
    assert result.value("xC") == pytest.approx(harmonic_mean([xsc, result.value("xAC"), result.value("xTC")]))
    identical = score_knowledge(
        [{**r, "response": "Paris"} for r in records], prompts, model="same", embed=embed, oracle=False
    )
    assert identical.value("xSC") == pytest.approx(1.0), "the same answer in every language is perfectly consistent"


class TableEmbedder:
    """Hand-chosen vectors per text (unit length), so that cosines are known by hand."""

    def __init__(self, vectors: dict[str, list[float]]):
        self.vectors = {text: np.asarray(v, dtype=float) for text, v in vectors.items()}

    def __call__(self, texts):
        return np.array([self.vectors[text] for text in texts])


def test_the_oracle_counts_only_the_items_with_gold_answers():
    """Six items in en and de, gold answers for item 1 only (en "Paris", de "Paris, Frankreich"):
    the oracle compares the gold answers of that item alone, cos((1, 0), (0.6, 0.8)) = 0.6 in
    both ordered pairs, so xSC_oracle = 0.6 over n_items 1, with nothing excluded. (Counting
    the five items without gold as cosine 0 gave 0.6 / 6 = 0.1 over 6 items.) The models' own
    xSC still counts all six: answers identical across languages, cosine 1 each, xSC 1."""
    golds = {("1", "en"): ["Paris"], ("1", "de"): ["Paris, Frankreich"]}
    prompts = gold_prompts("own", 6, ("en", "de"), lambda item, lang: golds.get((item, lang)))
    responses = [
        {"model": "m", "item_id": str(item), "lang": lang, "response": f"answer {item}"}
        for item in range(1, 7)
        for lang in ("en", "de")
    ]
    vectors = {f"answer {item}": [0.0, 0.0, 1.0] if item % 2 else [0.0, 1.0, 0.0] for item in range(1, 7)}
    embed = TableEmbedder({**vectors, "Paris": [1.0, 0.0, 0.0], "Paris, Frankreich": [0.6, 0.8, 0.0]})
    result = score_knowledge(responses, prompts, dataset="own", embed=embed)
    rows = {(r["metric"], r["domain"]): r for r in result.scores.to_pylist()}
    oracle = rows[("xSC_oracle", "all")]
    assert oracle["value"] == pytest.approx(0.6)
    assert (oracle["n_items"], oracle["n_excluded"], oracle["n_empty"]) == (1, 0, 0)
    assert rows[("xSC_oracle", "uncategorised")]["value"] == pytest.approx(0.6)
    own = rows[("xSC", "all")]
    assert own["value"] == pytest.approx(1.0) and own["n_items"] == 6
    xac = rows[("xAC", "all")]
    assert xac["n_items"] == 1, "xAC, too, rests on the one item with gold answers"
