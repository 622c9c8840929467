"""Every empty value of the results table says why (issue 29, part 5).

A RESULTS row without a value names its reason: in `excluded_reasons` when items were
excluded, in `note` when a derived or corpus value is undefined (which input is missing).
`n_items` counts the items that entered the value: none for an empty value, and for xAC the
questions with a gold answer. The three cases a user met on the offline run are reproduced
here from unit-level inputs, then a table of every evaluator kind is walked.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pyarrow as pa

from builders import gold_prompts, response_rows
from test_results_adapters import information_items
from xlcons.evaluators import fidelity, judge_tables, tokenization_tables, translation_ability
from xlcons.evaluators.empathy import tables as empathy_tables
from xlcons.evaluators.empathy.tables import EMPATHY_ITEMS
from xlcons.evaluators.fidelity import FIDELITY
from xlcons.evaluators.information import tables as information_tables
from xlcons.evaluators.information.derived import INFORMATION_F
from xlcons.evaluators.judge_tables import JUDGMENTS
from xlcons.evaluators.knowledge import tables as knowledge_tables
from xlcons.evaluators.knowledge.metrics import score_knowledge
from xlcons.evaluators.language_confusion import LCPR, score_language_confusion
from xlcons.evaluators.language_confusion import to_item_scores as confusion_item_scores
from xlcons.evaluators.lcb_rule import score_language_confusion_lcb
from xlcons.evaluators.tokenization_tables import TOKENIZATION
from xlcons.evaluators.translation_ability import TRANSLATION_DIRECTIONS
from xlcons.languages import LanguageRegistry
from xlcons.reports.qe_scores import passing_scores, sensitivity_metrics
from xlcons.reports.results import results_table, sort_results, unexplained_values
from xlcons.schemas import ITEM_SCORES, RESULTS

REGISTRY = LanguageRegistry.load()
HINDI_SHORT = "हाँ, यह ठीक है।"  # three tokens: no line long enough to judge, but Devanagari: checked for words


def table(schema: pa.Schema, rows: list[dict], **defaults) -> pa.Table:
    fields = {name: None for name in schema.names}
    return pa.Table.from_pylist([{**fields, **defaults, **row} for row in rows], schema=schema)


class FakeEmbedder:
    """A deterministic random vector per text."""

    def __init__(self, dim: int = 8):
        self.dim, self.vectors = dim, {}

    def __call__(self, texts):
        rng = np.random.default_rng(len(self.vectors))
        for text in texts:
            self.vectors.setdefault(text, rng.normal(size=self.dim))
        return np.array([self.vectors[t] for t in texts])


class ScriptLID:
    """Devanagari lines are Hindi, Latin lines English (probability 0.99); Hindi unsupported when asked."""

    def __init__(self, unsupported: tuple[str, ...] = ()):
        self.unsupported, self.registry = set(unsupported), REGISTRY

    def predict(self, texts):
        return [("hi", 0.99) if any("\u0900" <= c <= "\u097f" for c in t) else ("en", 0.99) for t in texts]

    def predict_lines(self, lines):
        return self.predict(lines)

    def is_language(self, label, lang):
        return label == lang.split("-")[0]

    def supports(self, lang):
        return lang not in self.unsupported


def clinic_knowledge(references_on: tuple[str, ...] = ("1",)):
    """A user set of six questions in en and de, gold answers on `references_on` only, no timeliness."""
    prompts = gold_prompts(
        "clinic_qa", 6, ("en", "de"), lambda item, lang: ["Paris"] if item in references_on else None
    )
    responses = [
        {"model": "m", "item_id": str(i), "lang": lang, "response": f"answer {i} {lang}"}
        for i in range(1, 7)
        for lang in ("en", "de")
    ]
    return score_knowledge(responses, prompts, dataset="clinic_qa", embed=FakeEmbedder())


def corpus_row(result, metric: str) -> dict:
    rows = knowledge_tables.to_results(result.scores).filter(pl.col("metric") == metric).to_dicts()
    assert len(rows) == 1, rows
    return rows[0]


# -- The three cases of the offline run -------------------------------------------------------


def test_results_have_a_note_column_for_undefined_values():
    assert RESULTS.field("note").type == pa.string() and RESULTS.field("note").nullable
    assert RESULTS.names.index("note") == RESULTS.names.index("excluded_reasons") + 1


def test_xc_without_a_timeliness_component_says_which_component_is_missing():
    """xC is the harmonic mean of xSC, xAC and xTC; a set without timeliness questions has no xTC."""
    row = corpus_row(clinic_knowledge(), "xC")
    assert row["value"] is None and row["n_items"] == 0
    assert row["note"] and "xTC" in row["note"] and "timeliness" in row["note"]
    assert "xSC" not in row["note"] and "xAC" not in row["note"], "only the missing component is named"


def test_xc_without_an_embedder_names_xsc():
    result = score_knowledge(
        [{"model": "m", "item_id": "1", "lang": lang, "response": "Paris"} for lang in ("en", "de")],
        [
            {"dataset": "d", "item_id": "1", "lang": lang, "prompt": "?", "references": ["Paris"], "source_lang": lang}
            for lang in ("en", "de")
        ],
        dataset="d",
    )
    row = corpus_row(result, "xC")
    assert row["value"] is None and "xSC" in row["note"] and "embedder" in row["note"]


def test_xc_when_defined_counts_the_questions_of_its_components():
    """With every component, xC's n_items is the questions behind xSC (xAC's are among them) and xTC."""
    langs = ("en", "de")
    prompts = [
        {
            "dataset": "makqa",
            "item_id": f"{domain}/Q{i}-P1",
            "lang": lang,
            "prompt": "?",
            "category": domain,
            "references": [f"{domain} {i} old", f"{domain} {i} new"] if domain == "timeliness" else [f"{domain} {i}"],
            "source_lang": lang,
        }
        for domain in ("geo", "timeliness")
        for i in range(3)
        for lang in langs
    ]
    responses = [
        {"model": "m", "item_id": p["item_id"], "lang": p["lang"], "response": f"{p['references'][-1]} {k}"}
        for k, p in enumerate(prompts)
    ]
    result = score_knowledge(responses, prompts, embed=FakeEmbedder())
    xc = corpus_row(result, "xC")
    assert xc["value"] is not None and xc["note"] is None
    assert xc["n_items"] == corpus_row(result, "xSC")["n_items"] + corpus_row(result, "xTC")["n_items"] == 6


def test_xac_counts_only_the_questions_with_a_gold_answer():
    """Six questions answered in both languages, one with gold answers: xAC rests on that one."""
    result = clinic_knowledge()
    assert corpus_row(result, "xAC")["n_items"] == 1
    assert corpus_row(result, "xSC")["n_items"] == 6, "xSC needs no gold answer: every answered question"
    everything = clinic_knowledge(references_on=tuple(str(i) for i in range(1, 7)))
    assert corpus_row(everything, "xAC")["n_items"] == 6


def test_an_lcpr_without_a_line_level_rate_says_which_rate_is_missing():
    """Six Hindi answers of short lines (strict rule): none judged at line level, all checked for
    words. LPR is undefined, so LCPR is; before, the row read n_items 6, n_excluded 0, no reason."""
    rows = [(str(i), "hi", HINDI_SHORT) for i in range(6)]
    confusion = score_language_confusion(response_rows(rows), ScriptLID(), REGISTRY)
    results = results_table(confusion_item_scores(confusion), derived=[LCPR], n_resamples=20)
    by_metric = {row["metric"]: row for row in results.to_dicts()}
    assert by_metric["word_pass"]["value"] == 1.0 and by_metric["word_pass"]["n_items"] == 6
    assert by_metric["line_pass"]["value"] is None and by_metric["line_pass"]["excluded_reasons"] == "no_judged_line:6"
    lcpr = by_metric["lcpr"]
    assert lcpr["value"] is None and lcpr["ci_low"] is None
    assert (lcpr["n_items"], lcpr["n_excluded"], lcpr["excluded_reasons"]) == (0, 6, "no_judged_line:6")
    assert lcpr["note"] == "lcpr undefined: line_pass has no scored item (no_judged_line:6)"


def test_a_defined_lcpr_keeps_its_value_counts_and_no_note():
    rows = [(str(i), "hi", HINDI_SHORT + "\nभारत की राजधानी नई दिल्ली है और यह बड़ा शहर है।") for i in range(4)]
    confusion = score_language_confusion(response_rows(rows), ScriptLID(), REGISTRY)
    (lcpr,) = (
        results_table(confusion_item_scores(confusion), derived=[LCPR], n_resamples=20)
        .filter(pl.col("metric") == "lcpr")
        .to_dicts()
    )
    assert (lcpr["value"], lcpr["n_items"], lcpr["n_excluded"], lcpr["note"]) == (1.0, 4, 0, None)


# -- Every evaluator kind, walked ---------------------------------------------------------------


def every_kind_of_results() -> pl.DataFrame:
    """A results table of every evaluator kind (item means, derived metrics, the QE copies and
    their differences, corpus rows), from each evaluator's per-item table through its adapter,
    each with a cell where nothing is scored and one where a derived or corpus value is undefined."""
    key = {"dataset": "multiq", "model": "m"}
    fidelity_rows = [
        {"item_id": "1", "lang": "de", "fidelity": "same"},
        {"item_id": "1", "lang": "hi", "fidelity": "excluded", "excluded_reason": "no_answer"},
    ]
    judgments = [{"item_id": "1", "lang": "de", "verdict": "yes"}, {"item_id": "1", "lang": "hi", "verdict": "error"}]
    information = [
        {"item_id": "1", "lang": "de", "comparison": "translation", "precision": 0.5, "recall": 1.0, "f1": 2 / 3},
        {"item_id": "2", "lang": "de", "comparison": "translation", "precision": 1.0, "recall": 0.5, "f1": 2 / 3},
        {"item_id": "1", "lang": "ar", "comparison": "translation", "excluded_reason": "no_facts"},
        {"item_id": "1", "lang": "hi", "comparison": "round_trip", "precision": 1.0, "recall": 0.5, "f1": 2 / 3},
    ]
    empathy = [
        {"item_id": "a", "lang": "de", "status": "ok", "equal": True, "er_agree": True, "ip_agree": True},
        {"item_id": "a", "lang": "ar", "status": "excluded", "excluded_reason": "no_answer"},
    ]
    for row in empathy:
        row.setdefault("ex_agree", row.get("equal"))
    confusion_rows = [
        *[(str(i), "hi", HINDI_SHORT) for i in range(3)],  # strict: LPR undefined, WPR defined
        ("1", "de", "Die Hauptstadt von Deutschland ist Berlin, eine große Stadt."),
        ("1", "ru", "Да."),  # nothing judged on either level
    ]
    vocabulary = frozenset({"capital", "city"})
    scores = pl.concat(
        [
            fidelity.to_item_scores(table(FIDELITY, fidelity_rows, response_chars=5, **key)),
            judge_tables.to_item_scores(table(JUDGMENTS, judgments, judge_model="j", **key)),
            information_tables.to_item_scores(information_items(information)),
            empathy_tables.to_item_scores(table(EMPATHY_ITEMS, empathy, dataset="empathy", model="m", classifier="t")),
            confusion_item_scores(score_language_confusion(response_rows(confusion_rows), ScriptLID(), REGISTRY)),
            confusion_item_scores(
                score_language_confusion_lcb(
                    response_rows(confusion_rows, dataset="lcb"), ScriptLID(), vocabulary, REGISTRY
                )
            ),
        ]
    ).select(ITEM_SCORES.names)
    # QE: every German information item fails (under the threshold), so the passing copies are
    # empty and their differences with all items undefined.
    qe_rows = pl.DataFrame(
        [
            {**row, "evaluator": "translation_qe", "metric": metric, "value": 1.0, "status": "ok"}
            for row in scores.filter((pl.col("evaluator") == "information") & (pl.col("lang") == "de"))
            .select("dataset", "translator", "model", "item_id", "lang")
            .unique()
            .to_dicts()
            for metric in ("qe_below", "qe_fail")
        ]
    ).select(ITEM_SCORES.names)
    scored = pl.concat([scores, passing_scores(scores, qe_rows)])
    derived = [INFORMATION_F, LCPR]
    derived += sensitivity_metrics(scored, derived)
    results = results_table(scored, derived=derived, n_resamples=20)

    knowledge = [
        knowledge_tables.to_results(clinic_knowledge().scores),
        knowledge_tables.to_results(
            score_knowledge(  # one language: no language pair at all
                [{"model": "m", "item_id": "1", "lang": "en", "response": "Paris"}],
                [
                    {
                        "dataset": "d",
                        "item_id": "1",
                        "lang": "en",
                        "prompt": "?",
                        "references": ["Paris"],
                        "source_lang": "en",
                    }
                ],
                dataset="d",
                embed=FakeEmbedder(),
            ).scores
        ),
    ]
    directions = table(
        TRANSLATION_DIRECTIONS,
        [
            {"source": "en", "target": "de", "chrf": 50.0, "chrf_pp": 48.0, "n_items": 2, "n_failed": 0},
            {"source": "en", "target": "sw", "chrf": None, "chrf_pp": None, "n_items": 0, "n_failed": 2},
        ],
        dataset="flores",
        model="m",
        n_empty=0,
        n_too_long=0,
        n_refused=0,
        n_changed=0,
    )
    # Tokenization: Hindi's prompts are all punctuation, so they have no top token and no class share.
    tokenized = table(
        TOKENIZATION,
        [
            {"lang": "de", "n_prompts": 2, "n_tokens": 9, "tokens_per_prompt": 4.5, "unique_tokens": 7},
            {"lang": "hi", "n_prompts": 1, "n_tokens": 2, "tokens_per_prompt": 2.0, "unique_tokens": 1},
        ],
        dataset="multiq",
        model="m",
        tokenizer="t",
        unique_tokens_all_languages=8,
        top_tokens=[],
        top_token_ids=[],
        top_token_counts=[],
        top_token_classes=[],
        ascii_share=0.0,
        character_share=0.0,
        subword_share=0.0,
        token_class="subword",
    )
    tokenized = tokenized.set_column(
        tokenized.schema.get_field_index("top_tokens"), "top_tokens", pa.array([["x"], []], pa.list_(pa.string()))
    )
    corpus = [*knowledge, translation_ability.to_results(directions), tokenization_tables.to_results(tokenized)]
    return sort_results(pl.concat([results, *corpus]))


def test_every_empty_value_of_every_evaluator_kind_is_explained():
    results = every_kind_of_results()
    empty = results.filter(pl.col("value").is_null())
    kinds = set(empty["kind"].to_list())
    assert kinds == {"mean", "derived", "corpus"}, f"the walk must meet an empty value of every kind, met {kinds}"
    assert {"lcpr", "F@qe_pass", "F@qe_pass-all", "xC", "xSC", "chrF"} <= set(empty["metric"].to_list())
    unexplained = unexplained_values(results)
    assert unexplained.is_empty(), unexplained.select(
        "dataset", "evaluator", "lang", "metric", "kind", "n_items", "n_excluded", "excluded_reasons", "note"
    ).to_dicts()
    for row in empty.to_dicts():
        assert row["n_items"] == 0, f"an empty value rests on no item: {row}"
        assert (row["excluded_reasons"] or "").strip() or (row["note"] or "").strip(), row


def test_unexplained_values_finds_an_empty_value_without_a_reason_or_note():
    rows = [
        {"metric": "a", "value": None, "excluded_reasons": None, "note": None},
        {"metric": "b", "value": None, "excluded_reasons": "error:1", "note": None},
        {"metric": "c", "value": None, "excluded_reasons": None, "note": "xTC not computed"},
        {"metric": "d", "value": 0.5, "excluded_reasons": None, "note": None},
        {"metric": "e", "value": None, "excluded_reasons": "", "note": " "},
    ]
    found = unexplained_values(pl.DataFrame(rows, schema_overrides={"value": pl.Float64}))
    assert found["metric"].to_list() == ["a", "e"]
