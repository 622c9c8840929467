"""Information-seeking prompts for Translate-then-Evaluate's information consistency.

Gupta et al. 2025 curated 150 information-seeking prompts from eight MMLU subjects (college
chemistry, African history, ...) whose good answers are long-form and factual; that set
is not public, so the project ships its own, written for it: 150 English prompts in
eight MMLU-style subject categories, in ``data/information_prompts.tsv`` beside this
module (columns ``item_id``, ``category``, ``prompt``; ids ``info-<category>-NNN``).

The set ships with the project, so there is no release to fetch and ``folder`` is
ignored (it may be None). The prompts exist in English only: the workflow translates
them en→l with NLLB in a later stage. The loader therefore returns the English source
rows (``lang`` and ``source_lang`` ``en``) whatever ``languages`` asks for; it never
fabricates rows in other languages and never fails because a language is not ``en``.

Items keep the file's order (category by category, then by number), so a ``limit``
selects the same prompts on every machine. ``items.domains`` selects categories.
"""

from __future__ import annotations

import csv
import functools
import io
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple

import pyarrow as pa

from xlcons.schemas import PROMPTS

DATASET = "information"
SOURCE_LANG = "en"
DATA_FILE = "data/information_prompts.tsv"
COLUMNS = ("item_id", "category", "prompt")


class InformationPromptsError(ValueError):
    """The shipped prompt file or the configured selection is wrong; the message says which."""


class Prompt(NamedTuple):
    item_id: str
    category: str
    prompt: str


@functools.lru_cache(maxsize=1)
def read_prompts() -> tuple[Prompt, ...]:
    """Every prompt of the shipped file, in file order."""
    text = resources.files("xlcons.datasets").joinpath(DATA_FILE).read_text(encoding="utf-8")
    reader = csv.reader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE)
    header = next(reader, None)
    if header is None or tuple(header) != COLUMNS:
        raise InformationPromptsError(f"{DATA_FILE}: header {header} is not {list(COLUMNS)}")
    prompts = []
    for line, row in enumerate(reader, start=2):
        if len(row) != len(COLUMNS) or not all(field.strip() for field in row):
            raise InformationPromptsError(
                f"{DATA_FILE}:{line}: expected {len(COLUMNS)} non-empty tab-separated fields, got {row}"
            )
        prompts.append(Prompt(*row))
    return tuple(prompts)


def categories() -> list[str]:
    """The categories of the set, in file order."""
    return list(dict.fromkeys(prompt.category for prompt in read_prompts()))


def select_items(items: Mapping[str, Any] | None) -> list[Prompt]:
    """Prompts in file order, filtered by category (``domains``), then cut to ``limit``; or exactly ``ids``."""
    items = items or {}
    by_id = {prompt.item_id: prompt for prompt in read_prompts()}
    order = list(by_id.values())
    if items.get("ids"):
        unknown = [item for item in items["ids"] if item not in by_id]
        if unknown:
            raise InformationPromptsError(
                f"datasets.information.items.ids: not ids of the information prompts: {unknown[:10]}"
                " (ids look like info-astronomy-007)"
            )
        order = [by_id[item] for item in items["ids"]]
    if items.get("domains"):
        known = categories()
        unknown = [domain for domain in items["domains"] if domain not in known]
        if unknown:
            raise InformationPromptsError(
                "datasets.information.items.domains: unknown categories "
                f"{unknown}; the information prompts have {known}"
            )
        order = [prompt for prompt in order if prompt.category in items["domains"]]
    if items.get("limit"):
        order = order[: items["limit"]]
    return order


def load(folder: Path | str | None, languages: Sequence[str], items: Mapping[str, Any] | None) -> pa.Table:
    """The selected English prompts, PROMPTS schema, one row per item.

    ``folder`` is ignored: the set ships with the project. ``languages`` is accepted for
    the loader interface but does not change the result: only English rows exist here,
    and the workflow's translation stage makes the prompts in the other languages.
    """
    selected = select_items(items)
    return pa.Table.from_pydict(
        {
            "dataset": [DATASET] * len(selected),
            "item_id": [prompt.item_id for prompt in selected],
            "lang": [SOURCE_LANG] * len(selected),
            "prompt": [prompt.prompt for prompt in selected],
            "category": [prompt.category for prompt in selected],
            "references": [None] * len(selected),
            "source_lang": [SOURCE_LANG] * len(selected),
            "question_en": [None] * len(selected),
        },
        schema=PROMPTS,
    )
