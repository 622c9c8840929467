"""The JSON schema of a config section that the registries declare: an object of named keys,
each with its description and default, that is created from those defaults when absent and
rejects a key it does not name. Standard library only (the registries are read while the DAG
is built)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def closed_section(description: str, properties: Mapping[str, Any]) -> dict[str, Any]:
    """A section of `properties` (each a schema with a description and a default), absent means all defaults."""
    return {
        "description": description,
        "type": "object",
        "default": {},
        "additionalProperties": False,
        "properties": dict(properties),
    }
