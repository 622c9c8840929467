"""Group averages as in Gupta et al. 2025's main table (xlcons.reports.groups), on a hand-made results table.

Model m1, values per language (English is the reference and never averaged):
    en .9 | de .5  fr .7  sw .2 (Latin) | hi .3  ta .1 (Indic) | ar .4 (Perso-Arabic) | ja .6 (Other)
    qq .8: not in the registry (ungrouped everywhere); pl: no scored item (null)
Family groups (Gupta et al. 2025's): Rom de fr; Slav (pl, null); Indo-Aryan hi; Dravidian ta;
Other ar ja; sw (no family group in the registry) and qq are ungrouped.
"""

from __future__ import annotations

import polars as pl
import pyarrow as pa
import pytest

from xlcons.reports.formats import to_markdown
from xlcons.reports.groups import group_averages, group_table_wide, write_group_tables
from xlcons.schemas import GROUP_TABLE, RESULTS
from xlcons.tables import read_table

M1 = {"en": 0.9, "de": 0.5, "fr": 0.7, "sw": 0.2, "hi": 0.3, "ta": 0.1, "ar": 0.4, "ja": 0.6, "qq": 0.8, "pl": None}


def results(values_by_model: dict[str, dict[str, float | None]], metric: str = "F") -> pl.DataFrame:
    rows = [
        {
            "dataset": "d",
            "evaluator": "information",
            "model": model,
            "lang": lang,
            "metric": metric,
            "kind": "derived",
            "value": value,
            "ci_low": None,
            "ci_high": None,
            "n_items": 0 if value is None else 10,
            "n_excluded": 0,
            "excluded_reasons": None,
            "n_resamples": 0,
            "ci_level": 0.95,
        }
        for model, values in values_by_model.items()
        for lang, value in values.items()
    ]
    return pl.from_arrow(pa.Table.from_pylist(rows, schema=RESULTS))


def entry(groups: pl.DataFrame, model: str, grouping: str, group: str) -> dict:
    found = groups.filter(model=model, grouping=grouping, group=group)
    assert found.height == 1, (grouping, group, found)
    return found.row(0, named=True)


@pytest.fixture
def groups() -> pl.DataFrame:
    table = results({"m1": M1, "m2": {"en": 1.0, "de": 0.4, "iw": 0.2}, "m3": {"de": 0.1}})
    return group_averages(table, training_languages={"m1": ["en", "de", "fr", "hi"], "m2": ["he"], "m3": None})


def test_average_over_languages_leaves_out_english_and_null_values(groups):
    average = entry(groups, "m1", "all", "all")
    # (.5 + .7 + .2 + .3 + .1 + .4 + .6 + .8) / 8
    assert average["value"] == pytest.approx(3.6 / 8)
    assert average["n_languages"] == 8
    assert set(average["languages"].split()) == {"de", "fr", "sw", "hi", "ta", "ar", "ja", "qq"}
    assert average["languages_without_value"] == "pl"


def test_script_group_averages(groups):
    expected = {
        "Latin": ((0.5 + 0.7 + 0.2) / 3, 3),
        "Indic": (0.2, 2),
        "Perso-Arabic": (0.4, 1),
        "Other": (0.6, 1),
        "ungrouped": (0.8, 1),
    }
    for group, (value, n) in expected.items():
        found = entry(groups, "m1", "script", group)
        assert (found["value"], found["n_languages"]) == (pytest.approx(value), n), group
    assert entry(groups, "m1", "script", "ungrouped")["languages"] == "qq"
    assert entry(groups, "m1", "script", "Latin")["languages_without_value"] == "pl"


def test_family_group_averages_and_ungrouped_languages_are_reported(groups):
    expected = {
        "Rom": (0.6, 2),
        "Indo-Aryan": (0.3, 1),
        "Dravidian": (0.1, 1),
        "Other": (0.5, 2),
        "ungrouped": (0.5, 2),
    }
    for group, (value, n) in expected.items():
        found = entry(groups, "m1", "family", group)
        assert (found["value"], found["n_languages"]) == (pytest.approx(value), n), group
    assert entry(groups, "m1", "family", "ungrouped")["languages"] == "qq sw"
    slav = entry(groups, "m1", "family", "Slav")  # only pl, which has no value
    assert (
        slav["value"] is None
        and slav["n_languages"] == 0
        and slav["languages"] == ""
        and slav["languages_without_value"] == "pl"
    )


def test_groups_without_languages_are_rows_with_null_value(groups):
    dravidian = entry(groups, "m2", "family", "Dravidian")
    assert dravidian["value"] is None and dravidian["languages"] == ""
    assert groups.filter(model="m2", group="ungrouped").is_empty()  # no ungrouped language: no entry


def test_in_and_out_of_training_languages(groups):
    inside, outside = entry(groups, "m1", "training", "In"), entry(groups, "m1", "training", "Out")
    assert inside["value"] == pytest.approx((0.5 + 0.7 + 0.3) / 3) and inside["languages"] == "de fr hi"
    assert outside["value"] == pytest.approx((0.2 + 0.1 + 0.4 + 0.6 + 0.8) / 5) and outside["n_languages"] == 5
    # Codes match by their canonical code: m2 lists he, its results say iw.
    assert entry(groups, "m2", "training", "In")["languages"] == "iw"
    assert entry(groups, "m2", "training", "Out")["value"] == pytest.approx(0.4)


def test_unknown_training_languages_give_null(groups):
    for model in ("m3",):  # listed as None
        for group in ("In", "Out"):
            found = entry(groups, model, "training", group)
            assert found["value"] is None and found["languages"] is None and found["n_languages"] == 0
    unlisted = group_averages(results({"m9": {"de": 0.5}}))  # no mapping at all
    assert entry(unlisted, "m9", "training", "In")["value"] is None


def test_reference_and_language_subset_are_parameters():
    table = results({"m1": M1})
    with_english = group_averages(table, reference=None)
    assert entry(with_english, "m1", "all", "all")["value"] == pytest.approx(4.5 / 9)
    subset = group_averages(table, languages=["de", "fr", "en"])
    assert entry(subset, "m1", "all", "all")["value"] == pytest.approx(0.6)
    assert subset.filter(model="m1", group="ungrouped").is_empty()


def test_wide_table_and_files(groups, tmp_path):
    wide = group_table_wide(groups)
    assert wide.columns[:6] == ["dataset", "evaluator", "translator", "metric", "model", "Avg"]
    for column in (
        "Latin",
        "Indic",
        "Perso-Arabic",
        "Other (script)",
        "ungrouped (script)",
        "Rom",
        "Slav",
        "Indo-Aryan",
        "Dravidian",
        "Other (family)",
        "ungrouped (family)",
        "In",
        "Out",
        "n_languages",
        "ungrouped",
    ):
        assert column in wide.columns
    m1 = wide.filter(model="m1").row(0, named=True)
    assert (
        m1["Avg"] == pytest.approx(0.45)
        and m1["Rom"] == pytest.approx(0.6)
        and m1["ungrouped"] == "script: qq; family: qq sw"
    )
    m3 = wide.filter(model="m3").row(0, named=True)
    assert m3["In"] is None and m3["Out"] is None
    assert "| m3 | 0.10 |" in to_markdown(wide.drop(["dataset", "evaluator", "translator", "metric"]), 2)
    written = write_group_tables(groups, tmp_path)
    names = sorted(path.name for path in written)
    assert names == [
        "groups.parquet",
        "groups_d_information_F.csv",
        "groups_d_information_F.md",
        "groups_d_information_F.tex",
    ]
    assert read_table(tmp_path / "groups.parquet", GROUP_TABLE).num_rows == groups.height
    markdown = (tmp_path / "groups_d_information_F.md").read_text()
    assert "| m3 | 0.10 |" in markdown and "–" in markdown  # unknown In/Out
    assert "\\toprule" in (tmp_path / "groups_d_information_F.tex").read_text()
