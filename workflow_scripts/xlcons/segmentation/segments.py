"""The segment model: a text as sentences to translate and layout kept verbatim.

``split(text, lang)`` (``xlcons.segmentation.layout``) returns a ``Segmented``: a
sequence of segments, each either a sentence to translate (``translate=True``) or
layout that is kept verbatim (``translate=False``). ``Segmented.reassemble(translations)``
puts one translation in place of each sentence; given the original sentences it returns
the input byte for byte, for every input.

Two sentences written without whitespace between them (Chinese, Japanese, Thai, Urdu
typed without a space after ``۔``) are separated by an empty ``joint`` segment;
``reassemble`` writes a single space there when either neighbour was replaced, so
English sentences do not run together, and nothing when both are the originals.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Segment", "Segmented", "trim"]


@dataclass(frozen=True)
class Segment:
    """A piece of a response: a sentence to translate, or layout kept verbatim.

    ``kind`` is ``sentence``, ``layout``, ``code`` (a fenced block or display math) or
    ``joint`` (the empty place between two sentences written without a space).
    """

    text: str
    translate: bool
    kind: str = "layout"


@dataclass(frozen=True)
class Segmented:
    lang: str
    splitter: str
    segments: tuple[Segment, ...]
    fallbacks: int = 0  # lines whose splitter output could not be aligned

    @property
    def sentences(self) -> list[str]:
        return [segment.text for segment in self.segments if segment.translate]

    @property
    def text(self) -> str:
        return "".join(segment.text for segment in self.segments)

    def reassemble(self, translations: Sequence[str]) -> str:
        """Put ``translations`` (one per sentence, in order) in place of the sentences.

        Each translation is stripped of surrounding whitespace (the layout owns the
        whitespace). With the original sentences the result is the input, byte for byte.
        """
        translations = list(translations)
        originals = self.sentences
        if len(translations) != len(originals):
            raise ValueError(
                f"{len(translations)} translations for {len(originals)} sentences; "
                "reassemble needs exactly one per sentence"
            )
        new = [str(text).strip() for text in translations]
        changed = [a != b for a, b in zip(new, originals)]
        out: list[str] = []
        index = 0  # the next sentence
        for segment in self.segments:
            if segment.translate:
                out.append(new[index])
                index += 1
            elif segment.kind == "joint":
                # Between sentence index-1 and sentence index.
                if 0 < index < len(new) and (changed[index - 1] or changed[index]):
                    out.append(" ")
            else:
                out.append(segment.text)
        return "".join(out)


def trim(text: str, start: int, end: int) -> tuple[int, int]:
    """The span ``text[start:end]`` without the whitespace at either end."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
