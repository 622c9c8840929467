"""A config against its schema: defaults filled in, and every problem one line naming its key.

jsonschema's own messages are rewritten where a user would not understand them: a misspelt
key gets the closest allowed one (or the list of allowed keys), and an option that names the
environment variable holding a key never has its value repeated (it may be the key itself).
"""

from __future__ import annotations

import copy
import difflib
import re
from collections.abc import Iterator, Mapping
from typing import Any

import jsonschema

from xlcons.config.schema import load_schema
from xlcons.generation.registry import BACKENDS
from xlcons.redaction import key_env_problem, redact


class ConfigError(ValueError):
    """An invalid config; the message lists every problem found, one per line."""


def _validator_filling_defaults(schema: dict):
    """A validator class that writes each property's default into the instance.

    Defaults live next to the property they belong to (also where the property's
    schema is a $ref), so an absent section is created from its own default and
    then filled from its children's defaults on the way down.
    """
    base = jsonschema.validators.validator_for(schema)
    validate_properties = base.VALIDATORS["properties"]

    def properties_with_defaults(validator, properties, instance, subschema):
        if validator.is_type(instance, "object"):
            for key, prop_schema in properties.items():
                if isinstance(prop_schema, dict) and "default" in prop_schema and key not in instance:
                    instance[key] = copy.deepcopy(prop_schema["default"])
        yield from validate_properties(validator, properties, instance, subschema)

    return jsonschema.validators.extend(base, {"properties": properties_with_defaults})


def dotted(path) -> str:
    """A config key's path as a dotted name (`translators.big.llm`)."""
    return ".".join(str(part) for part in path) or "<top level>"


def _allowed_keys(schema: dict, root: dict) -> list[str]:
    """Property names a (sub)schema allows, following allOf/$ref one level deep."""
    keys = list(schema.get("properties", {}))
    for part in schema.get("allOf", []):
        ref = part.get("$ref", "")
        if ref.startswith("#/$defs/"):
            keys += list(root["$defs"][ref.removeprefix("#/$defs/")].get("properties", {}))
    return keys


def _resolved(schema: dict, root: dict) -> dict:
    ref = schema.get("$ref", "")
    return root["$defs"][ref.removeprefix("#/$defs/")] if ref.startswith("#/$defs/") else schema


def _nested_paths(root: dict, name: str, depth: int = 3) -> list[str]:
    """The dotted paths of the schema's nested keys called `name` (a section's own keys, up
    to `depth` levels down): what a top-level key given by `--config name=...` may have meant."""
    found: list[str] = []

    def walk(schema: dict, path: tuple[str, ...]) -> None:
        schema = _resolved(schema, root)
        for key in _allowed_keys(schema, root):
            child = schema.get("properties", {}).get(key)
            if child is None:
                for part in schema.get("allOf", []):
                    child = _resolved(part, root).get("properties", {}).get(key, child)
            if path and key == name:
                found.append(".".join((*path, key)))
            if isinstance(child, dict) and len(path) + 1 < depth:
                walk(child, (*path, key))

    walk(root, ())
    return sorted(dict.fromkeys(found))


# (options section, option) pairs that name an environment variable holding a key: a value
# there may be the key itself, so no message repeats it.
KEY_ENV_OPTIONS = frozenset((info.options_key, option) for info in BACKENDS.values() for option in info.key_env_options)


def is_key_env(path) -> bool:
    """The config key at `path` names the environment variable of a key (`api.api_key_env`)."""
    return len(path) >= 2 and (path[-2], path[-1]) in KEY_ENV_OPTIONS


def _describe(error: jsonschema.ValidationError, schema: dict) -> Iterator[str]:
    where = dotted(error.absolute_path)
    if is_key_env(error.absolute_path):  # jsonschema's own messages quote the value
        yield (
            key_env_problem(where, error.instance) or f"config key '{where}' is not the name of an environment variable"
        )
    elif error.validator in ("additionalProperties", "unevaluatedProperties"):
        allowed = _allowed_keys(error.schema, schema)
        patterns = [re.compile(p) for p in error.schema.get("patternProperties", {})]
        extra = [key for key in error.instance if key not in allowed and not any(p.search(key) for p in patterns)]
        for key in extra:
            hint = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
            nested = [] if hint or error.absolute_path else _nested_paths(schema, key)
            if nested:
                suggestion = (
                    f"; did you mean {' or '.join(repr(path) for path in nested)}? A nested key is set in a config "
                    "file (a second --configfile): --config sets top-level keys only"
                )
            elif hint:
                suggestion = f"; did you mean '{hint[0]}'?"
            else:
                suggestion = f"; allowed keys: {', '.join(sorted(allowed))}"
            full = f"{where}.{key}" if error.absolute_path else key
            yield f"config key '{full}' is not allowed{suggestion}"
    elif error.validator == "propertyNames":
        yield f"config key '{where}': name {error.instance!r} must match {error.schema.get('pattern', error.schema)}"
    else:
        yield f"config key '{where}': {error.message}"


def validate_schema(config: dict, schema: dict | None = None) -> dict:
    """Fill defaults into ``config`` in place and return it, or raise ConfigError."""
    schema = schema or load_schema()
    validator = _validator_filling_defaults(schema)(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: [str(p) for p in e.absolute_path])
    messages = [redact(line) for error in errors for line in _describe(error, schema)]
    if messages:
        raise ConfigError("invalid config:\n  " + "\n  ".join(dict.fromkeys(messages)))
    return config


def check_key_envs(value: Any, path: tuple = ()) -> Iterator[str]:
    """Every option that names a key's environment variable (`api.api_key_env`, wherever a
    generation model is configured) holds a variable name, not something shaped like a key."""
    if isinstance(value, Mapping):
        for key, child in value.items():
            yield from check_key_envs(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from check_key_envs(child, (*path, index))
    elif is_key_env(path) and (problem := key_env_problem(dotted(path), value)):
        yield problem
