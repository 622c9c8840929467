"""The language-ID job of MultiQ: one model's responses in, its FIDELITY table out.

Kept apart from `xlcons.evaluators.fidelity` so that only this job (and not the report,
which reuses the fidelity rules) needs fastText.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import pyarrow as pa

from xlcons.evaluators.fidelity import DEFAULT_UNSUPPORTED_LANGUAGES, score_fidelity
from xlcons.lid import LanguageIdentifier
from xlcons.schemas import FIDELITY, RESPONSES
from xlcons.tables import read_table, write_table


def run_language_id(
    response_files: Sequence[Path | str],
    out_path: Path | str,
    model_path: Path | str,
    label_scheme: str = "glotlid",
    unsupported_languages: Iterable[str] = DEFAULT_UNSUPPORTED_LANGUAGES,
    robust: bool = False,
) -> Path:
    """RESPONSES files (one model, any languages) in, one FIDELITY file out."""
    tables = [read_table(path, RESPONSES) for path in response_files]
    responses = pa.concat_tables(tables) if tables else RESPONSES.empty_table()
    identifier = LanguageIdentifier(model_path, label_scheme)
    return write_table(score_fidelity(responses, identifier, unsupported_languages, robust), out_path, FIDELITY)
