"""The language-ID jobs: one model's responses in, their FIDELITY or LANGUAGE_CONFUSION table out.

Kept apart from `xlcons.evaluators.fidelity` and `xlcons.evaluators.language_confusion` so
that only these jobs (and not the reports and the results stage, which import those
modules) need fastText.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import pyarrow as pa

from xlcons.evaluators import fidelity, language_confusion, lcb_rule
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
from xlcons.evaluators.lcb_rule import LCB_LANGUAGES
from xlcons.languages import LanguageRegistry
from xlcons.lid import LanguageIdentifier
from xlcons.measurability import DEFAULT_THRESHOLD, PREFIX, check_overrides, measurability_rows, statuses_of
from xlcons.schemas import MEASURABILITY, PROMPTS, RESPONSES
from xlcons.tables import read_table, write_table

LANGUAGE_CONFUSION_SECTION = "evaluators.language_confusion"
FAITHFUL_TEXT = "faithful_text"  # the `model` of the prompts scored as answers
FIDELITY_SAME = "fidelity_same"  # language_id's faithful-text metric


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
    statuses: Mapping[str, str | None] | None = None,
) -> Path:
    """RESPONSES files (one model, any languages) in, one FIDELITY file out; `statuses`: the
    languages it cannot measure (xlcons.measurability.statuses_of the faithful-text check)."""
    responses = read_responses(response_files)
    identifier = LanguageIdentifier(model_path, label_scheme)
    table = score_fidelity(responses, identifier, unsupported_languages, robust)
    return write_table(fidelity.mark_not_measurable_rows(table, statuses or {}), out_path, FIDELITY)


def run_language_confusion(
    response_files: Sequence[Path | str],
    out_path: Path | str,
    model_path: Path | str,
    label_scheme: str = "glotlid",
    *,
    min_line_tokens: int = DEFAULT_MIN_LINE_TOKENS,
    min_confidence: float = DEFAULT_MIN_CONFIDENCE,
    lines_path: Path | str | None = None,
    statuses: Mapping[str, str | None] | None = None,
) -> Path:
    """RESPONSES files in, one LANGUAGE_CONFUSION file out (thresholds checked before the model
    loads); with `lines_path`, the lines sent to language ID too (LANGUAGE_CONFUSION_LINES);
    `statuses`: the languages it cannot measure (xlcons.measurability.statuses_of)."""
    check_thresholds(min_line_tokens, min_confidence)
    table, lines = strict_table(
        read_responses(response_files), model_path, label_scheme, min_line_tokens, min_confidence
    )
    _write_lines(lines, lines_path)
    table = language_confusion.mark_not_measurable_rows(table, statuses or {})
    return write_table(table, out_path, LANGUAGE_CONFUSION)


def strict_table(
    responses: pa.Table, model_path: Path | str, label_scheme: str, min_line_tokens: int, min_confidence: float
) -> tuple[pa.Table, list[dict]]:
    """LANGUAGE_CONFUSION rows (and the lines sent to language ID) by xlcons's `strict` rule."""
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
    return table, lines


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
    table, lines = lcb_table(
        read_responses(response_files),
        model_path,
        vocabulary,
        registry,
        min_line_tokens=min_line_tokens,
        fallback_path=fallback_path,
        fallback_scheme=fallback_scheme,
        measurable=measurable,
    )
    _write_lines(lines, lines_path)
    return write_table(table, out_path, LANGUAGE_CONFUSION)


def lcb_table(
    responses: pa.Table,
    model_path: Path | str,
    vocabulary: frozenset[str],
    registry: LanguageRegistry,
    *,
    min_line_tokens: int,
    fallback_path: Path | str | None,
    fallback_scheme: str,
    measurable: Mapping[str, bool | str] | None,
) -> tuple[pa.Table, list[dict]]:
    """LANGUAGE_CONFUSION rows (and the judged lines) by the Language Confusion Benchmark's rule."""
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
    return table, lines


def prompts_as_answers(prompts: pa.Table) -> pa.Table:
    """PROMPTS rows as RESPONSES rows that answer each prompt with itself: faithful text in the
    prompt's language by construction, what the faithful-text check scores."""
    n = prompts.num_rows
    columns = {
        "dataset": prompts["dataset"],
        "model": [FAITHFUL_TEXT] * n,
        "item_id": prompts["item_id"],
        "lang": prompts["lang"],
        "prompt": prompts["prompt"],
        "response": prompts["prompt"],
        "finish_reason": ["stop"] * n,
        "prompt_tokens": [None] * n,
        "completion_tokens": [None] * n,
        "backend": [FAITHFUL_TEXT] * n,
        "decoding_hash": [FAITHFUL_TEXT] * n,
        "error": [None] * n,
    }
    return pa.Table.from_pydict(columns, schema=RESPONSES)


def read_statuses(path: Path | str) -> dict[str, str | None]:
    """Per language of a faithful-text check's table: its not-measurable status, or None."""
    return statuses_of(read_table(path, MEASURABILITY).to_pylist())


def write_measurability(rows: list[dict], path: Path | str) -> Path:
    return write_table(pa.Table.from_pylist(rows, schema=MEASURABILITY), path, MEASURABILITY)


def rule_language_id(smk) -> None:
    """Rule language_id: the fidelity of one model's answers to one data set, the languages the
    faithful-text check (rule language_id_faithful) finds not measurable excluded as such."""
    params = smk.params
    run_language_id(
        smk.input.responses,
        smk.output.fidelity,
        params.model_path,
        params.label_scheme,
        params.unsupported,
        params.robust,
        read_statuses(smk.input.measurability),
    )


def language_id_check(
    prompts: pa.Table,
    dataset: str,
    model_path: Path | str,
    label_scheme: str = "glotlid",
    *,
    unsupported_languages: Iterable[str] = DEFAULT_UNSUPPORTED_LANGUAGES,
    measurable: Mapping[str, bool | str] | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    checked: bool = True,
) -> list[dict]:
    """The faithful-text check of language fidelity: a data set's PROMPTS scored as answers with
    the language_id model, one MEASURABILITY row per language (its `fidelity_same` and verdict)."""
    registry = LanguageRegistry.load()
    measurable = check_overrides(measurable, registry.codes, "evaluators.language_id.measurable")
    identifier = LanguageIdentifier(model_path, label_scheme, registry)
    table = score_fidelity(prompts_as_answers(prompts), identifier, unsupported_languages, False)
    scores = fidelity.faithful_scores(table)
    return measurability_rows("language_id", dataset, FIDELITY_SAME, scores, threshold, measurable, (), checked)


def rule_language_id_faithful(smk) -> None:
    """Rule language_id_faithful: the data set's own prompts scored for fidelity as if they were
    answers (:func:`language_id_check`)."""
    params = smk.params
    rows = language_id_check(
        read_table(smk.input.prompts, PROMPTS),
        smk.wildcards.dataset,
        params.model_path,
        params.label_scheme,
        unsupported_languages=params.unsupported,
        measurable=params.measurable,
        threshold=params.threshold,
        checked=params.checked,
    )
    write_measurability(rows, smk.output.measurability)


def language_confusion_check(
    prompts: pa.Table,
    dataset: str,
    model_paths: Mapping[str, Path | str],
    *,
    rule: str = "lcb",
    label_scheme: str = "glotlid",
    min_line_tokens: int = DEFAULT_MIN_LINE_TOKENS,
    min_confidence: float = DEFAULT_MIN_CONFIDENCE,
    measurable: Mapping[str, bool | str] | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    checked: bool = True,
    reference: bool = False,
) -> list[dict]:
    """The faithful-text check of language confusion: a data set's PROMPTS scored as answers by
    the configured `rule` and models (`model_paths` by config key), one MEASURABILITY row per
    language (its LPR and verdict). With `reference` (the benchmark's own data sets) under the
    `lcb` rule, the benchmark's languages are measurable by its definition: their figure only."""
    registry = LanguageRegistry.load()
    measurable = check_overrides(measurable, registry.codes, f"{LANGUAGE_CONFUSION_SECTION}.measurable")
    check_thresholds(min_line_tokens, min_confidence)
    responses = prompts_as_answers(prompts)
    if rule == "lcb":
        table, _ = lcb_table(
            responses,
            model_paths[LCB_MODEL_KEY],
            lcb_rule.english_vocabulary(model_paths[LCB_WORDS_KEY]),
            registry,
            min_line_tokens=min_line_tokens,
            fallback_path=model_paths.get(LANGUAGE_ID_MODEL_KEY),
            fallback_scheme=label_scheme,
            measurable=None,
        )
    else:
        table, _ = strict_table(
            responses, model_paths[LANGUAGE_ID_MODEL_KEY], label_scheme, min_line_tokens, min_confidence
        )
    scores = language_confusion.faithful_scores(table)
    benchmark = rule == "lcb" and reference
    by_definition = [lang for lang in scores if benchmark and registry[lang].canonical in LCB_LANGUAGES]
    return measurability_rows(
        "language_confusion", dataset, "line_pass", scores, threshold, measurable, by_definition, checked
    )


def lcb_overrides(statuses: Mapping[str, str | None]) -> dict[str, bool | str]:
    """The check's verdicts (the config's `measurable` already in them) as the `lcb` rule's
    per-language overrides: true where measured, the reason where not."""
    return {lang: True if status is None else status.removeprefix(PREFIX + ":") for lang, status in statuses.items()}


def rule_language_confusion_faithful(smk) -> None:
    """Rule language_confusion_faithful: the data set's own prompts scored for language confusion
    as if they were answers (:func:`language_confusion_check`)."""
    params = smk.params
    rows = language_confusion_check(
        read_table(smk.input.prompts, PROMPTS),
        smk.wildcards.dataset,
        params.model_paths,
        rule=params.rule,
        label_scheme=params.label_scheme,
        min_line_tokens=params.min_line_tokens,
        min_confidence=params.min_confidence,
        measurable=params.measurable,
        threshold=params.threshold,
        checked=params.checked,
        reference=params.reference,
    )
    write_measurability(rows, smk.output.measurability)


def rule_language_confusion(smk) -> None:
    """Rule language_confusion: line- and word-level language of one model's answers to one data set."""
    params = smk.params
    paths = params.model_paths
    statuses = read_statuses(smk.input.measurability)
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
            measurable={**(params.measurable or {}), **lcb_overrides(statuses)},
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
        statuses=statuses,
    )
