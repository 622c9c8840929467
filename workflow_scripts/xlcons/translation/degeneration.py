"""Is a machine translation degenerate? Repetition loops, runaway length, empty output.

NLLB sometimes falls into a loop ("the the the …", a clause over and over) or stops at
once; Gupta et al. 2025 re-translates such sentences by sampling. ``is_degenerate(source,
translation)`` returns why a translation looks degenerate, or None:

``empty``
    the source has a letter or digit and the translation is empty (whitespace only).
``repeated n-gram``
    an n-gram (n = 1..4) repeated more than ``max_ngram_repeats`` times in a row, either
    of words (whitespace tokens, case-folded, outer punctuation ignored, tokens that are
    only punctuation skipped) or of letters inside a word, which is how a loop shows in
    scripts written without spaces (``的的的的的``, ``ßßßßßßß``) and in runaway words.
    A repeated stretch of characters must hold a letter (or combining mark), so
    ``1000000``, ``......`` and ``------`` are not loops.
``repeated pattern``
    a longer stretch (5 or more words, or 5 or more characters of a word) repeated
    ``PATTERN_REPEATS`` (3) times or more in a row: a clause or a sentence in a loop.
``too long``
    the translation is more than ``max_length_ratio`` times as long as the source.
    Lengths are in display columns (East Asian wide and full-width characters count two),
    because a Chinese or Japanese sentence of 10 characters honestly becomes 30 or more in
    English; and a short source counts as ``MIN_LENGTH`` (10) columns, so "Ok." may become
    "All right." without being flagged.

A repetition is not the translation's fault when the source repeats as much: a model's
response that loops itself is translated faithfully. So a repetition counts only when it
is longer than the longest repetition found in the source (by the same measures).

The reasons are checked in the order above; the first that applies is returned.
"""

from __future__ import annotations

import unicodedata

__all__ = ["is_degenerate", "longest_repeat", "REASONS", "PATTERN_REPEATS", "MIN_LENGTH"]

REASONS = ("empty", "repeated n-gram", "repeated pattern", "too long")
MAX_NGRAM = 4
PATTERN_REPEATS = 3
MIN_LENGTH = 10
# Beyond this period a "pattern" is a paragraph, and checking it costs more than it finds.
MAX_PATTERN_PERIOD = 64


def _is_letter(char: str) -> bool:
    return unicodedata.category(char)[0] in "LM"


def _words(text: str) -> list[str]:
    """Whitespace tokens, case-folded, without the punctuation around them (punctuation-only tokens dropped)."""
    words = []
    for token in text.split():
        start, end = 0, len(token)
        while start < end and not token[start].isalnum():
            start += 1
        while end > start and not token[end - 1].isalnum():
            end -= 1
        if start < end:
            words.append(token[start:end].casefold())
    return words


def _runs(sequence, period: int, counts=None) -> int:
    """How many times in a row the most repeated stretch of length ``period`` occurs.

    Positions i and i + period that hold the same item extend a run; a run of m equal
    pairs means the stretch occurs m // period + 1 times. ``counts(i, period)``, when
    given, says whether the stretch starting at i may take part.
    """
    best, run = 1, 0
    for index in range(len(sequence) - period):
        if sequence[index] == sequence[index + period] and (counts is None or counts(index, period)):
            run += 1
            best = max(best, run // period + 1)
        else:
            run = 0
    return best


def _has_letter(token: str):
    """``counts`` for characters: the stretch holds a letter (``......`` and ``1000000`` do not loop)."""
    prefix = [0]
    for char in token:
        prefix.append(prefix[-1] + _is_letter(char))
    return lambda index, period: prefix[index + period] > prefix[index]


def longest_repeat(text: str) -> tuple[int, int]:
    """(n-gram repeats, pattern repeats): the most times a short / long stretch repeats in a row."""
    words = _words(text)
    ngram = max(_runs(words, n) for n in range(1, MAX_NGRAM + 1))
    periods = range(MAX_NGRAM + 1, min(MAX_PATTERN_PERIOD, len(words) // PATTERN_REPEATS) + 1)
    pattern = max([1] + [_runs(words, n) for n in periods])
    for token in text.split():
        if len(token) <= MAX_NGRAM:
            continue
        letters = _has_letter(token)
        ngram = max([ngram] + [_runs(token, n, letters) for n in range(1, MAX_NGRAM + 1)])
        periods = range(MAX_NGRAM + 1, min(MAX_PATTERN_PERIOD, len(token) // PATTERN_REPEATS) + 1)
        pattern = max([pattern] + [_runs(token, n, letters) for n in periods])
    return ngram, pattern


def _columns(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text.strip())


def is_degenerate(
    source: str, translation: str, *, max_length_ratio: float = 3.0, max_ngram_repeats: int = 4
) -> str | None:
    """Why ``translation`` of ``source`` looks degenerate (one of ``REASONS``), or None."""
    if not translation.strip():
        return "empty" if any(char.isalnum() for char in source) else None
    ngram, pattern = longest_repeat(translation)
    looping_ngram, looping_pattern = ngram > max_ngram_repeats, pattern >= PATTERN_REPEATS
    if looping_ngram or looping_pattern:
        # Only a repetition of the translation needs the source's as an excuse (the usual
        # translation has none, and the source, often the longer text, is not measured).
        allowed = max(longest_repeat(source))
        if looping_ngram and ngram > allowed:
            return "repeated n-gram"
        if looping_pattern and pattern > allowed:
            return "repeated pattern"
    if _columns(translation) > max_length_ratio * max(_columns(source), MIN_LENGTH):
        return "too long"
    return None
