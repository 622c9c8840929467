"""The Markdown layout parser: a response cut into sentences and the layout around them.

``split(text, lang)`` walks a response line by line, keeps its layout verbatim and hands
the text of each line to the language's splitter (``xlcons.segmentation.splitters`` and
``backends``); the result is a ``Segmented`` (``xlcons.segmentation.segments``).

Layout (never sent to NLLB):

- line breaks of any kind, blank lines, leading and trailing whitespace of a line, the
  whitespace between two sentences;
- fenced code blocks (```` ``` ```` or ``~~~``, fences included; an unclosed fence runs to
  the end, as in CommonMark) and display math (``$$ … $$``, ``\\[ … \\]``);
- horizontal rules and table separator rows; the pipes of table rows (each cell is
  split on its own);
- at the start of a line: blockquote ``>``, heading ``#``…``######`` (and closing
  hashes), bullets (``- * + • ◦ ▪ ● · ・ – — →`` …), task boxes ``[ ]``/``[x]``, numbering
  ``1.`` ``1)`` ``(1)`` ``1.2.`` ``a)`` ``a.`` ``(a)`` ``iv.`` ``1、`` ``一、`` ``（一）``
  (and ``1۔`` in Urdu style), with the space after them;
- emphasis around a whole sentence (``**…**``, ``*…*``, ``__…__``, ``_…_``, ``~~…~~``)
  and a bold run opened in one sentence and closed in a later one (``**A. B.**``: the
  ``**`` of each half is layout); emphasis *inside* a sentence stays in the sentence;
- text with no letters at all (numbers, formulas, emoji), a lone URL or a line that is
  only inline code.

Sentences never span a line break: each line (list item, heading, paragraph) is split on
its own, so the English has exactly the original's lines. Paragraphs that hard-wrap a
sentence over two lines get that sentence translated in two pieces (chat models rarely
hard-wrap; keeping the lines exact matters more).

The splitters see a cleaned copy of the line, emphasis markers removed and inline code
and URLs masked, so neither ``**Dr. Smith**`` nor ``a.b()`` creates a false boundary. A
line whose splitter output does not align with it is split by blank ``xx`` spaCy instead
(counted in ``Segmented.fallbacks``). Three classes of error that every library makes in
some language (an ordinal ``3.`` taken for a sentence end, an abbreviation before a
number ``Rs. 500`` cut, a sentence ending in ``...`` or ``?!`` not cut) are corrected on
every splitter's output (``xlcons.segmentation.boundaries``). Pieces with no letter or
digit (indic-nlp returns ``'?'`` of ``'!?'`` alone) join the sentence before them.
"""

from __future__ import annotations

import re
import unicodedata

from xlcons.segmentation.backends import Backend, check_spans, fallback_backend, get_backend
from xlcons.segmentation.boundaries import repair
from xlcons.segmentation.segments import Segment, Segmented, trim
from xlcons.segmentation.splitters import splitter_info

__all__ = ["split", "split_sentences"]


_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_MATH_OPEN = re.compile(r"^[ \t]*(\$\$|\\\[)[ \t]*$")
_MATH_LINE = re.compile(r"^[ \t]*(?:\$\$.*\$\$|\\\[.*\\\])[ \t]*$")
_RULE = re.compile(r"^[ \t]*([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_TABLE_SEPARATOR = re.compile(r"^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*$")
_TABLE_ROW = re.compile(r"^[ \t]*\|.*\|[ \t]*$")
_CELL_SEPARATOR = re.compile(r"(?<!\\)\|")
_PREFIXES = tuple(
    re.compile(pattern)
    for pattern in (
        r">[ \t]?",  # blockquote
        r"#{1,6}(?:[ \t]+|$)",  # heading
        r"[-*+•◦‣▪▫●○■□►▶✓✔➤→·・–—](?:[ \t]+|$)",  # bullet
        r"\[[ xX]\][ \t]+",  # task box
        r"\(?\d{1,4}(?:\.\d{1,3})*[.)．）۔](?:[ \t]+|$)",  # 1. 1) (1) 1.2. 1۔
        r"\((?:\d{1,4}|[a-zA-Z])\)(?:[ \t]+|$)",  # (1) (a)
        r"(?:[ivx]{1,5}|[IVX]{1,5})[.)](?:[ \t]+|$)",  # iv. IV)
        r"\(?[a-zA-Z][.)](?:[ \t]+|$)",  # a) a. (a
        r"(?:\d{1,4}|[一二三四五六七八九十百]+)[、．][ \t]*",  # 1、 一、
        r"[（(][一二三四五六七八九十百]+[）)][ \t]*",  # （一）
    )
)
_CLOSING_HASHES = re.compile(r"[ \t]+#+[ \t]*$")
_LONE_URL = re.compile(r"^<?(?:https?://|www\.)\S+>?$")
_INLINE_CODE = re.compile(r"`[^`]+`")
_INLINE_URL = re.compile(r"(?:https?://|www\.)[^\s)\]>]*[^\s)\]>.,;:!?'\"]")


def _has_letters(text: str) -> bool:
    return any(unicodedata.category(ch).startswith("L") for ch in text)


class _Builder:
    def __init__(self, backend: Backend):
        self.backend = backend
        self.segments: list[Segment] = []
        self.fallbacks = 0

    def layout(self, text: str, kind: str = "layout") -> None:
        if not text:
            return
        last = self.segments[-1] if self.segments else None
        if last is not None and not last.translate and last.kind == kind:
            self.segments[-1] = Segment(last.text + text, False, kind)
        else:
            self.segments.append(Segment(text, False, kind))

    def sentence(self, text: str) -> None:
        self.segments.append(Segment(text, True, "sentence"))

    def joint(self) -> None:
        self.segments.append(Segment("", False, "joint"))

    def content(self, text: str) -> None:
        """A line's text between its markers: sentences and the space between them."""
        core_start, core_end = trim(text, 0, len(text))
        self.layout(text[:core_start])
        core = text[core_start:core_end]
        if core:
            masked = _masked(core)
            if not _has_letters("".join(ch for ch, m in zip(core, masked) if not m)) or _LONE_URL.match(core):
                self.layout(core)
            else:
                self._sentences(core, masked)
        self.layout(text[core_end:])

    def _sentences(self, core: str, masked: list[bool]) -> None:
        pieces = []
        for start, end in self._spans(core, masked):
            lead, middle, trail = _unwrap(core[start:end])
            middle_masked = masked[start + len(lead) : end - len(trail)]
            visible = "".join(ch for ch, m in zip(middle, middle_masked) if not m)
            pieces.append((start, end, lead, middle, trail, _has_letters(visible)))
        pos = 0
        for index, (start, end, lead, middle, trail, is_sentence) in enumerate(pieces):
            gap = core[pos:start]
            if not gap and index and is_sentence and pieces[index - 1][5]:
                self.joint()  # two sentences written without a space between them
            self.layout(gap)
            self.layout(lead)
            if is_sentence:
                self.sentence(middle)
            else:
                self.layout(middle)
            self.layout(trail)
            pos = end
        self.layout(core[pos:])

    def _spans(self, core: str, masked: list[bool]) -> list[tuple[int, int]]:
        # What the splitter sees: emphasis markers removed, inline code / URLs masked.
        keep: list[int] = []
        chars: list[str] = []
        removed = _emphasis_positions(core, masked)
        for index, ch in enumerate(core):
            if index in removed:
                continue
            keep.append(index)
            chars.append(ch if not masked[index] or ch.isspace() else "x")
        clean = "".join(chars)
        if not clean.strip():
            return [(0, len(core))]
        try:
            clean_spans = self.backend.spans(clean)
            check_spans(clean, clean_spans)
        except Exception:
            self.fallbacks += 1
            clean_spans = fallback_backend().spans(clean)
        clean_spans = repair(clean, clean_spans)  # ordinals, abbreviations before numbers, ?! and ...
        spans = []
        for start, end in clean_spans:
            start, end = trim(clean, start, end)
            if start < end:
                spans.append([keep[start], keep[end - 1] + 1])
        # Emphasis markers touching a sentence belong to it; a run of markers between
        # two sentences with no space ("？**我") closes the first if it has an odd
        # number of them, else opens the second.
        for index in range(len(spans) + 1):
            before = spans[index - 1] if index else None
            after = spans[index] if index < len(spans) else None
            a = before[1] if before else 0
            b = after[0] if after else len(core)
            left = a
            while left < b and left in removed:
                left += 1
            right = b
            while right > a and right - 1 in removed:
                right -= 1
            if before and after and left == b and a < b:
                if core[before[0] : before[1]].count(core[a:b]) % 2:
                    before[1] = b
                else:
                    after[0] = a
                continue
            if before:
                before[1] = left
            if after:
                after[0] = right
        # A piece without a letter or digit ('?' of '!?', a lone quote) joins its neighbour.
        merged: list[list[int]] = []
        for span in spans:
            if merged and not any(ch.isalnum() for ch in core[span[0] : span[1]]):
                merged[-1][1] = span[1]
            elif merged and not any(ch.isalnum() for ch in core[merged[-1][0] : merged[-1][1]]):
                merged[-1][1] = span[1]
            else:
                merged.append(span)
        return [(start, end) for start, end in merged]

    def line(self, body: str) -> None:
        """One line without its line break."""
        if _TABLE_ROW.match(body):
            pieces = _CELL_SEPARATOR.split(body)
            for index, cell in enumerate(pieces):
                if index:
                    self.layout("|")
                self.content(cell)
            return
        heading = False
        pos = len(body) - len(body.lstrip())  # the indentation
        for _ in range(8):
            for number, pattern in enumerate(_PREFIXES):
                match = pattern.match(body, pos)
                if match and match.end() > pos:
                    heading = heading or number == 1
                    pos = match.end()
                    break
            else:
                break
        self.layout(body[:pos])
        rest = body[pos:]
        suffix = ""
        if heading:
            closing = _CLOSING_HASHES.search(rest)
            if closing:
                rest, suffix = rest[: closing.start()], rest[closing.start() :]
        self.content(rest)
        self.layout(suffix)


def _masked(core: str) -> list[bool]:
    masked = [False] * len(core)
    for pattern in (_INLINE_CODE, _INLINE_URL):
        for match in pattern.finditer(core):
            for index in range(match.start(), match.end()):
                masked[index] = True
    return masked


def _emphasis_positions(core: str, masked: list[bool]) -> set[int]:
    """Positions of ``*``, ``~~`` and word-edge ``_`` runs (markdown emphasis)."""
    removed: set[int] = set()
    for match in re.finditer(r"\*+|~~|_+", core):
        start, end = match.span()
        if any(masked[start:end]):
            continue
        if match.group()[0] == "_":
            before = core[start - 1] if start else " "
            after = core[end] if end < len(core) else " "
            if before.isalnum() and after.isalnum():
                continue  # snake_case
        removed.update(range(start, end))
    return removed


_WRAPPERS = ("***", "**", "*", "___", "__", "_", "~~")


def _unwrap(sentence: str) -> tuple[str, str, str]:
    """Split emphasis around a whole sentence (or left open / closed elsewhere) off it."""
    lead, core, trail = "", sentence, ""
    while core:
        for marker in _WRAPPERS:
            size = len(marker)
            if len(core) > 2 * size and core.startswith(marker) and core.endswith(marker):
                inner = core[size:-size]
                if (
                    inner[0] != marker[0]
                    and inner[-1] != marker[0]
                    and marker not in inner
                    and not inner[0].isspace()
                    and not inner[-1].isspace()
                ):
                    lead, core, trail = lead + marker, inner, marker + trail
                    break
        else:
            opening = re.match(r"\*+|~~", core)
            closing = re.search(r"(?:\*+|~~)$", core)
            if (
                opening
                and core.count(opening.group()) == 1
                and opening.end() < len(core)
                and not core[opening.end()].isspace()
            ):
                lead, core = lead + opening.group(), core[opening.end() :]
                continue
            if (
                closing
                and core.count(closing.group()) == 1
                and closing.start() > 0
                and not core[closing.start() - 1].isspace()
            ):
                core, trail = core[: closing.start()], closing.group() + trail
                continue
            break
    return lead, core, trail


def split(text: str, lang: str, *, registry_path=None) -> Segmented:
    """Cut ``text`` (a response in ``lang``) into sentences to translate and layout."""
    info = splitter_info(lang, registry_path=registry_path)
    builder = _Builder(get_backend(info))
    fence: tuple[str, int] | None = None  # (character, length) of an open code fence
    math: str | None = None  # the closing delimiter of an open display-math block
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
        ending = line[len(body) :]
        if fence is not None:
            builder.layout(line, "code")
            close = re.match(rf"^[ \t]*{re.escape(fence[0])}{{{fence[1]},}}[ \t]*$", body)
            if close:
                fence = None
            continue
        if math is not None:
            builder.layout(line, "code")
            if body.strip() == math:
                math = None
            continue
        opened = _FENCE.match(body)
        if opened:
            fence = (opened.group(1)[0], len(opened.group(1)))
            builder.layout(line, "code")
            continue
        opened = _MATH_OPEN.match(body)
        if opened:
            math = "$$" if opened.group(1) == "$$" else "\\]"
            builder.layout(line, "code")
            continue
        if _MATH_LINE.match(body):
            builder.layout(line, "code")
            continue
        if not body.strip() or _RULE.match(body) or _TABLE_SEPARATOR.match(body):
            builder.layout(line)
            continue
        builder.line(body)
        builder.layout(ending)
    return Segmented(lang, info.name, tuple(builder.segments), builder.fallbacks)


def split_sentences(text: str, lang: str, *, registry_path=None) -> list[str]:
    """Just the sentences of ``text`` (what would be translated)."""
    return split(text, lang, registry_path=registry_path).sentences
