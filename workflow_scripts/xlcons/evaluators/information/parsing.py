"""Reading what the LLM writes: fact lists (`parse_facts`) and verdicts (`parse_verdict`).

Models rarely answer exactly in the requested format: they number instead of bulleting,
put a "Here are the facts:" line first and "I hope this helps" last, quote facts, repeat
one, write "No facts." instead of "None", or run on into an invented next example. Both
parsers accept all of that; what they cannot read they say so (`parse_verdict` returns
``unparseable``, which the scores count), never guess silently.
"""

from __future__ import annotations

import re

SUPPORTED = "supported"
NOT_SUPPORTED = "not_supported"
UNPARSEABLE = "unparseable"
VERDICTS = (SUPPORTED, NOT_SUPPORTED, UNPARSEABLE)

_QUOTES = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201b": "'",
        "\u2032": "'",
        "`": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u00ab": '"',
        "\u00bb": '"',
    }
)

# -- fact lists ---------------------------------------------------------------------------

# A list marker at the start of a line: bullets, "1." "1)" "(1)" "1:" "[1]", "Fact 1:".
# Bullets and numbers need a space after them ("-5 °C", "**bold**", "3.5 million" are not markers).
_MARKER = re.compile(
    r"^(?:(?:[-*+\u2022\u25e6\u25aa\u25cf\u2023\u00b7\u2013\u2014\u2192]"
    r"|\(?\d{1,3}[.):\]]|\[\d{1,3}\]|\(\d{1,3}\))\s+"
    r"|(?:atomic\s+)?(?:fact|claim)\s*#?\d{1,3}\s*[:.)\-]\s*)",
    re.IGNORECASE,
)
# "Facts:", "Atomic facts:", "Here are the atomic facts in the marked sentence:", "Answer:".
_HEADER = re.compile(
    r"^(?:(?:here\s+(?:are|is)|these\s+are|below\s+(?:are|is))\s+)?(?:the\s+)?(?:list\s+of\s+(?:the\s+)?)?"
    r"(?:(?:extracted|atomic|individual)\s+)*(?:facts?|claims?|answer|output)"
    r"(?:\s+(?:stated|contained|found|listed))?(?:\s+(?:in|of|from)\s+the\s+(?:marked\s+)?sentence)?"
    r"(?:\s+(?:are|is))?\s*:\s*",
    re.IGNORECASE,
)
# The whole answer, or one line, says there is nothing to list.
_NO_FACTS = re.compile(
    r"^(?:none(?:\s*[.,;:!()\-\u2013\u2014].*)?|n/?a|nil|nothing(?:\s+to\s+(?:list|extract))?"
    r"|no\s+(?:atomic\s+|extractable\s+|verifiable\s+)?(?:facts?|claims?)(?:\s+.*)?"
    r"|there\s+(?:are|is)\s+no\s+(?:atomic\s+)?(?:facts?|claims?).*"
    r"|(?:the|this)\s+(?:marked\s+)?sentence\s+(?:states|contains|has|makes|includes)\s+no\s+.*"
    r"|(?:the|this)\s+(?:marked\s+)?sentence\s+(?:does\s+not|doesn't)\s+(?:state|contain|have|make)"
    r"\s+(?:any\s+)?(?:atomic\s+)?(?:facts?|claims?).*)$",
    re.IGNORECASE,
)
# Lines that talk about the answer instead of being part of it.
_CHATTER = re.compile(
    r"^(?:here\s+(?:are|is)|sure\b|certainly\b|of\s+course\b|okay\b|ok\b|note\b|please\b|i\s+hope|hope\s+(?:this|that)"
    r"|let\s+me\s+know|feel\s+free|these\s+(?:are|facts)|this\s+(?:list|covers)|the\s+(?:above|following)\b"
    r"|explanation\b|i\s+(?:have|'ve)\s+(?:listed|extracted|broken)|in\s+summary\b)",
    re.IGNORECASE,
)
# A line in which the model declines or talks about itself.
_REFUSAL_LINE = re.compile(
    r"^(?:i\s+(?:cannot|can't|can\s+not|could\s+not|couldn't|won't|will\s+not|apologi[sz]e)"
    r"|i\s*(?:'m|\s+am)\s+(?:sorry|unable|not\s+able|afraid)|sorry\b|as\s+an\s+ai\b|unfortunately\b)",
    re.IGNORECASE,
)
# The model went on to write an example of its own: nothing from there on is an answer.
_RUN_ON = re.compile(r"^(?:response|marked\s+sentence|sentence|text|statement|context)\s*:|^>>>", re.IGNORECASE)
_FENCE = re.compile(r"^(?:`{3,}|~{3,})")
_EMPHASIS = re.compile(r"^(\*{1,3}|_{1,3})(.+?)\1$")
_WRAPPING_QUOTES = ('"', "'")
_LETTER = re.compile(r"[^\W\d_]")
_FINAL_PUNCTUATION = ".!?)\"'"


def _clean(line: str) -> str:
    """A fact without list marker, emphasis, wrapping quotes or surrounding space."""
    line = line.strip()
    previous = None
    while previous != line:
        previous = line
        line = _MARKER.sub("", line, count=1).strip() if _MARKER.match(line) else line
        match = _EMPHASIS.match(line)
        if match:
            line = match.group(2).strip()
        if len(line) >= 2 and line[0] == line[-1] and line[0] in _WRAPPING_QUOTES:
            line = line[1:-1].strip()
    return line


def fact_key(fact: str) -> str:
    """What two facts must share to count as one: case, quotes, spacing and end punctuation aside."""
    text = fact.translate(_QUOTES).casefold()
    text = " ".join(text.split())
    return text.strip(" .;,:!\"'")


def _is_list_line(line: str) -> bool:
    return bool(_MARKER.match(line))


def parse_facts(text: str | None, *, truncated: bool = False, max_facts: int | None = None) -> list[str]:
    """The atomic facts in an extraction answer, in order, without duplicates.

    Rules:

    1. Lines are read until the model starts an example of its own (a line beginning with
       "Response:", "Marked sentence:", "Text:", "Statement:" or ">>>"); code fences and
       blank lines are skipped.
    2. A heading line ("Facts:", "Here are the atomic facts:") is dropped; a fact written
       after such a label on the same line ("Facts: Paris is in France.") is kept.
    3. When at least one line carries a list marker (``-`` ``*`` ``+`` ``•`` ``–``,
       ``1.`` ``1)`` ``(1)`` ``[1]`` ``Fact 1:``), only marked lines are facts: the
       unmarked ones are the model's comments. Otherwise every line is a fact, except
       comments ("Sure", "Here are", "Note:", "I hope this helps", "Let me know").
    4. An answer or line saying there is nothing ("None", "- None.", "No facts",
       "There are no atomic facts", "N/A"), a line in which the model declines ("I
       cannot ...", "Sorry, ..."), and a line without any letter give no fact.
    5. List markers, emphasis (``**…**``) and quotes around a fact are removed; facts
       are compared by `fact_key` (case, quotes, spacing and final punctuation aside)
       and only the first of equal ones is kept.
    6. ``truncated=True`` (the answer hit its token cap) drops the last fact when it does
       not end in sentence punctuation: it was cut off mid-way.
    7. ``max_facts`` keeps the first that many (a runaway answer cannot flood verification).
    """
    if not text or not text.strip():
        return []
    lines: list[tuple[str, bool]] = []
    for raw in text.translate(_QUOTES).splitlines():
        line = raw.strip()
        if not line or _FENCE.match(line):
            continue
        if _RUN_ON.match(line):
            break
        header = _HEADER.match(line)
        if header and not _is_list_line(line):
            line = line[header.end() :].strip()
            if not line:
                continue
        lines.append((line, _is_list_line(line)))
    marked = any(is_marked for _, is_marked in lines)
    facts: list[str] = []
    seen: set[str] = set()
    for line, is_marked in lines:
        if marked and not is_marked:
            continue
        fact = _clean(line)
        header = _HEADER.match(fact)
        if header:
            fact = fact[header.end() :].strip()
        if not fact or not _LETTER.search(fact):
            continue
        if _NO_FACTS.match(fact.rstrip(".! ")) or _REFUSAL_LINE.match(fact):
            continue
        if not is_marked and (_CHATTER.match(fact) or fact.endswith(":")):
            continue
        key = fact_key(fact)
        if key in seen:
            continue
        seen.add(key)
        facts.append(fact)
    if truncated and facts and not facts[-1].endswith(tuple(_FINAL_PUNCTUATION)):
        facts.pop()
    return facts[:max_facts] if max_facts is not None else facts


# -- verdicts ------------------------------------------------------------------------------

_MARKUP = re.compile(r"[*_#>~|\[\](){}]+")
_LABEL = re.compile(
    r"^(?:(?:my|the|final|short)\s+)*"
    r"(?:answer|verdict|response|output|judg(?:e)?ment|result|assessment|evaluation|decision|label)"
    r"\s*(?:is\s*)?[:\-\u2013\u2014=]\s*"
)
_LEADING_JUNK = re.compile(r"^[\s\"'.,:;!?\-\u2013\u2014=]+")
_LEADING_NOT_SUPPORTED = re.compile(
    r"^(?:not[\s_-]+(?:fully\s+|directly\s+)?supported|unsupported|partially\s+supported|partly\s+supported"
    r"|no(?![a-z'])|false(?![a-z])|contradicted|refuted|incorrect(?![a-z]))"
)
_LEADING_SUPPORTED = re.compile(r"^(?:fully\s+|directly\s+)?(?:supported|yes|true|correct|entailed)(?![a-z])")
# The two answer options written side by side: the instruction echoed, not a verdict.
_ECHO = re.compile(r"^(?:not\s+)?supported\s*(?:,|/|or\b|and\b)\s*(?:not\s+)?supported\b")
_UNSURE = re.compile(
    r"\b(?:cannot|can't|can\s+not|unable\s+to|impossible\s+to)\s+(?:be\s+)?"
    r"(?:determine|determined|tell|say|decide|judge|verify|verified)\b"
    r"|\b(?:not\s+sure|unsure|unclear|uncertain|undetermined)\b"
)
_MENTION = re.compile(
    r"(?P<neg>(?:\bnot|n't)\s+(?:be\s+|been\s+)?(?:fully\s+|directly\s+)?supported\b|\bunsupported\b|\bnot_supported\b"
    r"|\bpartially\s+supported\b|\bnot\s+(?:mentioned|stated)\b"
    r"|(?:\bdoes\s+not|\bdoesn't|\bdo\s+not|\bdon't)\s+(?:mention|state|support|say)\b"
    r"|\bcontradict\w*|\brefute\w*|\bfalse\b|\bno\b)"
    r"|(?P<pos>\bsupported\b|\bsupports\b|\btrue\b|\byes\b|\bentail\w*)"
)
_SENTENCE_END = re.compile(r"[.!?;:,\n]+\s*")
_BARE = {
    "supported": SUPPORTED,
    "not supported": NOT_SUPPORTED,
    "unsupported": NOT_SUPPORTED,
    "not_supported": NOT_SUPPORTED,
}


def _normalise(text: str) -> str:
    text = _MARKUP.sub(" ", text.translate(_QUOTES).lower())
    text = " ".join(text.split())
    previous = None
    while previous != text:
        previous = text
        text = _LABEL.sub("", _LEADING_JUNK.sub("", text))
    return text


def parse_verdict(text: str | None) -> str:
    """``supported`` | ``not_supported`` | ``unparseable`` for a verification answer.

    Rules, in order (after lowercasing, unifying quotes, dropping markdown characters and a
    leading label such as "Answer:" or "Verdict -"):

    1. The two options side by side ("Supported, Not supported", "Supported or not
       supported": the instruction echoed) are unparseable. Otherwise a verdict at the
       very start decides, whatever follows: "Not supported",
       "Unsupported", "Partially supported" (a fact only partly supported is not
       supported), "No", "False", "Contradicted" → not_supported; "Supported", "Yes",
       "True", "Correct" → supported.
    2. Otherwise a text saying the verifier cannot tell ("cannot determine", "unclear",
       "not sure") is unparseable.
    3. Otherwise a last sentence that is only a verdict decides ("The text gives the
       year 1928. Supported.").
    4. Otherwise every verdict phrase counts ("is not supported", "does not mention",
       "contradicts", "is supported", "yes", "no", ...): all of one kind → that verdict;
       none, or both kinds (an echo of the instruction "Supported, Not supported") →
       unparseable.
    """
    if not text or not text.strip():
        return UNPARSEABLE
    normal = _normalise(text)
    if not normal:
        return UNPARSEABLE
    if _ECHO.match(normal):
        return UNPARSEABLE
    if _LEADING_NOT_SUPPORTED.match(normal):
        return NOT_SUPPORTED
    if _LEADING_SUPPORTED.match(normal):
        return SUPPORTED
    if _UNSURE.search(normal):
        return UNPARSEABLE
    sentences = [part.strip(" '\"") for part in _SENTENCE_END.split(normal)]
    sentences = [part for part in sentences if part]
    if sentences and sentences[-1] in _BARE:
        return _BARE[sentences[-1]]
    kinds = {NOT_SUPPORTED if match.group("neg") else SUPPORTED for match in _MENTION.finditer(normal)}
    return kinds.pop() if len(kinds) == 1 else UNPARSEABLE
