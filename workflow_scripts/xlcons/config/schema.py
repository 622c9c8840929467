"""The config schema: config/schema/config.schema.yaml completed from the registries.

The file holds what belongs to no registry entry; `load_schema` adds each built-in data set's
section (xlcons.datasets), each evaluator's section (xlcons.evaluators.registry), each
generation backend's name, summary and options section (xlcons.generation.registry), each
translator backend's name and summary and an LLM translator's keys
(xlcons.translation.registry), and each QE backend's name, summary, default model and
default threshold (xlcons.translation.quality_backends). A `translators.<name>` entry's
schema is made from the `translator` section.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from xlcons import REPO_ROOT
from xlcons.config.translators import RUN_TRANSLATOR_KEYS
from xlcons.config_files import load_yaml
from xlcons.datasets import BUILT_IN
from xlcons.evaluators.registry import EVALUATORS
from xlcons.generation.registry import BACKENDS
from xlcons.translation.quality_backends import (
    NO_QE,
    QE_BACKENDS,
    describe_backends,
    describe_default_models,
    describe_default_thresholds,
)
from xlcons.translation.registry import TRANSLATOR_BACKENDS, checkpoint_backends

SCHEMA_PATH = REPO_ROOT / "config" / "schema" / "config.schema.yaml"
# Placeholders in the schema file's descriptions, filled in from the QE backend registry.
QE_PLACEHOLDERS = {"{default_models}": describe_default_models, "{default_thresholds}": describe_default_thresholds}


@cache
def load_schema(path: Path = SCHEMA_PATH) -> dict:
    """The config schema: the YAML file, completed from the registries (each built-in data
    set's section, each evaluator's section, each generation, translator and QE backend)."""
    schema = load_yaml(path)
    schema["properties"]["datasets"]["properties"] = {
        name: copy.deepcopy(dict(info.config_schema)) for name, info in BUILT_IN.items()
    }
    schema["properties"]["evaluators"]["properties"] = {
        info.section: copy.deepcopy(dict(info.options)) for info in EVALUATORS.values() if info.options is not None
    }
    llm = schema["$defs"]["llm"]["properties"]
    llm["backend"] = {
        "description": _named((info.name, info.summary) for info in BACKENDS.values()),
        "enum": list(BACKENDS),
        **llm["backend"],
    }
    llm |= {
        info.options_key: copy.deepcopy(dict(info.options)) for info in BACKENDS.values() if info.options is not None
    }
    translator = schema["properties"]["translator"]
    checkpoints = checkpoint_backends()
    described = _named((name, TRANSLATOR_BACKENDS[name].summary) for name in checkpoints)
    translator["properties"]["backend"] = {
        "description": described,
        "enum": checkpoints,
        **translator["properties"]["backend"],
    }
    _complete_qe(translator["properties"]["qe"]["properties"])
    schema["properties"]["translators"]["additionalProperties"] = _extra_translator_schema(translator)
    return schema


def _named(entries: Iterable[tuple[str, str]]) -> str:
    """`a` (what a is), `b` (what b is) or `c` (what c is)."""
    named = [f"`{name}` ({summary})" for name, summary in entries]
    return ", ".join(named[:-1]) + f" or {named[-1]}."


def _complete_qe(qe: dict) -> None:
    """`translator.qe`: the backend enum and description, and the backends' defaults in the descriptions."""
    qe["backend"] = {"description": describe_backends(), "enum": [*QE_BACKENDS, NO_QE], **qe["backend"]}
    for prop in qe.values():
        for placeholder, describe in QE_PLACEHOLDERS.items():
            if placeholder in prop.get("description", ""):
                prop["description"] = prop["description"].replace(placeholder, describe())


def _without_defaults(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {key: _without_defaults(value) for key, value in schema.items() if key != "default"}
    return schema


def _extra_translator_schema(primary: Mapping[str, Any]) -> dict:
    """A `translators.<name>` entry: the `translator` keys without their defaults (an unset key
    is the primary translator's, merged by `expand_translators`), every translator backend (a
    backend that prompts a generation model besides the checkpoint ones), and the keys of
    such a backend: its generation model (an LLM's config) and its options (`prompt`)."""
    properties = {
        key: _without_defaults(copy.deepcopy(value))
        for key, value in primary["properties"].items()
        if key not in RUN_TRANSLATOR_KEYS
    }
    backend = properties["backend"]
    backend["enum"] = list(TRANSLATOR_BACKENDS)
    for name, info in TRANSLATOR_BACKENDS.items():
        if info.generation:
            backend["description"] += f" `{name}`: {info.summary}."
    for name, info in TRANSLATOR_BACKENDS.items():
        if info.generation:
            properties[info.model_key] = {
                "description": f"The generation model of a `backend: {name}` translator.",
                "$ref": "#/$defs/llm",
            }
        properties |= copy.deepcopy(dict(info.options))
    return {
        "description": "A translator of the answers besides `translator`.",
        "type": "object",
        "additionalProperties": False,
        "properties": properties,
    }
