"""Empathy profiles and per-language consistency, on hand-made cases with a stub classifier."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from builders import response_rows
from xlcons.evaluators.empathy.profiles import EmpathyError, empathy_items, language_scores, run_empathy_job
from xlcons.evaluators.empathy.tables import EMPATHY_ITEMS, EMPATHY_SCORES
from xlcons.schemas import NO_ANSWER, PROMPTS, TRANSLATIONS
from xlcons.tables import read_table, write_table


class KeywordStub:
    """ER: says sorry; IP: says 'understand'; EX: asks a question. Counts what it is asked."""

    kind = "stub"
    cue = {"ER": "sorry", "IP": "understand", "EX": "?"}

    def __init__(self, mechanism):
        self.mechanism = mechanism
        self.calls = []

    def predict(self, seekers, responses):
        self.calls.append(len(responses))
        assert all(seeker.startswith("POST") for seeker in seekers)  # always the English seeker post
        return np.array([int(self.cue[self.mechanism] in r.lower()) for r in responses], dtype=np.int64)


def stubs():
    return {m: KeywordStub(m) for m in ("ER", "IP", "EX")}


def prompts(ids=("a", "b", "c", "d", "e", "f")) -> pa.Table:
    rows = [{"dataset": "empathy", "item_id": i, "lang": "en", "prompt": f"POST {i}", "category": "ER0-IP0-EX0",
             "references": None, "source_lang": "en"} for i in ids]  # fmt: skip
    return pa.Table.from_pylist(rows, schema=PROMPTS)


def translations(rows) -> pa.Table:
    """TRANSLATIONS rows from (item, lang, translation, path)."""
    return pa.Table.from_pylist(
        [
            {
                "dataset": "empathy",
                "model": "m",
                "item_id": item,
                "lang": lang,
                "response": f"({lang}) {text}",
                "translation_path": path,
                "source_lang_detected": None,
                "lid_label": None,
                "response_lang": None if path in ("no_answer", "untranslatable") else lang,
                "translation": text,
                "n_sentences": 1,
                "n_degenerate": 0,
                "n_repaired": 0,
                "splitter": None,
                "translator": "t",
            }
            for item, lang, text, path in rows
        ],  # fmt: skip
        schema=TRANSLATIONS,
    )


ENGLISH = response_rows(
    [
        ("a", "en", "I'm so sorry. What happened?"),  # [1, 0, 1]
        ("b", "en", "I understand how that feels."),  # [0, 1, 0]
        ("c", "en", "Hang in there."),  # [0, 0, 0]
        ("d", "en", NO_ANSWER),
        ("e", "en", "Sorry, I understand. Want to talk?"),  # [1, 1, 1]
    ],
    dataset="empathy",
)
TRANSLATED = translations(
    [
        ("a", "de", "I am sorry. What happened?", "prompt_language"),  # equal
        ("b", "de", "I get how that feels.", "prompt_language"),  # IP differs
        ("c", "de", "Hold on.", "prompt_language"),  # equal
        ("d", "de", "I'm sorry.", "prompt_language"),  # excluded: English side is No answer
        ("e", "de", NO_ANSWER, "no_answer"),  # excluded: No answer in de
        ("a", "fr", "So sorry!", "prompt_language"),  # EX differs
        ("b", "fr", "I understand you.", "passthrough_english"),  # equal
        ("c", "fr", "???", "untranslatable"),  # excluded
        ("e", "fr", "Sorry, I understand. Want to talk?", "prompt_language"),  # equal
        ("a", "en", "I'm so sorry. What happened?", "passthrough_english"),  # English rows are skipped
        # d has no fr row: missing_translation (it is also No answer in English, which comes first)
    ]
)


@pytest.fixture
def items():
    return empathy_items(prompts(), ENGLISH, TRANSLATED, stubs(), refusals="exclude")


def by_key(table):
    return {(row["item_id"], row["lang"]): row for row in table.to_pylist()}


def test_profiles_and_exclusions_per_item_with_refusals_excluded(items):
    rows = by_key(items)
    assert set(rows) == {(i, lang) for i in "abcde" for lang in ("de", "fr")}  # en is the reference, f has no responses
    a = rows[("a", "de")]
    assert (a["er_en"], a["ip_en"], a["ex_en"]) == (1, 0, 1) and a["profile_en"] == "ER1-IP0-EX1"
    assert a["status"] == "ok" and a["equal"] is True and a["profile"] == "ER1-IP0-EX1"
    b = rows[("b", "de")]
    assert b["equal"] is False and (b["er_agree"], b["ip_agree"], b["ex_agree"]) == (True, False, True)
    fr = rows[("a", "fr")]
    assert fr["equal"] is False and fr["ex_agree"] is False and fr["er_agree"] and fr["ip_agree"]
    assert rows[("b", "fr")]["equal"] and rows[("b", "fr")]["translation_path"] == "passthrough_english"
    reasons = {key: row["excluded_reason"] for key, row in rows.items() if row["status"] == "excluded"}
    assert reasons == {
        ("d", "de"): "no_answer_english",
        ("d", "fr"): "no_answer_english",
        ("e", "de"): "no_answer",
        ("c", "fr"): "untranslatable",
    }
    d = rows[("d", "de")]  # the usable side keeps its profile, the comparison is null
    assert d["profile_en"] is None and d["profile"] == "ER1-IP0-EX0" and d["equal"] is None and d["er_agree"] is None
    e = rows[("e", "de")]
    assert e["profile_en"] == "ER1-IP1-EX1" and e["profile"] is None
    assert all(row["classifier"] == "stub" for row in rows.values())


def test_language_scores_with_refusals_excluded(items):
    scores = by_key_lang(language_scores(items))
    de, fr = scores["de"], scores["fr"]
    assert (de["n_items"], de["n_excluded"], de["n_no_answer_english"], de["n_no_answer"]) == (3, 2, 1, 1)
    assert de["consistency"] == pytest.approx(2 / 3)
    assert (de["er_agreement"], de["ip_agreement"], de["ex_agreement"]) == (1.0, pytest.approx(2 / 3), 1.0)
    assert (fr["n_items"], fr["n_excluded"], fr["n_untranslatable"], fr["n_no_answer_english"]) == (3, 2, 1, 1)
    assert fr["consistency"] == pytest.approx(2 / 3) and fr["ex_agreement"] == pytest.approx(2 / 3)
    assert fr["n_missing_translation"] == 0 and fr["classifier"] == "stub" and de["n_abstained"] == 0


def test_by_default_a_refusal_in_one_language_counts_against_consistency():
    """The model refused (d) in English and (e) in German, answering in the other language: both
    items are scored as inconsistent, in every mechanism, and counted as abstained. d has no
    French row: missing_translation."""
    rows = by_key(empathy_items(prompts(), ENGLISH, TRANSLATED, stubs()))
    for key in (("d", "de"), ("e", "de")):
        row = rows[key]
        assert (row["status"], row["equal"], row["er_agree"], row["ip_agree"], row["ex_agree"]) == (
            "ok",
            False,
            False,
            False,
            False,
        )
    assert rows[("d", "fr")]["excluded_reason"] == "missing_translation"
    de = by_key_lang(language_scores(empathy_items(prompts(), ENGLISH, TRANSLATED, stubs())))["de"]
    assert (de["n_items"], de["n_excluded"], de["n_abstained"]) == (5, 0, 2)
    assert de["consistency"] == pytest.approx(2 / 5), "a and c equal; b differs; d and e abstain in one language"


def test_three_refusals_of_four_make_a_language_inconsistent_not_perfect():
    """Issue 39's case: 3 of 4 Hindi answers refused gave consistency 1.0 on n = 1; now 0.25 on 4.
    A refusal in both languages is excluded (abstained_both); a failed request always is."""
    english = response_rows(
        [(item, "en", "I'm so sorry. What happened?") for item in "abcd"]
        + [("e", "en", NO_ANSWER, "refused"), ("f", "en", "Sorry.")],
        dataset="empathy",
    )
    hindi = translations(
        [("a", "hi", "I am so sorry. What happened?", "prompt_language")]
        + [(item, "hi", NO_ANSWER, "no_answer") for item in "bcdef"]
    )
    responses = response_rows(
        [(item, "hi", NO_ANSWER, "refused") for item in "bcde"] + [("f", "hi", NO_ANSWER, "error")],
        dataset="empathy",
    )
    table = empathy_items(prompts(), english, hindi, stubs(), responses=responses)
    (hi,) = language_scores(table).to_pylist()
    assert (hi["consistency"], hi["n_items"], hi["n_abstained"]) == (0.25, 4, 3)
    assert (hi["n_abstained_both"], hi["n_no_answer"]) == (1, 1), "e refused in both; f's Hindi request failed"
    excluded = language_scores(
        empathy_items(prompts(), english, hindi, stubs(), responses=responses, refusals="exclude")
    ).to_pylist()[0]
    assert (excluded["consistency"], excluded["n_items"]) == (1.0, 1), "the old rule, now only by option"


def by_key_lang(table):
    return {row["lang"]: row for row in table.to_pylist()}


def test_each_distinct_pair_is_classified_once():
    classifiers = stubs()
    empathy_items(prompts(), ENGLISH, TRANSLATED, classifiers)
    # 4 usable English responses + 7 usable translations, of which e/fr repeats e/en: 10 distinct pairs.
    assert classifiers["ER"].calls == [10]


def test_missing_rows_are_excluded_with_their_reason():
    english = response_rows([("a", "en", "Sorry."), ("b", "en", "Sorry.")], dataset="empathy")
    translated = translations([("a", "de", "Sorry.", "prompt_language"), ("z", "de", "Sorry.", "prompt_language")])
    rows = by_key(empathy_items(prompts(("a", "b")), english, translated, stubs()))
    assert rows[("a", "de")]["status"] == "ok"
    assert rows[("b", "de")]["excluded_reason"] == "missing_translation"
    assert rows[("z", "de")]["excluded_reason"] == "missing_prompt"
    scores = language_scores(empathy_items(prompts(("a", "b", "z")), english, translated, stubs())).to_pylist()[0]
    assert (scores["n_items"], scores["n_missing_english"], scores["n_missing_translation"]) == (1, 1, 1)


def test_a_language_with_nothing_scored_has_null_scores():
    english = response_rows([("a", "en", NO_ANSWER, "error")], dataset="empathy")
    scores = language_scores(
        empathy_items(prompts(("a",)), english, translations([("a", "de", "x", "prompt_language")]), stubs())
    )
    row = scores.to_pylist()[0]
    assert row["consistency"] is None and row["er_agreement"] is None and row["n_items"] == 0 and row["n_excluded"] == 1


def test_errors():
    with pytest.raises(EmpathyError, match="no classifier"):
        empathy_items(prompts(), ENGLISH, TRANSLATED, {"ER": KeywordStub("ER")})
    twice = pa.concat_tables([TRANSLATED, TRANSLATED])
    with pytest.raises(EmpathyError, match="appears twice"):
        empathy_items(prompts(), ENGLISH, twice, stubs())


def test_run_empathy_job_with_saved_classifiers(tmp_path: Path):
    from xlcons.evaluators.empathy.base import load_classifier
    from xlcons.evaluators.empathy.tfidf import TfidfClassifier

    seekers = ["POST x"] * 8
    responses = ["I'm sorry", "so sorry", "what happened?", "why?", "I understand", "understand you", "ok", "fine"]
    labels = {"ER": [1, 1, 0, 0, 0, 0, 0, 0], "IP": [0, 0, 0, 0, 1, 1, 0, 0], "EX": [0, 0, 1, 1, 0, 0, 0, 0]}
    dirs = {}
    for mechanism, y in labels.items():
        options = {"min_df": 1, "C": 100.0}
        dirs[mechanism] = TfidfClassifier(mechanism, options).fit(seekers, responses, y).save(tmp_path / mechanism)
    files = {
        "prompts": write_table(prompts(), tmp_path / "prompts.parquet", PROMPTS),
        "english": write_table(
            ENGLISH.filter(pa.compute.is_in(ENGLISH["item_id"], pa.array(["a", "b"]))),
            tmp_path / "en.parquet",
            ENGLISH.schema,
        ),
        "translations": write_table(TRANSLATED, tmp_path / "tr.parquet", TRANSLATIONS),
    }
    items = run_empathy_job(
        dirs,
        files["prompts"],
        files["english"],
        files["translations"],
        tmp_path / "items.parquet",
        out_scores=tmp_path / "scores.parquet",
    )
    stored = read_table(tmp_path / "items.parquet", EMPATHY_ITEMS)
    assert stored.equals(items) and set(stored["classifier"].to_pylist()) == {"tfidf"}
    rows = by_key(stored)
    loaded = {m: load_classifier(d) for m, d in dirs.items()}
    for lang, text in (("en", "I'm so sorry. What happened?"), ("de", "I am sorry. What happened?")):
        expected = {m: int(c.predict(["POST a"], [text])[0]) for m, c in loaded.items()}
        column = "profile_en" if lang == "en" else "profile"
        assert rows[("a", "de")][column] == f"ER{expected['ER']}-IP{expected['IP']}-EX{expected['EX']}"
    assert rows[("c", "de")]["excluded_reason"] == "missing_english"
    scores = by_key_lang(read_table(tmp_path / "scores.parquet", EMPATHY_SCORES))
    assert scores["de"]["n_items"] == 2 and scores["de"]["n_missing_english"] == 3

    with pytest.raises(EmpathyError, match="wrong mechanisms"):
        run_empathy_job(
            {"ER": dirs["IP"], "IP": dirs["IP"], "EX": dirs["EX"]},
            files["prompts"],
            files["english"],
            files["translations"],
            tmp_path / "x.parquet",
        )
