"""The Language Confusion Benchmark's definition of a confused response, as its scorer applies it.

The Language Confusion Benchmark (LCB; Marchisio et al. 2024, *Understanding and Mitigating
Language Confusion in LLMs*) publishes its scorer, ``compute_metrics.py``, in
``github.com/for-ai/language-confusion`` (commit ``0cfdbb4``,
:data:`xlcons.data_sources.catalog.LCB_COMMIT`). This module restates that scorer's rules in our own
code, so that xlcons's line- and word-level pass rates are the benchmark's numbers (checked on
its released completions: ``docs/validation.md``):

1. **Text.** The response is cut at the first ``"\\nQ:"`` (a base model continuing its
   few-shot prompt), outer whitespace removed; then every ASCII punctuation character
   (Python's ``string.punctuation``) and the Arabic comma ``،`` are deleted and the em dash
   ``—`` becomes a space (:func:`normalize`).
2. **Lines.** The normalised text is split on ``"\\n"`` only (``\\r``, form feeds and
   Unicode line separators stay inside a line); nothing is stripped, and lines inside code
   fences are lines like any other (:func:`lines_of`).
3. **Tokens.** Chinese lines are cut with jieba, Japanese lines with fugashi (MeCab, in
   wakati mode), every other line on whitespace (:class:`LineTokenizer`). Digits and
   jieba's whitespace tokens are tokens. A line with fewer than :data:`MIN_LINE_TOKENS`
   tokens is not judged; a response with no judged line is out of both rates.
4. **Line language.** Each judged line, exactly as it is, goes to fastText's lid.176; a
   top label whose probability is at or below :data:`UNKNOWN_AT_OR_BELOW` is ``unknown``.
   A line is confused unless its label *is* the expected one (exact match: ``unknown``,
   ``arz`` for Arabic or ``yue`` for Chinese are errors): :func:`expected_label`.
5. **Words.** In a response with no confused line, a token (outer whitespace removed) of a
   judged line is an English word when it is in the benchmark's English word list, of which
   only the entries written in lower case and longer than three characters count
   (:func:`english_vocabulary`). The check applies to languages not written in Latin script
   (the benchmark: ar, hi, ja, ko, ru, zh).

Rates per (data set, language): LPR = share of the responses with a judged line that have no
confused line; WPR = share of those without a confused line that have no English word. The
benchmark gives an empty cell 1.0; the per-task tables of ``xlcons.reports.lcb`` do the same.

**Beyond the benchmark's languages** (:data:`LCB_LANGUAGES`, by canonical code) the five
steps hold with four changes, each of which only applies where the benchmark has no number
to agree with (:func:`language_plans`):

- the model: lid.176 where it has a label for the language, else the configured
  ``language_id`` model (GlotLID by default; `fallback`), else none: the language is *not
  measurable* (``not_measurable:no_lid_label``), never scored;
- the label: every label the registry accepts for the language (``lid176_labels`` or
  ``glotlid_labels``) or for a language it lists in ``lid_same_as`` (varieties the model
  cannot tell apart: Bosnian, Croatian, Serbian; Malay, Indonesian) counts;
- an ``unknown`` line (probability at or below 0.3) is not judged, rather than an error:
  the model not knowing is no evidence of another language (a response whose long lines are
  all unknown has reason ``no_identified_line``);
- tokens: Thai is cut into words with pythainlp, Khmer, Lao, Burmese and Tibetan count a
  token per letter (:mod:`xlcons.evaluators.lcb_tokens`), so their lines reach five tokens.

The word check applies, as in the benchmark, to every language not written in Latin script
(the answer's script: Serbian in Latin letters has none), with the same English word list.
The config's ``measurable`` option overrides the not-measurable verdict per language
(:mod:`xlcons.measurability`).
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import pyarrow as pa

from xlcons.data_sources.catalog import LCB_WORDS_SHA256, LCB_WORDS_URL
from xlcons.datasets import LCB_MONOLINGUAL_LANGUAGES
from xlcons.evaluators.language_confusion import (
    DEFAULT_MIN_CONFIDENCE,
    LANGUAGE_CONFUSION,
    LATIN_SCRIPT,
    check_thresholds,
    confusion_row,
    line_row,
)
from xlcons.evaluators.lcb_tokens import LineTokenizer
from xlcons.languages import Language, LanguageRegistry, written_script
from xlcons.lid import accepted_labels, split_label
from xlcons.measurability import verdicts
from xlcons.schemas import NO_ANSWER

# The benchmark's word list, pinned by content (xlcons.data_sources.catalog, with lid.176.bin's URL:
# the config's defaults are read without this module's imports).
WORDS_URL = LCB_WORDS_URL
WORDS_SHA256 = LCB_WORDS_SHA256

# The benchmark's languages (canonical codes): there the rule is exactly the benchmark's.
LCB_LANGUAGES = frozenset(LCB_MONOLINGUAL_LANGUAGES)
NO_LID_LABEL = "no_lid_label"  # why a language no configured model has a label for is not measurable
UNKNOWN = "unknown"
UNKNOWN_AT_OR_BELOW = 0.3
MIN_LINE_TOKENS = 5
CONTINUATION = "\nQ:"
_DELETED = str.maketrans("", "", string.punctuation + "\u060c")


def normalize(text: str) -> str:
    """Step 1: the response up to a continued few-shot prompt, without punctuation."""
    text = text.split(CONTINUATION)[0].strip()
    return text.translate(_DELETED).replace("\u2014", " ")


def lines_of(text: str) -> list[str]:
    """Step 2: the normalised response's lines, split on ``\\n`` only, empty ones included."""
    return normalize(text).split("\n")


def expected_label(language: Language) -> str | None:
    """The one lid.176 label that counts as `language` (its first registry label), or None."""
    return language.lid176_labels[0] if language.lid176_labels else None


def english_vocabulary(path: Path | str) -> frozenset[str]:
    """The English words of a word list (one per line): entries in lower case, longer than three characters."""
    path = Path(path)
    try:
        entries = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"English word list {path}: cannot be read as UTF-8 text ({error})") from error
    words = frozenset(word for word in (entry.strip() for entry in entries) if word.islower() and len(word) > 3)
    if not words:
        raise ValueError(f"English word list {path}: no entry in lower case longer than three characters")
    return words


def line_labels(predictions: Iterable[tuple[str | None, float | None]]) -> list[str]:
    """Step 4: lid.176's (label, probability) per line as the benchmark reads it: ``unknown`` at or below 0.3."""
    return [
        label if label is not None and probability is not None and probability > UNKNOWN_AT_OR_BELOW else UNKNOWN
        for label, probability in predictions
    ]


def english_tokens(line_tokens: Iterable[list[str]], vocabulary: frozenset[str]) -> list[str]:
    """Step 5: the tokens of the judged lines that are English words, in order, repeats kept."""
    return [token.strip() for tokens in line_tokens for token in tokens if token.strip() in vocabulary]


# -- Scoring ------------------------------------------------------------------------------


class LineIdentifier(Protocol):
    """What the benchmark's rule needs of a language-ID model: labels of lines exactly as given."""

    def predict_lines(self, lines: Sequence[str]) -> list[tuple[str | None, float | None]]: ...


class FallbackIdentifier(LineIdentifier, Protocol):
    """The configured language_id model, for the languages lid.176 has no label for."""

    scheme: str

    def supports(self, lang: str) -> bool: ...


LID176, FALLBACK = "lid176", "fallback"


@dataclass(frozen=True)
class LanguagePlan:
    """How one language's answers are judged: `exact` (the benchmark's language, its rule as is)
    or by `model` (LID176 or FALLBACK) with the `accepted` labels (language parts); `status` is
    its ``not_measurable:<why>`` (then nothing is judged), else None."""

    exact: bool
    model: str | None
    scheme: str
    accepted: frozenset[str]
    status: str | None


def _lid176_knows(identifier: object, language: Language) -> bool:
    supports = getattr(identifier, "supports", None)
    return supports(language.code) if callable(supports) else bool(language.lid176_labels)


def language_plans(
    languages: Mapping[str, Language],
    identifier: object,
    registry: LanguageRegistry,
    fallback: FallbackIdentifier | None = None,
    measurable: Mapping[str, bool | str] | None = None,
) -> dict[str, LanguagePlan]:
    """The :class:`LanguagePlan` of each language (see the module docstring, "Beyond the benchmark's languages")."""
    plans: dict[str, LanguagePlan] = {}
    automatic: dict[str, str | None] = {}
    for lang, language in languages.items():
        if language.canonical in LCB_LANGUAGES:
            plans[lang] = LanguagePlan(True, LID176, LID176, frozenset(language.lid176_labels[:1]), None)
            automatic[lang] = None
            continue
        if _lid176_knows(identifier, language):
            model, scheme = LID176, LID176
        elif fallback is not None and fallback.supports(lang):
            model, scheme = FALLBACK, fallback.scheme
        else:
            model, scheme = None, LID176
        same = [language, *(registry[code] for code in language.lid_same_as)]
        accepted = frozenset(label for other in same for label in accepted_labels(other, scheme))
        plans[lang] = LanguagePlan(False, model, scheme, accepted, None)
        automatic[lang] = None if model else NO_LID_LABEL
    for lang, status in verdicts(automatic, measurable).items():
        plan = plans[lang]
        model = plan.model or (LID176 if status is None else None)  # measured on request: lid.176, no label counts
        plans[lang] = LanguagePlan(plan.exact, model if status is None else None, plan.scheme, plan.accepted, status)
    return plans


def score_language_confusion_lcb(
    responses: pa.Table,
    identifier: LineIdentifier,
    vocabulary: frozenset[str],
    registry: LanguageRegistry | None = None,
    tokenizer: LineTokenizer | None = None,
    *,
    min_line_tokens: int = MIN_LINE_TOKENS,
    line_rows: list[dict] | None = None,
    fallback: FallbackIdentifier | None = None,
    measurable: Mapping[str, bool | str] | None = None,
) -> pa.Table:
    """The LANGUAGE_CONFUSION rows of RESPONSES rows by the Language Confusion Benchmark's rule;
    with `line_rows`, each judged line is appended to it as a LANGUAGE_CONFUSION_LINES row.

    `identifier` is lid.176 (or a stand-in), `vocabulary` the English words of
    :func:`xlcons.evaluators.english_vocabulary`. ``n_lines`` counts the non-empty
    lines of the normalised response, ``n_judged_lines`` those of five tokens or more (beyond
    the benchmark's languages: and identified), ``n_confused_lines`` the judged lines not
    labelled as the expected language. `fallback` (the language_id model) acts beyond the
    benchmark's languages only; `measurable` (the config's per-language override) on any.
    """
    check_thresholds(min_line_tokens, DEFAULT_MIN_CONFIDENCE)
    registry = registry or LanguageRegistry.load()
    tokenizer = tokenizer or LineTokenizer()
    rows = responses.select(["dataset", "model", "item_id", "lang", "response"]).to_pylist()
    languages = {lang: registry[lang] for lang in {row["lang"] for row in rows}}  # unknown codes fail here
    plans = language_plans(languages, identifier, registry, fallback, measurable)
    expected = {lang: expected_label(language) for lang, language in languages.items()}
    # The script each answer is written in: in another of its language's scripts (Serbian in
    # Latin letters) every lid.176 label of the language counts, and the word check follows it.
    written = [written_script(row["response"], languages[row["lang"]]) for row in rows]

    judged: list[tuple[int, list[str], list[list[str]]]] = []  # (row, long lines, their tokens)
    line_counts: list[int] = []
    texts: dict[str, list[str]] = {LID176: [], FALLBACK: []}
    for index, row in enumerate(rows):
        answered = row["response"] != NO_ANSWER
        lines = lines_of(row["response"]) if answered else []
        line_counts.append(sum(bool(line.strip()) for line in lines))
        plan = plans[row["lang"]]
        if answered and plan.model is not None:
            script = None if plan.exact else languages[row["lang"]].script
            tokens = [tokenizer.tokens(line, expected[row["lang"]], script) for line in lines]
            keep = [i for i, line_tokens in enumerate(tokens) if len(line_tokens) >= min_line_tokens]
            judged.append((index, [lines[i] for i in keep], [tokens[i] for i in keep]))
            texts[plan.model] += [lines[i] for i in keep]
    labels = {
        LID176: line_labels(identifier.predict_lines(texts[LID176])) if texts[LID176] else [],
        FALLBACK: line_labels(fallback.predict_lines(texts[FALLBACK])) if fallback and texts[FALLBACK] else [],
    }

    by_row: dict[int, tuple[list[str], list[list[str]], list[str]]] = {}
    position = {LID176: 0, FALLBACK: 0}
    for index, lines, tokens in judged:
        model = plans[rows[index]["lang"]].model
        assert model is not None
        start = position[model]
        by_row[index] = (lines, tokens, labels[model][start : start + len(lines)])
        position[model] += len(lines)

    records = []
    for index, (row, n_lines) in enumerate(zip(rows, line_counts)):
        lang = row["lang"]
        plan = plans[lang]
        answered = row["response"] != NO_ANSWER
        lines, tokens, labels_of_row = by_row.get(index, ([], [], []))
        long_lines = bool(lines)
        if plan.exact:
            accepted = (
                {expected[lang]} if written[index] == languages[lang].script else set(languages[lang].lid176_labels)
            )
            sure = [True] * len(lines)
        else:
            accepted = set(plan.accepted)
            sure = [label != UNKNOWN for label in labels_of_row]
        verdicts_of_row = [split_label(label, plan.scheme)[0] not in accepted for label in labels_of_row]
        if line_rows is not None:
            line_rows.extend(
                line_row(row, number, line, label, judge, confused if judge else None)
                for number, (line, label, judge, confused) in enumerate(
                    zip(lines, labels_of_row, sure, verdicts_of_row)
                )
            )
        kept = [i for i, judge in enumerate(sure) if judge]
        lines, tokens = [lines[i] for i in kept], [tokens[i] for i in kept]
        confused = sum(verdicts_of_row[i] for i in kept)
        if plan.status is not None:
            line_reason = plan.status
        elif not answered:
            line_reason = "no_answer"
        elif not long_lines:
            line_reason = "no_long_line"
        elif not lines:
            line_reason = "no_identified_line"
        else:
            line_reason = None
        words = None
        if written[index] == LATIN_SCRIPT:
            word_reason = "latin_script"
        elif line_reason:
            word_reason = line_reason
        else:
            words = english_tokens(tokens, vocabulary)
            word_reason = "line_error" if confused else None
        records.append(confusion_row(row, n_lines, len(lines), confused, line_reason, words, word_reason))
    return pa.Table.from_pylist(records, schema=LANGUAGE_CONFUSION)
