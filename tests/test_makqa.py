"""The MAKQA prompt loader and the released GPT-3.5 outputs as recorded responses."""

from __future__ import annotations

import json
import re

import pytest

from xlcons.datasets.makqa import (
    DEFAULT_VARIANT,
    DOMAINS,
    LANGUAGES,
    NATIVE_LABELS,
    VARIANTS,
    MAKQAError,
    load,
    parse_item_id,
    read_domain,
)
from xlcons.datasets.makqa_released import read_released, released_records, write_jsonl
from xlcons.generation.backends.recorded import read_recorded
from xlcons.schemas import PROMPTS

COUNTS = {
    "geo": 266,
    "history": 369,
    "literature": 145,
    "movie": 412,
    "science": 472,
    "sport_club": 233,
    "timeliness": 130,
}


@pytest.fixture(scope="module")
def makqa(shared_data):
    return shared_data / "makqa"


def example_questions(prompt: str, label: str = "Question") -> list[str]:
    """The questions of a prompt's examples (every question block but the last)."""
    return re.findall(rf"^{label}: (.*)$", prompt, flags=re.M)[:-1]


# -- what is loaded ------------------------------------------------------------------------
def test_the_release_has_2027_questions_over_7_domains(makqa):
    table = load(makqa, ["en"], None)
    assert table.schema == PROMPTS
    categories = table["category"].to_pylist()
    assert {d: categories.count(d) for d in DOMAINS} == COUNTS
    assert table.num_rows == sum(COUNTS.values()) == 2027


def test_every_language_has_every_question(makqa):
    table = load(makqa, list(LANGUAGES), None)
    assert table.num_rows == 12 * 2027
    assert table["source_lang"].to_pylist() == table["lang"].to_pylist()


def test_ids_references_and_question_follow_the_release(makqa):
    table = load(makqa, ["de", "en"], {"limit": 1, "domains": ["geo"]})
    rows = table.to_pylist()
    assert [(r["lang"], r["item_id"]) for r in rows] == [("de", "geo/Q1085-P30"), ("en", "geo/Q1085-P30")]
    assert rows[0]["references"] == ["Europa"] and rows[1]["references"] == ["Europe"]
    assert rows[1]["prompt"].endswith("Question: On which continent is Prague located?\nAnswer:")
    assert rows[0]["prompt"].endswith("Question: Auf welchem Kontinent liegt Prag?\nAnswer:")


def test_timeliness_references_are_the_candidates_oldest_first(makqa):
    row = load(makqa, ["en"], {"ids": ["timeliness/Q1097511-P54"]}).to_pylist()[0]
    assert row["references"] == [
        "Central Michigan Chippewas football",
        "Wisconsin Badgers football",
        "Houston Texans",
        "Arizona Cardinals",
    ]
    assert row["category"] == "timeliness"


# -- selection -----------------------------------------------------------------------------
def test_limit_applies_per_domain_in_file_order(makqa):
    table = load(makqa, ["en"], {"limit": 3})
    categories = table["category"].to_pylist()
    assert {d: categories.count(d) for d in DOMAINS} == {d: 3 for d in DOMAINS}
    geo = [key for key in read_domain(makqa, "geo")][:3]
    assert table["item_id"].to_pylist()[:3] == [f"geo/{key}" for key in geo]


def test_domains_restrict_both_ways(makqa):
    assert set(load(makqa, ["en"], None, domains=["movie", "geo"])["category"].to_pylist()) == {"movie", "geo"}
    table = load(makqa, ["en"], {"domains": ["science"], "limit": 2}, domains=["science", "geo"])
    assert table["category"].to_pylist() == ["science", "science"]


def test_ids_keep_the_configured_order(makqa):
    ids = ["science/Q100948-P101", "geo/Q1085-P30"]
    assert load(makqa, ["en"], {"ids": ids})["item_id"].to_pylist() == ids


@pytest.mark.parametrize(
    ("languages", "items", "options", "message"),
    [
        (["en", "hu"], None, {}, "no questions in \\['hu'\\]"),
        (["en"], None, {"domains": ["cooking"]}, "cooking"),
        (["en"], {"domains": ["movie"]}, {"domains": ["geo"]}, "movie"),
        (["en"], {"ids": ["geo/Q1-P1"]}, {}, "no question Q1-P1 in the geo file"),
        (["en"], {"ids": ["Q1085-P30"]}, {}, "<domain>/<QID>-<PID>"),
        (["en"], {"ids": ["template:geo/Q1085-P30"]}, {}, "<domain>/<QID>-<PID>"),
        (["en"], None, {"variants": ["prompt3"]}, "prompt3"),
        (["en"], None, {"domains": ["timeliness"], "few_shot": 7}, "timeliness pool has 6"),
    ],
)
def test_a_bad_selection_names_what_is_wrong(makqa, languages, items, options, message):
    with pytest.raises(MAKQAError, match=message):
        load(makqa, languages, items, **options)


def test_a_missing_file_names_the_file_and_domain(tmp_path, makqa):
    with pytest.raises(MAKQAError, match="MAKQA geo: .*QA_merged_data_dict_geo.json not found"):
        load(tmp_path, ["en"], None)
    (tmp_path / "QA_merged_data_dict_geo.json").write_bytes((makqa / "QA_merged_data_dict_geo.json").read_bytes())
    with pytest.raises(MAKQAError, match="QA_example_merged_data_dict_geo.json"):
        load(tmp_path, ["en"], None, domains=["geo"])
    assert load(tmp_path, ["en"], None, domains=["geo"], few_shot=0).num_rows == 266


def test_a_question_missing_in_a_language_names_file_item_and_language(tmp_path, makqa):
    data = json.loads((makqa / "QA_merged_data_dict_literature.json").read_text())
    first = next(iter(data))
    del data[first]["qa_data"]["ko"]
    (tmp_path / "QA_merged_data_dict_literature.json").write_text(json.dumps(data))
    with pytest.raises(MAKQAError, match=f"literature.json: item {first} has no question in language 'ko'"):
        load(tmp_path, ["ko"], None, domains=["literature"], few_shot=0)


# -- few-shot examples -------------------------------------------------------------------------
def test_each_prompt_has_five_examples_from_its_domains_pool_and_not_itself(makqa):
    table = load(makqa, ["en"], {"limit": 5})
    for row in table.to_pylist():
        pool = {entry["qa_data"]["en"][0] for entry in read_domain(makqa, row["category"], examples=True).values()}
        shots = example_questions(row["prompt"])
        assert len(shots) == 5 and len(set(shots)) == 5
        assert set(shots) <= pool
        assert row["prompt"].split("\n\nQuestion: ")[-1].split("\n")[0] not in shots


def test_examples_are_the_same_for_every_question_of_a_domain_and_every_language(makqa):
    table = load(makqa, list(LANGUAGES), {"limit": 3})
    keys_by = {}
    for row in table.to_pylist():
        pool = read_domain(makqa, row["category"], examples=True)
        by_question = {entry["qa_data"][row["lang"]][0]: key for key, entry in pool.items()}
        keys = [by_question[q] for q in example_questions(row["prompt"])]
        keys_by.setdefault(row["category"], set()).add(tuple(keys))
    assert all(len(variants) == 1 for variants in keys_by.values()), (
        "one example set per domain, parallel across languages"
    )
    assert len({keys for variants in keys_by.values() for keys in variants}) == len(DOMAINS)


def test_examples_are_seeded(makqa):
    first = load(makqa, ["en", "ja"], {"limit": 2})
    assert first.equals(load(makqa, ["en", "ja"], {"limit": 2}))
    other = load(makqa, ["en", "ja"], {"limit": 2}, seed=1)
    assert first["prompt"].to_pylist() != other["prompt"].to_pylist()
    assert first["references"].equals(other["references"])


def test_example_answers_are_short(makqa):
    prompt = load(makqa, ["en"], {"limit": 1, "domains": ["movie"]})["prompt"][0].as_py()
    answers = re.findall(r"^Answer: (.+)$", prompt, flags=re.M)
    assert len(answers) == 5 and all(answer.count(", ") <= 2 for answer in answers)


# -- prompt variants ---------------------------------------------------------------------------
def test_variants_are_prefixed_except_the_default(makqa):
    table = load(makqa, ["en"], {"limit": 1, "domains": ["geo"]}, variants=list(VARIANTS))
    assert table["item_id"].to_pylist() == [
        "geo/Q1085-P30",
        "template:geo/Q1085-P30",
        "zero_shot:geo/Q1085-P30",
        "few_shot_native_instruction:geo/Q1085-P30",
    ]
    assert [parse_item_id(i)[0] for i in table["item_id"].to_pylist()] == list(VARIANTS)
    assert parse_item_id("geo/Q1085-P30") == (DEFAULT_VARIANT, "geo", "Q1085-P30")
    prompts = dict(zip(VARIANTS, table["prompt"].to_pylist()))
    assert prompts["zero_shot"] == "Question: On which continent is Prague located?\nAnswer:"
    assert prompts["template"].endswith("Question: Prague: continent?\nAnswer:")
    assert len(example_questions(prompts["template"])) == 5
    assert all(re.fullmatch(r".+: .+\?", q) for q in example_questions(prompts["template"]))


def test_the_template_variant_uses_the_triple_in_each_language(makqa):
    table = load(makqa, ["ja", "de"], {"limit": 1, "domains": ["geo"]}, variants=["template"])
    ja, de = table["prompt"].to_pylist()
    assert ja.endswith("Question: プラハ: 大陸？\nAnswer:")
    assert de.endswith("Question: Prag: Kontinent?\nAnswer:")


def test_the_native_instruction_variant_speaks_the_questions_language(makqa):
    row = load(makqa, ["ja"], {"limit": 1, "domains": ["geo"]}, variants=["few_shot_native_instruction"]).to_pylist()[0]
    question, answer, instruction = NATIVE_LABELS["ja"]
    assert row["prompt"].startswith(instruction + "\n\n")
    assert row["prompt"].endswith(f"{question}: プラハはどの大陸に位置していますか？\n{answer}:")
    assert len(example_questions(row["prompt"], question)) == 5
    assert set(NATIVE_LABELS) == set(LANGUAGES)


# -- released outputs ------------------------------------------------------------------------
def test_released_gpt35_outputs_map_onto_the_default_variant_ids(makqa):
    records, report = read_released(makqa / "result_gpt35")
    assert len(records) == report.records == 12 * 2027
    assert dict(report.questions) == COUNTS
    assert dict(report.empty) == {("history", "el"): 1} and not report.missing
    prompts = load(makqa, list(LANGUAGES), None)
    assert {(r["item_id"], r["language"]) for r in records} == set(
        zip(prompts["item_id"].to_pylist(), prompts["lang"].to_pylist())
    )
    first = next(r for r in records if r["item_id"] == "timeliness/Q1097511-P54" and r["language"] == "en")
    assert first["response"] == "Arizona Cardinals"


def test_released_records_serve_the_file_backend(makqa, tmp_path):
    path = write_jsonl(released_records(makqa / "result_gpt35", ["geo", "literature"]), tmp_path / "gpt35.jsonl")
    recorded = read_recorded(path)
    assert len(recorded) == 12 * (266 + 145)
    assert recorded[("geo/Q1085-P30", "en")]["response"] == "Europe"


def test_a_release_gap_becomes_an_error_record_and_is_counted(makqa, tmp_path):
    entries = json.loads((makqa / "result_gpt35" / "result_sport_club.json").read_text())
    del entries[0]["ko"]
    entries[1]["fr"]["answer"] = ""
    (tmp_path / "result_sport_club.json").write_text(json.dumps(entries))
    records, report = read_released(tmp_path, ["sport_club"])
    assert dict(report.missing) == {("sport_club", "ko"): 1} and dict(report.empty) == {("sport_club", "fr"): 1}
    gap = next(r for r in records if r["language"] == "ko" and r["finish_reason"] == "error")
    assert gap["response"] == "" and "no answer in the release" in gap["error"]
    with pytest.raises(MAKQAError, match="result_geo.json not found"):
        read_released(tmp_path, ["geo"])


def test_a_truncated_release_file_is_named_with_line_and_column(tmp_path, shared_data):
    import shutil

    from xlcons.datasets.makqa import MAKQAError, read_domain
    from xlcons.datasets.makqa_released import read_released

    folder = tmp_path / "makqa"
    shutil.copytree(shared_data / "makqa", folder)
    geo = folder / "QA_merged_data_dict_geo.json"
    geo.write_bytes(geo.read_bytes()[:5000])
    with pytest.raises(
        MAKQAError, match=r"QA_merged_data_dict_geo\.json, line \d+, column \d+: not valid JSON.*fetch it again"
    ):
        read_domain(folder, "geo")
    released = folder / "result_gpt35" / "result_geo.json"
    released.write_bytes(released.read_bytes()[:-10])
    with pytest.raises(MAKQAError, match=r"result_geo\.json, line \d+"):
        read_released(folder / "result_gpt35", ["geo"])
