"""Corrections of the sentence splitters' boundaries, for three classes of error that every
library makes in some language (measured on paragraphs of our own in Gupta et al. 2025's languages):

1. **An ordinal number written with a period** (German ``am 3. Oktober``, Czech ``28. října``,
   Polish ``3 maja`` written ``3. maja``, Finnish, Croatian, Latvian, Swedish dates, Roman
   numerals ``Karel IV. zemřel``) taken for a sentence end. A boundary after ``<number>.``
   before a word in lower case is removed: in a cased script a sentence does not start in
   lower case.
2. **An abbreviation glued to a number** (a currency written before the amount: ``Rs. 500``,
   ``Rp. 500``, ``ரூ. 500``, ``रु. 500``; ``Nr. 5``, ``ca. 300``) cut after its period. A
   boundary after a short abbreviation before a digit is removed. Short means up to three
   letters starting with a capital, up to three letters of a script without case (with
   their vowel signs), or up to two lower-case Latin letters (``ca.``, ``nr.``, ``pp.``); a
   longer or lower-case word (``a lot. 5 people``) is taken as a sentence end.
3. **A sentence ending in an ellipsis or in combined marks** (``?!``, ``!!``, ``??``) not cut
   before the next sentence. A boundary is added after ``...``/``…`` before a capital
   letter, and after two or more of ``? ! ؟`` before any letter of a script without case or
   a capital of a cased one (``Wait... what?`` stays one sentence).

`repair(text, spans)` applies them to the (start, end) sentence spans a splitter found in
one line of text, and returns the corrected spans, in order.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

# An ordinal: a number of up to four digits (or a Roman numeral) and its period, at the end.
_ORDINAL = re.compile(r"(?:(?<![\d.,])\d{1,4}|\b[IVXLCDM]{1,6})\.$")
# Where a missed boundary may be: the marks, then whitespace, then (quotes, brackets,
# Spanish inverted marks) the next sentence's first letter.
_CLOSERS = re.compile(r"(\.\.\.|…|[?!؟]{2,})[\"'”’»)\]]*(\s+)[\"'“‘«(\[¿¡]*(\w)")


def _is_letter(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LM"


def _cased(ch: str) -> bool:
    return ch.lower() != ch.upper()


def _last_word(text: str) -> str:
    """The last whitespace-separated word of `text`, without its final period."""
    words = text.split()
    return words[-1][:-1] if words and words[-1].endswith(".") else ""


def _is_short_abbreviation(word: str) -> bool:
    if not word or not all(_is_letter(ch) for ch in word):
        return False
    letters = [ch for ch in word if unicodedata.category(ch)[0] == "L"]
    if not letters or len(letters) > 3:
        return False
    if not _cased(letters[0]):
        return True  # a script without case: ரூ, रु
    if letters[0].isupper():
        return True  # Rs, Rp, Nr, Tk
    return word.isascii() and len(letters) <= 2  # ca, nr, pp


def _false_cut(before: str, after: str) -> bool:
    """Whether the boundary between `before` and `after` is one of classes 1 and 2."""
    before, after = before.rstrip(), after.lstrip()
    if not before.endswith(".") or not after:
        return False
    first = after[0]
    if _ORDINAL.search(before) and _cased(first) and first.islower():
        return True
    return first.isdigit() and _is_short_abbreviation(_last_word(before))


def _missed_cuts(text: str, start: int, end: int) -> list[int]:
    """Positions inside text[start:end] after which a sentence ends (class 3)."""
    cuts = []
    for match in _CLOSERS.finditer(text, start, end):
        first = match.group(3)
        if not _is_letter(first):
            continue
        if _cased(first) and not first.isupper():
            continue
        if match.group(1) in ("...", "…") and not _cased(first):
            continue  # an ellipsis before a letter of a script without case: a pause as often as an end
        cuts.append(match.start(2))
    return cuts


def repair(text: str, spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The splitter's sentence spans of `text` with the three classes of error corrected."""
    merged: list[list[int]] = []
    for start, end in spans:
        if merged and _false_cut(text[merged[-1][0] : merged[-1][1]], text[start:end]):
            merged[-1][1] = end
        else:
            merged.append([start, end])
    repaired: list[tuple[int, int]] = []
    for start, end in merged:
        for cut in _missed_cuts(text, start, end):
            repaired.append((start, cut))
            start = cut
        repaired.append((start, end))
    return repaired
