"""The item explorer: a static site over one run's results that opens from the file system.

`results/explorer/` holds the pages (``index.html``, ``explorer.js``, ``explorer.css``, copied
from ``explorer_site/`` beside this module) and the data they show, as small JavaScript files
that each call one registration function (``window.XLCONS.overview(...)``,
``window.XLCONS.add(...)``): a browser loads them with ``<script>`` tags, which work from
``file://`` where ``fetch()`` of a local file does not.

- ``data/overview.js``: the index: the data sets, each with its heatmaps (one per data set,
  evaluator, translator and metric of the results table) and the file each is in, and the
  item files there are (the number of parts of each answer set);
- ``data/heatmaps/<data set>/<n>.js``: one heatmap of models x languages, every cell the
  results row as it is (the same numbers as results.csv), with its metric's declared colour
  range; loaded when its data set is shown;
- ``data/items/<data set>/<model>/<lang>.js`` (then ``<lang>.1.js``... past :data:`PART_BYTES`):
  every item of one answer set: its prompt in the language and in English, the answer, its
  translation with each sentence's quality estimate, every item score (ITEM_SCORES, with its
  status) and every evaluator's per-item rows.

No file holds more than one data set's heatmap or one answer set, so the largest file a page
loads stays small at MultiQ scale (BENCHMARKS.md); the builder reads the tables as column
frames and makes Python rows for one (data set, model) at a time.

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
import pyarrow as pa

from xlcons.evaluators.info import EvaluatorInfo
from xlcons.evaluators.registry import EVALUATORS, resolve
from xlcons.reports.figure_style import declared_range
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
GROUP_KEYS = ["dataset", "model"]
Pair = tuple[str, str]  # (data set, model): the explorer builds one pair's files at a time
# An item file's size before the answer set goes on in a next part: a browser parses a few MB in
# well under a second (BENCHMARKS.md, the explorer at MultiQ scale).
PART_BYTES = 2_000_000
# The statuses of an answer the pages filter by (beside an item score's own status).
ANSWERED, NO_ANSWER, ERROR = "answered", "no answer", "error"

# The explorer rule's named inputs beside the evaluators' outputs (xlcons.plan.explorer names them so).
RESULTS_INPUT = "results"
ITEM_SCORES_INPUT = "item_scores"
PROMPTS_INPUT = "prompts"
RESPONSES_INPUT = "responses"
TRANSLATIONS_INPUT = "translations"
OTHER_TRANSLATIONS_INPUT = "other_translations"
SENTENCES_INPUT = "translation_sentences"
QE_INPUT = "translation_qe"
FIXED_INPUTS = (
    RESULTS_INPUT,
    ITEM_SCORES_INPUT,
    PROMPTS_INPUT,
    RESPONSES_INPUT,
    TRANSLATIONS_INPUT,
    OTHER_TRANSLATIONS_INPUT,
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
    ``{"evaluator": name, "rows": [...]}`` (all at once: the builder takes a pair at a time)."""
    tables = AnswerTables(inputs)
    return {answer: found for group in tables.groups() for answer, found in tables.details(group).items()}


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


def _with_qe(sentences: pl.DataFrame | None, qe: pl.DataFrame | None) -> pl.DataFrame | None:
    """Translated sentences, in order, with their quality estimates where the run has them."""
    if sentences is None:
        return None
    join = [*ANSWER_KEYS, "sentence_index", "source_lang"]
    if qe is not None:
        qe = qe.select(*join, "qe", "copy", "off_target", "lid_label", "lid_probability")
        sentences = sentences.join(qe, on=join, how="left")
    return sentences.sort([*ANSWER_KEYS, "sentence_index"])


def _scores(frame: pl.DataFrame | None) -> dict[tuple, dict[str, list]]:
    """Every item score by answer, then by metric key (:func:`metric_key`): [value, status]."""
    found: dict[tuple, dict[str, list]] = defaultdict(dict)
    if frame is None:
        return found
    for row in frame.iter_rows(named=True):
        key = metric_key(row["evaluator"], row["translator"], row["metric"])
        found[(row["dataset"], row["model"], row["item_id"], row["lang"])][key] = [_clean(row["value"]), row["status"]]
    return found


def _item(
    item_id: str,
    prompt: Mapping[str, Any],
    prompt_en: str | None,
    response: Mapping[str, Any],
    translation: Mapping[str, Any] | None,
    sentences: list[dict],
    scores: dict[str, list],
    details: dict[str, dict],
    others: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """One item as the pages show it; `others`: the other translators' translations of its answer."""
    item: dict[str, Any] = {
        "id": item_id,
        "prompt": response.get("prompt") or prompt.get("prompt"),
        "prompt_en": prompt_en,
        "category": prompt.get("category"),
        "references": _clean(prompt.get("references")),
        "answer": response.get("response"),
        "finish_reason": response.get("finish_reason"),
        "answer_status": _answer_status(response.get("finish_reason")) if response else None,
        "error": response.get("error"),
        "translation": None,
        "other_translations": [
            {"translator": row["translator"], "text": row["translation"], "path": row["translation_path"]}
            for row in sorted(others, key=lambda row: row["translator"])
        ],
        "scores": scores,
        "details": details,
    }
    if translation is not None:
        item["translation"] = {
            "text": translation["translation"],
            "path": translation["translation_path"],
            "source_lang_detected": translation["source_lang_detected"],
            "lid_label": translation["lid_label"],
            "response_lang": translation["response_lang"],
            "translator": translation["translator"],
            "sentences": sentences,
        }
    return item


def _groups_of(path: Path | str, schema: pa.Schema) -> set[Pair]:
    """The (data set, model) pairs a table file holds, from its two key columns alone."""
    keys = pl.from_arrow(read_table(path, schema, columns=GROUP_KEYS))
    assert isinstance(keys, pl.DataFrame)
    return {(str(d), str(m)) for d, m in keys.unique().iter_rows()}


class AnswerTables:
    """Every per-answer table the explorer reads, one (data set, model) at a time. The stages
    write a file per (data set, model) (the results job one file for all, the item scores):
    a file of one pair is read when its pair is built, a file of several once, kept as column
    frames by pair. So a run at MultiQ scale (30 models x 137 languages x 200 items) is never
    in memory whole, nor as Python objects beyond one pair's."""

    def __init__(self, inputs: Mapping[str, Sequence[Path | str]]):
        self.prompts, self.english = _prompts(inputs.get(PROMPTS_INPUT, ()))
        schemas: dict[str, tuple[pa.Schema, str | None]] = {
            RESPONSES_INPUT: (RESPONSES, None),
            TRANSLATIONS_INPUT: (TRANSLATIONS, None),
            OTHER_TRANSLATIONS_INPUT: (TRANSLATIONS, None),
            SENTENCES_INPUT: (TRANSLATED_SENTENCES, None),
            QE_INPUT: (TRANSLATION_QE, None),
            ITEM_SCORES_INPUT: (ITEM_SCORES, None),
        }
        tables = item_tables()
        for output in inputs:
            if output in FIXED_INPUTS:
                continue
            if output not in tables:
                raise ValueError(f"explorer: input {output!r} is no evaluator's per-item output")
            evaluator, schema = tables[output]
            schemas[output] = (resolve(schema), evaluator)
        self.schemas = {name: schema for name, (schema, _) in schemas.items()}
        self.evaluators = {name: evaluator for name, (_, evaluator) in schemas.items() if evaluator is not None}
        # per table: the files of one pair, by pair; the rows of files of several pairs, by pair
        self.single: dict[str, dict[Pair, list[Path | str]]] = {name: defaultdict(list) for name in schemas}
        self.shared: dict[str, dict[Pair, list[pl.DataFrame]]] = {name: defaultdict(list) for name in schemas}
        for name, schema in self.schemas.items():
            for path in inputs.get(name, ()):
                pairs = _groups_of(path, schema)
                if len(pairs) == 1:
                    self.single[name][pairs.pop()].append(path)
                elif pairs:
                    frame = _frames([path], schema)
                    assert frame is not None
                    for key, part in frame.partition_by(GROUP_KEYS, as_dict=True).items():
                        self.shared[name][(str(key[0]), str(key[1]))].append(part)

    def groups(self) -> list[Pair]:
        """Every (data set, model) with an answer, a score or an evaluator's row, sorted."""
        return sorted({pair for by_pair in (*self.single.values(), *self.shared.values()) for pair in by_pair})

    def table(self, name: str, group: Pair) -> pl.DataFrame | None:
        """The rows of table `name` for one (data set, model)."""
        frames = []
        if name in self.single and group in self.single[name]:  # files of this pair alone
            read = _frames(self.single[name][group], self.schemas[name])
            if read is not None:
                frames.append(read)
        frames += self.shared.get(name, {}).get(group, [])
        frames = [frame for frame in frames if frame.height]
        return pl.concat(frames, how="diagonal_relaxed") if frames else None

    def details(self, group: Pair) -> dict[tuple, dict[str, dict]]:
        """Every evaluator's per-item rows of one (data set, model), by answer, then by registered
        output: ``{"evaluator": name, "rows": [...]}``. One reader for every evaluator: the
        registry names each table's schema (:func:`item_tables`)."""
        details: dict[tuple, dict[str, dict]] = defaultdict(dict)
        for output, evaluator in self.evaluators.items():
            for answer, rows in _by_answer(self.table(output, group)).items():
                details[answer][output] = {"evaluator": evaluator, "rows": rows}
        return details

    def files(self, group: Pair) -> dict[tuple[str, str, str], dict]:
        """The payload of every item file of one (data set, model), by (data set, model,
        language): its items, each with everything the run knows of it."""
        responses = _by_answer(self.table(RESPONSES_INPUT, group))
        translations = _by_answer(self.table(TRANSLATIONS_INPUT, group))
        others = _by_answer(self.table(OTHER_TRANSLATIONS_INPUT, group))
        sentences = _by_answer(_with_qe(self.table(SENTENCES_INPUT, group), self.table(QE_INPUT, group)))
        scores = _scores(self.table(ITEM_SCORES_INPUT, group))
        details = self.details(group)
        files: dict[tuple[str, str, str], dict] = {}
        for key in sorted(set(responses) | set(scores) | set(details)):
            dataset, model, item_id, lang = key
            item = _item(
                item_id,
                self.prompts.get((dataset, item_id, lang), {}),
                self.english.get((dataset, item_id)),
                (responses.get(key) or [{}])[0],
                (translations.get(key) or [None])[0],
                sentences.get(key, []),
                scores.get(key, {}),
                details.get(key, {}),
                others.get(key, []),
            )
            payload = files.setdefault(
                (dataset, model, lang), {"dataset": dataset, "model": model, "lang": lang, "metrics": [], "items": []}
            )
            payload["items"].append(item)
        for payload in files.values():
            payload["metrics"] = sorted({name for item in payload["items"] for name in item["scores"]})
        return files


_CELL_NUMBERS = ("value", "ci_low", "ci_high", "ci_level", "n_items", "n_excluded")
_CELL_TEXTS = ("excluded_reasons", "note")


def overview(results: pl.DataFrame, models: Sequence[str] = ()) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The overview index and its heatmaps, one per (data set, evaluator, translator, metric) of
    the results table: rows the models (in `models`' order, then by name), columns the
    languages. A heatmap holds its cells column-wise (one list per field of the results
    table, row-major, null where the table has no row; the texts only where there are
    some) and its metric's declared colour range (xlcons.reports.figure_style); the index
    names each heatmap's file, so the page loads only the data set it shows."""
    order = {name: rank for rank, name in enumerate(models)}
    grouped: dict[tuple, list[dict]] = defaultdict(list)
    for row in results.iter_rows(named=True):
        grouped[(row["dataset"], row["evaluator"], row["translator"], row["metric"])].append(row)
    datasets: dict[str, list[dict]] = {}
    heatmaps: list[dict[str, Any]] = []
    for (dataset, evaluator, translator, metric), rows in grouped.items():
        row_models = sorted({row["model"] for row in rows}, key=lambda m: (order.get(m, len(order)), m))
        langs = sorted({row["lang"] for row in rows})
        column = {lang: index for index, lang in enumerate(langs)}
        at = {model: index * len(langs) for index, model in enumerate(row_models)}
        size = len(row_models) * len(langs)
        cells: dict[str, Any] = {name: [None] * size for name in _CELL_NUMBERS}
        texts: dict[str, dict[str, str]] = {name: {} for name in _CELL_TEXTS}
        present = [0] * size
        for row in rows:
            cell = at[row["model"]] + column[row["lang"]]
            present[cell] = 1
            for name in _CELL_NUMBERS:
                cells[name][cell] = _clean(row[name])
            for name in _CELL_TEXTS:
                if row[name]:
                    texts[name][str(cell)] = row[name]
        low_high = declared_range(metric)
        number = len(datasets.setdefault(dataset, []))
        entry = {
            "dataset": dataset,
            "index": number,
            "evaluator": evaluator,
            "translator": translator,
            "metric": metric,
            "key": metric_key(evaluator, translator, metric),
            "kind": rows[0]["kind"],
            "range": list(low_high) if low_high else None,
            "file": heatmap_file("", dataset, number).as_posix(),
        }
        datasets[dataset].append(entry)
        heatmaps.append(entry | {"models": row_models, "langs": langs, "present": present, "cells": cells | texts})
    listed = [{"name": name, "heatmaps": maps} for name, maps in datasets.items()]
    contents = {"models": list(models), "datasets": listed}
    return contents, heatmaps


# -- Writing ----------------------------------------------------------------------------------


def data_file(out_dir: Path | str, dataset: str, model: str, lang: str, part: int = 0) -> Path:
    """Where the items of one (data set, model, language) go: ``<lang>.js``, then
    ``<lang>.<part>.js`` for each further part of an answer set larger than :data:`PART_BYTES`."""
    name = f"{lang}.js" if part == 0 else f"{lang}.{part}.js"
    return Path(out_dir) / "data" / "items" / dataset / model / name


def heatmap_file(out_dir: Path | str, dataset: str, index: int) -> Path:
    """Where the `index`-th heatmap of a data set goes."""
    return Path(out_dir) / "data" / "heatmaps" / dataset / f"{index}.js"


def item_parts(payload: Mapping[str, Any], part_bytes: int = PART_BYTES) -> list[str]:
    """The data files of one answer set: its items in order, as few parts as keep each file
    under `part_bytes` (an item larger than that alone in its part); every part carries the
    set's names and metrics, its number and the number of parts."""
    items = [js_literal(item) for item in payload["items"]]
    chunks: list[list[str]] = [[]]
    size = 0
    for text in items:
        if chunks[-1] and size + len(text.encode("utf-8")) > part_bytes:
            chunks.append([])
            size = 0
        chunks[-1].append(text)
        size += len(text.encode("utf-8")) + 1
    names = {key: payload[key] for key in ("dataset", "model", "lang", "metrics")}
    files = []
    for number, chunk in enumerate(chunks):
        head = js_literal(names | {"part": number, "parts": len(chunks)})
        files.append(f'{REGISTRY_GLOBAL}.add({head[:-1]},"items":[{",".join(chunk)}]}});\n')
    return files


def build_explorer(
    inputs: Mapping[str, Sequence[Path | str]],
    out_dir: Path | str,
    *,
    models: Sequence[str] = (),
    site: Path = SITE,
    part_bytes: int = PART_BYTES,
) -> list[Path]:
    """The explorer under `out_dir` (the pages and their data files), from the rule's named
    inputs (xlcons.plan.explorer), one (data set, model) at a time. Built beside it and moved
    in place, so a killed job leaves no half site behind."""
    out = Path(out_dir)
    building = out.with_name(f".{out.name}.building")
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir(parents=True)
    for name in SITE_FILES:
        shutil.copyfile(site / name, building / name)
    written = [building / name for name in SITE_FILES]

    def write(path: Path, text: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)

    tables = AnswerTables(inputs)
    available: dict[str, dict[str, dict[str, int]]] = {}
    for group in tables.groups():
        for (dataset, model, lang), payload in tables.files(group).items():
            parts = item_parts(payload, part_bytes)
            for number, text in enumerate(parts):
                write(data_file(building, dataset, model, lang, number), text)
            available.setdefault(dataset, {}).setdefault(model, {})[lang] = len(parts)
    results = _frames(inputs.get(RESULTS_INPUT, ()), RESULTS)
    index, heatmaps = overview(results if results is not None else pl.from_arrow(RESULTS.empty_table()), models)
    for heatmap in heatmaps:
        write(heatmap_file(building, heatmap["dataset"], heatmap["index"]), script("heatmap", heatmap))
    index["files"] = {dataset: dict(sorted(by_model.items())) for dataset, by_model in sorted(available.items())}
    write(building / "data" / "overview.js", script("overview", index))
    shutil.rmtree(out, ignore_errors=True)
    building.rename(out)
    log.info("explorer: %d heatmaps, %d data files in %s", len(heatmaps), len(written), out)
    return [out / path.relative_to(building) for path in written]


__all__ = [
    "ANSWERED",
    "PART_BYTES",
    "AnswerTables",
    "heatmap_file",
    "item_parts",
    "ERROR",
    "FIXED_INPUTS",
    "NO_ANSWER",
    "SITE",
    "build_explorer",
    "data_file",
    "item_tables",
    "js_literal",
    "metric_key",
    "overview",
    "read_item_tables",
    "script",
]
