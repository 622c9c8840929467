"""The language registry: the one place where a language code gets its meaning.

Configs name languages by MultiQ's (Google Translate) codes, but every stage needs a
different identifier for the same language: NLLB-200's FLORES codes to translate,
ISO 639-3 and GlotLID / lid.176 labels to recognise a response's language, a sentence
splitter, and Gupta et al. 2025's groups to aggregate. Keeping all of them in one reviewed
table (``config/languages.tsv``) lets Snakemake reject a bad code while it builds the
DAG instead of hours into a run; that is also why this module uses the stdlib only.

Choices the table encodes:

- Near-duplicate codes (he/iw, jv/jw, zh/zh-CN, tl/fil) stay separate rows because
  MultiQ has prompts under each; ``canonical`` says which code they stand for. zh-TW
  is not a duplicate of zh (Traditional script, its own NLLB code), and neither are
  ku (Kurmanji, Latin script) and ckb (Sorani, Arabic script).
- ``nllb`` is empty where NLLB-200 has no code *in the script of the prompts*
  (mni-Mtei is Meetei Mayek; NLLB's ``mni_Beng`` is Bengali script), so such a
  language can be evaluated but not translated.
- ``script_group`` extends Gupta et al. 2025's four groups to every language by script:
  Indic means the Brahmic scripts of South Asia, Sinhala and Meetei Mayek included
  (Sinhala is Sri Lankan, but it is Brahmic and segments like its Indian relatives);
  Thaana, Ethiopic, the Southeast Asian scripts and the rest are Other.
- ``family_group`` is Gupta et al. 2025's own grouping (it files de and nl under "Rom") and
  exists only for its 30 languages and their duplicates; ``family`` is the real
  genealogy, for analyses beyond the paper.
"""

from __future__ import annotations

import csv
import difflib
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from xlcons import REPO_ROOT

REGISTRY_PATH = REPO_ROOT / "config" / "languages.tsv"

COLUMNS = (
    "code",
    "name",
    "canonical",
    "nllb",
    "iso639_3",
    "script",
    "script_group",
    "family",
    "family_group",
    "splitter",
    "glotlid_labels",
    "lid176_labels",
    "other_scripts",
    "lid_same_as",
)
_OPTIONAL_COLUMNS = frozenset({"nllb", "family_group", "lid176_labels", "other_scripts", "lid_same_as"})
SCRIPT_GROUPS = ("Latin", "Indic", "Perso-Arabic", "Other")
FAMILY_GROUPS = ("Rom", "Slav", "Indo-Aryan", "Dravidian", "Other")
SPLITTERS = ("pysbd", "indicnlp", "underthesea", "pythainlp", "urdu", "spacy")
# A duplicate must behave exactly like the code it stands for, or results would differ
# depending on which spelling a config happened to use.
_SHARED_WITH_CANONICAL = (
    "nllb",
    "iso639_3",
    "script",
    "glotlid_labels",
    "lid176_labels",
    "other_scripts",
    "lid_same_as",
)
# The marks that end a sentence: always, even with no space after them (Chinese, Japanese,
# Amharic, Myanmar, Khmer), or before whitespace; the quotes and brackets that may follow one;
# and all that a text shaped like a sentence may end with (xlcons.segmentation's splitting,
# xlcons.translation.quality_checks' code check).
HARD_SENTENCE_MARKS = "。！？｡።፧፨။។៕"
SOFT_SENTENCE_MARKS = "?!؟۔।॥"
SENTENCE_CLOSERS = "\"'”’»›)]}）」』"
SENTENCE_FINAL_MARKS = "." + SOFT_SENTENCE_MARKS + HARD_SENTENCE_MARKS
# The letters of each script of the registry (its `script` and `other_scripts`, ISO 15924), by
# the first word of their Unicode names (after NFKC): Han is ``CJK`` (UNIFIED IDEOGRAPH), and
# Japanese and Korean are written in Han as well as their own letters.
SCRIPT_LETTER_NAMES = {
    "Arab": ("ARABIC",),
    "Armn": ("ARMENIAN",),
    "Beng": ("BENGALI",),
    "Cyrl": ("CYRILLIC",),
    "Deva": ("DEVANAGARI",),
    "Ethi": ("ETHIOPIC",),
    "Geor": ("GEORGIAN",),
    "Grek": ("GREEK",),
    "Gujr": ("GUJARATI",),
    "Guru": ("GURMUKHI",),
    "Hans": ("CJK",),
    "Hant": ("CJK",),
    "Hebr": ("HEBREW",),
    "Jpan": ("CJK", "HIRAGANA", "KATAKANA"),
    "Khmr": ("KHMER",),
    "Knda": ("KANNADA",),
    "Kore": ("HANGUL", "CJK"),
    "Laoo": ("LAO",),
    "Latn": ("LATIN",),
    "Mlym": ("MALAYALAM",),
    "Mtei": ("MEETEI",),
    "Mymr": ("MYANMAR",),
    "Orya": ("ORIYA",),
    "Sinh": ("SINHALA",),
    "Taml": ("TAMIL",),
    "Telu": ("TELUGU",),
    "Thaa": ("THAANA",),
    "Thai": ("THAI",),
}
# ISO 15924 codes of the scripts a language may also be written in (other_scripts), by the
# first word of the Unicode names of their letters: what `written_script` can tell apart.
SCRIPT_OF_LETTERS = {
    name: script for script in ("Latn", "Cyrl", "Arab", "Deva", "Guru") for name in SCRIPT_LETTER_NAMES[script]
}

GUPTA2025_LANGUAGES = tuple(
    "ar bn cs de el es fa fr gu hi id it iw ja kn ko ml nl pa pl pt ro ru ta te th tr ur vi zh".split()
)
XING2024_LANGUAGES = tuple("zh en fr es ru ja it de pt ko el nl".split())


class UnknownLanguageError(ValueError):
    """A code that is not in the registry (a typo, or a language not added yet)."""


class NotTranslatableError(ValueError):
    """A known language that NLLB-200 cannot translate."""


@dataclass(frozen=True)
class Language:
    code: str
    name: str
    canonical: str
    nllb: str | None
    iso639_3: str
    script: str
    script_group: str
    family: str
    family_group: str | None
    splitter: str
    glotlid_labels: tuple[str, ...]
    lid176_labels: tuple[str, ...]
    other_scripts: tuple[str, ...] = ()
    # Registry codes of the languages a language-ID model cannot tell this one apart from (one
    # standard language written in national varieties: Bosnian, Croatian and Serbian; Malay and
    # Indonesian): outside the Language Confusion Benchmark's own languages, a line labelled as
    # one of them is not confusion (docs/language-confusion.md, "Beyond the benchmark's languages").
    lid_same_as: tuple[str, ...] = ()

    @property
    def translatable(self) -> bool:
        return self.nllb is not None

    @property
    def scripts(self) -> tuple[str, ...]:
        """The scripts the language is written in: its main one first (Serbian: Cyrl, Latn)."""
        return (self.script, *self.other_scripts)


def written_script(text: str, language: Language) -> str:
    """The script `text` is written in, as far as it matters for `language`: the one of the
    language's other scripts that most of its letters are in, when they are; else its main script.

    Serbian written in Latin letters is Serbian in Latin script (``Latn``), not English: the
    word-level language confusion check, which looks for English words in Latin letters,
    does not apply to it, and language ID may give it Latin-script labels.
    """
    if not language.other_scripts:
        return language.script
    counts: dict[str, int] = {}
    for char in text:
        if char.isalpha():
            script = SCRIPT_OF_LETTERS.get(unicodedata.name(char, "").split(" ", 1)[0])
            if script is not None:
                counts[script] = counts.get(script, 0) + 1
    if not counts:
        return language.script
    top = max(counts, key=counts.get)
    return top if top in language.other_scripts and counts[top] > counts.get(language.script, 0) else language.script


def has_letters_of(text: str, scripts: Sequence[str]) -> bool:
    """Whether `text` has a letter of one of `scripts` (ISO 15924 codes of SCRIPT_LETTER_NAMES;
    a script missing there counts as present, so nothing is excused for want of its letters)."""
    if any(script not in SCRIPT_LETTER_NAMES for script in scripts):
        return True
    names = {name for script in scripts for name in SCRIPT_LETTER_NAMES[script]}
    return any(
        char.isalpha() and unicodedata.name(char, "").split(" ", 1)[0] in names
        for char in unicodedata.normalize("NFKC", text)
    )


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(REPO_ROOT))
    except ValueError:
        return str(path)


class LanguageRegistry:
    _cache: dict[Path, LanguageRegistry] = {}

    def __init__(self, languages: list[Language], path: Path = REGISTRY_PATH):
        self.path = Path(path)
        self._languages = {language.code: language for language in languages}

    @classmethod
    def load(cls, path: Path | str = REGISTRY_PATH) -> LanguageRegistry:
        """Parse and validate once per file: Snakefiles and rule scripts call this often."""
        key = Path(path).resolve()
        if key not in cls._cache:
            cls._cache[key] = cls(_read(Path(path)), Path(path))
        return cls._cache[key]

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(self._languages)

    def __len__(self) -> int:
        return len(self._languages)

    def __iter__(self):
        return iter(self._languages.values())

    def __contains__(self, code: object) -> bool:
        return isinstance(code, str) and code in self._languages

    def __getitem__(self, code: str) -> Language:
        try:
            return self._languages[code]
        except (KeyError, TypeError):
            raise UnknownLanguageError(self._unknown_message(code)) from None

    def nllb_code(self, code: str) -> str:
        language = self[code]
        if language.nllb is None:
            raise NotTranslatableError(
                f"language {code!r} ({language.name}) has no NLLB-200 code, so it cannot be "
                f"translated; remove it from the languages of the translation stages, or fill in "
                f"its nllb column in {_display(self.path)} if NLLB-200 covers it in this script"
            )
        return language.nllb

    def script_groups(self, codes=None) -> dict[str, tuple[str, ...]]:
        """Group -> codes; pass ``codes`` to average over a run's languages (Gupta et al. 2025: its 30)."""
        return self._group("script_group", SCRIPT_GROUPS, codes)

    def family_groups(self, codes=None) -> dict[str, tuple[str, ...]]:
        """Languages outside Gupta et al. 2025's 30 have no family group and are left out."""
        return self._group("family_group", FAMILY_GROUPS, codes)

    def _group(self, field: str, order, codes) -> dict[str, tuple[str, ...]]:
        members: dict[str, list[str]] = {group: [] for group in order}
        for code in self.codes if codes is None else codes:
            group = getattr(self[code], field)
            if group is not None:
                members[group].append(code)
        return {group: tuple(found) for group, found in members.items() if found}

    def _unknown_message(self, code) -> str:
        message = f"unknown language code {code!r} (not in {_display(self.path)})"
        named = self._named(str(code))
        if named:
            return (
                message
                + "; did you mean "
                + " or ".join(f"{language.code!r} ({language.name})" for language in named)
                + "? (a language is given by its code, not its name)"
            )
        suggestions, note = self._suggest(str(code))
        if suggestions:
            return message + "; did you mean " + " or ".join(map(repr, suggestions)) + "?"
        if note:
            return message + "; " + note
        return message + "; the code column lists the accepted codes"

    def _named(self, text: str) -> list[Language]:
        """The languages a name stands for (`bengali`, `Chinese`, `Manipuri`; any case), one code
        per language; failing that, those whose name is a near miss of a word-like `text`
        (`Portugese`). A name of the registry's `name` column, its part before the brackets or
        the one in them."""
        aliases: dict[str, list[Language]] = {}
        for language in self:
            full = language.name.lower()
            before, _, inside = full.partition(" (")
            for alias in dict.fromkeys((full, before.strip(), inside.removesuffix(")").strip())):
                if alias:
                    aliases.setdefault(alias, []).append(language)
        wanted = " ".join(text.lower().split())
        found = aliases.get(wanted)
        if found is None and len(wanted) > 3 and wanted.replace(" ", "").isalpha():
            close = difflib.get_close_matches(wanted, aliases, n=1, cutoff=0.8)
            found = aliases[close[0]] if close else None
        return _one_per_canonical(found, wanted) if found else []

    def _suggest(self, code: str) -> tuple[list[str], str | None]:
        """Codes the user may have meant, or (none and) a note on why none fits.

        Common slips: wrong case, ``_`` for ``-``, a FLORES or ISO 639-3 code, or a BCP 47
        tag with a script or region subtag (zh-Hant, sr-Latn, pt-BR). A script subtag picks
        the code written in that script (zh-Hant is Traditional zh-TW, not Simplified zh);
        a region picks a code that carries it; a region the registry cannot place offers
        every script the language has rather than guessing one.
        """
        lowered = {known.lower(): known for known in self._languages}
        tag = code.strip().replace("_", "-")
        if tag.lower() in lowered:
            return [lowered[tag.lower()]], None
        exact = [language.code for language in self if code.strip() == language.nllb]
        if exact:
            return exact, None
        base, script, region = _subtags(tag)
        relatives = [language for language in self if base in (_subtags(language.code)[0], language.iso639_3.lower())]
        if not relatives:
            return [lowered[m] for m in difflib.get_close_matches(code.lower(), lowered, n=3)], None
        if script is not None:
            in_script = [language for language in relatives if language.script.lower() == script.lower()]
            in_script = in_script or [
                language
                for language in relatives
                if script.lower() in (other.lower() for other in language.other_scripts)
            ]
            if not in_script:
                have = " and ".join(
                    f"{language.code!r} ({language.name}) in {language.script} script"
                    for language in _one_per_canonical(relatives, base)
                )
                return [], f"{_display(self.path)} has {have} only, not in {script}"
            relatives = in_script
        if region is not None:
            in_region = [language for language in relatives if _subtags(language.code)[2] == region]
            if in_region:
                return [language.code for language in in_region][:3], None
        return [language.code for language in _one_per_canonical(relatives, base)][:3], None


def _subtags(tag: str) -> tuple[str, str | None, str | None]:
    """(language, script, region) of a BCP 47-like tag (zh-Hant-TW, zho_Hant, pt-BR), lower-,
    title- and upper-cased as BCP 47 writes them; other subtags are ignored."""
    parts = tag.replace("_", "-").split("-")
    script = region = None
    for part in parts[1:]:
        if len(part) == 4 and part.isalpha():
            script = script or part.title()
        elif (len(part) == 2 and part.isalpha()) or (len(part) == 3 and part.isdigit()):
            region = region or part.upper()
    return parts[0].lower(), script, region


def _one_per_canonical(languages: list[Language], base: str) -> list[Language]:
    """One code per language (duplicates such as zh/zh-CN share a canonical): the one spelt
    as the user's language subtag when there is one (iw stays iw), else the canonical code."""
    chosen: dict[str, Language] = {}
    for language in languages:
        current = chosen.get(language.canonical)
        if current is None or (
            _subtags(current.code)[0] != base
            and (_subtags(language.code)[0] == base or language.code == language.canonical)
        ):
            chosen[language.canonical] = language
    return list(chosen.values())


def _read(path: Path) -> list[Language]:
    shown = _display(path)

    def fail(line: int, column: str | None, problem: str) -> ValueError:
        where = f"{shown}, line {line}" + (f", column {column!r}" if column else "")
        return ValueError(f"{where}: {problem}")

    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    if not rows or tuple(rows[0]) != COLUMNS:
        found = ", ".join(rows[0]) if rows else "an empty file"
        raise fail(1, None, f"header must be the tab-separated columns {', '.join(COLUMNS)}; found {found}")

    languages: list[Language] = []
    lines: dict[str, int] = {}
    for line, row in enumerate(rows[1:], start=2):
        if not row:
            continue
        if len(row) != len(COLUMNS):
            raise fail(line, None, f"expected {len(COLUMNS)} tab-separated fields, found {len(row)}")
        record = dict(zip(COLUMNS, (value.strip() for value in row)))
        for column, value in record.items():
            if not value and column not in _OPTIONAL_COLUMNS:
                raise fail(line, column, "must not be empty")
        code = record["code"]
        if code in lines:
            raise fail(line, "code", f"duplicate code {code!r} (first on line {lines[code]})")
        if record["script_group"] not in SCRIPT_GROUPS:
            raise fail(line, "script_group", f"{record['script_group']!r} is not one of {SCRIPT_GROUPS}")
        if record["family_group"] and record["family_group"] not in FAMILY_GROUPS:
            raise fail(line, "family_group", f"{record['family_group']!r} is not one of {FAMILY_GROUPS}")
        unknown_scripts = [
            script for script in record["other_scripts"].split() if script not in SCRIPT_OF_LETTERS.values()
        ]
        if unknown_scripts:
            raise fail(
                line,
                "other_scripts",
                f"{', '.join(unknown_scripts)} not among the scripts xlcons "
                f"tells apart ({', '.join(SCRIPT_OF_LETTERS.values())})",
            )
        if record["splitter"] not in SPLITTERS:
            raise fail(line, "splitter", f"{record['splitter']!r} is not one of {SPLITTERS}")
        lines[code] = line
        languages.append(
            Language(
                code=code,
                name=record["name"],
                canonical=record["canonical"],
                nllb=record["nllb"] or None,
                iso639_3=record["iso639_3"],
                script=record["script"],
                script_group=record["script_group"],
                family=record["family"],
                family_group=record["family_group"] or None,
                splitter=record["splitter"],
                glotlid_labels=tuple(record["glotlid_labels"].split()),
                lid176_labels=tuple(record["lid176_labels"].split()),
                other_scripts=tuple(record["other_scripts"].split()),
                lid_same_as=tuple(record["lid_same_as"].split()),
            )
        )

    by_code = {language.code: language for language in languages}
    for language in languages:
        line = lines[language.code]
        target = by_code.get(language.canonical)
        if target is None:
            raise fail(line, "canonical", f"{language.canonical!r} is not a code in this file")
        for same in language.lid_same_as:
            if same not in by_code or same == language.code:
                raise fail(line, "lid_same_as", f"{same!r} is not another code in this file")
        if target.canonical != target.code:
            raise fail(line, "canonical", f"{target.code!r} is itself a duplicate of {target.canonical!r}")
        for column in _SHARED_WITH_CANONICAL:
            if getattr(language, column) != getattr(target, column):
                raise fail(line, column, f"must equal that of its canonical code {target.code!r}")
    return languages
