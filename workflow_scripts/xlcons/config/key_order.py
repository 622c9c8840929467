"""The canonical order of a config's keys, so that a job's params read the same however the
YAML orders them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# Top-level sections whose entries' order is the user's (the order of models and data sets in
# the tables); the keys inside each entry are sorted like everywhere else.
ORDERED_SECTIONS = ("models", "datasets")


def _sorted_keys(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _sorted_keys(value[key]) for key in sorted(value, key=str)}
    if isinstance(value, list):
        return [_sorted_keys(item) for item in value]
    return value


def canonical_order(config: dict) -> None:
    """Sort every mapping's keys in place, so that a job's params (made from config sections)
    read the same however the YAML orders its keys: Snakemake compares params by their repr,
    and a reordered section would otherwise rerun the job. Lists keep their order."""
    ordered = {
        section: {name: _sorted_keys(entry) for name, entry in value.items()}
        if section in ORDERED_SECTIONS and isinstance(value, Mapping)
        else _sorted_keys(value)
        for section, value in sorted(config.items())
    }
    config.clear()  # in place: Snakemake's `config` is the same object
    config.update(ordered)
