"""What of a model's answer to a translation request is the translation (`answer: answer`).

Chat models wrap the translation: a preamble ("Sure! Here is the translation:", "Voici la
traduction en français :", "以下是中文翻译："), a label line or prefix ("German:",
"Translation: …", "**Deutsch:**"), quotes (“…”, „…“, «…», 「…」), markdown (bold, code
fences) and a note after it ("Note: …", "(Note: …)", "I hope this helps!"). Base models
write the translation on the first line and may continue with more lines (a next example,
a second attempt). :func:`extract_translation` takes, in order:

1. the lines of the stripped answer, blank ones dropped;
2. the first line that is not *wrapping*: a code fence or rule (```` ``` ````, ``---``); an
   acknowledgement alone ("Sure!", "Bien sûr !", "当然！"); a label alone ("German:",
   "Translation", "### Deutsch", "한국어 번역:"); a preamble, i.e. a line ending in a colon
   that names a language or speaks of a translation ("Here is the translation into
   German:", "Вот перевод на русский язык:"; not "He said the following:"), or a line made
   of nothing but such words ("Here is the translation.", "日本語訳は以下の通りです。").
   Only the first line that is none of these is the translation: every later line (a base
   model's continuation, a chat model's note or second version) is dropped, as with
   `first_line`; a multi-line translation keeps its first line. One exception: when that line is
   labelled with another language than the target ("English: The river froze.", an echoed
   source) and a later line is labelled with the target language, the later line is taken;
3. of that line, markdown emphasis (``**``, ``__``, a wrapping ``*``/``_``/backtick, a
   heading's ``#``, a quote's ``>``) and a label or preamble prefix before a colon
   ("Translation:", "German translation:", "Sure! Here is the translation:", "Traduction :")
   are removed;
4. then a trailing note on the same line: "(Note: …)" ending the line (and its equivalents
   in the 12 languages: "(Remarque : …)", "(Hinweis: …)", "(注：…)" …), "Note: …" after the
   end of a sentence, "I hope this helps…" / "Let me know…";
5. then quotes enclosing the whole text (ASCII, typographic, guillemets, corner brackets),
   when the text holds no other quote of the pair (so `"A," he said, "B."` stays whole).

The words recognised (language names, "translation", "here is", "sure" …) are English and
the 12 FLORES languages of Xing et al. 2024 (zh en fr es ru ja it de pt ko el nl), listed in
:mod:`xlcons.evaluators.translation_answer_words`; for another target language its registry
name is a label too. The rules only ever remove wrapping: an answer without any is scored as
its first non-empty line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from xlcons.evaluators.translation_answer_words import (
    ACKNOWLEDGEMENTS,
    FILLERS,
    HERE_WORDS,
    LANGUAGE_NAMES,
    NOTE_WORDS,
    QUOTE_PAIRS,
    TRANSLATION_WORDS,
)

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\u1100-\u11ff\uf900-\ufaff]")


def _normalise(text: str) -> str:
    """Lower case, markdown marks and brackets dropped, apostrophes as spaces, spaces collapsed."""
    text = text.lower().replace("’", "'").replace("'", " ")
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


_ALL_NAMES = tuple(name for names in LANGUAGE_NAMES.values() for name in names)
_NAMES_OF = {code: re.compile(_alternation(names)) for code, names in LANGUAGE_NAMES.items()}
_NAMES = re.compile(_alternation(_ALL_NAMES))
_TRANSLATION = re.compile(_alternation(TRANSLATION_WORDS))
_TRANSLATION_STEM = re.compile(
    "|".join(re.escape(_normalise(w)) for w in TRANSLATION_WORDS)
)  # inflected too: "перевода", "Übersetzungen"
_HERE = re.compile("|".join(re.escape(_normalise(w)) for w in HERE_WORDS))
_ACKNOWLEDGEMENT = re.compile(_alternation(ACKNOWLEDGEMENTS))
_FENCE = re.compile(r"^(?:`{3,}|~{3,})[\w+#.-]*$|^(?:-{3,}|\*{3,}|_{3,}|={3,})$")
_COLON = re.compile(r"[:：]")
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
_MAX_LABEL = 80  # characters before the colon of a label or preamble prefix


@lru_cache(maxsize=256)
def _names_of(target: str | None, target_name: str | None) -> tuple[str, ...]:
    """The target language's own names, normalised: its entry in LANGUAGE_NAMES and its registry name."""
    names = list(LANGUAGE_NAMES.get(target or "", ()))
    if target_name:
        names += [target_name, re.sub(r"\s*\(.*\)\s*", "", target_name)]
    return tuple(dict.fromkeys(_normalise(name) for name in names if _normalise(name)))


@lru_cache(maxsize=64)
def _vocabulary(extra_names: tuple[str, ...]) -> re.Pattern:
    """Every word of labels and preambles, with the target's own names."""
    return re.compile(
        _alternation((*_ALL_NAMES, *extra_names, *TRANSLATION_WORDS, *HERE_WORDS, *ACKNOWLEDGEMENTS, *FILLERS))
    )


@lru_cache(maxsize=64)
def _strong(extra_names: tuple[str, ...]) -> re.Pattern:
    """A language name or a translation word: what makes a run of filler words a label."""
    return re.compile(_alternation((*_ALL_NAMES, *extra_names, *TRANSLATION_WORDS)))


def _only_wrapping(text: str, extra_names: tuple[str, ...], *, require: re.Pattern) -> bool:
    """True when `text` is nothing but words of labels and preambles, at least one of them
    one that `require` matches: a label or an acknowledgement, not a sentence."""
    plain = _normalise(text)
    if not plain or len(plain) > _MAX_LABEL or not require.search(plain):
        return False
    return not re.sub(r"[\W_]+", "", _vocabulary(extra_names).sub(" ", plain))


def _is_label(text: str, extra_names: tuple[str, ...]) -> bool:
    return _only_wrapping(text, extra_names, require=_strong(extra_names))


def _strip_markdown(line: str) -> str:
    line = line.replace("**", "").replace("__", "")
    line = re.sub(r"^\s*(?:#{1,6}\s+|>\s*)", "", line).strip()
    for mark in ("`", "*", "_"):
        if len(line) > 2 and line.startswith(mark) and line.endswith(mark) and mark not in line[1:-1]:
            line = line[1:-1].strip()
    return line


def _is_wrapping_line(line: str, extra_names: tuple[str, ...]) -> bool:
    """A line that is not the translation: a fence, an acknowledgement, a label, a preamble."""
    if _FENCE.match(line):
        return True
    bare = _strip_markdown(line)
    if not re.sub(r"[\W_]+", "", bare):  # punctuation only
        return True
    if _only_wrapping(bare, extra_names, require=_ACKNOWLEDGEMENT) or _is_label(bare.rstrip(":： "), extra_names):
        return True
    plain = _normalise(bare)
    speaks_of_translation = bool(_TRANSLATION_STEM.search(plain))
    if bare.rstrip().endswith((":", "：")) and (
        speaks_of_translation or _NAMES.search(plain) or any(name in plain for name in extra_names)
    ):
        return True
    # Without a colon, only a line made of nothing but such words ("Here is the translation.",
    # "日本語訳は以下の通りです。"), not a sentence that happens to hold one of them.
    return _only_wrapping(bare, extra_names, require=_TRANSLATION)


def _prefix(line: str) -> tuple[str, str] | None:
    """(text before the first colon, text after it) when the colon comes early enough."""
    match = _COLON.search(line)
    if not match or match.start() > _MAX_LABEL:
        return None
    return line[: match.start()], line[match.end() :]


def _strip_prefix(line: str, extra_names: tuple[str, ...]) -> str:
    """The line without label or preamble prefixes ("Translation:", "Sure! Here is the German translation:")."""
    for _ in range(3):
        split = _prefix(line)
        if split is None or not split[1].strip():
            return line
        head, rest = split
        plain = _normalise(head)
        preamble = bool(_TRANSLATION_STEM.search(plain)) and bool(_HERE.search(plain) or _ACKNOWLEDGEMENT.search(plain))
        if not (_is_label(head, extra_names) or preamble):
            return line
        line = _strip_markdown(rest)
    return line


def _label_language(line: str) -> str | None:
    """The code of the language a line is labelled with ("English: …" -> "en"), if any."""
    split = _prefix(_strip_markdown(line))
    if split is None or not split[1].strip() or not _is_label(split[0], ()):
        return None
    plain = _normalise(split[0])
    found = [code for code, names in _NAMES_OF.items() if names.search(plain)]
    return found[0] if len(found) == 1 else None


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


def extract_translation(response: str, target: str | None = None, target_name: str | None = None) -> str:
    """The translation in a model's answer (see the module's docstring); "" when there is none."""
    extra = _names_of(target, target_name)
    lines = [line.strip() for line in response.strip().splitlines() if line.strip()]
    index = next((i for i, line in enumerate(lines) if not _is_wrapping_line(line, extra)), None)
    if index is None:
        return ""
    labelled = _label_language(lines[index])
    if labelled is not None and target is not None and labelled != target:
        later = next((i for i in range(index + 1, len(lines)) if _label_language(lines[i]) == target), None)
        index = later if later is not None else index
    line = _strip_prefix(_strip_markdown(lines[index]), extra)
    for pattern in (_PARENTHESISED_NOTE, _SENTENCE_NOTE, _CLOSING):
        line = pattern.sub("", line).strip()
    return _strip_quotes(_strip_markdown(line))
