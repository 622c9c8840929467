"""The item explorer's data files (xlcons.reports.explorer), built from the hand-made results set of
tests/builders.py: what each file holds, that untrusted text cannot end a script, and that the
overview holds the results table's numbers."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from builders import HOSTILE_ANSWERS, explorer_run
from xlcons.reports.explorer import (
    SITE_FILES,
    build_explorer,
    data_file,
    heatmap_file,
    item_parts,
    js_literal,
    read_item_tables,
    script,
)

CALL = re.compile(r"^window\.XLCONS\.(\w+)\((.*)\);\n$", re.DOTALL)


def payload(path: Path) -> tuple[str, object]:
    """The function a data file calls and what it passes (JSON with JavaScript's \\u escapes)."""
    match = CALL.fullmatch(path.read_text(encoding="utf-8"))
    assert match, f"{path} is not one registration call"
    return match.group(1), json.loads(match.group(2))


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("explorer-data")
    inputs = explorer_run(root)
    written = build_explorer(inputs, root / "results/explorer", models=["m2", "m1"])
    return root, inputs, written


def item(root: Path, model: str, lang: str, item_id: str) -> dict:
    _, data = payload(data_file(root / "results/explorer", "multiq", model, lang))
    return next(entry for entry in data["items"] if entry["id"] == item_id)


def test_the_site_has_its_pages_an_overview_a_file_per_heatmap_and_one_per_answer_set(run):
    root, _, written = run
    site = root / "results/explorer"
    _, index = payload(site / "data/overview.js")
    n_heatmaps = len(index["datasets"][0]["heatmaps"])
    assert {path.relative_to(site).as_posix() for path in written} == {
        *SITE_FILES,
        "data/overview.js",
        *(f"data/heatmaps/multiq/{n}.js" for n in range(n_heatmaps)),
        *(f"data/items/multiq/{m}/{lang}.js" for m in ("m1", "m2") for lang in ("en", "de")),
    }
    assert all(path.is_file() for path in written)
    assert not any(site.parent.glob(".explorer.building")), "built beside, then moved in place"
    index = (site / "index.html").read_text()
    assert 'http-equiv="Content-Security-Policy"' in index and "script-src 'self'" in index
    assert "http://" not in index and "https://" not in index, "no CDN"


def test_an_item_file_holds_prompts_answer_translation_sentences_with_qe_scores_and_evaluator_rows(run):
    root, _, _ = run
    function, data = payload(data_file(root / "results/explorer", "multiq", "m1", "de"))
    assert function == "add" and (data["dataset"], data["model"], data["lang"]) == ("multiq", "m1", "de")
    assert [entry["id"] for entry in data["items"]] == ["q1", "q2", "q3"]
    assert "judge||accuracy" in data["metrics"] and "translation_qe|tiny-nllb|qe" in data["metrics"]
    q1 = item(root, "m1", "de", "q1")
    assert q1["prompt"] == "(de) question q1" and q1["prompt_en"] == "(en) question q1?"
    assert q1["answer"] == "Berlin ist die Hauptstadt. Es ist groß." and q1["answer_status"] == "answered"
    translation = q1["translation"]
    assert translation["text"] == "EN[Berlin ist die Hauptstadt. Es ist groß.]"
    assert (translation["path"], translation["lid_label"], translation["translator"]) == (
        "prompt_language",
        "__label__de",
        "tiny-nllb",
    )
    assert [(s["sentence_index"], s["source"], s["qe"]) for s in translation["sentences"]] == [
        (0, "Berlin ist die Hauptstadt", 0.5),
        (1, "Es ist groß.", 0.625),
    ]
    assert q1["scores"]["judge||accuracy"] == [1.0, "ok"]
    assert q1["scores"]["translation_qe|tiny-nllb|qe"] == [0.5625, "ok"]
    assert q1["details"]["judgments"] == {
        "evaluator": "judge",
        "rows": [
            {"verdict": "yes", "judge_response": "<b>yes</b>", "judge_finish_reason": "stop", "judge_model": "judge"}
        ],
    }
    assert q1["details"]["fidelity"]["rows"][0]["label"] == "__label__de"
    facts = q1["details"]["information_facts"]
    assert facts["evaluator"] == "information"
    assert [(f["fact"], f["verdict"]) for f in facts["rows"]] == [
        ("Berlin is a capital.", "supported"),
        ("<i>x</i>", "not_supported"),
    ]


def test_other_translators_translations_stand_beside_the_primary_one(run):
    root, _, _ = run
    assert item(root, "m1", "de", "q1")["other_translations"] == [
        {"translator": "nllb-b", "text": "B[Berlin ist die Hauptstadt. Es ist groß.]", "path": "prompt_language"}
    ]
    assert item(root, "m1", "de", "q1")["translation"]["translator"] == "tiny-nllb", "the primary stays the primary"
    assert item(root, "m2", "de", "q1")["other_translations"] == []


def test_a_failed_request_is_an_error_and_its_scores_say_so(run):
    root, _, _ = run
    q3 = item(root, "m1", "de", "q3")
    assert q3["answer_status"] == "error" and q3["finish_reason"] == "error" and q3["error"] == "failed"
    assert q3["scores"]["judge||accuracy"] == [None, "error"]
    # English answers pass through: a translation without sentences
    english = item(root, "m1", "en", "q1")
    assert english["translation"]["path"] == "passthrough_english" and english["translation"]["sentences"] == []


def test_script_html_and_markdown_answers_are_kept_as_text_and_cannot_end_a_script(run):
    root, _, _ = run
    for lang, answer in (("en", HOSTILE_ANSWERS["script"]), ("de", HOSTILE_ANSWERS["img"])):
        path = data_file(root / "results/explorer", "multiq", "m1", lang)
        text = path.read_text(encoding="utf-8")
        assert "<" not in text and ">" not in text and "&" not in text
        assert "\\u003c/script\\u003e" in text or lang == "de"
        assert item(root, "m1", lang, "q2")["answer"] == answer, "the text itself is unchanged"
    assert "**bold** [link](javascript:alert(1))" in item(root, "m1", "de", "q2")["answer"]


def test_js_literal_escapes_what_could_end_or_hide_a_script():
    text = js_literal({"a": "</script><!-- & \u2028 \u2029", "n": float("nan")} | {"n": None})
    assert text == '{"a":"\\u003c/script\\u003e\\u003c!-- \\u0026 \\u2028 \\u2029","n":null}'
    assert json.loads(text) == {"a": "</script><!-- & \u2028 \u2029", "n": None}
    assert script("add", [1]) == "window.XLCONS.add([1]);\n"
    with pytest.raises(ValueError):
        js_literal(float("nan"))  # values are cleaned before: a NaN reaching here is a bug


def heatmaps(site: Path) -> list[dict]:
    """Every heatmap the overview's index names, as its file holds it."""
    function, index = payload(site / "data/overview.js")
    assert function == "overview"
    found = []
    for dataset in index["datasets"]:
        for entry in dataset["heatmaps"]:
            function, heatmap = payload(site / entry["file"])
            assert function == "heatmap" and heatmap["file"] == entry["file"]
            assert Path(entry["file"]) == heatmap_file("", dataset["name"], entry["index"])
            found.append(heatmap)
    return found


def test_the_overview_holds_every_row_of_results_csv_with_the_same_values(run):
    root, _, _ = run
    site = root / "results/explorer"
    cells = {}
    for h in heatmaps(site):
        width = len(h["langs"])
        for index, present in enumerate(h["present"]):
            if present:
                model, lang = h["models"][index // width], h["langs"][index % width]
                cell = {name: values[index] for name, values in h["cells"].items() if isinstance(values, list)}
                cell |= {name: texts.get(str(index)) for name, texts in h["cells"].items() if isinstance(texts, dict)}
                cells[(h["dataset"], h["evaluator"], h["translator"], h["metric"], model, lang)] = cell
    with open(root / "results/tables/results.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == len(cells)
    for row in rows:
        cell = cells[(row["dataset"], row["evaluator"], row["translator"], row["metric"], row["model"], row["lang"])]
        for name in ("value", "ci_low", "ci_high", "ci_level"):
            assert cell[name] == (float(row[name]) if row[name] else None), (row, name)
        assert cell["n_items"] == int(row["n_items"]) and cell["n_excluded"] == int(row["n_excluded"])
        assert cell["excluded_reasons"] == (row["excluded_reasons"] or None)
        assert cell["note"] == (row["note"] or None)
    judge = next(h for h in heatmaps(site) if h["key"] == "judge||accuracy")
    assert judge["models"] == ["m2", "m1"], "rows in the config's order"
    assert judge["langs"] == ["de", "en"]
    _, index = payload(site / "data/overview.js")
    assert index["files"] == {"multiq": {"m1": {"de": 1, "en": 1}, "m2": {"de": 1, "en": 1}}}, "one part each"


def test_a_heatmap_carries_its_metrics_declared_colour_range_or_none(run):
    root, _, _ = run
    ranges = {h["key"]: h["range"] for h in heatmaps(root / "results/explorer")}
    assert ranges["judge||accuracy"] == [0.0, 1.0]
    assert all(r is None or r[0] < r[1] for r in ranges.values())


def test_an_answer_set_larger_than_a_part_is_split_in_order_and_each_part_says_which_it_is():
    items = [{"id": f"q{n}", "answer": "x" * 40} for n in range(5)]
    payload_ = {"dataset": "d", "model": "m", "lang": "de", "metrics": ["judge||accuracy"], "items": items}
    single = item_parts(payload_)
    assert len(single) == 1
    parts = item_parts(payload_, part_bytes=140)  # two 64-byte items fit, a third does not
    assert len(parts) == 3
    calls = [json.loads(CALL.fullmatch(text).group(2)) for text in parts]
    assert [[i["id"] for i in call["items"]] for call in calls] == [["q0", "q1"], ["q2", "q3"], ["q4"]]
    assert [(c["part"], c["parts"], c["metrics"]) for c in calls] == [(n, 3, ["judge||accuracy"]) for n in range(3)]
    assert all(len(text.encode()) < 140 + 200 for text in parts), "a part's items stay under the bound"
    huge = item_parts({**payload_, "items": [{"id": "big", "answer": "y" * 500}, items[0]]}, part_bytes=140)
    assert [len(json.loads(CALL.fullmatch(t).group(2))["items"]) for t in huge] == [1, 1], "an item too large alone"
    assert data_file("out", "d", "m", "de", 0).as_posix() == "out/data/items/d/m/de.js"
    assert data_file("out", "d", "m", "de", 2).as_posix() == "out/data/items/d/m/de.2.js"


def test_the_reader_refuses_an_input_that_is_no_evaluators_per_item_output(tmp_path):
    with pytest.raises(ValueError, match="knowledge_scores"):
        read_item_tables({"knowledge_scores": []})
    assert read_item_tables({"judgments": [], "results": ["ignored.parquet"]}) == {}


def test_a_rebuild_replaces_the_site(run, tmp_path):
    root, inputs, _ = run
    out = tmp_path / "explorer"
    (out / "data" / "stale").mkdir(parents=True)
    build_explorer({k: v for k, v in inputs.items() if k != "information_facts"}, out)
    assert not (out / "data" / "stale").exists()
    _, data = payload(data_file(out, "multiq", "m1", "de"))
    assert "information_facts" not in data["items"][0]["details"]


def test_the_pages_never_parse_data_as_html_nor_fetch_nor_reach_out():
    """textContent only (no innerHTML, outerHTML, insertAdjacentHTML, document.write, eval), data
    through <script> tags (no fetch or XMLHttpRequest), and nothing from another origin."""
    from xlcons.reports.explorer import SITE

    code = (SITE / "explorer.js").read_text(encoding="utf-8")
    for banned in (
        "innerHTML",
        "outerHTML",
        "insertAdjacentHTML",
        "document.write",
        "eval(",
        "new Function",
        "fetch(",
        "XMLHttpRequest",
    ):
        assert banned not in code, banned
    for name in SITE_FILES:
        text = (SITE / name).read_text(encoding="utf-8")
        assert "http://" not in text and "https://" not in text and "//cdn" not in text, name
