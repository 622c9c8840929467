"""Xing et al. 2024's tables from the knowledge scores: Table 3 and 4 with the Oracle row, Table 5
with a column per prompt variant, Table 6 with the xTC ranking named, and the published
values of all 11 models of Table 6 beside ours."""

from __future__ import annotations

import pyarrow as pa
import pytest

from xlcons.data_sources.catalog import RELEASED_MODELS
from xlcons.evaluators.knowledge.tables import KNOWLEDGE_SCORES
from xlcons.reports.knowledge import (
    PUBLISHED_TABLE6,
    RANKING,
    paper_key,
    table3,
    table4,
    table5,
    table6,
    versus_published,
)


def score(model, metric, value, domain="all", variant="few_shot", ranking=None):
    return {
        "dataset": "makqa",
        "model": model,
        "variant": variant,
        "metric": metric,
        "domain": domain,
        "value": value,
        "n_items": 10,
        "n_excluded": 0,
        "n_empty": 0,
        "ranking": ranking,
    }


def scores(*rows) -> pa.Table:
    return pa.Table.from_pylist(list(rows), schema=KNOWLEDGE_SCORES)


RUN = scores(
    score("gpt35", "xSC", 0.7),
    score("gpt35", "xAC", 0.5),
    score("gpt35", "xTC", 0.5, ranking="list_position"),
    score("gpt35", "xC", 0.55),
    score("gpt35", "xSC_oracle", 0.85),
    score("gpt35", "xSC", 0.8, "geo"),
    score("gpt35", "xSC_oracle", 0.87, "geo"),
    score("gpt35", "xAC", 0.54, "geo"),
    # a second prompt variant of the same model: Table 5, not another row of Table 6
    score("gpt35", "xSC", 0.68, variant="template"),
    # a model run with one non-paper variant only: that is its main variant
    score("mine", "xSC", 0.4, variant="zero_shot"),
    score("mine", "xTC", 0.2, variant="zero_shot", ranking="recency"),
)


def test_table6_has_one_row_per_model_from_its_main_variant_and_names_the_ranking():
    rows = {row["model"]: row for row in table6(RUN).to_dicts()}
    assert sorted(rows) == ["gpt35", "mine"]
    assert (rows["gpt35"]["xSC"], rows["gpt35"]["xAC"], rows["gpt35"][RANKING]) == (0.7, 0.5, "list_position")
    assert (rows["mine"]["xSC"], rows["mine"]["xAC"], rows["mine"][RANKING]) == (0.4, None, "recency")


def test_table3_and_table4_end_with_the_oracle():
    assert table3(RUN).to_dicts()[-1] == {"model": "Oracle", "xSC": 0.85}
    oracle = table4(RUN).to_dicts()[-1]
    assert (oracle["model"], oracle["metric"], oracle["geo"], oracle["all"]) == ("Oracle", "xSC", 0.87, 0.85)
    without = scores(score("gpt35", "xSC", 0.7))
    assert "Oracle" not in table3(without)["model"].to_list() and "Oracle" not in table4(without)["model"].to_list()


def test_table5_puts_each_variant_in_a_column_in_the_registry_order():
    frame = table5(RUN)
    assert frame.columns == ["model", "metric", "few_shot", "template", "zero_shot"]
    xsc = {row["model"]: row for row in frame.filter(frame["metric"] == "xSC").to_dicts()}
    assert (xsc["gpt35"]["few_shot"], xsc["gpt35"]["template"], xsc["gpt35"]["zero_shot"]) == (0.7, 0.68, None)
    assert xsc["mine"]["zero_shot"] == 0.4
    assert ("mine", "xAC") not in {(row["model"], row["metric"]) for row in frame.to_dicts()}, "no row without a value"


def test_every_released_model_of_xing2024_has_its_published_table6_values():
    assert {paper_key(name) for name in RELEASED_MODELS} <= set(PUBLISHED_TABLE6)
    # spot checks against the paper's Table 6
    assert PUBLISHED_TABLE6[paper_key("bloomz-560m")] == (0.353, 0.261, 0.236, 0.275)
    assert PUBLISHED_TABLE6[paper_key("baichuan2-13b")] == (0.564, 0.367, 0.391, 0.425)
    assert PUBLISHED_TABLE6[paper_key("bloomz-7b1")] == PUBLISHED_TABLE6[paper_key("bloomz-7b")], (
        "the Hub's name of the 7B"
    )
    assert paper_key("gpt-3.5-turbo") == "gpt35" and paper_key("Llama-2-13b-chat-hf") == "llama213b"


def test_ours_beside_the_published_values_with_the_ranking_of_xtc():
    rows = {(row["metric"]): row for row in versus_published(RUN).to_dicts() if row["model"] == "gpt35"}
    assert rows["xAC"]["published"] == 0.489 and rows["xAC"]["difference"] == pytest.approx(0.5 - 0.489)
    assert rows["xTC"][RANKING] == "list_position" and rows["xAC"][RANKING] is None
    assert "mine" not in versus_published(RUN)["model"].to_list(), "not a model of the paper"
