"""The prompt rows a run will send, before the run: what the prompts jobs would write.

A set whose loader gives every language (a user's CSV, a built-in set whose data are here)
is loaded now, as the `prompts` rule loads it. A set written in one language gets its other
languages from the translator: those exist once `translate_prompts` has run (its files are
read then); before, the source prompts stand in for them, one row per item and language,
so the counts are a bound on the requests (two languages' translations may coincide and be
sent once) and the tokens an approximation.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xlcons.datasets import run_loader
from xlcons.plan import Plan
from xlcons.schemas import PROMPTS
from xlcons.tables import read_table

EXACT = "exact"  # counted from what will be sent
BOUND = "bound"  # at most this
APPROX = "approx"  # an approximation (docs/usage.md#before-a-run-the-estimate)
UNKNOWN = "unknown"  # the data are not here yet (fetch them first)
# Marks a row standing in for a prompt the translator will write: a request of its own.
STAND_IN = "_stand_in"


@dataclass
class DatasetPrompts:
    """A data set's prompt rows in every language, and how sure they are (`basis`)."""

    rows: list[dict[str, Any]]
    basis: str
    note: str = ""


def _load(plan: Plan, dataset: str, languages: list[str], resources: str) -> list[dict[str, Any]] | None:
    folder = plan.data.dataset_folder(dataset, resources)
    if plan.data.info(dataset).source and (folder is None or not Path(folder).exists()):
        return None  # released data not fetched yet
    data = plan.data
    options = data.loader_options(dataset)
    table = run_loader(data.loader(dataset), folder, languages, data.item_selection(dataset), options)
    return table.to_pylist()


def _prompt_file(plan: Plan, dataset: str, lang: str) -> list[dict[str, Any]] | None:
    path = Path(plan.layout.prompt_file(dataset, lang))
    return read_table(path, PROMPTS).to_pylist() if path.is_file() else None


def dataset_prompts(plan: Plan, dataset: str, resources: str = "resources") -> DatasetPrompts:
    languages = plan.data.languages(dataset)
    source = plan.data.info(dataset).translated_from
    native = [lang for lang in languages if not source or lang == source]
    loaded = _load(plan, dataset, native, resources)
    if loaded is None:  # the prompts jobs' outputs, if an earlier run wrote them
        files = [_prompt_file(plan, dataset, lang) for lang in native]
        if any(rows is None for rows in files):
            folder = plan.data.dataset_folder(dataset, resources)
            return DatasetPrompts([], UNKNOWN, f"{dataset}: its data are not at {folder}; fetch them first")
        loaded = [row for rows in files for row in rows]
    rows, basis = list(loaded), EXACT
    for lang in languages:
        if lang in native:
            continue
        translated = _prompt_file(plan, dataset, lang)
        if translated is None:  # written by translate_prompts: the source prompts stand in
            translated = [{**row, "lang": lang, STAND_IN: True} for row in loaded if row["lang"] == source]
            basis = BOUND
        rows += translated
    return DatasetPrompts(rows, basis)
