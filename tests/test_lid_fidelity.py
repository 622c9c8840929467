"""Language identification (xlcons.lid) and language fidelity (xlcons.evaluators.fidelity).

The "responses" are MultiQ prompts of known language (the tiny LID never trained on the
last 40 questions, lmsys-61 … lmsys-100), so every expected class below is certain, not
a guess about what a model says.
"""

from __future__ import annotations

import re

import polars as pl
import pyarrow as pa
import pytest

from builders import response_rows as responses
from xlcons.evaluators.fidelity import (
    FIDELITY,
    NUMERIC_ITEM_IDS,
    NUMERIC_LMSYS_IDS,
    NUMERIC_MATHS_IDS,
    faithful_scores,
    mark_not_measurable_rows,
    robust_variant,
    score_fidelity,
)
from xlcons.evaluators.fidelity import to_item_scores as fidelity_item_scores
from xlcons.evaluators.language_id import language_id_check, run_language_id
from xlcons.languages import LanguageRegistry
from xlcons.lid import LanguageIdentifier, LanguageIdError, clean_text, registry_code
from xlcons.reports.results import results_table
from xlcons.schemas import NO_ANSWER, PROMPTS, RESPONSES
from xlcons.tables import read_table, write_table

REGISTRY = LanguageRegistry.load()


@pytest.fixture(scope="module")
def multiq(shared_data) -> pl.DataFrame:
    return pl.read_csv(shared_data / "multiq" / "MultiQ.csv")


@pytest.fixture(scope="module")
def prompt(multiq):
    def text(lang: str, item: str = "lmsys-63") -> str:
        return multiq.filter((pl.col("language") == lang) & (pl.col("id") == item))["prompt"][0]

    return text


@pytest.fixture(scope="module")
def tiny_lid(offline_models) -> LanguageIdentifier:
    return LanguageIdentifier(offline_models["tiny-lid"], "glotlid")


@pytest.fixture(scope="module")
def lid176(offline_models) -> LanguageIdentifier:
    return LanguageIdentifier(offline_models["lid176"], "lid176")


def classes(table: pa.Table) -> list[tuple[str, str | None]]:
    return list(zip(table["fidelity"].to_pylist(), table["excluded_reason"].to_pylist()))


# --------------------------------------------------------------------------------------
# The identifier
# --------------------------------------------------------------------------------------


def test_labels_come_without_the_fasttext_prefix(tiny_lid, lid176):
    assert "deu_Latn" in tiny_lid.labels and not any(label.startswith("__label__") for label in tiny_lid.labels)
    assert {"de", "he", "zh", "sh"} <= lid176.labels


def test_loading_prints_nothing(offline_models, capfd):
    LanguageIdentifier(offline_models["lid176"], "lid176")
    captured = capfd.readouterr()
    assert captured.out == "" and captured.err == ""


def test_predict_gives_top1_label_and_probability_per_text(tiny_lid, prompt):
    predictions = tiny_lid.predict([prompt("de"), prompt("en"), prompt("zh-CN")])
    assert [label for label, _ in predictions] == ["deu_Latn", "eng_Latn", "zho_Hans"]
    assert all(0.5 < probability <= 1.0 for _, probability in predictions)


def test_predict_batches_give_the_same_as_one_call(tiny_lid, multiq):
    texts = multiq.filter(pl.col("language").is_in(["de", "ru", "ar"]))["prompt"].to_list()[:50]
    assert tiny_lid.predict(texts, batch_size=7) == tiny_lid.predict(texts)


def test_line_breaks_do_not_break_prediction(tiny_lid, prompt):
    text = prompt("de") + "\n\n" + prompt("de", "lmsys-72") + "\r\n- " + prompt("de", "lmsys-85")
    assert clean_text("a\nb\r\nc\u2028d") == "a b c d"
    assert tiny_lid.predict([text])[0][0] == "deu_Latn"


@pytest.mark.parametrize("text", ["", "   ", "\n\n", "\t\r\n"])
def test_empty_text_gets_no_label(tiny_lid, text):
    # fastText itself would answer some language even for "".
    assert tiny_lid.predict([text]) == [(None, None)]


def test_a_glotlid_scheme_on_a_lid176_model_is_refused(offline_models):
    with pytest.raises(LanguageIdError, match="lid176"):
        LanguageIdentifier(offline_models["lid176"], "glotlid")


def test_unknown_scheme_and_missing_model_are_refused(offline_models, tmp_path):
    with pytest.raises(LanguageIdError, match="unknown label scheme"):
        LanguageIdentifier(offline_models["lid176"], "cld3")
    with pytest.raises(LanguageIdError, match="not found"):
        LanguageIdentifier(tmp_path / "missing.bin", "glotlid")


def test_supports_only_languages_the_model_has_a_label_for(tiny_lid, lid176):
    assert tiny_lid.supports("de") and tiny_lid.supports("zh-TW")  # zho_* counts for zh-TW
    assert not tiny_lid.supports("he")  # the tiny model knows twelve languages
    assert lid176.supports("he") and lid176.supports("iw")
    assert not lid176.supports("ak")  # lid.176 has no Akan label


# --------------------------------------------------------------------------------------
# Labels and the registry
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("label", "lang", "expected"),
    [
        ("heb_Hebr", "he", True),
        ("heb_Hebr", "iw", True),
        ("zho_Hans", "zh-CN", True),
        ("zho_Hant", "zh-TW", True),
        ("zho_Hans", "zh-TW", True),  # matched on the ISO part: the registry lists no scripts
        ("cmn_Hani", "zh", True),
        ("ary_Arab", "ar", True),  # Moroccan Arabic counts as Arabic
        ("eng_Latn", "de", False),
        ("srp_Latn", "sr", True),
        ("hrv_Latn", "bs", True),
        (None, "de", False),
    ],
)
def test_glotlid_label_counts_as_a_language_by_its_iso_part(label, lang, expected):
    from xlcons.lid import is_language

    assert is_language(label, REGISTRY[lang], "glotlid") is expected


@pytest.mark.parametrize(
    ("label", "code"),
    [
        ("deu_Latn", "de"),
        ("__label__deu_Latn", "de"),
        ("eng_Latn", "en"),
        ("heb_Hebr", "he"),  # canonical, not its duplicate iw
        ("zho_Hans", "zh"),  # canonical, not zh-CN
        ("zho_Hant", "zh-TW"),  # the script decides between zh and zh-TW
        ("cmn_Hani", "zh"),
        ("srp_Cyrl", "sr"),
        ("srp_Latn", "sr"),  # Serbian in Latin script is still Serbian
        ("hrv_Latn", "hr"),
        ("bos_Latn", "bs"),
        ("hbs_Latn", "hr"),
        ("hbs_Cyrl", "sr"),
        ("arb_Arab", "ar"),
        ("ary_Arab", "ar"),
        ("nob_Latn", "no"),
        ("nno_Latn", "no"),
        ("kmr_Latn", "ku"),
        ("ckb_Arab", "ckb"),
        ("jav_Latn", "jv"),
        ("tgl_Latn", "tl"),
        ("mri_Latn", "mi"),
        ("msa_Latn", "ms"),
        ("xyz_Latn", None),
        ("", None),
        (None, None),
    ],
)
def test_glotlid_label_to_registry_code(label, code):
    assert registry_code(label, "glotlid", REGISTRY) == code


@pytest.mark.parametrize(
    ("label", "code"),
    [
        ("de", "de"),
        ("he", "he"),
        ("zh", "zh"),
        ("wuu", "zh"),
        ("sh", "hr"),
        ("sr", "sr"),
        ("hr", "hr"),
        ("nn", "no"),
        ("jv", "jv"),
        ("tl", "tl"),
        ("arz", "ar"),
        ("xx", None),
    ],
)
def test_lid176_label_to_registry_code(label, code):
    assert registry_code(label, "lid176", REGISTRY) == code


def test_identify_gives_registry_codes(lid176, prompt):
    assert lid176.identify([prompt("iw"), prompt("zh-CN"), prompt("de"), ""]) == ["he", "zh", "de", None]


# --------------------------------------------------------------------------------------
# Fidelity classes
# --------------------------------------------------------------------------------------


def test_fidelity_classes_with_the_tiny_glotlid_style_model(tiny_lid, prompt):
    table = score_fidelity(
        responses(
            [
                ("lmsys-63", "de", prompt("de")),  # German answer to a German prompt
                ("lmsys-63", "de", prompt("en")),  # English answer
                ("lmsys-72", "de", prompt("ru", "lmsys-72")),  # a third language
                ("lmsys-63", "zh-CN", prompt("zh-CN")),
                ("lmsys-63", "en", prompt("en")),  # English to English is "same", not "english"
                ("lmsys-63", "hi", prompt("ar")),
                ("lmsys-63", "he", prompt("he")),  # the tiny model has no Hebrew label
                ("lmsys-63", "mni-Mtei", prompt("en")),  # configured as unsupported
                ("lmsys-63", "ar", NO_ANSWER),
            ]
        ),
        tiny_lid,
    )
    assert classes(table) == [
        ("same", None),
        ("english", None),
        ("other", None),
        ("same", None),
        ("same", None),
        ("other", None),
        ("excluded", "lid_unsupported_language"),
        ("excluded", "unsupported_language"),
        ("excluded", "no_answer"),
    ]
    assert table["label"].to_pylist()[:4] == ["deu_Latn", "eng_Latn", "rus_Cyrl", "zho_Hans"]
    assert table["response_lang"].to_pylist()[:4] == ["de", "en", "ru", "zh"]
    assert table["label"][8].as_py() is None and table["probability"][8].as_py() is None
    # an excluded response with text still has its label (the matrix and translation use it)
    assert table["label"][7].as_py() == "eng_Latn"
    assert table.schema == FIDELITY


def test_fidelity_classes_with_lid176_across_scripts(lid176, prompt):
    table = score_fidelity(
        responses(
            [
                ("lmsys-63", "he", prompt("he")),
                ("lmsys-63", "iw", prompt("iw")),  # the duplicate code accepts the same labels
                ("lmsys-63", "zh-CN", prompt("zh-CN")),
                ("lmsys-63", "zh-TW", prompt("zh-TW")),  # Traditional characters
                ("lmsys-63", "zh", prompt("en")),
                ("lmsys-72", "sr", prompt("sr", "lmsys-72")),  # Cyrillic Serbian
                ("lmsys-72", "de", prompt("fr", "lmsys-72")),
                ("lmsys-63", "ak", prompt("en")),  # lid.176 cannot recognise Akan at all
                ("lmsys-63", "doi", prompt("hi")),
                ("lmsys-63", "he", NO_ANSWER),
            ]
        ),
        lid176,
    )
    assert classes(table) == [
        ("same", None),
        ("same", None),
        ("same", None),
        ("same", None),
        ("english", None),
        ("same", None),
        ("other", None),
        ("excluded", "lid_unsupported_language"),
        ("excluded", "unsupported_language"),
        ("excluded", "no_answer"),
    ]
    assert table["response_lang"].to_pylist()[:7] == ["he", "he", "zh", "zh", "en", "sr", "fr"]


def test_a_very_short_numeric_answer_is_scored_unless_robust(lid176):
    rows = [
        ("lmsys-56", "de", "21"),
        ("lmsys-78", "de", "Die Antwort ist acht, denn zuerst wird multipliziert."),
        ("lmsys-63", "de", "Mount Everest."),
    ]
    main = score_fidelity(responses(rows), lid176)
    assert [value for value, _ in classes(main)][0] in ("same", "english", "other")
    assert main["response_chars"].to_pylist() == [2, 53, 14]
    robust = score_fidelity(responses(rows), lid176, robust=True)
    # lmsys-56 is spelled out in words (not a numeric id) but its answer is under 10 characters;
    # lmsys-78 is a numeric question whatever the length of its answer.
    assert classes(robust)[:2] == [("excluded", "short_response"), ("excluded", "numeric_question")]
    assert classes(robust)[2][0] != "excluded"


def test_the_robust_switch_and_robust_variant_agree(lid176, multiq):
    sample = multiq.filter(pl.col("language").is_in(["de", "he", "zh-TW", "ak"])).head(400)
    rows = [
        (row["id"], row["language"], row["prompt"] if index % 9 else "8")
        for index, row in enumerate(sample.iter_rows(named=True))
    ]
    rows.append(("gpt-41", "de", NO_ANSWER))
    main = score_fidelity(responses(rows), lid176)
    assert robust_variant(main).equals(score_fidelity(responses(rows), lid176, robust=True))


def test_unsupported_languages_come_from_the_argument(lid176, prompt):
    table = score_fidelity(
        responses(
            [("lmsys-63", "de", prompt("de")), ("lmsys-63", "mni-Mtei", prompt("hi")), ("lmsys-63", "hi", prompt("hi"))]
        ),
        lid176,
        unsupported_languages=["de"],
    )
    # mni-Mtei is no longer listed, but lid.176 has no label for it either
    assert classes(table) == [
        ("excluded", "unsupported_language"),
        ("excluded", "lid_unsupported_language"),
        ("same", None),
    ]


def test_an_unknown_language_code_is_refused(lid176):
    from xlcons.languages import UnknownLanguageError

    with pytest.raises(UnknownLanguageError, match="deu"):
        score_fidelity(responses([("lmsys-63", "deu", "Hallo")]), lid176)


# --------------------------------------------------------------------------------------
# The numeric questions of the robustness variant
# --------------------------------------------------------------------------------------


def test_numeric_ids_are_the_maths_domain_and_the_lmsys_questions_written_with_digits(multiq):
    english = multiq.filter(pl.col("language") == "en")
    maths = english.filter(pl.col("domain") == "maths")["id"].to_list()
    assert tuple(maths) == NUMERIC_MATHS_IDS and len(maths) == 10
    with_digits = english.filter(pl.col("id").str.starts_with("lmsys-") & pl.col("prompt").str.contains(r"[0-9]"))[
        "id"
    ].to_list()
    # the LMSYS prompts with a digit that ask about a year and are answered with a name or yes/no
    year_questions = {"lmsys-4", "lmsys-25", "lmsys-36", "lmsys-37", "lmsys-39", "lmsys-57", "lmsys-59", "lmsys-90"}
    assert all(
        re.search(r"\b(19|20)\d\d\b", english.filter(pl.col("id") == item)["prompt"][0]) for item in year_questions
    )
    assert tuple(item for item in with_digits if item not in year_questions) == NUMERIC_LMSYS_IDS
    assert len(NUMERIC_LMSYS_IDS) == 16 and len(NUMERIC_ITEM_IDS) == 26  # the paper's 10 + 16


# --------------------------------------------------------------------------------------
# The rule's job
# --------------------------------------------------------------------------------------


def test_run_language_id_reads_responses_and_writes_fidelity(tmp_path, offline_models, prompt):
    files = []
    for lang in ("de", "he"):
        path = tmp_path / "responses" / f"{lang}.parquet"
        write_table(responses([("lmsys-63", lang, prompt(lang)), ("lmsys-72", lang, NO_ANSWER)]), path, RESPONSES)
        files.append(path)
    out = run_language_id(
        files, tmp_path / "fidelity.parquet", offline_models["lid176"], "lid176", ["mni-Mtei", "doi"], robust=False
    )
    table = read_table(out, FIDELITY)
    assert table["lang"].to_pylist() == ["de", "de", "he", "he"]
    assert classes(table) == [("same", None), ("excluded", "no_answer"), ("same", None), ("excluded", "no_answer")]


# -- The faithful-text check of fidelity (xlcons.measurability) --------------------------------


def fidelity_rows(rows: list[tuple[str, str, str, str | None]]) -> pa.Table:
    """FIDELITY rows from (item, lang, fidelity class, excluded_reason)."""
    return pa.Table.from_pylist(
        [
            {
                "dataset": "multiq",
                "model": "m",
                "item_id": item,
                "lang": lang,
                "label": None,
                "probability": None,
                "response_lang": None,
                "fidelity": fidelity,
                "excluded_reason": reason,
                "response_chars": 5,
            }
            for item, lang, fidelity, reason in rows
        ],
        schema=FIDELITY,
    )


HAND_TABLE = [
    ("q1", "de", "same", None),
    ("q2", "de", "same", None),
    ("q3", "de", "english", None),
    ("q4", "de", "excluded", "no_answer"),
    ("q1", "mni-Mtei", "excluded", "unsupported_language"),
    ("q2", "mni-Mtei", "excluded", "unsupported_language"),
    ("q1", "fr", "same", None),
]


def test_the_faithful_fidelity_of_a_language_is_its_share_of_same_over_its_scored_rows():
    assert faithful_scores(fidelity_rows(HAND_TABLE)) == {
        "de": (2 / 3, 3, None),
        "mni-Mtei": (None, 0, "unsupported_language"),
        "fr": (1.0, 1, None),
    }


def test_a_not_measurable_language_shows_in_results_as_an_empty_value_with_its_reason():
    statuses = {"de": "not_measurable:faithful_text_below_0.95", "mni-Mtei": "not_measurable:unsupported_language"}
    marked = mark_not_measurable_rows(fidelity_rows(HAND_TABLE), {**statuses, "fr": None})
    assert classes(marked) == [
        ("excluded", "not_measurable:faithful_text_below_0.95"),
        ("excluded", "not_measurable:faithful_text_below_0.95"),
        ("excluded", "not_measurable:faithful_text_below_0.95"),
        ("excluded", "not_measurable:faithful_text_below_0.95"),
        ("excluded", "unsupported_language"),  # a language-level exclusion keeps its own reason
        ("excluded", "unsupported_language"),
        ("same", None),
    ]
    results = results_table(fidelity_item_scores(marked), n_resamples=0)
    [german] = results.filter((pl.col("lang") == "de") & (pl.col("metric") == "fidelity_same")).to_dicts()
    assert (german["value"], german["n_items"], german["n_excluded"]) == (None, 0, 4)
    assert german["excluded_reasons"] == "not_measurable:faithful_text_below_0.95:4"
    [french] = results.filter((pl.col("lang") == "fr") & (pl.col("metric") == "fidelity_same")).to_dicts()
    assert (french["value"], french["n_excluded"]) == (1.0, 0)


def test_the_fidelity_check_of_multiq_with_lid176(multiq, offline_models):
    """MultiQ's own prompts through the check with the offline lid.176: German and French are
    read as themselves, Hausa (no lid.176 label) is excluded for that, and a threshold above
    what a language reaches makes it not measurable."""
    prompts = pa.Table.from_pylist(
        [
            {"dataset": "multiq", "item_id": item, "lang": lang, "prompt": text, "source_lang": lang}
            for item, lang, text in multiq.filter(pl.col("language").is_in(["de", "fr", "ha"]))
            .select("id", "language", "prompt")
            .iter_rows()
        ],
        schema=PROMPTS,
    )
    rows = {row["lang"]: row for row in language_id_check(prompts, "multiq", offline_models["lid176"], "lid176")}
    assert rows["de"]["verdict"] == rows["fr"]["verdict"] == "measurable"
    assert rows["de"]["faithful_score"] >= 0.95 and rows["de"]["n_items"] == 200
    assert (rows["ha"]["verdict"], rows["ha"]["reason"]) == ("not_measurable", "lid_unsupported_language")
    strict = language_id_check(prompts, "multiq", offline_models["lid176"], "lid176", threshold=1.0)
    below = {row["lang"] for row in strict if row["reason"] == "faithful_text_below_1"}
    assert below == {lang for lang in ("de", "fr") if rows[lang]["faithful_score"] < 1.0}
