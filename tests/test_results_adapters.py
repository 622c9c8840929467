"""Each evaluator's per-item table becomes ITEM_SCORES rows by a written rule; the aggregation
job joins them into the results table, the group tables and the comparisons."""

from __future__ import annotations

import polars as pl
import pyarrow as pa
import pytest

from xlcons import item_scores
from xlcons.evaluators import fidelity, judge_tables
from xlcons.evaluators.empathy import tables as empathy_tables
from xlcons.evaluators.empathy.tables import EMPATHY_ITEMS
from xlcons.evaluators.fidelity import FIDELITY
from xlcons.evaluators.information import tables as information_tables
from xlcons.evaluators.information.tables import INFORMATION_ITEMS
from xlcons.evaluators.judge_tables import JUDGMENTS
from xlcons.evaluators.knowledge import tables as knowledge_tables
from xlcons.evaluators.knowledge.tables import KNOWLEDGE_SCORES
from xlcons.reports.aggregate import run_results_job
from xlcons.schemas import ITEM_SCORES, RESULTS
from xlcons.tables import write_table

KEY = {"dataset": "multiq", "model": "m"}


def table(schema, rows, **defaults):
    fields = {name: None for name in schema.names}
    return pa.Table.from_pylist([{**fields, **defaults, **row} for row in rows], schema=schema)


def information_items(rows):
    """INFORMATION_ITEMS rows of model m on the information set, both sides with facts."""
    return table(
        INFORMATION_ITEMS,
        rows,
        dataset="information",
        model="m",
        evaluator_model="q",
        translation_path="x",
        english_status="facts",
        translated_status="facts",
    )


def by_key(frame: pl.DataFrame) -> dict:
    return {(r["item_id"], r["lang"], r["metric"]): (r["value"], r["status"]) for r in frame.to_dicts()}


def test_fidelity_counts_the_identified_answers_and_keeps_the_exclusion_reason():
    rows = [
        {"item_id": "1", "lang": "de", "fidelity": "same"},
        {"item_id": "2", "lang": "de", "fidelity": "english"},
        {"item_id": "3", "lang": "de", "fidelity": "excluded", "excluded_reason": "no_answer"},
    ]
    scores = by_key(fidelity.to_item_scores(table(FIDELITY, rows, response_chars=5, **KEY)))
    assert scores[("1", "de", "fidelity_same")] == (1.0, "ok") and scores[("1", "de", "fidelity_english")] == (
        0.0,
        "ok",
    )
    assert scores[("2", "de", "fidelity_same")] == (0.0, "ok") and scores[("2", "de", "fidelity_english")] == (
        1.0,
        "ok",
    )
    assert scores[("3", "de", "fidelity_same")] == (None, "no_answer")


def test_accuracy_counts_everything_but_yes_as_wrong():
    rows = [
        {"item_id": str(i), "lang": "de", "verdict": v} for i, v in enumerate(["yes", "no", "unparseable", "no_answer"])
    ]
    frame = judge_tables.to_item_scores(table(JUDGMENTS, rows, judge_model="j", **KEY))
    assert frame["value"].to_list() == [1.0, 0.0, 0.0, 0.0] and set(frame["status"]) == {"ok"}


def test_accuracy_leaves_failed_requests_out_with_their_reason():
    rows = [{"item_id": str(i), "lang": "de", "verdict": v} for i, v in enumerate(["yes", "error", "judge_error"])]
    frame = judge_tables.to_item_scores(table(JUDGMENTS, rows, judge_model="j", **KEY))
    assert list(zip(frame["value"], frame["status"])) == [(1.0, "ok"), (None, "error"), (None, "judge_error")]


class TestFailedRequests:
    """A score resting on a failed generation request is not the model's: status `error`."""

    FAILED = pl.DataFrame(
        {
            "dataset": ["d", "d"],
            "model": ["m", "m"],
            "item_id": ["1", "2"],
            "lang": ["de", "en"],
            "reason": ["error", "error"],
        }
    )

    def scores(self):
        rows = [
            {
                "dataset": "d",
                "evaluator": "e",
                "model": "m",
                "item_id": item,
                "lang": lang,
                "metric": "x",
                "value": 0.0,
                "status": "ok",
            }
            for item in ("1", "2", "3")
            for lang in ("en", "de")
        ]
        return pl.from_arrow(pa.Table.from_pylist(rows, schema=ITEM_SCORES))

    def marked(self, answers):
        frame = item_scores.mark_failed(self.scores(), self.FAILED, answers)
        assert frame.columns == ITEM_SCORES.names and frame.height == 6
        return {(r["item_id"], r["lang"]) for r in frame.to_dicts() if r["status"] == "error" and r["value"] is None}

    def test_an_evaluator_of_each_answer_alone_excludes_the_items_whose_own_request_failed(self):
        assert self.marked(("own",)) == {("1", "de"), ("2", "en")}

    def test_a_comparison_with_english_excludes_every_language_of_an_item_whose_english_failed(self):
        assert self.marked(("own", "english")) == {("1", "de"), ("2", "en"), ("2", "de")}

    def test_the_round_trip_rests_on_the_english_answer_only(self):
        assert self.marked(("english",)) == {("2", "en"), ("2", "de")}

    def test_failed_requests_are_read_from_the_responses(self):
        from builders import response_rows

        responses = response_rows(
            [("1", "de", "No answer", "error"), ("1", "en", "No answer"), ("2", "de", "Ja.")], model="m", dataset="d"
        )
        assert item_scores.failed_requests(responses).to_dicts() == [
            {"dataset": "d", "model": "m", "item_id": "1", "lang": "de", "reason": "error"}
        ]

    def test_a_prompt_too_long_for_the_model_is_excluded_with_that_reason(self):
        """A prompt the model could not take (never generated) is no answer of the model's: the
        scores resting on it are excluded like a failed request's, under its own reason."""
        from builders import response_rows

        responses = response_rows(
            [("1", "de", "No answer", "prompt_too_long"), ("2", "en", "No answer", "error"), ("3", "de", "Ja.")],
            model="m",
            dataset="d",
        )
        failed = item_scores.failed_requests(responses)
        assert failed["reason"].to_list() == ["prompt_too_long", "error"]
        frame = item_scores.mark_failed(self.scores(), failed, ("own", "english"))
        statuses = {(r["item_id"], r["lang"]): (r["status"], r["value"]) for r in frame.to_dicts()}
        assert statuses[("1", "de")] == ("prompt_too_long", None)
        assert statuses[("2", "en")] == statuses[("2", "de")] == ("error", None)
        assert statuses[("3", "de")] == statuses[("1", "en")] == ("ok", 0.0)


def test_information_rows_split_into_the_translation_and_the_translationese_evaluator():
    rows = [
        {"item_id": "1", "lang": "de", "comparison": "translation", "precision": 0.5, "recall": 1.0, "f1": 2 / 3},
        {"item_id": "2", "lang": "de", "comparison": "translation", "excluded_reason": "no_facts"},
        {"item_id": "1", "lang": "hi", "comparison": "round_trip", "precision": 1.0, "recall": 0.5, "f1": 2 / 3},
    ]
    frame = information_tables.to_item_scores(information_items(rows))
    assert frame.columns == ITEM_SCORES.names
    got = {(r["evaluator"], r["item_id"], r["metric"]): (r["value"], r["status"]) for r in frame.to_dicts()}
    assert got[("information", "1", "recall")] == (1.0, "ok")
    assert got[("information", "2", "precision")] == (None, "no_facts")
    assert got[("translationese", "1", "precision")] == (1.0, "ok")


def test_empathy_gives_consistency_and_per_mechanism_agreement():
    rows = [
        {
            "item_id": "a",
            "lang": "de",
            "status": "ok",
            "equal": False,
            "er_agree": True,
            "ip_agree": False,
            "ex_agree": True,
        },
        {"item_id": "b", "lang": "de", "status": "excluded", "excluded_reason": "no_answer"},
    ]
    scores = by_key(
        empathy_tables.to_item_scores(table(EMPATHY_ITEMS, rows, dataset="empathy", model="m", classifier="tfidf"))
    )
    assert [scores[("a", "de", m)][0] for m in ("consistency", "ER", "IP", "EX")] == [0.0, 1.0, 0.0, 1.0]
    assert scores[("b", "de", "consistency")] == (None, "no_answer")


def test_knowledge_scores_enter_as_corpus_rows_without_an_interval():
    rows = [
        {
            "variant": "few_shot",
            "metric": "xAC",
            "domain": "all",
            "value": 0.49,
            "n_items": 10,
            "n_excluded": 1,
            "n_empty": 0,
        },
        {
            "variant": "few_shot",
            "metric": "xAC",
            "domain": "geo",
            "value": 0.3,
            "n_items": 5,
            "n_excluded": 0,
            "n_empty": 0,
        },
    ]
    frame = knowledge_tables.to_results(table(KNOWLEDGE_SCORES, rows, dataset="makqa", model="m"))
    assert frame.to_dicts() == [
        {**frame.to_dicts()[0], "metric": "xAC", "kind": "corpus", "value": 0.49, "lang": "all", "ci_low": None}
    ]


def test_the_results_job_writes_the_long_table_groups_and_comparisons(tmp_path):
    def judged(model, verdicts):
        rows = [
            {"item_id": str(i), "lang": lang, "verdict": v} for lang in ("de", "hi") for i, v in enumerate(verdicts)
        ]
        path = tmp_path / f"{model}.parquet"
        write_table(table(JUDGMENTS, rows, dataset="multiq", model=model, judge_model="j"), path, JUDGMENTS)
        return path

    files = [judged("a", ["yes", "yes", "no", "yes"]), judged("b", ["no", "no", "no", "yes"])]
    written = run_results_job(
        {"judgments": files},
        tmp_path / "out",
        n_resamples=100,
        seed=1,
        training_languages={"a": ["de"], "b": None},
        table_formats=["csv"],
        comparisons=[["a", "b"]],
    )
    results = pl.read_parquet(tmp_path / "out/results.parquet")
    assert results.columns == RESULTS.names
    row = results.filter((pl.col("model") == "a") & (pl.col("lang") == "de")).to_dicts()[0]
    assert row["value"] == pytest.approx(0.75) and row["n_items"] == 4 and row["ci_low"] <= 0.75 <= row["ci_high"]
    groups = pl.read_parquet(tmp_path / "out/groups/groups.parquet")
    inside = groups.filter((pl.col("model") == "a") & (pl.col("group") == "In")).to_dicts()[0]
    assert inside["value"] == pytest.approx(0.75) and inside["languages"] == "de"
    assert groups.filter((pl.col("model") == "b") & (pl.col("group") == "In"))["value"].to_list() == [None]
    pooled = pl.read_parquet(tmp_path / "out/comparisons.parquet").filter(pl.col("lang") == "pooled").to_dicts()[0]
    assert pooled["difference"] == pytest.approx(0.5)
    assert pl.read_parquet(tmp_path / "out/item_scores.parquet").height == 16
    assert all(path.exists() for path in written)
    assert pl.read_parquet(tmp_path / "out/item_scores.parquet").columns == ITEM_SCORES.names


def test_the_results_table_counts_failed_requests_apart_from_no_answers(tmp_path):
    from builders import response_rows
    from xlcons.schemas import RESPONSES

    # Four German answers of model a: one correct, one refused ("No answer", judged no_answer),
    # two failed requests kept as "No answer" under generation.max_failed_share.
    verdicts = [("0", "yes"), ("1", "no_answer"), ("2", "error"), ("3", "error")]
    write_table(
        table(
            JUDGMENTS,
            [{"item_id": i, "lang": "de", "verdict": v} for i, v in verdicts],
            dataset="multiq",
            model="a",
            judge_model="j",
        ),
        tmp_path / "judgments.parquet",
        JUDGMENTS,
    )
    fidelity = [{"item_id": "0", "lang": "de", "fidelity": "same"}] + [
        {"item_id": i, "lang": "de", "fidelity": "excluded", "excluded_reason": "no_answer"} for i in ("1", "2", "3")
    ]
    write_table(
        table(FIDELITY, fidelity, dataset="multiq", model="a", response_chars=3),
        tmp_path / "fidelity.parquet",
        FIDELITY,
    )
    answers = [
        ("0", "de", "Sydney."),
        ("1", "de", "No answer"),
        ("2", "de", "No answer", "error"),
        ("3", "de", "No answer", "error"),
    ]
    write_table(response_rows(answers, model="a"), tmp_path / "responses.parquet", RESPONSES)
    run_results_job(
        {
            "judgments": [tmp_path / "judgments.parquet"],
            "fidelity": [tmp_path / "fidelity.parquet"],
            "responses": [tmp_path / "responses.parquet"],
        },
        tmp_path / "out",
        n_resamples=0,
        seed=1,
        training_languages={"a": None},
        table_formats=["csv"],
    )
    rows = {row["metric"]: row for row in pl.read_csv(tmp_path / "out/results.csv").to_dicts()}
    # accuracy: the refusal counts as wrong, the failed requests are left out
    assert (rows["accuracy"]["value"], rows["accuracy"]["n_items"]) == (0.5, 2)
    assert (rows["accuracy"]["n_excluded"], rows["accuracy"]["excluded_reasons"]) == (2, "error:2")
    # fidelity excluded all three "No answer"s, and names the failed ones as such
    assert rows["fidelity_same"]["excluded_reasons"] == "error:2; no_answer:1"


def test_the_results_table_names_prompts_too_long_for_the_model_among_the_exclusions(tmp_path):
    """A response row with finish_reason prompt_too_long (the prompt did not fit the model's
    context) is excluded from every score resting on it and counted in excluded_reasons as
    `prompt_too_long`, apart from the model's refusals (wrong answers) and failed requests."""
    from builders import response_rows
    from xlcons.schemas import RESPONSES

    verdicts = [("0", "yes"), ("1", "no_answer"), ("2", "no_answer")]
    write_table(
        table(
            JUDGMENTS,
            [{"item_id": i, "lang": "de", "verdict": v} for i, v in verdicts],
            dataset="multiq",
            model="a",
            judge_model="j",
        ),
        tmp_path / "judgments.parquet",
        JUDGMENTS,
    )
    answers = [("0", "de", "Sydney."), ("1", "de", "No answer"), ("2", "de", "No answer", "prompt_too_long")]
    write_table(response_rows(answers, model="a"), tmp_path / "responses.parquet", RESPONSES)
    run_results_job(
        {"judgments": [tmp_path / "judgments.parquet"], "responses": [tmp_path / "responses.parquet"]},
        tmp_path / "out",
        n_resamples=0,
        seed=1,
        training_languages={"a": None},
        table_formats=["csv"],
    )
    (row,) = pl.read_csv(tmp_path / "out/results.csv").to_dicts()
    assert (row["metric"], row["value"], row["n_items"], row["n_excluded"]) == ("accuracy", 0.5, 2, 1)
    assert row["excluded_reasons"] == "prompt_too_long:1"


def test_the_results_job_writes_the_same_bytes_on_a_rerun_whatever_the_order_of_models_in_the_config(tmp_path):
    """Every table of the results job (item scores, results, groups, comparisons; Parquet and
    text) is written in its documented row order (docs/results.md), so two runs on the same
    inputs give the same bytes, and so does listing the models, their files, their training
    languages and the compared pairs in another order."""
    models = {"a": ["yes", "yes", "no", "yes"], "b": ["no", "no", "no", "yes"], "c": ["yes", "no", "yes", "yes"]}
    files = {}
    for model, verdicts in models.items():
        rows = [
            {"item_id": str(i), "lang": lang, "verdict": v}
            for lang in ("hi", "de", "en")
            for i, v in enumerate(verdicts)
        ]
        fidelity = [
            {"item_id": str(i), "lang": lang, "fidelity": "same" if v == "yes" else "english"}
            for lang in ("hi", "de", "en")
            for i, v in enumerate(verdicts)
        ]
        files[model] = (tmp_path / f"judged_{model}.parquet", tmp_path / f"fidelity_{model}.parquet")
        write_table(table(JUDGMENTS, rows, dataset="multiq", model=model, judge_model="j"), files[model][0], JUDGMENTS)
        write_table(
            table(FIDELITY, fidelity, dataset="multiq", model=model, response_chars=5), files[model][1], FIDELITY
        )

    def run(out, order, pairs):
        written = run_results_job(
            {"fidelity": [files[m][1] for m in order], "judgments": [files[m][0] for m in order]},
            tmp_path / out,
            n_resamples=20,
            seed=3,
            table_formats=["csv", "markdown", "latex"],
            training_languages={m: {"a": ["de"], "b": None, "c": ["hi", "de"]}[m] for m in order},
            comparisons=pairs,
        )
        return {path.relative_to(tmp_path / out): path.read_bytes() for path in sorted(written)}

    first = run("first", ["a", "b", "c"], [["a", "b"], ["c", "a"]])
    assert len(first) > 5
    for again in (
        run("again", ["a", "b", "c"], [["a", "b"], ["c", "a"]]),
        run("reordered", ["c", "a", "b"], [["c", "a"], ["a", "b"]]),
    ):
        assert set(again) == set(first)
        assert [str(name) for name in first if again[name] != first[name]] == []
    results = pl.read_csv(tmp_path / "first/results.csv")
    keys = ["dataset", "evaluator", "translator", "model", "lang"]
    assert results.select(keys).rows() == sorted(results.select(keys).fill_null("").rows())


# One model's Hindi answers to four items: answered, refused by the model, empty, failed request.
REFUSAL_FIXTURE = [
    ("1", "hi", "Uttar.", "stop"),
    ("2", "hi", "No answer", "refused"),
    ("3", "hi", "No answer", "empty"),
    ("4", "hi", "No answer", "error"),
]


@pytest.mark.parametrize(
    ("refusals", "value", "n_items", "reasons"),
    [
        ("count", 1 / 3, 3, "error:1"),  # the refusal and the empty answer count against the model
        ("exclude", 1.0, 1, "empty:1; error:1; refused:1"),  # left out, with their reasons
    ],
)
def test_the_refusals_option_decides_for_every_evaluator_in_the_results_table(
    tmp_path, refusals, value, n_items, reasons
):
    from builders import response_rows
    from xlcons.schemas import RESPONSES

    responses = write_table(
        response_rows(REFUSAL_FIXTURE, model="m", dataset="multiq"), tmp_path / "responses.parquet", RESPONSES
    )
    verdicts = {"1": "yes", "2": "no_answer", "3": "no_answer", "4": "error"}
    judgments = write_table(
        table(
            JUDGMENTS,
            [{"item_id": item, "lang": "hi", "verdict": verdict} for item, verdict in verdicts.items()],
            dataset="multiq",
            model="m",
            judge_model="j",
        ),
        tmp_path / "judgments.parquet",
        JUDGMENTS,
    )
    run_results_job(
        {"judgments": [judgments], "responses": [responses]},
        tmp_path / "out",
        n_resamples=0,
        seed=1,
        training_languages={"m": None},
        table_formats=["csv"],
        refusals=refusals,
    )
    results = pl.read_parquet(tmp_path / "out/results.parquet").filter(pl.col("metric") == "accuracy").to_dicts()
    (row,) = results
    assert (row["value"], row["n_items"], row["excluded_reasons"]) == (pytest.approx(value), n_items, reasons)


def test_failed_requests_with_refusals_excluded_lists_the_models_own_no_answers():
    from builders import response_rows

    responses = response_rows(REFUSAL_FIXTURE, model="m", dataset="d")
    assert [row["reason"] for row in item_scores.failed_requests(responses).to_dicts()] == ["error"]
    assert [row["reason"] for row in item_scores.failed_requests(responses, "exclude").to_dicts()] == [
        "refused",
        "empty",
        "error",
    ]
