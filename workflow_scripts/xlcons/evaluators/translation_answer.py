"""What of a model's answer to a translation request is the translation (`answer: answer`).

Chat models wrap the translation: a preamble ("Sure! Here is the translation:", "Voici la
traduction en français :", "إليك الترجمة إلى العربية:"), a label line or prefix ("German:",
"Translation: …", "**Deutsch:**", "Kiswahili:"), quotes (“…”, „…“, «…», 「…」), markdown (bold,
code fences), numbered alternatives, a romanisation or an explanation after it, and a note
("Note: …", "(Note: …)", "I hope this helps!"); or they refuse. Base models write the
translation on the first line and may continue with more lines (a next example, a second
attempt). :func:`extract_answer` takes, in order:

1. a refusal: an answer that opens with an apology or "As an AI…" and says it cannot help,
   translate or provide ("I'm sorry, but I can't help with translating this.") is `refused`
   (no text), unless it goes on to introduce a translation (a line ending in a colon, "here
   is"); for an English target only one that speaks of translating, since the translation
   of an English apology is an English apology;
2. the lines of the stripped answer, blank ones marking paragraphs;
3. the first line that is not *wrapping*: a code fence or rule; an acknowledgement alone
   ("Sure!", "当然！"); a label alone ("German:", "### Deutsch", "Kiswahili"); a preamble, i.e.
   a line ending in a colon that names a language or speaks of a translation, or a line made
   of nothing but such words ("Here is the translation."); and, by structure alone, any
   line ending in a colon (`:` or `：`) with more text after it ("Zde je překlad do
   češtiny:", "الترجمة:"), in whatever language;
4. when wrapping came before that line (a preamble, a label, a fence) or it opens a quote that
   a later line closes, the translation is its whole paragraph: the lines that follow it up
   to a blank line, a wrapping line, a labelled line ("English: …", "Romaji: …",
   "Explanation: …"), a note, an enumerated line, a repeated line, or a line in another
   script than the target language's (a romanisation); a bare first line (a base model's
   answer) stays alone, its continuation dropped. When that line is labelled with another
   language than the target ("English: The river froze.", an echoed source) and a later line
   is labelled with the target language, the later line is taken;
5. numbered or bulleted alternatives ("1. …\n2. …", "- …\n- …", "Option 1: …\nOption 2: …"):
   the first, without its number;
6. of each line, markdown emphasis and a label or preamble prefix before a colon or a dash
   ("Translation:", "Sure, here you go:", "Here it is in Russian —", "Polski:");
7. then what is appended on the same line: a note ("(Note: …)" and its equivalents in the
   12 languages, "Note: …" after the end of a sentence, "I hope this helps…"); a bracketed
   remark or a dash-separated tail after the end of the sentence ("… . (Literally: …)",
   "…। — Sangrahalaya …"), or one in another script than the target's (a romanisation:
   "今年冬天河流很早就结冰了。 (Jīnnián …)"), or one opening with an explanation word
   ("(Romanization: …)", "(more natural)");
8. then quotes enclosing the whole text, when it holds no other quote of the pair.

The language names are CLDR's, through Babel: every registry language's English name, and for
the target its own name for itself and for English ("العربية", "Tiếng Việt", "Kiswahili",
"अंग्रेज़ी"); :mod:`xlcons.evaluators.translation_answer_words` adds the inflected forms and
the other words of the 12 FLORES languages of Xing et al. 2024 and of English chat answers.
The rules only ever remove wrapping: an answer without any is scored as its first non-empty
line. Scripts are told apart by the Unicode names of the letters; no language-ID model is
used, so an appended remark in another language of the same script is found only by its
position (after the end of the sentence) or its opening word.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from xlcons.evaluators.translation_answer_words import (
    ACKNOWLEDGEMENTS,
    ENGLISH_CHAT,
    EXPLANATION_WORDS,
    FILLERS,
    FOLLOWING_LABELS,
    HERE_WORDS,
    LANGUAGE_NAMES,
    NOTE_WORDS,
    QUOTE_PAIRS,
    REFUSAL_ACTIONS,
    REFUSAL_INABILITY,
    REFUSAL_OPENINGS,
    TRANSLATION_WORDS,
)
from xlcons.languages import LanguageRegistry, UnknownLanguageError

if TYPE_CHECKING:
    from babel import Locale

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\u1100-\u11ff\uf900-\ufaff]")


def _normalise(text: str) -> str:
    """Lower case, markdown marks and brackets dropped, apostrophes as spaces, spaces collapsed."""
    text = unicodedata.normalize("NFC", text).lower().replace("’", "'").replace("'", " ")
    text = re.sub(r"[*_`#>\[\](){}（）]", " ", text)
    return re.sub(r"\s+", " ", text).strip()


def _alternation(terms: Iterable[str], *, normalise: bool = True) -> str:
    """A regex matching any of `terms` (longest first; normalised as the text they are
    searched in is, unless told); words of alphabetic scripts only whole."""
    parts = []
    terms = {_normalise(term) if normalise else term for term in terms} - {""}
    for term in sorted(terms, key=len, reverse=True):
        escaped = re.escape(term)
        parts.append(escaped if _CJK.search(term) else rf"(?<!\w){escaped}(?!\w)")
    return "|".join(parts)


# -- Language names (CLDR through Babel) -----------------------------------------------------


def _babel_locale(code: str) -> Locale | None:
    """CLDR's locale for a registry code (zh-TW -> zh_Hant_TW, iw -> he), None where CLDR has none."""
    from babel import Locale, UnknownLocaleError

    for candidate in (code.replace("-", "_"), code.split("-")[0]):
        try:
            return Locale.parse(candidate)
        except (UnknownLocaleError, ValueError):
            continue
    return None


@lru_cache(maxsize=1)
def _english_names() -> dict[str, tuple[str, ...]]:
    """Every registry language's names in English: the registry's and CLDR's (with the 12
    languages' native and inflected forms from the word list)."""
    english = _babel_locale("en")
    names: dict[str, tuple[str, ...]] = {}
    for language in LanguageRegistry.load():
        found = [language.name, re.sub(r"\s*\(.*\)\s*", "", language.name), *LANGUAGE_NAMES.get(language.code, ())]
        # CLDR names the base language only: zh-TW's "Chinese" would be zh's as well.
        cldr = english.languages.get(language.code) if english and "-" not in language.code else None
        if cldr:
            found.append(cldr)
        names[language.code] = tuple(dict.fromkeys(_normalise(name) for name in found if _normalise(name)))
    return names


@lru_cache(maxsize=256)
def _own_names(target: str) -> tuple[str, ...]:
    """The target language's names in its own language (CLDR): for itself and for English."""
    locale = _babel_locale(target)
    if locale is None:
        return ()
    found = [locale.languages.get(locale.language), locale.languages.get("en"), locale.display_name]
    return tuple(dict.fromkeys(_normalise(name) for name in found if name and _normalise(name)))


def _registry_code(target: str | None) -> str | None:
    if not target:
        return None
    try:
        return LanguageRegistry.load()[target].code
    except (UnknownLanguageError, KeyError):
        return None


@lru_cache(maxsize=256)
def _names_of(target: str | None, target_name: str | None) -> tuple[str, ...]:
    """The target language's names: English (registry, CLDR, word list) and its own (CLDR)."""
    code = _registry_code(target)
    names = list(_english_names().get(code, ())) if code else list(LANGUAGE_NAMES.get(target or "", ()))
    if target:
        names += _own_names(target)
    if target_name:
        names += [target_name, re.sub(r"\s*\(.*\)\s*", "", target_name)]
    return tuple(dict.fromkeys(_normalise(name) for name in names if _normalise(name)))


@lru_cache(maxsize=1)
def _all_names() -> tuple[str, ...]:
    return tuple(dict.fromkeys(name for names in _english_names().values() for name in names))


@lru_cache(maxsize=1)
def _names_by_language() -> dict[str, re.Pattern]:
    return {code: re.compile(_alternation(names)) for code, names in _english_names().items() if names}


_TRANSLATION = re.compile(_alternation(TRANSLATION_WORDS))
_TRANSLATION_STEM = re.compile(
    "|".join(re.escape(_normalise(w)) for w in TRANSLATION_WORDS)
)  # inflected too: "перевода", "Übersetzungen"
_HERE = re.compile(_alternation((*HERE_WORDS, *ENGLISH_CHAT[:9])))
_ACKNOWLEDGEMENT = re.compile(_alternation(ACKNOWLEDGEMENTS))
_FENCE = re.compile(r"^(?:`{3,}|~{3,})[\w+#.-]*$|^(?:-{3,}|\*{3,}|_{3,}|={3,})$")
_COLON = re.compile(r"[:：]")
_DASH = re.compile(r"\s+[—–-]\s+")
_SENTENCE_END = ".!?。！？।॥۔؟።፧։…"
# A note in brackets that ends the line (one inside the sentence, "(nota: …) apre alle 9", is the sentence's).
_PARENTHESISED_NOTE = re.compile(
    rf"\s*[(（\[]\s*(?:{_alternation(NOTE_WORDS, normalise=False)})\s*[:：][^)）\]]*[)）\]]?\s*$",
    re.IGNORECASE | re.DOTALL,
)
_SENTENCE_NOTE = re.compile(
    rf"(?<=[.!?。！？»”\"」』])\s*(?:{_alternation(NOTE_WORDS, normalise=False)})\s*[:：].*$", re.IGNORECASE | re.DOTALL
)
_CLOSING = re.compile(
    r"(?<=[.!?。！？»”\"」』])\s*(?:i hope (?:this|that|it) helps|hope (?:this|that) helps|let me know)\b.*$",
    re.IGNORECASE | re.DOTALL,
)
_NOTE_LINE = re.compile(rf"^\s*[(（\[]?\s*(?:{_alternation(NOTE_WORDS, normalise=False)})\s*[:：]", re.IGNORECASE)
_CLOSING_LINE = re.compile(r"^(?:i hope|hope (?:this|that)|let me know|feel free)\b", re.IGNORECASE)
_TRAILING_BRACKET = re.compile(r"\s*[(（\[]([^()（）\[\]]+)[)）\]]\s*$")
_EXPLANATION = re.compile(rf"^\s*(?:{_alternation(EXPLANATION_WORDS)})(?!\w)")
_FOLLOWING_LABEL = re.compile(rf"^\s*(?:{_alternation(FOLLOWING_LABELS)})\s*(?:\([^)]*\))?\s*[:：]", re.IGNORECASE)
_ENUMERATOR = re.compile(
    r"^\s*(?:\(?(\d{1,2})[.)]|[-*•·]|(?:option|version|alternative|translation|variant)\s*(\d{1,2})\s*[:.)—–-])\s+",
    re.IGNORECASE,
)
_REFUSAL = re.compile(
    rf"^(?:(?:{_alternation(REFUSAL_OPENINGS)})\W+(?:\w+\W+){{0,3}}?)?(?:i|we)\s*(?:{_alternation(REFUSAL_INABILITY)})"
    rf"\s+(?:\w+\s+){{0,2}}?(?:{_alternation(REFUSAL_ACTIONS)})(?!\w)"
)
_MAX_LABEL = 80  # characters before the colon of a label or preamble prefix
_MAX_PREAMBLE = 160  # characters of a line ending in a colon that is taken for a preamble by structure alone


def _vocabulary_terms(extra_names: tuple[str, ...]) -> tuple[str, ...]:
    return (*_all_names(), *extra_names, *TRANSLATION_WORDS, *HERE_WORDS, *ACKNOWLEDGEMENTS, *FILLERS, *ENGLISH_CHAT)


@lru_cache(maxsize=64)
def _vocabulary(extra_names: tuple[str, ...]) -> re.Pattern:
    """Every word of labels and preambles, with the target's own names."""
    return re.compile(_alternation(_vocabulary_terms(extra_names)))


@lru_cache(maxsize=64)
def _vocabulary_words(extra_names: tuple[str, ...]) -> frozenset[str]:
    """The single words the vocabulary's terms are made of: a text with another word (in a
    script written with spaces) is no label, whatever the regex would say."""
    return frozenset(word for term in _vocabulary_terms(extra_names) for word in re.findall(r"\w+", _normalise(term)))


@lru_cache(maxsize=64)
def _strong(extra_names: tuple[str, ...]) -> re.Pattern:
    """A language name or a translation word: what makes a run of filler words a label."""
    return re.compile(_alternation((*_all_names(), *extra_names, *TRANSLATION_WORDS)))


def _only_wrapping(text: str, extra_names: tuple[str, ...], *, require: re.Pattern) -> bool:
    """True when `text` is nothing but words of labels and preambles, at least one of them
    one that `require` matches: a label or an acknowledgement, not a sentence."""
    plain = _normalise(text)
    if not plain or len(plain) > _MAX_LABEL:
        return False
    if not _CJK.search(plain) and not set(re.findall(r"\w+", plain)) <= _vocabulary_words(extra_names):
        return False
    if not require.search(plain):
        return False
    return not re.sub(r"[\W_]+", "", _vocabulary(extra_names).sub(" ", plain))


def _is_label(text: str, extra_names: tuple[str, ...]) -> bool:
    return _only_wrapping(text, extra_names, require=_strong(extra_names))


def _names_language(plain: str, extra_names: tuple[str, ...]) -> bool:
    return bool(_strong(extra_names).search(plain))


def _strip_markdown(line: str) -> str:
    line = line.replace("**", "").replace("__", "")
    line = re.sub(r"^\s*(?:#{1,6}\s+|>\s*)", "", line).strip()
    for mark in ("`", "*", "_"):
        if len(line) > 2 and line.startswith(mark) and line.endswith(mark) and mark not in line[1:-1]:
            line = line[1:-1].strip()
    return line


def _ends_in_colon(line: str) -> bool:
    return _strip_markdown(line).rstrip().endswith((":", "："))


def _is_wrapping_line(line: str, extra_names: tuple[str, ...]) -> bool:
    """A line that is not the translation: a fence, an acknowledgement, a label, a preamble."""
    if _FENCE.match(line):
        return True
    bare = _strip_markdown(line)
    if not re.sub(r"[\W_]+", "", bare):  # punctuation only
        return True
    if _only_wrapping(bare, extra_names, require=_ACKNOWLEDGEMENT) or _is_label(bare.rstrip(":： "), extra_names):
        return True
    split = _prefix(bare)
    if split is not None and _is_label(split[0], extra_names) and re.search(r"\w", split[1]):
        return False  # a labelled translation ("Armenian: Ո՞րն է ջրի բանաձևը:"), not a preamble
    plain = _normalise(bare)
    if _ends_in_colon(bare) and (bool(_TRANSLATION_STEM.search(plain)) or _names_language(plain, extra_names)):
        return True
    # Without a colon, only a line made of nothing but such words ("Here is the translation.",
    # "日本語訳は以下の通りです。"), not a sentence that happens to hold one of them.
    return _only_wrapping(bare, extra_names, require=_TRANSLATION)


def _prefix(line: str, separator: re.Pattern = _COLON) -> tuple[str, str] | None:
    """(text before the first separator, text after it) when it comes early enough."""
    match = separator.search(line)
    if not match or match.start() > _MAX_LABEL:
        return None
    return line[: match.start()], line[match.end() :]


def _is_preamble_head(head: str, extra_names: tuple[str, ...]) -> bool:
    """A label ("German", "Translation") or a preamble ("Sure, here you go", "Here it is in
    Russian", "The Dutch translation is"): nothing but wrapping words, one of them a
    language name, a translation word, a "here" or an acknowledgement."""
    if _is_label(head, extra_names) or _only_wrapping(head, extra_names, require=_HERE):
        return True
    plain = _normalise(head)
    return bool(_TRANSLATION_STEM.search(plain)) and bool(_HERE.search(plain) or _ACKNOWLEDGEMENT.search(plain))


def _strip_prefix(line: str, extra_names: tuple[str, ...]) -> str:
    """The line without label or preamble prefixes ("Translation:", "Sure! Here is the German
    translation:", "Here it is in Russian —")."""
    for _ in range(3):
        for separator in (_COLON, _DASH):
            split = _prefix(line, separator)
            if split is not None and split[1].strip() and _is_preamble_head(split[0], extra_names):
                line = _strip_markdown(split[1])
                break
        else:
            return line
    return line


def _label_language(line: str) -> str | None:
    """The code of the language a line is labelled with ("English: …" -> "en"), if any."""
    split = _prefix(_strip_markdown(line))
    if split is None or not split[1].strip() or not _is_label(split[0], ()):
        return None
    plain = _normalise(split[0])
    # The language whose name matches most of the label: "Chinese (Simplified)" is zh, not zh-TW's "Chinese".
    lengths = {code: max(map(len, names.findall(plain)), default=0) for code, names in _names_by_language().items()}
    longest = max(lengths.values(), default=0)
    found = [code for code, length in lengths.items() if length and length == longest]
    canonical = {LanguageRegistry.load()[code].canonical for code in found}
    return found[0] if len(canonical) == 1 else None


# -- Scripts ----------------------------------------------------------------------------------


def _is_latin(char: str) -> bool:
    return unicodedata.name(char, "").startswith("LATIN")


def _latin_share(text: str) -> float | None:
    """The share of `text`'s letters that are Latin; None without letters."""
    letters = [char for char in text if char.isalpha()]
    return sum(map(_is_latin, letters)) / len(letters) if letters else None


@lru_cache(maxsize=256)
def _target_is_latin(target: str | None) -> bool | None:
    code = _registry_code(target)
    return None if code is None else LanguageRegistry.load()[code].script == "Latn"


def _other_script(text: str, target: str | None) -> bool:
    """`text` is written in another script than the target language's (a romanisation of a
    Devanagari sentence, a Latin gloss), by the share of Latin letters."""
    latin, share = _target_is_latin(target), _latin_share(text)
    if latin is None or share is None:
        return False
    return share < 0.2 if latin else share > 0.8


# -- What follows the translation on its line ---------------------------------------------------


def _ends_sentence(text: str) -> bool:
    return text.rstrip(" \"'”»」』*").endswith(tuple(_SENTENCE_END))


def _strip_appended(line: str, target: str | None) -> str:
    """The line without a remark after it: a bracketed one or a dash-separated tail that comes
    after the end of the sentence, is in another script, or opens with an explanation word."""
    for _ in range(2):
        match = _TRAILING_BRACKET.search(line)
        if match and match.start() > 0:
            before, inside = line[: match.start()], match.group(1)
            if _ends_sentence(before) or _other_script(inside, target) or _EXPLANATION.match(_normalise(inside)):
                line = before.rstrip()
                continue
        parts = _DASH.split(line, maxsplit=1)
        if len(parts) == 2 and parts[0].strip():
            before, after = parts
            if _ends_sentence(before) or _other_script(after, target) or _EXPLANATION.match(_normalise(after)):
                line = before.rstrip()
                continue
        break
    if _target_is_latin(target) is False:  # a romanised sentence after the sentence, unmarked
        pieces = re.split(rf"(?<=[{re.escape(_SENTENCE_END)}])\s+", line)
        while len(pieces) > 1 and _other_script(pieces[-1], target):
            pieces.pop()
        line = " ".join(pieces)
    return line


def _clean(line: str, target: str | None, extra_names: tuple[str, ...], *, first: bool) -> str:
    line = _strip_markdown(line)
    if first:
        line = _strip_prefix(line, extra_names)
    for pattern in (_PARENTHESISED_NOTE, _SENTENCE_NOTE, _CLOSING):
        line = pattern.sub("", line).strip()
    return _strip_markdown(_strip_appended(line, target))


_QUOTED = [
    (opening, closing, re.compile(rf"{re.escape(opening)}\s*(.+?)\s*{re.escape(closing)}([.。!?！？]?)", re.DOTALL))
    for opening, closing in QUOTE_PAIRS
]


def _strip_quotes(text: str) -> str:
    for _ in range(2):
        stripped = False
        for opening, closing, quoted in _QUOTED:
            match = quoted.fullmatch(text)
            if not match:
                continue
            inner = match.group(1)
            if opening in ("'", "‘") or closing in ("'", "’"):  # apostrophes inside words are not quotes
                inner_check = re.sub(r"(?<=\w)['’](?=\w)", "", inner)
            else:
                inner_check = inner
            if opening in inner_check or closing in inner_check:
                continue
            text, stripped = inner + match.group(2) if not inner.endswith(tuple(".。!?！？")) else inner, True
            break
        if not stripped:
            break
    return text.strip()


# -- The answer's lines ------------------------------------------------------------------------


def _opens_quote(line: str) -> str | None:
    """The closing quote a line opens and does not close, if any."""
    bare = _strip_markdown(line)
    for opening, closing in QUOTE_PAIRS:
        if bare.startswith(opening) and closing not in bare[len(opening) :]:
            return closing
    return None


def _enumerated(line: str) -> str | None:
    """The text of an enumerated line ("1. …", "- …", "Option 2: …"), None for another line."""
    match = _ENUMERATOR.match(_strip_markdown(line) if not line.lstrip().startswith(("-", "*")) else line)
    return line[match.end() :] if match else None


def _ends_block(line: str, seen: list[str], target: str | None, extra_names: tuple[str, ...]) -> bool:
    """A line that does not continue the translation above it."""
    bare = _strip_markdown(line)
    return (
        _is_wrapping_line(line, extra_names)
        or _enumerated(line) is not None
        or _NOTE_LINE.match(bare) is not None
        or _CLOSING_LINE.match(bare) is not None
        or _FOLLOWING_LABEL.match(bare) is not None
        or _label_language(line) is not None
        or (bare.startswith(("(", "（", "[")) and bare.endswith((")", "）", "]")))
        or bare in seen
        or _other_script(bare, target)
    )


@dataclass(frozen=True)
class Extraction:
    """What of an answer is scored: `text`, the translation ("" when there is none), and
    `refused`, the answer is a refusal (never scored)."""

    text: str
    refused: bool = False


def is_refusal(response: str, target: str | None = None) -> bool:
    """The answer is a refusal to translate (see the module's docstring)."""
    lines = [line for line in response.strip().splitlines() if line.strip()]
    if not lines:
        return False
    plain = _normalise(_strip_markdown(lines[0]))
    if not _REFUSAL.match(plain):
        return False
    if any(_ends_in_colon(line) for line in lines) or _HERE.search(plain):
        return False  # "I can't translate it word for word, but here is a close version:" introduces one
    return _registry_code(target) != "en" or "translat" in plain


def _paragraph_end(lines: list[str | None], start: int) -> int:
    end = start
    while end + 1 < len(lines) and lines[end + 1] is not None:
        end += 1
    return end


def extract_answer(response: str, target: str | None = None, target_name: str | None = None) -> Extraction:
    """The translation in a model's answer, or its refusal (see the module's docstring)."""
    if is_refusal(response, target):
        return Extraction("", refused=True)
    extra = _names_of(target, target_name)
    # Blank lines as None: they end a paragraph.
    raw = [line.strip() or None for line in response.strip().splitlines()]
    content = [i for i, line in enumerate(raw) if line is not None]
    if not content:
        return Extraction("")

    def wrapping(i: int) -> bool:
        line = raw[i]
        assert line is not None
        if _is_wrapping_line(line, extra):
            return True
        later = [j for j in content if j > i]  # a leading line ending in a colon, with more after it
        return bool(later) and _ends_in_colon(line) and len(line) <= _MAX_PREAMBLE and _enumerated(line) is None

    index = next((i for i in content if not wrapping(i)), None)
    if index is None:
        return Extraction("")
    introduced = index != content[0]
    labelled = _label_language(raw[index] or "")
    if labelled is not None and _registry_code(target) is not None and labelled != _registry_code(target):
        later = next(
            (i for i in content if i > index and _label_language(raw[i] or "") == _registry_code(target)), None
        )
        index = later if later is not None else index
    first = raw[index] or ""

    # Numbered or bulleted alternatives: the first.
    item = _enumerated(first)
    following = next((i for i in content if i > index), None)
    if item is not None and following is not None and _enumerated(raw[following] or "") is not None:
        return Extraction(_strip_quotes(_clean(item, target, extra, first=True)))

    taken = [first]
    closing = _opens_quote(first)
    if introduced or closing:
        for i in range(index + 1, _paragraph_end(raw, index) + 1):
            line = raw[i] or ""
            if closing is not None:
                taken.append(line)
                if closing in line:
                    closing = None
                    if not introduced:
                        break
                continue
            if _ends_block(line, taken, target, extra):
                break
            taken.append(line)
    cleaned = [_clean(line, target, extra, first=n == 0) for n, line in enumerate(taken)]
    return Extraction(_strip_quotes("\n".join(line for line in cleaned if line)))


def extract_translation(response: str, target: str | None = None, target_name: str | None = None) -> str:
    """The translation in a model's answer (see the module's docstring); "" when there is none
    or the answer is a refusal."""
    return extract_answer(response, target, target_name).text
