"""Step 3 of the Language Confusion Benchmark's rule (xlcons.evaluators.lcb_rule): the tokens of a line.

Its own module because jieba, fugashi and pythainlp are needed by the language-confusion job
only: the other jobs that read its results import xlcons.evaluators.language_confusion, not this.

The benchmark cuts Chinese and Japanese lines into words and splits every other line on
whitespace. Beyond its languages, scripts written without spaces between words would then
make a whole sentence one token, and their lines would never be judged; so Thai lines are
cut into words with pythainlp (``newmm``, its dictionary tokenizer), and lines of the other
scripts without spaces (Khmer, Lao, Burmese, Tibetan), for which no word segmenter is
installed, count each letter of that script as one token (:data:`CHARACTER_SCRIPTS`; letters
of other scripts, e.g. English words, keep their whitespace pieces).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

# Tokenizers by the language's lid.176 label; every other language is split on whitespace.
JIEBA_LABEL = "zh"
FUGASHI_LABEL = "ja"
# Outside the benchmark's languages, by the language's registry script (ISO 15924).
THAI_SCRIPT = "Thai"
CHARACTERS = "characters"
CHARACTER_SCRIPTS = {
    "Khmr": "\u1780-\u17ff\u19e0-\u19ff",
    "Laoo": "\u0e80-\u0eff",
    "Mymr": "\u1000-\u109f\ua9e0-\ua9ff\uaa60-\uaa7f",
    "Tibt": "\u0f00-\u0fff",
}
_CHARACTER_LETTERS = re.compile("[" + "".join(CHARACTER_SCRIPTS.values()) + "]")


def tokenizer_kind(label: str | None, script: str | None = None) -> str:
    """The tokenizer a line gets: by the language's lid.176 label (jieba, fugashi), else, when
    `script` is given (languages beyond the benchmark's), by its script; else whitespace ("")."""
    if label in (JIEBA_LABEL, FUGASHI_LABEL):
        return str(label)
    if script == THAI_SCRIPT:
        return THAI_SCRIPT
    if script in CHARACTER_SCRIPTS:
        return CHARACTERS
    return ""


def character_tokens(line: str) -> list[str]:
    """Each letter of a script without spaces (its combining signs dropped) one token; the rest
    of the line split on whitespace and around those letters."""
    tokens: list[str] = []
    for piece in line.split():
        rest = ""
        for char in piece:
            if _CHARACTER_LETTERS.match(char):
                if rest:
                    tokens.append(rest)
                    rest = ""
                if unicodedata.category(char).startswith("L"):
                    tokens.append(char)
            else:
                rest += char
        if rest:
            tokens.append(rest)
    return tokens


class LineTokenizer:
    """Step 3: the tokens of a line, by the language's lid.176 label (jieba, fugashi or whitespace).

    jieba and fugashi are imported the first time a Chinese or Japanese line comes, so
    other runs do not need them. Results are remembered per (line, tokenizer).
    """

    def __init__(self) -> None:
        # The jieba module and a fugashi Tagger once loaded (third-party, read as Any).
        self._jieba: Any = None
        self._tagger: Any = None
        self._thai: Any = None
        self._memo: dict[tuple[str, str], list[str]] = {}

    def _split_chinese(self, line: str) -> list[str]:
        if self._jieba is None:
            import logging

            import jieba

            jieba.setLogLevel(logging.WARNING)
            jieba.initialize()
            self._jieba = jieba
        return list(self._jieba.cut(line))

    def _split_japanese(self, line: str) -> list[str]:
        if self._tagger is None:
            from fugashi import Tagger

            self._tagger = Tagger("-O wakati -b 50000")
        return self._tagger.parse(line).split()

    def _split_thai(self, line: str) -> list[str]:
        if self._thai is None:
            from pythainlp.tokenize import word_tokenize

            self._thai = word_tokenize
        return [token for token in self._thai(line, engine="newmm", keep_whitespace=False) if token.strip()]

    def tokens(self, line: str, label: str | None, script: str | None = None) -> list[str]:
        """The tokens of `line` in the language whose lid.176 label is `label`; `script` (the
        language's registry script) only for languages beyond the benchmark's (:func:`tokenizer_kind`)."""
        kind = tokenizer_kind(label, script)
        key = (line, kind)
        if key not in self._memo:
            if kind == JIEBA_LABEL:
                self._memo[key] = self._split_chinese(line)
            elif kind == FUGASHI_LABEL:
                self._memo[key] = self._split_japanese(line)
            elif kind == THAI_SCRIPT:
                self._memo[key] = self._split_thai(line)
            elif kind == CHARACTERS:
                self._memo[key] = character_tokens(line)
            else:
                self._memo[key] = line.split()
        return self._memo[key]
