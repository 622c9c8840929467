"""Step 3 of the Language Confusion Benchmark's rule (xlcons.evaluators.lcb_rule): the tokens of a line.

Its own module because jieba and fugashi are needed by the language-confusion job only:
the other jobs that read its results import xlcons.evaluators.language_confusion, not this.
"""

from __future__ import annotations

from typing import Any

# Tokenizers by the language's lid.176 label; every other language is split on whitespace.
JIEBA_LABEL = "zh"
FUGASHI_LABEL = "ja"


class LineTokenizer:
    """Step 3: the tokens of a line, by the language's lid.176 label (jieba, fugashi or whitespace).

    jieba and fugashi are imported the first time a Chinese or Japanese line comes, so
    other runs do not need them. Results are remembered per (line, tokenizer).
    """

    def __init__(self) -> None:
        # The jieba module and a fugashi Tagger once loaded (third-party, read as Any).
        self._jieba: Any = None
        self._tagger: Any = None
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

    def tokens(self, line: str, label: str | None) -> list[str]:
        kind = label if label in (JIEBA_LABEL, FUGASHI_LABEL) else ""
        key = (line, kind)
        if key not in self._memo:
            if kind == JIEBA_LABEL:
                self._memo[key] = self._split_chinese(line)
            elif kind == FUGASHI_LABEL:
                self._memo[key] = self._split_japanese(line)
            else:
                self._memo[key] = line.split()
        return self._memo[key]
