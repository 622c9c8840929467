"""Prompt sets, registered by name: what languages each has and how to load it.

Adding a data set is a module here with a `load(folder, languages, items)` function
returning a table in the PROMPTS schema, plus an entry in DATASETS; the workflow then
schedules its prompts and generation jobs like any other. The module is stdlib-only at
import time: the Snakefile reads DATASETS while it builds the DAG.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from xlcons.languages import PAPER_000_LANGUAGES


@dataclass(frozen=True)
class DatasetInfo:
    name: str
    module: str  # holds `load(folder, languages, items) -> pyarrow.Table`
    languages: tuple[str, ...] | None  # the languages `all` means; None = every registry language
    max_new_tokens: int  # the generation cap when the config gives none (papers' settings)
    source: str | None  # the released data set it is built from (xlcons.data_sources), if any
    options: tuple[str, ...] = ()  # keys of datasets.<name> passed on to `load`
    # The one language the set is written in, when the other languages are machine
    # translations of it (paper 000's prompts); `load` then returns that language only.
    translated_from: str | None = None


DATASETS = {
    info.name: info
    for info in (
        # Paper 004: no system prompt, greedy, 256 new tokens.
        DatasetInfo("multiq", "xlcons.datasets.multiq", None, 256, "multiq"),
        # Paper 001: short answers after five in-context examples, in its 12 languages.
        DatasetInfo(
            "makqa",
            "xlcons.datasets.makqa",
            ("zh", "en", "fr", "es", "ru", "ja", "it", "de", "pt", "ko", "el", "nl"),
            64,
            "makqa",
            ("domains", "few_shot", "variants", "seed"),
        ),
        # Paper 000: English prompts machine-translated into its 30 languages; long answers.
        DatasetInfo("information", "xlcons.datasets.information", ("en", *PAPER_000_LANGUAGES), 1024, None, translated_from="en"),
        DatasetInfo("empathy", "xlcons.datasets.empathy", ("en", *PAPER_000_LANGUAGES), 512, "epitome", translated_from="en"),
    )
}


def dataset_info(name: str) -> DatasetInfo:
    if name not in DATASETS:
        raise KeyError(f"data set '{name}' has no prompt loader yet; available: {', '.join(sorted(DATASETS))}")
    return DATASETS[name]


def load_prompts(name: str, folder, languages, items, options=None):
    """The prompts of a data set in the given languages (PROMPTS schema)."""
    return importlib.import_module(dataset_info(name).module).load(folder, languages, items, **(options or {}))


def dataset_options(name: str, spec) -> dict:
    """The data set's own loader options, from its config section."""
    return {key: spec[key] for key in dataset_info(name).options}
