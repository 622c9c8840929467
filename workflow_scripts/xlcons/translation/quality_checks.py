"""What a QE score cannot see: a sentence copied through untranslated, and a translation
that is not in English.

An embedding backend gives a sentence copied through unchanged the highest score there is
(the cosine of a text with itself is 1), and neither backend is asked which language the
translation is in. So every translated sentence is also checked here, whatever the backend,
and an item with a flagged sentence fails QE whatever its scores
(xlcons.reports.qe_scores).

``copy``
    the translation equals its source after :func:`normalise` (Unicode NFKC, case-folded,
    every run of whitespace and punctuation one space, none at the ends), the source has
    text that needs translating (:func:`needs_language`) and a letter of its source
    language's script (registry `script` and `other_scripts`: a Latin-script command in a
    Russian or Chinese answer is given back as it is, rightly), and the source is not
    English: not by its source language (an English answer passes through untranslated by
    design, and has no sentences here), and, with language ID, the sentence itself is
    identified as a language other than English with probability at least
    ``MIN_OFF_TARGET_PROBABILITY`` (:func:`confidently_not_english`, the rule of
    ``off_target``: an English sentence quoted in a German answer is rightly given back as it
    is, and a text language ID is unsure of is not called a copy).
``off_target``
    language ID names a language other than English for the translation, with probability
    at least ``MIN_OFF_TARGET_PROBABILITY`` (:func:`confidently_not_english`), and the
    translation has text that needs a language (:func:`needs_language`).

Text that needs a language: at least ``MIN_LETTERS`` letters (a letter of a wide script,
Chinese, Japanese, Korean, counts two, as the degeneration check counts columns), outside
the tokens that are not prose (those holding ``://``, ``@``, ``/``, ``\\``, ``_``, ``=``:
URLs, e-mail addresses, paths, identifiers), not a run of names (at least one word of
``NAME_WORD_LETTERS`` or more letters starts with a lower-case letter or a letter of a
script without case), and not code (:func:`looks_like_code`: a mark of code, such as a
command-line option ``-m`` or ``--all-namespaces``, a call ``range(10)``, a dotted name
``console.log`` or ``deployment.yaml``, ``::``, ``->``, ``=>``, ``&&``, ``||``, ``=``,
braces, a backtick, ``$PATH``, a camelCase name, in a text not shaped like a sentence, one
that does not start with a capital or caseless letter and end with a sentence's final mark).
So numbers, formulas, URLs, code, ``Albert Einstein.``, ``Leonardo da Vinci (1452–1519).``
and ``Goethe, Schiller, Heine.`` are never flagged (an identical translation is what they
should get, and language ID cannot tell their language), while ``Das ist ein guter Plan.``
(18 letters) and ``这是一个非常好的计划。`` (10 wide letters, 20) are, and so is a German
sentence that mentions code (``Mit git commit -m speichern Sie den Stand.``). The rule
misses short sentences (``Ich weiß es nicht.`` has 14 letters and is checked; ``Nein,
danke.`` has 9 and is not) and a German sentence whose long words are all nouns. A command
without a mark of code (``git checkout develop``, ``pip install numpy pandas``) is left to
language ID, which names English for it or is unsure (below 0.5 on lid.176 for every
command of ``tests/test_translation_quality_checks.py``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xlcons.languages import SENTENCE_CLOSERS, SENTENCE_FINAL_MARKS, has_letters_of

__all__ = [
    "normalise",
    "letter_count",
    "needs_language",
    "looks_like_code",
    "confidently_not_english",
    "SentenceCheck",
    "check_sentences",
    "MIN_LETTERS",
    "NAME_WORD_LETTERS",
    "MIN_OFF_TARGET_PROBABILITY",
    "ENGLISH",
]

ENGLISH = "en"
MIN_LETTERS = 12
NAME_WORD_LETTERS = 4
MIN_OFF_TARGET_PROBABILITY = 0.5
_NOT_PROSE = ("://", "@", "/", "\\", "_", "=")
_CODE_MARKS = re.compile(
    r"(?:^|\s)--?[A-Za-z]"  # a command-line option: -m, --all-namespaces
    r"|\w\("  # a call: range(10), print(
    r"|[A-Za-z_]\w*\.[a-z_]\w"  # a dotted name: console.log, items.length, deployment.yaml
    r"|::|->|=>|&&|\|\||=|[{}`]"  # operators, assignments, braces, inline code
    r"|\$[A-Za-z_({]"  # a shell variable or substitution
    r"|\b[a-z]{2,}[A-Z][a-z]"  # camelCase: getElementById
)


def _is_space_or_punctuation(char: str) -> bool:
    return char.isspace() or unicodedata.category(char).startswith("P")


def normalise(text: str) -> str:
    """NFKC, case-folded, each run of whitespace and punctuation one space, stripped."""
    out: list[str] = []
    gap = False
    for char in unicodedata.normalize("NFKC", text).casefold():
        if _is_space_or_punctuation(char):
            gap = True
            continue
        if gap and out:
            out.append(" ")
        gap = False
        out.append(char)
    return "".join(out)


def _is_letter(char: str) -> bool:
    return unicodedata.category(char).startswith("L")


def _prose_words(text: str) -> list[str]:
    return [
        token for token in unicodedata.normalize("NFKC", text).split() if not any(mark in token for mark in _NOT_PROSE)
    ]


def letter_count(text: str) -> int:
    """Letters of the prose words, a wide (East Asian) letter counting two."""
    return sum(
        2 if unicodedata.east_asian_width(char) in "WF" else 1
        for word in _prose_words(text)
        for char in word
        if _is_letter(char)
    )


def _starts_lower_or_caseless(word: str) -> bool:
    """The word's first letter is lower case or of a script without case (Lo, Lm)."""
    first = next((char for char in word if _is_letter(char)), None)
    return first is not None and unicodedata.category(first) not in ("Lu", "Lt")


def _sentence_shaped(text: str) -> bool:
    """Starts with a capital or caseless letter and ends with a sentence's final mark (quotes
    and brackets after it aside)."""
    first = next((char for char in text if _is_letter(char)), None)
    return (
        first is not None
        and unicodedata.category(first) != "Ll"
        and text.rstrip().rstrip(SENTENCE_CLOSERS).endswith(tuple(SENTENCE_FINAL_MARKS))
    )


def looks_like_code(text: str) -> bool:
    """A mark of code (a command-line option, a call, a dotted name, an operator, braces, a
    backtick, a shell variable, camelCase) in a text that is not shaped like a sentence."""
    text = unicodedata.normalize("NFKC", text).strip()
    return _CODE_MARKS.search(text) is not None and not _sentence_shaped(text)


def needs_language(text: str) -> bool:
    """Whether `text` is prose that a translation must change: enough letters, not only names, not code."""
    return (
        letter_count(text) >= MIN_LETTERS
        and any(
            sum(map(_is_letter, word)) >= NAME_WORD_LETTERS and _starts_lower_or_caseless(word)
            for word in _prose_words(text)
        )
        and not looks_like_code(text)
    )


def confidently_not_english(label: str | None, probability: float | None, identifier) -> bool:
    """The rule of both checks: language ID named a language other than English with probability
    at least ``MIN_OFF_TARGET_PROBABILITY``."""
    return (
        label is not None
        and probability is not None
        and probability >= MIN_OFF_TARGET_PROBABILITY
        and not identifier.is_language(label, ENGLISH)
    )


@dataclass(frozen=True)
class SentenceCheck:
    copy: bool
    off_target: bool
    lid_label: str | None = None  # the translation's language-ID label, when it was identified
    lid_probability: float | None = None


def _registry_scripts(code: str) -> tuple[str, ...] | None:
    from xlcons.languages import LanguageRegistry

    registry = LanguageRegistry.load()
    return registry[code].scripts if code in registry else None


def check_sentences(
    sources: Sequence[str],
    translations: Sequence[str],
    source_langs: Sequence[str | None],
    identifier=None,
    *,
    english=None,
    scripts: Callable[[str], Sequence[str] | None] | None = None,
) -> list[SentenceCheck]:
    """The copy and off-target flags of each (source, translation) pair (module docstring).

    `identifier` has `predict(texts) -> [(label, probability)]` and `is_language(label,
    lang)` (xlcons.lid.LanguageIdentifier); without one, nothing is off target and a source
    is English only by its source language. `english(code)` says whether a registry code is
    English (default: the code is ``en``); `scripts(code)` gives the scripts a source language
    is written in (default: the registry's; None for a code it lacks, which excuses nothing).
    Each distinct text is identified once.
    """
    english = english or (lambda code: code == ENGLISH)
    scripts = scripts or _registry_scripts

    def in_its_script(source: str, lang: str | None) -> bool:
        written_in = scripts(lang) if lang else None
        return not written_in or has_letters_of(source, written_in)

    identifying = {index for index, translation in enumerate(translations) if needs_language(translation)}
    copied = [
        index
        for index, (source, translation) in enumerate(zip(sources, translations))
        if needs_language(source)
        and not (source_langs[index] and english(source_langs[index]))
        and in_its_script(source, source_langs[index])
        and normalise(source) == normalise(translation)
    ]
    labels: dict[str, tuple[str | None, float | None]] = {}
    if identifier is not None:
        texts = list(
            dict.fromkeys([translations[index] for index in sorted(identifying)] + [sources[index] for index in copied])
        )
        labels = dict(zip(texts, identifier.predict(texts))) if texts else {}

    def not_english(text: str) -> bool:
        return confidently_not_english(*labels.get(text, (None, None)), identifier)

    copies = {index for index in copied if identifier is None or not_english(sources[index])}
    out = []
    for index, translation in enumerate(translations):
        label, probability = labels.get(translation, (None, None)) if index in identifying else (None, None)
        off = index in identifying and identifier is not None and not_english(translation)
        out.append(SentenceCheck(index in copies, off, label, probability))
    return out
