"""MultiQ report (Holtermann et al. 2024): Tables 3-5, Figures 3-4 and per-language results, for any models.

Inputs are the evaluators' tables of one or more models: FIDELITY (language ID),
JUDGMENTS (LLM judge) and, optionally, TOKENIZATION. Rows are matched on (dataset,
model, item_id, lang). Languages are MultiQ's prompt codes, near-duplicates (he/iw,
zh/zh-CN, jv/jw, tl/fil) counted as languages of their own, as the paper's 137 are.

Denominators (all figures are percentages):

Accuracy (Tables 3 and 5, per-language results)
    share of responses judged ``yes`` among *all* responses of the group: ``no``,
    ``unparseable`` (the judge said neither, or both, or failed) and ``no_answer`` (the
    model gave no answer, so the judge was not asked) all count as not correct, as in
    the paper, whose verdict normaliser read everything it could not parse as
    "incorrect". Nothing is guessed in the JUDGMENTS table itself, and the counts of
    unparseable and no_answer verdicts stand beside every accuracy. Failed requests
    (verdicts ``error`` and ``judge_error``: no answer of the model's to judge, or no
    verdict) and prompts longer than the model's context (``prompt_too_long``) are not
    the model's and are left out of the denominator; ``n_failed``
    counts them (with ``generation.max_failed_share`` at its default 0 there are none).
Table 3
    ``all``: pooled over every response of the model; ``en``: on English prompts;
    ``top10/20/50``: the mean of the per-language accuracies of the model's own N best
    languages (empty when the model has fewer than N languages).
Table 4 (accuracy by fidelity class)
    accuracy among the responses of each class (same, English, other); responses that
    are ``excluded`` from fidelity (unsupported languages, "No answer", ...) are in no
    class and are left out, as the paper left out Dogri and Meiteilon.
Table 5 (accuracy by tokenization class)
    accuracy pooled over every response in the languages of that class (the class of the
    prompt language under the model's own tokenizer); languages with no TOKENIZATION row
    are left out.
Fidelity shares (Figure 3, fidelity table)
    share of same / English / other among the responses that are not excluded; the
    excluded ones are counted beside (``n_excluded``). The table has the paper's
    robustness variant (numeric questions and responses under 10 characters dropped too)
    as a second row per model.
Other languages (§3.2)
    of the responses in neither the prompt's language nor English (class ``other``), the
    share in a language of the prompt language's family (families from the language
    registry; a response language outside it has an unknown family, as in the paper), the
    number of distinct languages, and each model's most frequent such languages.
Accuracy per language (Figures 5 and 9)
    each model's per-language accuracy (as above), the languages sorted by the median over
    the run's models, best first.
Language matrix (Figure 4)
    per model, for each prompt language (rows in registry order), the share of its scored
    (not excluded) responses in each response language. Response languages are named by registry code (the
    FIDELITY ``response_lang``), else by the raw LID label; the `TOP_RESPONSE_LANGUAGES`
    most frequent over the model's responses get a column, the rest are summed in "other".
    The colour scale is fixed at 0-100%.

This module is the report job (:func:`report_outputs`, :func:`build_report`, :func:`run_report`);
the tables are computed in xlcons.reports.multiq_tables, the comparison with the published
numbers in xlcons.reports.multiq_published and the figures drawn in xlcons.reports.multiq_figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pyarrow as pa

from xlcons.evaluators.fidelity import FIDELITY
from xlcons.evaluators.judge_tables import JUDGMENTS
from xlcons.evaluators.tokenization_tables import TOKENIZATION
from xlcons.reports.formats import TABLE_SUFFIXES, write_table_files
from xlcons.reports.multiq_figures import FIGURE_FORMATS, plot_accuracy_by_language, plot_fidelity, plot_language_matrix
from xlcons.reports.multiq_published import versus_published
from xlcons.reports.multiq_tables import (
    TOP_RESPONSE_LANGUAGES,
    accuracy_by_fidelity,
    accuracy_by_language,
    accuracy_by_tokenization,
    accuracy_table,
    as_frame,
    fidelity_shares,
    language_matrix,
    models_in_order,
    other_language_fallbacks,
    other_language_families,
    per_language,
)
from xlcons.tables import read_table

TABLE3 = "table3_accuracy"
TABLE4 = "table4_accuracy_by_fidelity"
TABLE5 = "table5_accuracy_by_tokenization"
FIDELITY_TABLE = "fidelity_shares"
PER_LANGUAGE = "per_language"
FIGURE3 = "figure3_fidelity"
FIGURE4 = "figure4_language_matrix"
FIGURE5 = "figure5_accuracy_by_language"
OTHER_FAMILIES, OTHER_FALLBACKS = "other_language_families", "other_language_fallbacks"
VERSUS = "table3_vs_published"


# -- The report job -------------------------------------------------------------------


def report_outputs(
    out_dir: Path | str,
    models: Sequence[str],
    table_formats: Sequence[str] = ("csv", "markdown"),
    figure_formats: Sequence[str] = FIGURE_FORMATS,
    tokenization: bool = True,
) -> list[Path]:
    """Every file `run_report` writes for these models (for the rule's output)."""
    out = Path(out_dir)
    tables = [TABLE3, TABLE4, FIDELITY_TABLE, OTHER_FAMILIES, OTHER_FALLBACKS, VERSUS] + (
        [TABLE5] if tokenization else []
    )
    paths = [out / f"{name}{TABLE_SUFFIXES[kind]}" for name in tables for kind in table_formats]
    paths.append(out / f"{PER_LANGUAGE}.csv")
    paths += [out / f"{name}.{kind}" for name in (FIGURE3, FIGURE5) for kind in figure_formats]
    for model in models:
        paths.append(out / f"{FIGURE4}_{model}.csv")
        paths += [out / f"{FIGURE4}_{model}.{kind}" for kind in figure_formats]
    return paths


def _read_all(paths: Sequence[Path | str], schema: pa.Schema) -> pa.Table:
    tables = [read_table(path, schema) for path in paths]
    return pa.concat_tables(tables) if tables else schema.empty_table()


def build_report(
    fidelity: pa.Table,
    judgments: pa.Table,
    out_dir: Path | str,
    tokenization: pa.Table | None = None,
    table_formats: Sequence[str] = ("csv", "markdown"),
    figure_formats: Sequence[str] = FIGURE_FORMATS,
    top_response_languages: int = TOP_RESPONSE_LANGUAGES,
) -> list[Path]:
    """Write every table and figure of the report into `out_dir`; returns the paths written."""
    out = Path(out_dir)
    unknown = sorted(set(table_formats) - set(TABLE_SUFFIXES)) + sorted(set(figure_formats) - set(FIGURE_FORMATS))
    if unknown:
        raise ValueError(
            f"unknown output formats {unknown}; tables: {sorted(TABLE_SUFFIXES)}, figures: {list(FIGURE_FORMATS)}"
        )
    written = []
    accuracy = accuracy_table(judgments)
    written += write_table_files(accuracy, out / TABLE3, table_formats)
    by_fidelity = accuracy_by_fidelity(judgments, fidelity)
    written += write_table_files(by_fidelity, out / TABLE4, table_formats)
    shares = fidelity_shares(fidelity)
    written += write_table_files(shares, out / FIDELITY_TABLE, table_formats)
    written += write_table_files(other_language_families(fidelity), out / OTHER_FAMILIES, table_formats)
    written += write_table_files(other_language_fallbacks(fidelity), out / OTHER_FALLBACKS, table_formats)
    written += write_table_files(versus_published(accuracy, shares, by_fidelity), out / VERSUS, table_formats)
    if tokenization is not None:
        written += write_table_files(accuracy_by_tokenization(judgments, tokenization), out / TABLE5, table_formats)
    written += write_table_files(per_language(judgments, fidelity, tokenization), out / PER_LANGUAGE, ["csv"])
    written += plot_fidelity(shares, out / FIGURE3, figure_formats)
    written += plot_accuracy_by_language(accuracy_by_language(judgments), out / FIGURE5, figure_formats)
    for model in models_in_order(as_frame(fidelity)):
        matrix = language_matrix(fidelity, model, top_response_languages)
        written += write_table_files(matrix, out / f"{FIGURE4}_{model}", ["csv"])
        written += plot_language_matrix(matrix, model, out / f"{FIGURE4}_{model}", figure_formats)
    return written


def run_report(
    fidelity_files: Sequence[Path | str],
    judgment_files: Sequence[Path | str],
    out_dir: Path | str,
    tokenization_files: Sequence[Path | str] = (),
    table_formats: Sequence[str] = ("csv", "markdown"),
    figure_formats: Sequence[str] = FIGURE_FORMATS,
    top_response_languages: int = TOP_RESPONSE_LANGUAGES,
) -> list[Path]:
    """The rule's job: FIDELITY, JUDGMENTS (and TOKENIZATION) files of all models in, the report out."""
    tokenization = _read_all(tokenization_files, TOKENIZATION) if tokenization_files else None
    return build_report(
        _read_all(fidelity_files, FIDELITY),
        _read_all(judgment_files, JUDGMENTS),
        out_dir,
        tokenization,
        table_formats,
        figure_formats,
        top_response_languages,
    )
