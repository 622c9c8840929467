"""Group averages of the results table, as in Gupta et al. 2025's main table (docs/methods.md §1 Aggregation).

Input: a RESULTS table (xlcons.reports.results). For each (dataset, evaluator, metric,
model), the per-language values are averaged, unweighted, over

- ``all``: every language but the reference (English by default: the responses every
  other language is compared with);
- ``script``: the registry's ``script_group`` (Latin, Indic, Perso-Arabic, Other);
- ``family``: the registry's ``family_group`` (Gupta et al. 2025's own grouping: Rom, Slav,
  Indo-Aryan, Dravidian, Other), which only its 30 languages and their duplicates have;
- ``training``: ``In`` / ``Out`` of the model's documented training languages. Codes are
  compared by the registry's canonical code (he = iw, zh = zh-CN, ...). A model whose
  list is unknown (absent from the mapping, or None) gets null In / Out ("–").

A language in no group of a grouping (not in the registry, or outside Gupta et al. 2025 for the
family groups) is not dropped: it forms that grouping's ``ungrouped`` entry, averaged
and listed like any group. A language whose value is null (no scored item) is left out
of every average and listed in ``languages_without_value``. Groups of the registry with
no language in the table are rows with a null value and ``languages`` "", so every model
has the same columns in the wide table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa

from xlcons.languages import FAMILY_GROUPS, SCRIPT_GROUPS, LanguageRegistry
from xlcons.reports.formats import write_table_files
from xlcons.reports.results import with_translator
from xlcons.schemas import GROUP_TABLE
from xlcons.tables import write_table

UNGROUPED = "ungrouped"
TRAINING_GROUPS = ("In", "Out")
GROUP_KEYS = ["dataset", "evaluator", "translator", "metric", "model"]


def _canonical(registry: LanguageRegistry, code: str) -> str:
    return registry[code].canonical if code in registry else code


def _membership(registry: LanguageRegistry, code: str, field: str) -> str:
    group = getattr(registry[code], field) if code in registry else None
    return group if group is not None else UNGROUPED


def _row(key: dict, grouping: str, group: str, members: list[str] | None, values: Mapping[str, float | None]) -> dict:
    if members is None:
        return {
            **key,
            "grouping": grouping,
            "group": group,
            "value": None,
            "n_languages": 0,
            "languages": None,
            "languages_without_value": None,
        }
    scored = [code for code in members if values.get(code) is not None]
    missing = [code for code in members if values.get(code) is None]
    return {
        **key,
        "grouping": grouping,
        "group": group,
        "value": float(np.mean([values[code] for code in scored])) if scored else None,
        "n_languages": len(scored),
        "languages": " ".join(scored),
        "languages_without_value": " ".join(missing) or None,
    }


def group_averages(
    results: pa.Table | pl.DataFrame,
    *,
    reference: str | None = "en",
    languages: Sequence[str] | None = None,
    training_languages: Mapping[str, Sequence[str] | None] | None = None,
    registry: LanguageRegistry | None = None,
) -> pl.DataFrame:
    """GROUP_TABLE rows: per (dataset, evaluator, translator, metric, model), the averages over
    all / script / family / In-Out.

    Rows come sorted by those keys, then in grouping order (all, script, family, training;
    the groups in the registry's order, ``ungrouped`` last); `languages` lists codes sorted.

    `languages` restricts the averages to those codes (e.g. Gupta et al. 2025's 30); `reference`
    (None: none) is always left out; `training_languages` maps a model to its training
    language codes, None (or absent) when unknown.
    """
    frame = with_translator(results if isinstance(results, pl.DataFrame) else pl.from_arrow(results))
    frame = frame.sort([*GROUP_KEYS, "lang"])  # the rows' order (docs/results.md), whatever the results' order
    registry = registry or LanguageRegistry.load()
    training_languages = training_languages or {}
    wanted = None if languages is None else set(languages)
    rows = []
    for key, part in frame.group_by(GROUP_KEYS, maintain_order=True):
        key = dict(zip(GROUP_KEYS, key))
        values: dict[str, float | None] = {}
        for lang, value in zip(part["lang"].to_list(), part["value"].to_list()):
            if lang == reference or (wanted is not None and lang not in wanted):
                continue
            values[lang] = None if value is None or not np.isfinite(value) else float(value)
        codes = list(values)
        rows.append(_row(key, "all", "all", codes, values))
        for grouping, field, order in (
            ("script", "script_group", SCRIPT_GROUPS),
            ("family", "family_group", FAMILY_GROUPS),
        ):
            members: dict[str, list[str]] = {group: [] for group in (*order, UNGROUPED)}
            for code in codes:
                members[_membership(registry, code, field)].append(code)
            for group, found in members.items():
                if group != UNGROUPED or found:
                    rows.append(_row(key, grouping, group, found, values))
        known = training_languages.get(key["model"])
        if known is None:
            for group in TRAINING_GROUPS:
                rows.append(_row(key, "training", group, None, values))
        else:
            trained = {_canonical(registry, code) for code in known}
            inside = [code for code in codes if _canonical(registry, code) in trained]
            rows.append(_row(key, "training", "In", inside, values))
            rows.append(_row(key, "training", "Out", [code for code in codes if code not in inside], values))
    if not rows:
        return pl.from_arrow(GROUP_TABLE.empty_table())
    return pl.from_arrow(pa.Table.from_pylist(rows, schema=GROUP_TABLE))


def column_label(grouping: str, group: str) -> str:
    """The wide table's column: `Avg`, the group's name, or `Other (script)` /
    `ungrouped (family)` where names repeat."""
    if grouping == "all":
        return "Avg"
    if group in ("Other", UNGROUPED):
        return f"{group} ({grouping})"
    return group


def group_table_wide(groups: pl.DataFrame) -> pl.DataFrame:
    """One row per (dataset, evaluator, translator, metric, model): Avg, each group's average,
    and `ungrouped` naming the ungrouped languages."""
    if groups.is_empty():
        return pl.DataFrame(
            schema={
                **{k: pl.String for k in GROUP_KEYS},
                "Avg": pl.Float64,
                "n_languages": pl.Int64,
                "ungrouped": pl.String,
            }
        )
    labels = list(
        dict.fromkeys(column_label(g, n) for g, n in zip(groups["grouping"].to_list(), groups["group"].to_list()))
    )
    order = (
        ["Avg"]
        + [column_label("script", g) for g in (*SCRIPT_GROUPS, UNGROUPED)]
        + [column_label("family", g) for g in (*FAMILY_GROUPS, UNGROUPED)]
        + list(TRAINING_GROUPS)
    )
    labels = [label for label in order if label in labels] + [label for label in labels if label not in order]
    rows = []
    for key, part in groups.group_by(GROUP_KEYS, maintain_order=True):
        row = dict(zip(GROUP_KEYS, key)) | {label: None for label in labels}
        ungrouped = []
        for record in part.iter_rows(named=True):
            row[column_label(record["grouping"], record["group"])] = record["value"]
            if record["grouping"] == "all":
                row["n_languages"] = record["n_languages"]
            if record["group"] == UNGROUPED:
                ungrouped.append(f"{record['grouping']}: {record['languages']}")
        row["ungrouped"] = "; ".join(ungrouped) or None
        rows.append(row)
    schema = (
        {k: pl.String for k in GROUP_KEYS}
        | {label: pl.Float64 for label in labels}
        | {"n_languages": pl.Int64, "ungrouped": pl.String}
    )
    return pl.DataFrame(rows, schema=schema, orient="row")


def _file_part(text: str) -> str:
    return "".join(char if char.isalnum() or char in "-." else "_" for char in text)


def write_group_tables(
    groups: pl.DataFrame,
    out_dir: Path | str,
    formats: Sequence[str] = ("csv", "markdown", "latex"),
    decimals: int = 2,
    parquet: bool = True,
) -> list[Path]:
    """`groups.parquet` (GROUP_TABLE) and, per (dataset, evaluator, metric),
    `groups_<dataset>_<evaluator>_<metric>` tables (models as rows)."""
    out = Path(out_dir)
    written = []
    if parquet:
        written.append(write_table(groups.to_arrow(), out / "groups.parquet", GROUP_TABLE))
    wide = group_table_wide(groups)
    for (dataset, evaluator, metric), part in wide.group_by(["dataset", "evaluator", "metric"], maintain_order=True):
        table = part.drop(["dataset", "evaluator", "metric"])
        if table["translator"].n_unique() == 1:  # one translator (or none): the column says nothing
            table = table.drop("translator")
        if table["ungrouped"].null_count() == table.height:
            table = table.drop("ungrouped")
        written += write_table_files(
            table, out / f"groups_{_file_part(dataset)}_{_file_part(evaluator)}_{_file_part(metric)}", formats, decimals
        )
    return written
