"""The language-ID jobs: one model's responses in, their FIDELITY or LANGUAGE_CONFUSION table out.

Kept apart from `xlcons.evaluators.fidelity` and `xlcons.evaluators.language_confusion` so
that only these jobs (and not the reports and the results stage, which import those
modules) need fastText.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import pyarrow as pa

from xlcons.evaluators import lcb_rule
from xlcons.evaluators.fidelity import DEFAULT_UNSUPPORTED_LANGUAGES, FIDELITY, score_fidelity
from xlcons.evaluators.language_confusion import (
    DEFAULT_MIN_CONFIDENCE,
    DEFAULT_MIN_LINE_TOKENS,
    LANGUAGE_CONFUSION,
    LANGUAGE_CONFUSION_LINES,
    check_thresholds,
    score_language_confusion,
)
from xlcons.evaluators.language_confusion_entry import LCB_MODEL_KEY, LCB_WORDS_KEY
from xlcons.evaluators.language_id_entry import LANGUAGE_ID_MODEL_KEY
from xlcons.languages import LanguageRegistry
from xlcons.lid import LanguageIdentifier
from xlcons.measurability import check_overrides
from xlcons.schemas import RESPONSES
from xlcons.tables import read_table, write_table

LANGUAGE_CONFUSION_SECTION = "evaluators.language_confusion"


def read_responses(response_files: Sequence[Path | str]) -> pa.Table:
    """RESPONSES files (one model, any languages) as one table."""
    tables = [read_table(path, RESPONSES) for path in response_files]
    return pa.concat_tables(tables) if tables else RESPONSES.empty_table()


def run_language_id(
    response_files: Sequence[Path | str],
    out_path: Path | str,
    model_path: Path | str,
    label_scheme: str = "glotlid",
    unsupported_languages: Iterable[str] = DEFAULT_UNSUPPORTED_LANGUAGES,
    robust: bool = False,
) -> Path:
    """RESPONSES files (one model, any languages) in, one FIDELITY file out."""
    responses = read_responses(response_files)
    identifier = LanguageIdentifier(model_path, label_scheme)
    return write_table(score_fidelity(responses, identifier, unsupported_languages, robust), out_path, FIDELITY)


def run_language_confusion(
    response_files: Sequence[Path | str],
    out_path: Path | str,
    model_path: Path | str,
    label_scheme: str = "glotlid",
    *,
    min_line_tokens: int = DEFAULT_MIN_LINE_TOKENS,
    min_confidence: float = DEFAULT_MIN_CONFIDENCE,
    lines_path: Path | str | None = None,
) -> Path:
    """RESPONSES files in, one LANGUAGE_CONFUSION file out (thresholds checked before the model
    loads); with `lines_path`, the lines sent to language ID too (LANGUAGE_CONFUSION_LINES)."""
    check_thresholds(min_line_tokens, min_confidence)
    responses = read_responses(response_files)
    identifier = LanguageIdentifier(model_path, label_scheme)
    lines: list[dict] = []
    table = score_language_confusion(
        responses,
        identifier,
        identifier.registry,
        min_line_tokens=min_line_tokens,
        min_confidence=min_confidence,
        line_rows=lines,
    )
    _write_lines(lines, lines_path)
    return write_table(table, out_path, LANGUAGE_CONFUSION)


def _write_lines(lines: list[dict], path: Path | str | None) -> None:
    if path is not None:
        write_table(pa.Table.from_pylist(lines, schema=LANGUAGE_CONFUSION_LINES), path, LANGUAGE_CONFUSION_LINES)


def run_language_confusion_lcb(
    response_files: Sequence[Path | str],
    out_path: Path | str,
    model_path: Path | str,
    words_path: Path | str,
    *,
    min_line_tokens: int = DEFAULT_MIN_LINE_TOKENS,
    lines_path: Path | str | None = None,
    fallback_path: Path | str | None = None,
    fallback_scheme: str = "glotlid",
    measurable: Mapping[str, bool | str] | None = None,
) -> Path:
    """RESPONSES files in, one LANGUAGE_CONFUSION file out, by the Language Confusion Benchmark's
    rule; with `lines_path`, the judged lines too (LANGUAGE_CONFUSION_LINES). `fallback_path`:
    the language_id model (labels in `fallback_scheme`), for the languages lid.176 has no label
    for; `measurable`: the config's per-language override (xlcons.measurability)."""
    check_thresholds(min_line_tokens, DEFAULT_MIN_CONFIDENCE)
    vocabulary = lcb_rule.english_vocabulary(words_path)  # a bad list fails before the model loads
    registry = LanguageRegistry.load()
    measurable = check_overrides(measurable, registry.codes, f"{LANGUAGE_CONFUSION_SECTION}.measurable")
    responses = read_responses(response_files)
    identifier = LanguageIdentifier(model_path, "lid176", registry)
    fallback = None
    if fallback_path is not None:
        same = Path(fallback_path).resolve() == Path(model_path).resolve() and fallback_scheme == "lid176"
        fallback = identifier if same else LanguageIdentifier(fallback_path, fallback_scheme, identifier.registry)
    lines: list[dict] = []
    table = lcb_rule.score_language_confusion_lcb(
        responses,
        identifier,
        vocabulary,
        identifier.registry,
        min_line_tokens=min_line_tokens,
        line_rows=lines,
        fallback=fallback,
        measurable=measurable,
    )
    _write_lines(lines, lines_path)
    return write_table(table, out_path, LANGUAGE_CONFUSION)


def rule_language_id(smk) -> None:
    """Rule language_id: the fidelity of one model's answers to one data set."""
    params = smk.params
    run_language_id(
        smk.input.responses,
        smk.output.fidelity,
        params.model_path,
        params.label_scheme,
        params.unsupported,
        params.robust,
    )


def rule_language_confusion(smk) -> None:
    """Rule language_confusion: line- and word-level language of one model's answers to one data set."""
    params = smk.params
    paths = params.model_paths
    if params.rule == "lcb":
        run_language_confusion_lcb(
            smk.input.responses,
            smk.output.per_item,
            paths[LCB_MODEL_KEY],
            paths[LCB_WORDS_KEY],
            min_line_tokens=params.min_line_tokens,
            lines_path=smk.output.lines,
            fallback_path=paths.get(LANGUAGE_ID_MODEL_KEY),
            fallback_scheme=params.label_scheme,
            measurable=params.measurable,
        )
        return
    run_language_confusion(
        smk.input.responses,
        smk.output.per_item,
        paths[LANGUAGE_ID_MODEL_KEY],
        params.label_scheme,
        min_line_tokens=params.min_line_tokens,
        min_confidence=params.min_confidence,
        lines_path=smk.output.lines,
    )
