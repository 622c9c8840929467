"""The round trip en → l → en (Gupta et al. 2025's translationese check): ``ROUND_TRIPS`` rows.

``round_trip`` translates English responses into l and back through the job's
``SentenceTranslator`` (:mod:`xlcons.translation.sentence_translator`), the way back done as
the stage translates a response in l; ``run_round_trip_job`` is the rule's job, one
translator load for every language.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path

import pyarrow as pa

from xlcons.languages import LanguageRegistry
from xlcons.progress import table_owners
from xlcons.schemas import NO_ANSWER, RESPONSES, ROUND_TRIPS
from xlcons.tables import read_table, write_table
from xlcons.translation.cache import TranslationCache
from xlcons.translation.response_translation import ENGLISH, is_no_answer
from xlcons.translation.sentence_translator import DegenerationSpec, SentenceTranslator, translate_texts
from xlcons.translation.spec import TranslatorSpec
from xlcons.translation.translators import TranslatorBackend, load_translator

log = logging.getLogger(__name__)


def round_trip(
    responses: pa.Table, lang: str, engine: SentenceTranslator, registry: LanguageRegistry | None = None
) -> pa.Table:
    """ROUND_TRIPS for English RESPONSES rows through ``lang``.

    The way back is what the stage does to a response in ``lang``: the pivot text is split
    with ``lang``'s splitter and translated from ``lang`` (no language ID: it is known).
    """
    registry = registry or LanguageRegistry.load()
    rows = responses.to_pylist()
    wrong = sorted({row["lang"] for row in rows} - {ENGLISH})
    if wrong:
        raise ValueError(f"the round trip starts from English responses; these rows are in {wrong}")
    todo = [index for index, row in enumerate(rows) if not is_no_answer(row)]
    forward = translate_texts(engine, [rows[index]["response"] for index in todo], ENGLISH, lang, registry)
    back = translate_texts(engine, [text.text for text in forward], lang, ENGLISH, registry)
    done = {index: (there, home) for index, there, home in zip(todo, forward, back)}
    records = []
    for index, row in enumerate(rows):
        there, home = done.get(index, (None, None))
        records.append(
            {
                "dataset": row["dataset"],
                "model": row["model"],
                "item_id": row["item_id"],
                "lang": lang,
                "response": row["response"],
                "translation_path": "round_trip" if there else "no_answer",
                "pivot": there.text if there else NO_ANSWER,
                "round_trip": home.text if home else NO_ANSWER,
                "n_sentences": len(there.results) if there else 0,
                "n_degenerate": there.n_degenerate + home.n_degenerate if there else 0,
                "n_repaired": there.n_repaired + home.n_repaired if there else 0,
                "translator": engine.label,
            }
        )
    return pa.Table.from_pylist(records, schema=ROUND_TRIPS)


def run_round_trip_job(
    spec: TranslatorSpec,
    responses: Path | str,
    langs: Sequence[str],
    outs: Sequence[Path | str],
    cache_path: Path | str,
    *,
    degeneration: DegenerationSpec = DegenerationSpec(),
    translator_factory: Callable[[TranslatorSpec], TranslatorBackend] = load_translator,
) -> None:
    """The rule's job: an English RESPONSES file in, its ROUND_TRIPS through each language out."""
    if len(langs) != len(outs):
        raise ValueError("one round-trip file per language")
    english = read_table(responses, RESPONSES)
    engine = SentenceTranslator(
        spec, TranslationCache(cache_path), degeneration, translator_factory, job=f"round trip {table_owners(english)}"
    )
    with engine:
        for lang, out in zip(langs, outs):
            table = round_trip(english, lang, engine)
            write_table(table, out, ROUND_TRIPS)
            log.info("round trip en -> %s -> en: %d responses", lang, table.num_rows)


__all__ = ["round_trip", "run_round_trip_job"]
