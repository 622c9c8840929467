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

from xlcons.datasets.epitome import FILES as EPITOME_FILES
from xlcons.languages import XING2024_LANGUAGES

# The release files these read; the MultiQ and MAKQA loaders take their names from here (they
# import pyarrow, which the config check does without).
MULTIQ_FILE = "MultiQ.csv"
MAKQA_FILE = "QA_merged_data_dict_{domain}.json"
MAKQA_ID_FORM = "'<domain>/<QID>-<PID>' (e.g. geo/Q1085-P30)"
LCB_ARCHIVE = "test_sets.zip"
FLORES_SPLIT_SIZES = {"dev": 997, "devtest": 1012}  # sentences per language in FLORES-200


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
    with open(
        folder / EPITOME_FILES["ER"], encoding="utf-8", newline=""
    ) as handle:  # every post is in each mechanism's file
        return {row["sp_id"]: "" for row in csv.DictReader(handle)}


def _lcb(task: str, folder: Path) -> dict[str, str]:
    """{item id: source} of one task of the Language Confusion Benchmark (ids as xlcons.datasets.lcb makes them)."""
    import io
    import zipfile

    ids = {}
    with zipfile.ZipFile(folder / LCB_ARCHIVE) as archive:
        for name in archive.namelist():
            if name.startswith(f"test_sets/{task}/") and name.endswith(".csv"):
                reader = csv.DictReader(io.StringIO(archive.read(name).decode("utf-8"), newline=""))
                ids.update({f"{task}/{row['source']}/{number}": row["source"] for number, row in enumerate(reader)})
    return ids


def lcb_monolingual(folder: Path, spec: Mapping[str, Any]) -> dict[str, str]:
    return _lcb("monolingual", folder)


def lcb_crosslingual(folder: Path, spec: Mapping[str, Any]) -> dict[str, str]:
    return _lcb("crosslingual", folder)


def makqa_selection_problems(name: str, spec: Mapping[str, Any]) -> list[str]:
    """What needs no data: MAKQA's `items.domains` among the run's `domains`, and each of
    `items.ids` of the form domain/key in one of them."""
    items, domains = spec.get("items") or {}, list(spec["domains"])
    problems = []
    unknown = [domain for domain in items.get("domains") or [] if domain not in domains]
    if unknown:
        problems.append(
            f"config key 'datasets.{name}.items.domains': {unknown} not "
            f"among the run's domains {domains} (datasets.{name}.domains)"
        )
    for index, value in enumerate(items.get("ids") or []):
        domain, sep, key = str(value).partition("/")
        if not sep or not key:
            problems.append(f"config key 'datasets.{name}.items.ids[{index}]': {value!r} is not {MAKQA_ID_FORM}")
        elif domain not in domains:
            problems.append(
                f"config key 'datasets.{name}.items.ids[{index}]': {value!r} is "
                f"in domain {domain!r}, not among the run's domains {domains}"
            )
    return problems


def selection_problems(name: str, spec: Mapping[str, Any], ids: Mapping[str, str], what: str) -> list[str]:
    """`items.ids` that are not ids of the data, and `items.domains` that no item has."""
    items = spec.get("items") or {}
    problems = []
    unknown = [str(item) for item in items.get("ids") or [] if str(item) not in ids]
    if unknown:
        problems.append(
            f"config key 'datasets.{name}.items.ids': not {what}: {unknown[:10]}"
            + (f" and {len(unknown) - 10} more" if len(unknown) > 10 else "")
        )
    known = sorted({domain for domain in ids.values() if domain})
    if known:
        absent = [domain for domain in items.get("domains") or [] if domain not in known]
        if absent:
            problems.append(f"config key 'datasets.{name}.items.domains': no items in {absent}; the data has {known}")
    return problems


def flores_selection_problems(name: str, spec: Mapping[str, Any]) -> list[str]:
    """FLORES: `items.ids` are line numbers of the split, `items.domains` do not exist, and each
    of `directions` is a pair of two different languages of the run."""
    items, problems = spec.get("items") or {}, []
    if items.get("domains"):
        problems.append(
            f"config key 'datasets.{name}.items.domains': FLORES sentences have no domains; "
            f"choose the language pairs with datasets.{name}.directions"
        )
    size = FLORES_SPLIT_SIZES[spec.get("split") or "devtest"]
    for index, value in enumerate(items.get("ids") or []):
        if not str(value).isdigit() or not 1 <= int(value) <= size:
            problems.append(
                f"config key 'datasets.{name}.items.ids[{index}]': {value!r} is not a line number of "
                f"the {spec.get('split') or 'devtest'} split (1 to {size})"
            )
    languages = XING2024_LANGUAGES if spec.get("languages") in (None, "all") else spec["languages"]
    for index, pair in enumerate([] if spec.get("directions") in (None, "all") else spec["directions"]):
        source, target = pair
        if source == target:
            problems.append(
                f"config key 'datasets.{name}.directions[{index}]': "
                f"{source} -> {target} translates into the same language"
            )
        elif not {source, target} <= set(languages):
            problems.append(
                f"config key 'datasets.{name}.directions[{index}]': {source} -> {target} is not between "
                f"languages of the run {list(languages)} (datasets.{name}.languages)"
            )
    return problems
