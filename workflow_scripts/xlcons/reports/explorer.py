"""The item explorer: a static site over one run's results that opens from the file system.

`results/explorer/` holds the pages (``index.html``, ``explorer.js``, ``explorer.css``, copied
from ``explorer_site/`` beside this module) and the data they show, as small JavaScript files
that each call one registration function (``window.XLCONS.overview(...)``,
``window.XLCONS.add(...)``): a browser loads them with ``<script>`` tags, which work from
``file://`` where ``fetch()`` of a local file does not.

- ``data/overview.js``: every row of the results table (the same numbers as results.csv), as
  one heatmap per (data set, evaluator, translator, metric) of models x languages, and the
  item files there are;
- ``data/<data set>/<model>/<lang>.js``: every item of one answer set: its prompt in the
  language and in English, the answer, its translation with each sentence's quality estimate,
  every item score (ITEM_SCORES, with its status) and every evaluator's per-item rows.

The evaluators' per-item tables are read by one reader driven by the evaluator registry: an
entry's per-item `results` sources and its `details` (:data:`item_tables`) name each table
and its schema; nothing here knows an evaluator. Model text is untrusted: the JSON is
embedded with ``<``, ``>`` and ``&`` escaped, so no answer ends a script or opens a tag, and
the pages put text on screen with ``textContent`` only (docs/explorer.md).
"""

from __future__ import annotations

import json
import logging
import math
import shutil
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from xlcons.evaluators.info import EvaluatorInfo
from xlcons.evaluators.registry import EVALUATORS, resolve
from xlcons.schemas import (
    ITEM_SCORES,
    NO_TEXT_REASONS,
    PROMPTS,
    RESPONSES,
    RESULTS,
    TRANSLATED_SENTENCES,
    TRANSLATION_QE,
    TRANSLATIONS,
    UNANSWERED_REASONS,
)
from xlcons.tables import read_table

log = logging.getLogger(__name__)

SITE = Path(__file__).parent / "explorer_site"
SITE_FILES = ("index.html", "explorer.js", "explorer.css")
REGISTRY_GLOBAL = "window.XLCONS"
ANSWER_KEYS = ["dataset", "model", "item_id", "lang"]
# The statuses of an answer the pages filter by (beside an item score's own status).
ANSWERED, NO_ANSWER, ERROR = "answered", "no answer", "error"

# The explorer rule's named inputs beside the evaluators' outputs (xlcons.plan.explorer names them so).
RESULTS_INPUT = "results"
ITEM_SCORES_INPUT = "item_scores"
PROMPTS_INPUT = "prompts"
RESPONSES_INPUT = "responses"
TRANSLATIONS_INPUT = "translations"
SENTENCES_INPUT = "translation_sentences"
QE_INPUT = "translation_qe"
FIXED_INPUTS = (
    RESULTS_INPUT,
    ITEM_SCORES_INPUT,
    PROMPTS_INPUT,
    RESPONSES_INPUT,
    TRANSLATIONS_INPUT,
    SENTENCES_INPUT,
    QE_INPUT,
)


def item_tables(evaluators: Mapping[str, EvaluatorInfo] = EVALUATORS) -> dict[str, tuple[str, str]]:
    """Every per-item output of the evaluators, by its registered name: (evaluator, "module:SCHEMA").
    Its per-item `results` sources and its `details`; the corpus-level sources have no items."""
    tables: dict[str, tuple[str, str]] = {}
    for info in evaluators.values():
        for source in info.results:
            if not source.corpus:
                tables[source.output] = (info.name, source.schema)
        for details in info.details:
            tables[details.output] = (info.name, details.schema)
    return tables


# -- JavaScript data files --------------------------------------------------------------------


def js_literal(value: Any) -> str:
    """`value` as a JSON literal that is safe inside a script: ``<``, ``>`` and ``&`` escaped
    (an answer holding ``</script>`` or ``<!--`` cannot end or hide a script), and the line
    separators U+2028/U+2029 too (a line break to older JavaScript parsers)."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    for character, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(character, escaped)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def script(function: str, payload: Any) -> str:
    """One data file: a call of the pages' registration function with `payload`."""
    return f"{REGISTRY_GLOBAL}.{function}({js_literal(payload)});\n"


def _clean(value: Any) -> Any:
    """A value JSON can hold: NaN and infinities as null, tuples and nested values alike."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _clean(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(item) for item in value]
    return value


def metric_key(evaluator: str, translator: str, metric: str) -> str:
    """How the pages name a metric: evaluator, translator ('' for none) and metric, '|'-joined."""
    return f"{evaluator}|{translator}|{metric}"


# -- Reading ----------------------------------------------------------------------------------


def _frames(paths: Iterable[Path | str], schema: Any) -> pl.DataFrame | None:
    frames = [pl.from_arrow(read_table(path, schema)) for path in paths]
    frames = [frame for frame in frames if isinstance(frame, pl.DataFrame) and frame.height]
    return pl.concat(frames, how="diagonal_relaxed") if frames else None


def _by_answer(frame: pl.DataFrame | None, keys: Sequence[str] = ANSWER_KEYS) -> dict[tuple, list[dict]]:
    """The rows of `frame` by answer (data set, model, item, language), without those keys."""
    found: dict[tuple, list[dict]] = defaultdict(list)
    if frame is None:
        return found
    for row in frame.iter_rows(named=True):
        found[tuple(row[key] for key in keys)].append({k: _clean(v) for k, v in row.items() if k not in keys})
    return found


def read_item_tables(inputs: Mapping[str, Sequence[Path | str]]) -> dict[tuple, dict[str, dict]]:
    """Every evaluator's per-item rows, by answer, then by registered output:
    ``{"evaluator": name, "rows": [...]}``. One reader for every evaluator: the registry names
    each table's schema (:func:`item_tables`); inputs it does not name are not read here."""
    tables = item_tables()
    found: dict[tuple, dict[str, dict]] = defaultdict(dict)
    for output, paths in inputs.items():
        if output in FIXED_INPUTS:
            continue
        if output not in tables:
            raise ValueError(f"explorer: input {output!r} is no evaluator's per-item output")
        evaluator, schema = tables[output]
        for answer, rows in _by_answer(_frames(paths, resolve(schema))).items():
            found[answer][output] = {"evaluator": evaluator, "rows": rows}
    return found


def _answer_status(finish_reason: str | None) -> str:
    if finish_reason in UNANSWERED_REASONS:
        return ERROR
    if finish_reason in NO_TEXT_REASONS:
        return NO_ANSWER
    return ANSWERED


def _prompts(paths: Sequence[Path | str]) -> tuple[dict[tuple, dict], dict[tuple, str]]:
    """Each prompt by (data set, item, language), and the English one by (data set, item): the
    English row, or the item's `question_en` where the set has no English."""
    frame = _frames(paths, PROMPTS)
    prompts: dict[tuple, dict] = {}
    english: dict[tuple, str] = {}
    if frame is None:
        return prompts, english
    for row in frame.iter_rows(named=True):
        prompts[(row["dataset"], row["item_id"], row["lang"])] = row
        if row["lang"] == "en":
            english[(row["dataset"], row["item_id"])] = row["prompt"]
        elif row.get("question_en"):
            english.setdefault((row["dataset"], row["item_id"]), row["question_en"])
    return prompts, english


def _sentences(inputs: Mapping[str, Sequence[Path | str]]) -> dict[tuple, list[dict]]:
    """Each translated answer's sentences with their quality estimates where the run has them."""
    sentences = _frames(inputs.get(SENTENCES_INPUT, ()), TRANSLATED_SENTENCES)
    if sentences is None:
        return {}
    qe = _frames(inputs.get(QE_INPUT, ()), TRANSLATION_QE)
    join = [*ANSWER_KEYS, "sentence_index", "source_lang"]
    if qe is not None:
        qe = qe.select(*join, "qe", "copy", "off_target", "lid_label", "lid_probability")
        sentences = sentences.join(qe, on=join, how="left")
    return _by_answer(sentences.sort([*ANSWER_KEYS, "sentence_index"]))


def _scores(path: Sequence[Path | str]) -> dict[tuple, dict[str, list]]:
    frame = _frames(path, ITEM_SCORES)
    found: dict[tuple, dict[str, list]] = defaultdict(dict)
    if frame is None:
        return found
    for row in frame.iter_rows(named=True):
        key = metric_key(row["evaluator"], row["translator"], row["metric"])
        found[(row["dataset"], row["model"], row["item_id"], row["lang"])][key] = [_clean(row["value"]), row["status"]]
    return found


def answer_files(inputs: Mapping[str, Sequence[Path | str]]) -> dict[tuple[str, str, str], dict]:
    """The payload of every item file, by (data set, model, language): its items, each with
    everything the run knows of it."""
    prompts, english = _prompts(inputs.get(PROMPTS_INPUT, ()))
    responses = _by_answer(_frames(inputs.get(RESPONSES_INPUT, ()), RESPONSES))
    translations = _by_answer(_frames(inputs.get(TRANSLATIONS_INPUT, ()), TRANSLATIONS))
    sentences = _sentences(inputs)
    scores = _scores(inputs.get(ITEM_SCORES_INPUT, ()))
    details = read_item_tables(inputs)
    answers = sorted(set(responses) | set(scores) | set(details))
    files: dict[tuple[str, str, str], dict] = {}
    for dataset, model, item_id, lang in answers:
        key = (dataset, model, item_id, lang)
        prompt = prompts.get((dataset, item_id, lang), {})
        response = (responses.get(key) or [{}])[0]
        translation = (translations.get(key) or [None])[0]
        item = {
            "id": item_id,
            "prompt": response.get("prompt") or prompt.get("prompt"),
            "prompt_en": english.get((dataset, item_id)),
            "category": prompt.get("category"),
            "references": _clean(prompt.get("references")),
            "answer": response.get("response"),
            "finish_reason": response.get("finish_reason"),
            "answer_status": _answer_status(response.get("finish_reason")) if response else None,
            "error": response.get("error"),
            "translation": None,
            "scores": scores.get(key, {}),
            "details": details.get(key, {}),
        }
        if translation is not None:
            item["translation"] = {
                "text": translation["translation"],
                "path": translation["translation_path"],
                "source_lang_detected": translation["source_lang_detected"],
                "lid_label": translation["lid_label"],
                "response_lang": translation["response_lang"],
                "translator": translation["translator"],
                "sentences": sentences.get(key, []),
            }
        payload = files.setdefault(
            (dataset, model, lang), {"dataset": dataset, "model": model, "lang": lang, "metrics": [], "items": []}
        )
        payload["items"].append(item)
    for payload in files.values():
        payload["metrics"] = sorted({name for item in payload["items"] for name in item["scores"]})
    return files


def overview(
    results: pl.DataFrame, files: Iterable[tuple[str, str, str]], models: Sequence[str] = ()
) -> dict[str, Any]:
    """The overview's payload: one heatmap per (data set, evaluator, translator, metric) of the
    results table, its rows the models (in `models`' order, then by name) and its columns the
    languages, each cell the results row as it is; and the item files by data set and model."""
    order = {name: rank for rank, name in enumerate(models)}
    heatmaps: dict[tuple, dict] = {}
    for row in results.iter_rows(named=True):
        key = (row["dataset"], row["evaluator"], row["translator"], row["metric"])
        heatmap = heatmaps.setdefault(
            key,
            {
                "dataset": row["dataset"],
                "evaluator": row["evaluator"],
                "translator": row["translator"],
                "metric": row["metric"],
                "key": metric_key(row["evaluator"], row["translator"], row["metric"]),
                "kind": row["kind"],
                "models": [],
                "langs": [],
                "cells": [],
            },
        )
        heatmap["cells"].append(
            {
                name: _clean(row[name])
                for name in (
                    "model",
                    "lang",
                    "kind",
                    "value",
                    "ci_low",
                    "ci_high",
                    "ci_level",
                    "n_items",
                    "n_excluded",
                    "excluded_reasons",
                    "note",
                )
            }
        )
    for heatmap in heatmaps.values():
        heatmap["models"] = sorted(
            {cell["model"] for cell in heatmap["cells"]}, key=lambda m: (order.get(m, len(order)), m)
        )
        heatmap["langs"] = sorted({cell["lang"] for cell in heatmap["cells"]})
    available: dict[str, dict[str, list[str]]] = {}
    for dataset, model, lang in sorted(files):
        available.setdefault(dataset, {}).setdefault(model, []).append(lang)
    return {"heatmaps": list(heatmaps.values()), "files": available}


# -- Writing ----------------------------------------------------------------------------------


def data_file(out_dir: Path | str, dataset: str, model: str, lang: str) -> Path:
    """Where the items of one (data set, model, language) go."""
    return Path(out_dir) / "data" / dataset / model / f"{lang}.js"


def build_explorer(
    inputs: Mapping[str, Sequence[Path | str]],
    out_dir: Path | str,
    *,
    models: Sequence[str] = (),
    site: Path = SITE,
) -> list[Path]:
    """The explorer under `out_dir` (the pages and their data files), from the rule's named
    inputs (xlcons.plan.explorer). Built beside it and moved in place, so a killed job leaves
    no half site behind."""
    out = Path(out_dir)
    building = out.with_name(f".{out.name}.building")
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir(parents=True)
    for name in SITE_FILES:
        shutil.copyfile(site / name, building / name)
    files = answer_files(inputs)
    results = _frames(inputs.get(RESULTS_INPUT, ()), RESULTS)
    payload = overview(results if results is not None else pl.from_arrow(RESULTS.empty_table()), files, models)
    written = [building / name for name in SITE_FILES]
    (building / "data").mkdir()
    (building / "data" / "overview.js").write_text(script("overview", payload), encoding="utf-8")
    written.append(building / "data" / "overview.js")
    for (dataset, model, lang), items in files.items():
        path = data_file(building, dataset, model, lang)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(script("add", items), encoding="utf-8")
        written.append(path)
    shutil.rmtree(out, ignore_errors=True)
    building.rename(out)
    log.info("explorer: %d heatmaps, %d item files in %s", len(payload["heatmaps"]), len(files), out)
    return [out / path.relative_to(building) for path in written]


__all__ = [
    "ANSWERED",
    "ERROR",
    "FIXED_INPUTS",
    "NO_ANSWER",
    "SITE",
    "answer_files",
    "build_explorer",
    "data_file",
    "item_tables",
    "js_literal",
    "metric_key",
    "overview",
    "read_item_tables",
    "script",
]
