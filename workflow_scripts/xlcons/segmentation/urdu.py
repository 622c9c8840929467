"""Urdu sentence rules (our own; urduhack does not import here and is not copied).

``urdu_sentence_spans(text)`` is the ``urdu`` splitter of ``config/languages.tsv``: the
rules are listed in its docstring.
"""

from __future__ import annotations

import re

from xlcons.segmentation.segments import trim

__all__ = ["URDU_FULL_STOP", "URDU_QUESTION", "urdu_sentence_spans"]

URDU_FULL_STOP = "\u06d4"  # ۔
URDU_QUESTION = "\u061f"  # ؟
_URDU_MARKS = frozenset(URDU_FULL_STOP + URDU_QUESTION + "?!！.")
_PERIODS = frozenset(URDU_FULL_STOP + ".")
# Closing quotes and brackets; Urdu writes closing quotes as both ” and “.
_CLOSERS = frozenset("\"'”’“‘»›)]}）」』")
# Latin abbreviations that turn up in Urdu text, lower case, without their last dot.
_LATIN_ABBREVIATIONS = frozenset("dr mr mrs ms prof sr jr st vs etc no fig vol pp ed e.g i.e a.m p.m".split())
# Urdu spellings of Latin letter names, as in "ایم۔اے" (M.A.), "پی۔ایچ۔ڈی" (Ph.D.),
# "ڈاکٹر اے۔ خان" (Dr A. Khan). The ones that are also common words (کے "of", جی
# "yes", سی "-like", او/ای "O") count only when no space follows the mark.
_URDU_LETTER_NAMES = frozenset("اے بی ڈی ایف ایچ آئی جے ایل ایم این پی کیو آر ایس ٹی یو وی ڈبلیو ایکس وائی زیڈ".split())
_URDU_LETTER_NAMES_UNSPACED = frozenset("سی جی کے او ای".split())
_URL = re.compile(r"(?:https?://|www\.)\S+|\S+@\S+\.\w+")


def _is_arabic_letter(ch: str) -> bool:
    return (
        "\u0600" <= ch <= "\u06ff"
        or "\u0750" <= ch <= "\u077f"
        or "\ufb50" <= ch <= "\ufdff"
        or "\ufe70" <= ch <= "\ufeff"
    ) and ch.isalpha()


def urdu_sentence_spans(text: str) -> list[tuple[int, int]]:
    """Sentence spans of Urdu ``text`` by a small rule set.

    1. A sentence ends after a run of ``۔ ؟ ? ! ！ .`` (``؟!`` ends together), with any
       closing quotes or brackets after it.
    2. ``.`` ends a sentence only before whitespace or the end (so ``3.14``, ``U.S``,
       file names and URLs stay whole); ``۔ ؟ ? !`` also before an Arabic-script letter
       (Urdu is often typed without a space after ``۔``).
    3. A mark directly followed by a digit never ends a sentence (``3.14``, ``۱۲۔۵``).
    4. ``۔`` or ``.`` after a one-letter word is an abbreviation (``ق۔م``, ``A.``), as
       after a listed Latin abbreviation (``Dr.``, ``e.g.``) or an Urdu spelling of a
       Latin letter (``ایم۔اے``, ``پی۔ایچ۔ڈی``, ``ڈاکٹر اے۔ خان``; the letter names
       that are also common words, such as کے and جی, only with no space after).
    5. Two or more periods (``...``, ``۔۔۔``) are an ellipsis, not an end.
    6. Nothing inside a URL or an e-mail address is a mark.
    Text without any mark is one sentence (no verb-ending heuristics).
    """
    protected: set[int] = set()
    for match in _URL.finditer(text):
        protected.update(range(match.start(), match.end()))
    spans: list[tuple[int, int]] = []
    n, start, i = len(text), 0, 0
    while i < n:
        if text[i] not in _URDU_MARKS or i in protected:
            i += 1
            continue
        j = i
        while j < n and text[j] in _URDU_MARKS:
            j += 1
        k = j
        while k < n and text[k] in _CLOSERS:
            k += 1
        if _urdu_boundary(text, i, j, k):
            if text[start:k].strip():
                spans.append((start, k))
            start = k
        i = k if k > i else i + 1
    if text[start:].strip():
        spans.append((start, n))
    return [trim(text, s, e) for s, e in spans]


def _urdu_boundary(text: str, i: int, j: int, k: int) -> bool:
    run = text[i:j]
    following = text[k] if k < len(text) else ""
    if following.isdigit() and k == j:
        return False  # rule 3
    if all(ch in _PERIODS for ch in run) and len(run) >= 2:
        return False  # rule 5
    if not following or following.isspace():
        spaced = True
    elif _is_arabic_letter(following) and "." not in run:
        spaced = False
    else:
        return False  # rule 2
    if all(ch in _PERIODS for ch in run):
        word = text[:i].split()[-1] if text[:i].split() else ""
        word = word.lstrip("\"'“‘«‹([{（")
        if len(word) == 1 and word.isalpha():
            return False
        if word.lower().rstrip(".") in _LATIN_ABBREVIATIONS:
            return False
        if re.fullmatch(r"(?:[A-Za-z]\.)+[A-Za-z]", word):
            return False  # U.S. / e.g. / Ph.D
        tail = re.split(rf"[{URDU_FULL_STOP}.]", word)[-1] if word else ""
        if tail in _URDU_LETTER_NAMES or (not spaced and tail in _URDU_LETTER_NAMES_UNSPACED):
            return False
    return True
