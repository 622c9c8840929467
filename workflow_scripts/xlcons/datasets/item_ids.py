"""The item ids and domains of the built-in data sets, read with the standard library when the
config is checked, so that `items.ids` and `items.domains` that name nothing in the data are
reported before anything is scheduled (the loaders check them again when a prompts job runs).

Each function takes the data set's folder (a local `path`, or the fetched copy under
`resources/data/<name>`) and its config entry, and returns {item id: domain}. A folder that
is not there yet (the data set is still to be fetched) is checked by the prompts job.
A data set's entry in the registry names its function (`DatasetInfo.item_ids`).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from xlcons.evaluators.empathy.epitome import FILES as EPITOME_FILES

# The release files these read; the MultiQ and MAKQA loaders take their names from here (they
# import pyarrow, which the config check does without).
MULTIQ_FILE = "MultiQ.csv"
MAKQA_FILE = "QA_merged_data_dict_{domain}.json"
MAKQA_ID_FORM = "'<domain>/<QID>-<PID>' (e.g. geo/Q1085-P30)"


def multiq(folder: Path, spec: Mapping[str, Any]) -> dict[str, str]:
    with open(folder / MULTIQ_FILE, encoding="utf-8", newline="") as handle:
        return {row["id"]: row["domain"] for row in csv.DictReader(handle) if row.get("language") == "en"}


def makqa(folder: Path, spec: Mapping[str, Any]) -> dict[str, str]:
    ids = {}
    for domain in spec["domains"]:
        with open(folder / MAKQA_FILE.format(domain=domain), encoding="utf-8") as handle:
            ids.update({f"{domain}/{key}": domain for key in json.load(handle)})
    return ids


def empathy(folder: Path, spec: Mapping[str, Any]) -> dict[str, str]:
    with open(folder / EPITOME_FILES["ER"], encoding="utf-8", newline="") as handle:  # every post is in each mechanism's file
        return {row["sp_id"]: "" for row in csv.DictReader(handle)}


def makqa_selection_problems(name: str, spec: Mapping[str, Any]) -> list[str]:
    """What needs no data: MAKQA's `items.domains` among the run's `domains`, and each of
    `items.ids` of the form domain/key in one of them."""
    items, domains = spec.get("items") or {}, list(spec["domains"])
    problems = []
    unknown = [domain for domain in items.get("domains") or [] if domain not in domains]
    if unknown:
        problems.append(f"config key 'datasets.{name}.items.domains': {unknown} not among the run's domains {domains} (datasets.{name}.domains)")
    for index, value in enumerate(items.get("ids") or []):
        domain, sep, key = str(value).partition("/")
        if not sep or not key:
            problems.append(f"config key 'datasets.{name}.items.ids[{index}]': {value!r} is not {MAKQA_ID_FORM}")
        elif domain not in domains:
            problems.append(f"config key 'datasets.{name}.items.ids[{index}]': {value!r} is in domain {domain!r}, not among the run's domains {domains}")
    return problems


def selection_problems(name: str, spec: Mapping[str, Any], ids: Mapping[str, str], what: str) -> list[str]:
    """`items.ids` that are not ids of the data, and `items.domains` that no item has."""
    items = spec.get("items") or {}
    problems = []
    unknown = [str(item) for item in items.get("ids") or [] if str(item) not in ids]
    if unknown:
        problems.append(f"config key 'datasets.{name}.items.ids': not {what}: {unknown[:10]}" + (f" and {len(unknown) - 10} more" if len(unknown) > 10 else ""))
    known = sorted({domain for domain in ids.values() if domain})
    if known:
        absent = [domain for domain in items.get("domains") or [] if domain not in known]
        if absent:
            problems.append(f"config key 'datasets.{name}.items.domains': no items in {absent}; the data has {known}")
    return problems
