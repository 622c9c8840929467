"""Quality estimation (QE) of every translated sentence: how well the English translation
preserves its source, without a reference. Two backends behind one interface, a scorer
`score(sources, translations) -> list[float]`:

``embedding``
    cosine similarity of the source's and the translation's sentence embeddings from a
    cross-lingual sentence-transformers model (LaBSE by default; any model by path). Cheap,
    ungated, runs on a CPU. Scores in [-1, 1]; default threshold 0.7.
``comet``
    a reference-free COMET model through `unbabel-comet` (default
    `Unbabel/wmt22-cometkiwi-da`; the XL and XXL variants by their Hub ids), loaded once
    per job. Scores roughly in [0, 1]; default threshold 0.5. The CometKiwi models are
    gated on the Hub: accept their licence there and log in (`hf auth login`) on the
    machine that fetches (docs/translation.md#quality-estimation).

One job per (data set, model) scores every sentence of the translation stage's sentence
tables (`<lang>.sentences.parquet`), degenerate and untranslated ones included, each
distinct (source, translation) pair once, and writes `<lang>.qe.parquet` beside them
(TRANSLATION_QE). The threshold is applied by the results stage, so changing it rescores
nothing. The defaults are starting points, not calibrated cut-offs.

Every sentence is also checked for what a score cannot see (xlcons.translation.quality_checks):
`copy`, the translation is its source copied through, and `off_target`, language ID (the
configured `evaluators.language_id` model) says the translation is not English, with the
translation's label and its probability (`lid_label`, `lid_probability`; null when the
translation has too little prose to identify). The results stage fails an item with such
a sentence whatever its score.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from xlcons.translation.quality_backends import QE_BACKENDS, Scorer
from xlcons.translation.quality_checks import ENGLISH, check_sentences
from xlcons.usage import record

log = logging.getLogger(__name__)


def make_scorer(section: Mapping[str, Any], model_path: str | Path) -> Scorer:
    """The scorer translator.qe asks for, over the model at `model_path`: its backend's module
    is imported by name (each runs in its own env, xlcons.translation.quality_backends)."""
    backend = QE_BACKENDS.get(section["backend"])
    if backend is None:
        raise ValueError(f"translator.qe.backend: {section['backend']!r} is not one of {sorted(QE_BACKENDS)}")
    return importlib.import_module(backend.module).scorer(
        model_path, batch_size=section["batch_size"], gpus=section["gpus"]
    )


def estimate(
    sentences: pa.Table, score: Scorer, *, backend: str, model_name: str, identifier=None, english=None
) -> pa.Table:
    """TRANSLATION_QE rows for TRANSLATED_SENTENCES rows: each distinct pair scored once, and
    every sentence checked for a copy and, with a language `identifier`, an off-target
    translation (quality_checks.check_sentences; `english(code)`: is a source language English)."""
    from xlcons.schemas import SENTENCE_KEYS, TRANSLATION_QE

    keys = [field.name for field in SENTENCE_KEYS]
    rows = sentences.select([*keys, "source", "translation"]).to_pylist()
    pairs = list(dict.fromkeys((row["source"], row["translation"]) for row in rows))
    values = dict(zip(pairs, score([s for s, _ in pairs], [t for _, t in pairs]))) if pairs else {}
    tokens_of = getattr(score, "tokens_of", None)
    texts = [text for pair in pairs for text in pair]
    record(model_name, "qe", requests=len(pairs), prompt_tokens=tokens_of(texts) if tokens_of else 0)
    if len(values) != len(pairs):
        raise RuntimeError(f"the QE model returned {len(values)} scores for {len(pairs)} sentence pairs")
    checks = check_sentences(
        [row["source"] for row in rows],
        [row["translation"] for row in rows],
        [row["source_lang"] for row in rows],
        identifier,
        english=english,
    )
    records = [
        {key: row[key] for key in keys}
        | {
            "qe": values[(row["source"], row["translation"])],
            "qe_backend": backend,
            "qe_model": model_name,
            "copy": check.copy,
            "off_target": check.off_target,
            "lid_label": check.lid_label,
            "lid_probability": check.lid_probability,
        }
        for row, check in zip(rows, checks)
    ]
    if any(check.copy or check.off_target for check in checks):
        log.info(
            "QE checks: %d copied and %d off-target sentences of %d",
            sum(c.copy for c in checks),
            sum(c.off_target for c in checks),
            len(checks),
        )
    return pa.Table.from_pylist(records, schema=TRANSLATION_QE)


def run_qe_job(
    sentence_files: Sequence[Path | str],
    qe_files: Sequence[Path | str],
    section: Mapping[str, Any],
    model_path: str | Path,
    model_name: str,
    scorer: Scorer | None = None,
    *,
    lid_path: str | Path | None = None,
    label_scheme: str = "glotlid",
    identifier=None,
) -> None:
    """The rule's job: the model loads once and scores every language's sentences of one (data
    set, model); the language-ID model at `lid_path` (or `identifier`) checks their language."""
    from xlcons.languages import LanguageRegistry
    from xlcons.schemas import TRANSLATED_SENTENCES, TRANSLATION_QE
    from xlcons.tables import read_table, write_table

    tables = [read_table(path, TRANSLATED_SENTENCES) for path in sentence_files]
    combined = pa.concat_tables(tables) if tables else TRANSLATED_SENTENCES.empty_table()
    score = scorer or (make_scorer(section, model_path) if combined.num_rows else None)
    if identifier is None and lid_path is not None and combined.num_rows:
        from xlcons.lid import LanguageIdentifier

        identifier = LanguageIdentifier(lid_path, label_scheme)
    registry = LanguageRegistry.load()

    def english(code: str) -> bool:
        return code in registry and registry[code].canonical == ENGLISH

    scored = (
        estimate(
            combined, score, backend=section["backend"], model_name=model_name, identifier=identifier, english=english
        )
        if combined.num_rows
        else TRANSLATION_QE.empty_table()
    )
    log.info("QE (%s, %s): %d sentences", section["backend"], model_name, scored.num_rows)
    start = 0
    for table, path in zip(tables, qe_files):
        write_table(scored.slice(start, table.num_rows), path, TRANSLATION_QE)
        start += table.num_rows
