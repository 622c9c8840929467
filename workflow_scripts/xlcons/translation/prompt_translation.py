"""English prompts to language l, for data sets that exist only in English: ``PROMPTS`` rows and a review TSV.

``translate_prompts`` translates English PROMPTS rows through the job's ``SentenceTranslator``
(:mod:`xlcons.translation.sentence_translator`) and writes them in l with ``source_lang`` en;
``write_review`` writes the review file a person reads before trusting them.
``run_prompt_translation_job`` is the rule's job: one translator load for every language.
"""

from __future__ import annotations

import csv
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from xlcons.atomic import atomic_path
from xlcons.languages import LanguageRegistry
from xlcons.schemas import PROMPTS, REVIEW_COLUMNS
from xlcons.tables import read_table, write_table
from xlcons.translation.cache import TranslationCache
from xlcons.translation.response_translation import ENGLISH
from xlcons.translation.sentence_translator import DegenerationSpec, SentenceTranslator, translate_texts
from xlcons.translation.spec import TranslatorSpec
from xlcons.translation.translators import TranslatorBackend, load_translator

log = logging.getLogger(__name__)


def translate_prompts(
    prompts: pa.Table, lang: str, engine: SentenceTranslator, registry: LanguageRegistry | None = None
) -> tuple[pa.Table, list[dict[str, Any]]]:
    """(PROMPTS rows in ``lang`` with source_lang en, review rows) for English PROMPTS rows."""
    rows = prompts.to_pylist()
    wrong = sorted({row["lang"] for row in rows} - {ENGLISH})
    if wrong:
        raise ValueError(f"prompt translation starts from English prompts; these rows are in {wrong}")
    done = translate_texts(engine, [row["prompt"] for row in rows], ENGLISH, lang, registry)
    out = [{**row, "lang": lang, "prompt": text.text, "source_lang": ENGLISH} for row, text in zip(rows, done)]
    review = [
        {
            "dataset": row["dataset"],
            "item_id": row["item_id"],
            "lang": lang,
            "source": row["prompt"],
            "translation": text.text,
            "n_sentences": len(text.results),
            "n_degenerate": text.n_degenerate,
            "n_repaired": text.n_repaired,
        }
        for row, text in zip(rows, done)
    ]
    return pa.Table.from_pylist(out, schema=PROMPTS), review


def write_review(rows: Iterable[Mapping[str, Any]], path: Path | str) -> Path:
    """The review file of a prompt translation: a TSV (quoted where a text holds a tab or line break), atomically."""
    path = Path(path)
    with atomic_path(path) as temporary, open(temporary, "w", encoding="utf-8", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=REVIEW_COLUMNS, dialect="excel-tab", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return path


def run_prompt_translation_job(
    spec: TranslatorSpec,
    prompts: Path | str,
    langs: Sequence[str],
    prompts_out: Sequence[Path | str],
    review_out: Sequence[Path | str],
    cache_path: Path | str,
    *,
    degeneration: DegenerationSpec = DegenerationSpec(),
    translator_factory: Callable[[TranslatorSpec], TranslatorBackend] = load_translator,
) -> None:
    """The rule's job: an English PROMPTS file in; per language, its PROMPTS and review TSV out.

    One job serves every language, so the translator is loaded once; the sentence cache makes
    a language added later cost only its own sentences.
    """
    if not len(langs) == len(prompts_out) == len(review_out):
        raise ValueError("one prompts file and one review file per language")
    english = read_table(prompts, PROMPTS)
    datasets = "+".join(dict.fromkeys(english["dataset"].to_pylist()))
    engine = SentenceTranslator(
        spec, TranslationCache(cache_path), degeneration, translator_factory, job=f"translate prompts {datasets}"
    )
    with engine:
        for lang, table_out, review_path in zip(langs, prompts_out, review_out):
            table, review = translate_prompts(english, lang, engine)
            write_table(table, table_out, PROMPTS)
            write_review(review, review_path)
            log.info("prompts en -> %s: %d translated", lang, table.num_rows)


__all__ = ["run_prompt_translation_job", "translate_prompts", "write_review"]
