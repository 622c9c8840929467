"""Language confusion (Marchisio et al. 2024, "Understanding and Mitigating Language Confusion
in LLMs"): does a response *stay* in the prompted language, line by line and word by word?

Language fidelity (`xlcons.evaluators.fidelity`) gives a whole response one label, so an
answer that starts in Russian and switches to English half way, or a Hindi answer sprinkled
with English words, still counts as Russian or Hindi there. This evaluator looks inside the
response, with the paper's two checks, by one of two rules (config ``rule``):

``lcb`` (default)
    The Language Confusion Benchmark's scorer, restated in :mod:`xlcons.evaluators.lcb_rule`
    (:func:`~xlcons.evaluators.lcb_rule.score_language_confusion_lcb`, which writes the same
    LANGUAGE_CONFUSION rows): its numbers are the benchmark's.
``strict``
    xlcons's earlier rule, :func:`score_language_confusion`, described below: stricter at
    the word level, code and URLs left out (docs/language-confusion.md lists every
    difference).

The rest of this docstring describes the ``strict`` rule.

Line level
    The response is cut into lines (:func:`split_lines`: non-empty lines, outer whitespace
    removed, lines inside fenced code blocks left out). In each line the spans that are not
    prose are blanked out first (inline code, URLs, e-mail addresses, dotted names such as
    ``example.com`` or ``os.path``, LaTeX math and commands, HTML tags; see
    :func:`prose`). A line with fewer than `min_line_tokens` (default 5) tokens is not
    judged: too short for a reliable language-ID call. Tokens are whitespace-separated
    pieces that contain a letter (``-``, ``1.`` and ``**`` are no tokens); in the scripts
    written without spaces (Han, kana, Thai, Lao, Khmer, Myanmar, Tibetan) every letter
    counts as one token, so that a Chinese line of five characters is judged like a
    five-word line (:func:`line_tokens`). Each remaining line gets the language-ID model's
    top-1 label; a line whose probability is below `min_confidence` is *unknown* and not
    judged either. A judged line is *confused* when its label is not one the registry
    accepts for the prompted language (the identifier's ``is_language``). A response passes
    (``line_pass``) when it has at least one judged line and none is confused.

    Default `min_confidence` = 0.5 (:data:`DEFAULT_MIN_CONFIDENCE`): at or above it the
    top label holds most of fastText's probability mass, so it beats all other labels
    together; below it the model is split between languages, which on a five-token line
    mostly means closely related languages or a line of names and numbers, where a
    "confused" verdict would be noise. The cost: a line mixing two languages about evenly
    may come out unknown rather than confused; the word-level check catches the English
    words of such lines in non-Latin-script languages.

Word level (prompted languages whose registry script is not ``Latn``)
    A response fails (``word_pass`` false) when it contains English words written in Latin
    script (:func:`english_words`). No English word list is available offline, and
    language ID on one to three words is unreliable, so the rule is by script, not by
    dictionary: in a response that should be in, say, Devanagari or Cyrillic, a word
    written in plain ASCII letters is English in nearly every case (the paper's word-level
    confusion is exactly English words in non-Latin-script text). The rule is
    deterministic and needs no model. A *word* is a maximal run of ASCII letters, possibly
    joined by an apostrophe or a hyphen (``don't``, ``e-mail``), that does not touch a
    digit, an underscore or another Latin letter (so ``H2O``, ``x86``, ``snake_case`` and
    ``café`` hold none), found in the text outside fenced code blocks and outside the spans
    :func:`prose` blanks out. A word counts as English unless it is

    - a single letter (variables, list markers: ``x``, ``a)``);
    - an acronym: two to five capitals, optionally with a plural ``s`` (``DNA``, ``API``,
      ``NASA``, ``URLs``; also capital Roman numerals up to five letters, ``XVIII``);
    - a lower-case Roman numeral (``ii``, ``iv``, ``xii``: enumerations);
    - mixed case with a capital after a small letter: identifiers, brands and symbols
      (``iPhone``, ``JavaScript``, ``mRNA``, ``pH``, ``kWh``);
    - a unit symbol right after a number (``5 km``, ``10 mg``, ``3 pm``; see
      :data:`UNITS`; ``10kg`` touches a digit and is no word anyway).

    Known limits: proper names written in Latin script (``Google``, ``Python``), and a
    romanised native word, count as English; they are listed in ``english_words`` so a
    reader can see what failed a response. For Latin-script prompted languages (English
    included: there English *is* the prompted language) the check does not apply:
    ``word_pass`` is null with reason ``latin_script``.

Exclusions (null pass flag, reason in ``*_excluded_reason``), first that applies:
    line level: ``lid_unsupported_language`` (the model has no label the registry accepts
    for the prompted language, so no line could pass), ``no_answer`` (the response is
    "No answer"), ``no_judged_line`` (no line long and confident enough; also an empty
    response). Word level: ``latin_script``, ``no_answer``, ``empty_response`` (nothing but
    whitespace).

Rates of a (model, data set, language), from the item scores (:func:`to_item_scores`)
    LPR = mean ``line_pass`` over the responses with a judged line; WPR = mean
    ``word_pass`` over the responses checked at word level; LCPR = their harmonic mean
    2·LPR·WPR / (LPR + WPR) where both exist, and LCPR = LPR for Latin-script languages,
    which have no WPR (the paper's convention): :func:`language_confusion_pass_rate` and
    :data:`LCPR`, a derived metric of the results table (bootstrap CI over items).
    :func:`pass_rates` computes the three rates directly from a LANGUAGE_CONFUSION table.

`score_language_confusion` takes the language-ID model as an object with ``predict``,
``is_language`` and ``supports`` (`xlcons.lid.LanguageIdentifier`, or a fake in tests);
The rule's entry point, which loads fastText, is
`xlcons.evaluators.language_id.run_language_confusion`, beside the fidelity job.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Protocol

import numpy as np
import polars as pl
import pyarrow as pa

from xlcons.derived_metrics import DerivedMetric, harmonic_mean
from xlcons.item_scores import excluded_unless, long_table
from xlcons.languages import LanguageRegistry, written_script
from xlcons.schemas import DATASET, ITEM_ID, ITEM_SCORES, LANG, MODEL, NO_ANSWER

EVALUATOR = "language_confusion"
DEFAULT_MIN_LINE_TOKENS = 5
DEFAULT_MIN_CONFIDENCE = 0.5
LATIN_SCRIPT = "Latn"

LINE_EXCLUSIONS = ("lid_unsupported_language", "no_answer", "no_judged_line")
WORD_EXCLUSIONS = ("latin_script", "no_answer", "empty_response")

# One row per response (RESPONSES row), in the order of the responses.
# `n_lines`: non-empty lines outside fenced code blocks; `n_judged_lines`: those long enough
# and identified with enough confidence; `n_confused_lines`: judged lines not in `lang`.
# `line_pass` is null when the response is not judged at line level (`line_excluded_reason`
# says why, else null). `english_words` lists the English words found, in order, repeats
# kept ([] when none; null where the word check does not apply); `word_pass` is null when it
# does not apply (`word_excluded_reason`). `response_chars`: length of the stripped response
# (0 for "No answer").
LANGUAGE_CONFUSION = pa.schema(
    [
        DATASET,
        MODEL,
        ITEM_ID,
        LANG,
        pa.field("n_lines", pa.int32(), nullable=False),
        pa.field("n_judged_lines", pa.int32(), nullable=False),
        pa.field("n_confused_lines", pa.int32(), nullable=False),
        pa.field("line_pass", pa.bool_()),
        pa.field("line_excluded_reason", pa.string()),
        pa.field("english_words", pa.list_(pa.string())),
        pa.field("word_pass", pa.bool_()),
        pa.field("word_excluded_reason", pa.string()),
        pa.field("response_chars", pa.int32(), nullable=False),
    ]
)

# Every line sent to language ID, one row each (the item explorer shows them under the answer):
# `line_index` its place among the answer's lines sent, `label` the language-ID label (null
# where the model gave none), `judged` whether it counted (long and sure enough), `confused`
# whether a judged line is not in `lang` (null when not judged).
LANGUAGE_CONFUSION_LINES = pa.schema(
    [
        DATASET,
        MODEL,
        ITEM_ID,
        LANG,
        pa.field("line_index", pa.int32(), nullable=False),
        pa.field("line", pa.string(), nullable=False),
        pa.field("label", pa.string()),
        pa.field("judged", pa.bool_(), nullable=False),
        pa.field("confused", pa.bool_()),
    ]
)


def line_row(row: dict, index: int, line: str, label: str | None, judged: bool, confused: bool | None) -> dict:
    """One LANGUAGE_CONFUSION_LINES row of the answer `row`."""
    keys = {key: row[key] for key in ("dataset", "model", "item_id", "lang")}
    return keys | {"line_index": index, "line": line, "label": label, "judged": judged, "confused": confused}


class Identifier(Protocol):
    """What scoring needs of `xlcons.lid.LanguageIdentifier`."""

    def predict(self, texts: Sequence[str]) -> list[tuple[str | None, float | None]]: ...

    def is_language(self, label: str | None, lang: str) -> bool: ...

    def supports(self, lang: str) -> bool: ...


# -- Text helpers -------------------------------------------------------------------------

_FENCE = re.compile(r"^\s*(```|~~~)")
# Spans that are not prose, blanked out before tokens are counted, lines identified and
# English words looked for. Order matters: display math before inline math, URLs before
# dotted names.
_NON_PROSE = [
    re.compile(r"`[^`\n]*`"),  # inline code
    re.compile(r"\$\$.*?\$\$", re.DOTALL),  # display math
    re.compile(r"\\\[.*?\\\]", re.DOTALL),
    re.compile(r"\\\(.*?\\\)", re.DOTALL),
    re.compile(r"\$(?=\S)[^$\n]*?(?<=\S)\$(?!\d)"),  # inline math (not prices: "$5 and $10")
    re.compile(r"\\[A-Za-z]+"),  # LaTeX commands outside math
    re.compile(r"</?[A-Za-z][^<>\n]*>"),  # HTML tags
    re.compile(r"(?:https?|ftp)://\S+|www\.\S+", re.IGNORECASE),  # URLs
    re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),  # e-mail addresses
    re.compile(
        r"(?<![A-Za-z0-9_.])[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)+(?![A-Za-z0-9_]|\.[A-Za-z0-9_])"
    ),  # example.com, os.path, 3.14
]
_WORD = re.compile(r"[A-Za-z]+(?:['’-][A-Za-z]+)*")
_ACRONYM = re.compile(r"[A-Z]{2,5}s?")
_LOWER_ROMAN = re.compile(r"x{0,3}(?:ix|iv|v?i{0,3})")
_MIXED_CASE = re.compile(r"[a-z][A-Z]")
_NUMBER_BEFORE = re.compile(r"\d[\d.,]*\s*$")
# Unit symbols exempt right after a number (lower-cased for the comparison; symbols in
# capitals or mixed case, GB, kWh, mAh, are exempt as acronyms or mixed case anyway).
UNITS = frozenset(
    "mm cm dm km nm um mg kg ml cl dl ha hz khz mhz ghz kb mb gb tb kw mw kwh db "
    "ft yd mi oz lb lbs gal mph kph kmh rpm ppm ppb kcal cal sec min hr hrs ms ns am pm".split()
)
# Letters of scripts written without spaces between words: each counts as one token.
_CONTINUOUS = re.compile(
    "[\u0e00-\u0eff\u0f00-\u0fff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff]"
)


def split_lines(text: str) -> list[str]:
    """The response's non-empty lines, stripped, without fenced code blocks (fences included)."""
    lines: list[str] = []
    in_code = False
    for line in text.splitlines():
        if _FENCE.match(line):
            in_code = not in_code
            continue
        if not in_code and line.strip():
            lines.append(line.strip())
    return lines


def prose(text: str) -> str:
    """`text` with the non-prose spans (code, URLs, dotted names, math, HTML tags) replaced by spaces."""
    for pattern in _NON_PROSE:
        text = pattern.sub(" ", text)
    return text


def line_tokens(line: str) -> int:
    """Tokens of a (prose) line: whitespace pieces with a letter; a letter of a script without
    spaces is one token each."""
    count = 0
    for piece in line.split():
        continuous = [ch for ch in _CONTINUOUS.findall(piece) if not unicodedata.category(ch).startswith("M")]
        if continuous:
            count += len(continuous)
            piece = _CONTINUOUS.sub("", piece)
        if any(ch.isalpha() for ch in piece):
            count += 1
    return count


def _latin_or_digit(char: str) -> bool:
    if char.isdigit() or char == "_":
        return True
    return char.isalpha() and unicodedata.name(char, "").startswith("LATIN")


def _is_english(word: str, before: str) -> bool:
    letters = word.replace("'", "").replace("’", "").replace("-", "")
    if len(letters) < 2:
        return False
    if _ACRONYM.fullmatch(word) or _LOWER_ROMAN.fullmatch(word) or _MIXED_CASE.search(word):
        return False
    if word.lower() in UNITS and _NUMBER_BEFORE.search(before):
        return False
    return True


def english_words(text: str) -> list[str]:
    """The English words of `text` by the module docstring's rule, in order, repeats kept."""
    text = prose("\n".join(split_lines(unicodedata.normalize("NFC", text))))
    words = []
    for match in _WORD.finditer(text):
        start, end = match.span()
        if start > 0 and _latin_or_digit(text[start - 1]):
            continue
        if end < len(text) and _latin_or_digit(text[end]):
            continue
        if _is_english(match.group(), text[max(0, start - 24) : start]):
            words.append(match.group())
    return words


# -- Scoring ------------------------------------------------------------------------------


def confusion_row(
    row: dict,
    n_lines: int,
    n_judged: int,
    confused: int,
    line_reason: str | None,
    words: list[str] | None,
    word_reason: str | None,
) -> dict:
    """One LANGUAGE_CONFUSION row: a level's pass flag is null where its reason says it was not judged."""
    response = row["response"]
    return {
        "dataset": row["dataset"],
        "model": row["model"],
        "item_id": row["item_id"],
        "lang": row["lang"],
        "n_lines": n_lines,
        "n_judged_lines": n_judged,
        "n_confused_lines": confused,
        "line_pass": None if line_reason else confused == 0,
        "line_excluded_reason": line_reason,
        "english_words": words,
        "word_pass": None if word_reason else not words,
        "word_excluded_reason": word_reason,
        "response_chars": len(response.strip()) if response != NO_ANSWER else 0,
    }


def check_thresholds(min_line_tokens: int, min_confidence: float) -> None:
    if int(min_line_tokens) != min_line_tokens or min_line_tokens < 1:
        raise ValueError(f"min_line_tokens must be a whole number >= 1, not {min_line_tokens!r}")
    if not 0.0 <= min_confidence <= 1.0:
        raise ValueError(f"min_confidence must be in [0, 1], not {min_confidence!r}")


def score_language_confusion(
    responses: pa.Table,
    identifier: Identifier,
    registry: LanguageRegistry | None = None,
    *,
    min_line_tokens: int = DEFAULT_MIN_LINE_TOKENS,
    min_confidence: float = DEFAULT_MIN_CONFIDENCE,
    line_rows: list[dict] | None = None,
) -> pa.Table:
    """The LANGUAGE_CONFUSION rows of RESPONSES rows (any models, data sets, languages), in their
    order; with `line_rows`, each line sent to language ID is appended to it as a
    LANGUAGE_CONFUSION_LINES row."""
    check_thresholds(min_line_tokens, min_confidence)
    registry = registry or getattr(identifier, "registry", None) or LanguageRegistry.load()
    rows = responses.select(["dataset", "model", "item_id", "lang", "response"]).to_pylist()
    scripts = {lang: registry[lang].script for lang in {row["lang"] for row in rows}}  # unknown codes fail here
    supported = {lang: identifier.supports(lang) for lang in scripts}

    # Every line long enough to judge, of every response judged at line level, in one LID call.
    line_counts: list[int] = []
    candidates: list[list[int]] = []
    texts: list[str] = []
    for row in rows:
        answered = row["response"] != NO_ANSWER
        lines = split_lines(row["response"]) if answered else []
        line_counts.append(len(lines))
        indices = []
        if answered and supported[row["lang"]]:
            for line in split_lines(prose("\n".join(lines))):
                if line_tokens(line) >= min_line_tokens:
                    indices.append(len(texts))
                    texts.append(line)
        candidates.append(indices)
    predictions = identifier.predict(texts) if texts else []

    records = []
    for row, n_lines, indices in zip(rows, line_counts, candidates):
        lang, response = row["lang"], row["response"]
        answered = response != NO_ANSWER
        judged = [
            predictions[i][0]
            for i in indices
            if predictions[i][0] is not None and predictions[i][1] is not None and predictions[i][1] >= min_confidence
        ]
        confused = sum(not identifier.is_language(label, lang) for label in judged)
        if line_rows is not None:
            for number, i in enumerate(indices):
                label, probability = predictions[i]
                sure = label is not None and probability is not None and probability >= min_confidence
                line_rows.append(
                    line_row(
                        row, number, texts[i], label, sure, not identifier.is_language(label, lang) if sure else None
                    )
                )
        if not supported[lang]:
            line_reason = "lid_unsupported_language"
        elif not answered:
            line_reason = "no_answer"
        elif not judged:
            line_reason = "no_judged_line"
        else:
            line_reason = None

        if written_script(response, registry[lang]) == LATIN_SCRIPT:  # Serbian in Latin letters too
            word_reason = "latin_script"
        elif not answered:
            word_reason = "no_answer"
        elif not response.strip():
            word_reason = "empty_response"
        else:
            word_reason = None
        words = english_words(response) if word_reason is None else None

        records.append(confusion_row(row, n_lines, len(judged), confused, line_reason, words, word_reason))
    return pa.Table.from_pylist(records, schema=LANGUAGE_CONFUSION)


# -- Item scores and rates ----------------------------------------------------------------


def to_item_scores(table: pa.Table) -> pl.DataFrame:
    """ITEM_SCORES rows (evaluator ``language_confusion``): ``line_pass`` and ``word_pass`` as 1/0 per response.

    A response not judged on a level keeps that level's exclusion reason as its status
    (``latin_script`` on every word_pass row of a Latin-script language), so the results
    table counts them by reason.
    """
    frame = pl.from_arrow(table)
    if frame.is_empty():
        return pl.from_arrow(ITEM_SCORES.empty_table())
    parts = []
    for level in ("line", "word"):
        passed = pl.col(f"{level}_pass")
        status = excluded_unless(passed.is_not_null(), f"{level}_excluded_reason")
        parts.append(long_table(frame, EVALUATOR, {f"{level}_pass": passed}, status))
    return pl.concat(parts)


def language_confusion_pass_rate(lpr, wpr):
    """LCPR from LPR and WPR: their harmonic mean where both exist, LPR where WPR does not (NaN or None).

    Elementwise on arrays (as the results table calls it, on the means of each bootstrap
    resample); a float for scalar inputs. NaN when LPR is missing; 0 when either rate is 0.
    """
    lpr = np.asarray(np.nan if lpr is None else lpr, dtype=float)
    wpr = np.asarray(np.nan if wpr is None else wpr, dtype=float)
    result = np.where(np.isnan(wpr), lpr, harmonic_mean(lpr, wpr))
    return float(result) if result.ndim == 0 else result


# The results table's LCPR per (data set, model, language): from the cell's mean line_pass
# (LPR) and mean word_pass (WPR), resampled jointly for the bootstrap CI. In a Latin-script
# cell every word_pass row is excluded (latin_script), WPR is NaN and LCPR = LPR. In a
# non-Latin cell every response judged at line level is also checked at word level, so a
# resample with an LPR always has a WPR: the LPR fallback never stands in for a missing WPR
# there. A cell (or resample) without LPR has no LCPR: its row's note says so ("lcpr undefined:
# line_pass has no scored item (no_judged_line:6)"), its items counted as excluded.
LCPR = DerivedMetric("lcpr", ("line_pass", "word_pass"), language_confusion_pass_rate, evaluators=(EVALUATOR,))
DERIVED_METRICS = (LCPR,)


def pass_rates(table: pa.Table) -> pl.DataFrame:
    """LPR, WPR and LCPR per (dataset, model, lang) of a LANGUAGE_CONFUSION table, with the counts behind them.

    `n_line_judged` / `n_word_checked` count the responses behind LPR / WPR (null rate when 0).
    """
    frame = pl.from_arrow(table)
    rates = (
        frame.group_by(["dataset", "model", "lang"], maintain_order=True)
        .agg(
            n_responses=pl.len(),
            n_line_judged=pl.col("line_pass").is_not_null().sum(),
            lpr=pl.col("line_pass").cast(pl.Float64).mean(),
            n_word_checked=pl.col("word_pass").is_not_null().sum(),
            wpr=pl.col("word_pass").cast(pl.Float64).mean(),
        )
        .sort(["dataset", "model", "lang"])
    )
    lcpr = [
        language_confusion_pass_rate(line, word) for line, word in zip(rates["lpr"].to_list(), rates["wpr"].to_list())
    ]
    return rates.with_columns(lcpr=pl.Series([None if np.isnan(v) else v for v in lcpr], dtype=pl.Float64))


def faithful_scores(table: pa.Table) -> dict[str, tuple[float | None, int, str | None]]:
    """Per language of LANGUAGE_CONFUSION rows scored on faithful text (the data set's prompts as
    answers): the line-level pass rate (LPR, over the answers with a judged line), the number
    of those answers, and the evaluator's own not-measurable reason (e.g. ``no_lid_label``),
    if any (the input of :func:`xlcons.measurability.measurability_rows`)."""
    from xlcons.measurability import PREFIX

    reason = pl.col("line_excluded_reason")
    rates = (
        pl.from_arrow(table)
        .group_by("lang")
        .agg(
            score=pl.col("line_pass").cast(pl.Float64).mean(),
            n=pl.col("line_pass").count(),
            own=reason.filter(reason.str.starts_with(PREFIX + ":")).first().str.strip_prefix(PREFIX + ":"),
        )
    )
    return {row["lang"]: (row["score"], row["n"], row["own"]) for row in rates.iter_rows(named=True)}


def mark_not_measurable_rows(table: pa.Table, statuses: Mapping[str, str | None]) -> pa.Table:
    """LANGUAGE_CONFUSION rows with those of each not-measurable language (`statuses`, as
    :func:`xlcons.measurability.verdicts` gives them) not judged: no line or word verdict,
    the status as their reason (a Latin-script answer keeps ``latin_script`` for words)."""
    marked = {lang: status for lang, status in statuses.items() if status is not None}
    if not marked or table.num_rows == 0:
        return table
    status = pl.col("lang").replace_strict(marked, default=None, return_dtype=pl.String)
    keep = status.is_null()
    frame = pl.from_arrow(table).with_columns(
        line_pass=pl.when(keep).then(pl.col("line_pass")).otherwise(None),
        n_judged_lines=pl.when(keep).then(pl.col("n_judged_lines")).otherwise(0),
        n_confused_lines=pl.when(keep).then(pl.col("n_confused_lines")).otherwise(0),
        line_excluded_reason=pl.coalesce(status, pl.col("line_excluded_reason")),
        word_pass=pl.when(keep).then(pl.col("word_pass")).otherwise(None),
        english_words=pl.when(keep).then(pl.col("english_words")).otherwise(None),
        word_excluded_reason=pl.when(keep | (pl.col("word_excluded_reason") == "latin_script"))
        .then(pl.col("word_excluded_reason"))
        .otherwise(status),
    )
    return frame.to_arrow().cast(LANGUAGE_CONFUSION)
