"""Validation of a workflow config against its schema and against the world.

The schema (config/schema/config.schema.yaml) catches misspelt keys and wrong types;
the checks here catch what a schema cannot: language codes that are not in the
registry, languages that must be translated but have no NLLB code, local model paths
that do not exist, and model sources that name both or neither of hf_id/path. Every
message names the offending key (as a dotted path) so a user can fix the config
without reading a traceback. Runs at DAG construction, before any job is scheduled.
"""

from __future__ import annotations

import copy
import difflib
import re
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from xlcons import REPO_ROOT
from xlcons.config_files import load_yaml, yaml_problem
from xlcons.data_sources import RELEASED_MODELS, url_file_name
from xlcons.datasets import (
    BUILT_IN,
    ENGLISH_QUESTION,
    PROMPT_LANGUAGE_ANSWERS,
    DatasetInfo,
    data_folder,
    dataset_registry,
)
from xlcons.datasets.user import UserDatasetError, check_user_dataset, read_user_rows
from xlcons.evaluators.registry import ENGLISH_ANSWERS, EVALUATORS, TRANSLATIONS, explain_need, resolve
from xlcons.generation.registry import BACKENDS, backend_info
from xlcons.languages import LanguageRegistry, NotTranslatableError, UnknownLanguageError
from xlcons.redaction import key_env_problem, redact

SCHEMA_PATH = REPO_ROOT / "config" / "schema" / "config.schema.yaml"

class ConfigError(ValueError):
    """An invalid config; the message lists every problem found, one per line."""


@cache
def load_schema(path: Path = SCHEMA_PATH) -> dict:
    """The config schema: the YAML file, completed from the three registries (each built-in data
    set's section, each evaluator's section, each backend's name, summary and options section)."""
    schema = load_yaml(path)
    schema["properties"]["datasets"]["properties"] = {name: copy.deepcopy(dict(info.config_schema)) for name, info in BUILT_IN.items()}
    schema["properties"]["evaluators"]["properties"] = {
        info.section: copy.deepcopy(dict(info.options)) for info in EVALUATORS.values() if info.options is not None
    }
    llm = schema["$defs"]["llm"]["properties"]
    named = [f"`{info.name}` ({info.summary})" for info in BACKENDS.values()]
    llm["backend"] = {"description": ", ".join(named[:-1]) + f" or {named[-1]}.", "enum": list(BACKENDS), **llm["backend"]}
    llm |= {info.options_key: copy.deepcopy(dict(info.options)) for info in BACKENDS.values() if info.options is not None}
    schema["properties"]["translators"]["additionalProperties"] = _extra_translator_schema(schema["properties"]["translator"])
    return schema


# Keys of `translator` that belong to the run, not to one translator: the data sets to
# translate, the quality estimation (run alike on every translator's output) and the name.
RUN_TRANSLATOR_KEYS = ("datasets", "qe", "name")
LLM_TRANSLATOR = "llm"
# The generation backends an LLM translator runs through, inside the translation job's env.
LLM_TRANSLATOR_BACKENDS = ("hf", "openai")


def _without_defaults(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {key: _without_defaults(value) for key, value in schema.items() if key != "default"}
    return schema


def _extra_translator_schema(primary: Mapping[str, Any]) -> dict:
    """A `translators.<name>` entry: the `translator` keys without their defaults (an unset key
    is the primary translator's, merged by `expand_translators`), `backend: llm` besides the
    sequence-to-sequence backends, and the generation model and prompt of an LLM translator."""
    properties = {key: _without_defaults(copy.deepcopy(value)) for key, value in primary["properties"].items() if key not in RUN_TRANSLATOR_KEYS}
    backend = properties["backend"]
    backend["enum"] = [*backend["enum"], LLM_TRANSLATOR]
    backend["description"] += " `llm`: a generation model (`llm`) translates, sentence by sentence, with `prompt`."
    properties[LLM_TRANSLATOR] = {"description": "The generation model of a `backend: llm` translator.", "$ref": "#/$defs/llm"}
    properties["prompt"] = {
        "description": "The LLM translator's prompt template, with {source_language}, {target_language} and {text}; null: the documented default (docs/translation.md).",
        "type": ["string", "null"],
    }
    return {"description": "A translator of the answers besides `translator`.", "type": "object", "additionalProperties": False, "properties": properties}


def _merged(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict:
    merged = dict(copy.deepcopy(base))
    for key, value in override.items():
        merged[key] = _merged(merged[key], value) if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping) else copy.deepcopy(value)
    return merged


def primary_translator_name(config: Mapping[str, Any]) -> str:
    """The `translator` section's name: its `name`, else its model's folder name."""
    section = config["translator"]
    return section.get("name") or resource_name("translator.model", section["model"])


def expand_translators(config: dict) -> None:
    """Complete each `translators` entry in place from `translator`: a key it does not set is
    the primary translator's (`degeneration` merged key by key). An LLM translator has no
    `model` (its model is `llm`)."""
    shared = {key: value for key, value in config["translator"].items() if key not in RUN_TRANSLATOR_KEYS}
    for name, entry in list(config.get("translators", {}).items()):
        merged = _merged(shared, entry)
        if merged.get("backend") == LLM_TRANSLATOR:
            merged.pop("model", None)
        config["translators"][name] = merged


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


def _dotted(path) -> str:
    return ".".join(str(part) for part in path) or "<top level>"


def _allowed_keys(schema: dict, root: dict) -> list[str]:
    """Property names a (sub)schema allows, following allOf/$ref one level deep."""
    keys = list(schema.get("properties", {}))
    for part in schema.get("allOf", []):
        ref = part.get("$ref", "")
        if ref.startswith("#/$defs/"):
            keys += list(root["$defs"][ref.removeprefix("#/$defs/")].get("properties", {}))
    return keys


# (options section, option) pairs that name an environment variable holding a key: a value
# there may be the key itself, so no message repeats it.
KEY_ENV_OPTIONS = frozenset((info.options_key, option) for info in BACKENDS.values() for option in info.key_env_options)


def _is_key_env(path) -> bool:
    return len(path) >= 2 and (path[-2], path[-1]) in KEY_ENV_OPTIONS


def _describe(error: jsonschema.ValidationError, schema: dict) -> Iterator[str]:
    where = _dotted(error.absolute_path)
    if _is_key_env(error.absolute_path):  # jsonschema's own messages quote the value
        yield key_env_problem(where, error.instance) or f"config key '{where}' is not the name of an environment variable"
    elif error.validator in ("additionalProperties", "unevaluatedProperties"):
        allowed = _allowed_keys(error.schema, schema)
        patterns = [re.compile(p) for p in error.schema.get("patternProperties", {})]
        extra = [key for key in error.instance if key not in allowed and not any(p.search(key) for p in patterns)]
        for key in extra:
            hint = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
            suggestion = f"; did you mean '{hint[0]}'?" if hint else f"; allowed keys: {', '.join(sorted(allowed))}"
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


def iter_model_sources(config: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(config key, model source) for every model the config uses, enabled or not."""
    for name, spec in config.get("models", {}).items():
        yield f"models.{name}", spec
    yield "translator.model", config["translator"]["model"]
    for name, entry in config.get("translators", {}).items():
        field = translator_model_field(entry)
        if entry.get(field):
            yield f"translators.{name}.{field}", entry[field]
    qe = config["translator"].get("qe") or {}
    if qe.get("backend", "none") != "none":
        yield QE_MODEL, qe_model_source(qe)
    keys = [key for info in EVALUATORS.values() for key in info.model_keys(config["evaluators"][info.section])]
    for key in dict.fromkeys(keys):
        section, name = key.removeprefix("evaluators.").split(".")
        yield key, config["evaluators"][section][name]


QE_MODEL = "translator.qe.model"


def translator_model_field(entry: Mapping[str, Any]) -> str:
    """The key of an extra translator's model in its entry: `model`, or an LLM translator's `llm`."""
    return LLM_TRANSLATOR if entry.get("backend") == LLM_TRANSLATOR else "model"


def translator_model_key(name: str, entry: Mapping[str, Any]) -> str:
    """The config key of an extra translator's model (`translators.<name>.model` or `.llm`)."""
    return f"translators.{name}.{translator_model_field(entry)}"


def qe_model_source(section: Mapping[str, Any]) -> Mapping[str, Any]:
    """translator.qe.model, or its backend's default model (a Hub id)."""
    from xlcons.translation.quality_backends import QE_BACKENDS

    return section.get("model") or {"hf_id": QE_BACKENDS[section["backend"]].default_model, "revision": None, "hf_file": None, "path": None, "name": None}


def resource_name(key: str, source: Mapping[str, Any]) -> str:
    """Folder name of a model under resources/models: the config name, else the Hub id's last part."""
    if source.get("name"):
        return source["name"]
    if key.startswith("models."):
        return key.removeprefix("models.")
    if source.get("url"):
        return url_file_name(source["url"])
    if source.get("hf_id"):
        return source["hf_id"].rstrip("/").split("/")[-1]
    return Path(source["path"]).name


def _check_model_source(key: str, source: Mapping[str, Any], base_dir: Path) -> Iterator[str]:
    has_hub, has_path = bool(source.get("hf_id")), bool(source.get("path"))
    if source.get("url") or source.get("sha256"):
        if not source.get("url"):
            yield f"config key '{key}.sha256': only meaningful together with url"
        elif not source.get("sha256"):
            yield f"config key '{key}.url': give the file's sha256 too (64 hexadecimal digits), so that other bytes are refused"
        elif has_hub or has_path:
            yield f"config key '{key}': give url or {'hf_id' if has_hub else 'path'}, not both"
        elif not url_file_name(source["url"]):
            yield f"config key '{key}.url': '{source['url']}' names no file"
        return
    remote = "backend" in source and not backend_info(source["backend"]).local_files
    if source.get("released"):
        if not backend_info(source["backend"]).recorded:
            yield f"config key '{key}.released': released outputs are answers already given; set backend: file"
        if has_hub or has_path:
            yield f"config key '{key}': give released or {'hf_id' if has_hub else 'path'}, not both"
        return
    if has_hub and has_path:
        yield f"config key '{key}': give hf_id or path, not both"
    elif not (has_hub or has_path) and not (remote and source.get("api", {}).get("model")):
        yield f"config key '{key}': give hf_id (a Hugging Face id) or path (a local model)"
    if has_path:
        path = Path(source["path"])
        if not (path if path.is_absolute() else base_dir / path).exists():
            yield f"config key '{key}.path': local model path '{source['path']}' does not exist"
    if source.get("hf_file") and not has_hub:
        yield f"config key '{key}.hf_file': only meaningful together with hf_id"


def _check_languages(key: str, codes, registry: LanguageRegistry, translated: bool) -> Iterator[str]:
    if codes in (None, "all"):
        return
    for index, code in enumerate(codes):
        try:
            registry[code]
            if translated and code != "en":
                registry.nllb_code(code)
        except (UnknownLanguageError, NotTranslatableError) as error:
            yield f"config key '{key}[{index}]': {error}"


def dataset_languages(info: DatasetInfo, spec: Mapping[str, Any], registry: LanguageRegistry, file_languages=None) -> list[str]:
    """The languages a data set runs in: its list, or what `all` means for it.

    `file_languages` are the languages a user's parallel file holds (what `all` means there).
    """
    if spec["languages"] != "all":
        codes = list(spec["languages"])
        # The English prompts are what a translated set is translated from.
        return codes if not info.translated_from or "en" in codes else ["en", *codes]
    if info.languages is not None:
        return list(info.languages)
    if info.translated_from:
        return [code for code in registry.codes if code == "en" or registry[code].translatable]
    if file_languages is not None:
        return list(file_languages)
    return list(registry.codes)


class DatasetResolver:
    """The data sets of a config resolved against their registry: entries, languages, who scores them.

    Shared by the semantic checks and the plan, so both read a user's prompt file once.
    """

    def __init__(self, config: Mapping[str, Any], registry: LanguageRegistry, base_dir: Path | str = "."):
        self.config = config
        self.registry = registry
        self.base_dir = Path(base_dir)
        self.infos = dataset_registry(config["datasets"])
        self._user_rows: dict[str, Any] = {}
        self.user_problems: dict[str, list[str]] = {}
        self.user_notes: dict[str, list[str]] = {}

    def enabled(self) -> list[str]:
        return [name for name, spec in self.config["datasets"].items() if spec["enabled"]]

    def user_rows(self, name: str):
        """A user set's rows (read once), or None when its file has problems (see user_problems)."""
        if name not in self._user_rows:
            spec = self.config["datasets"][name]
            problems, notes = check_user_dataset(name, spec, self.registry, self.base_dir)
            self.user_problems[name], self.user_notes[name] = problems, notes
            rows = None
            if not problems:
                try:
                    rows = read_user_rows(name, spec, self.registry, self.base_dir)
                except UserDatasetError as error:
                    self.user_problems[name] = list(error.problems)
            self._user_rows[name] = rows
        return self._user_rows[name]

    def file_languages(self, name: str) -> list[str] | None:
        info = self.infos[name]
        if not info.user or info.translated_from:
            return None
        rows = self.user_rows(name)
        return rows.languages if rows is not None else []

    def languages(self, name: str) -> list[str]:
        return dataset_languages(self.infos[name], self.config["datasets"][name], self.registry, self.file_languages(name))

    def provides(self, name: str) -> frozenset[str]:
        """The data set's capabilities; a user's parallel file with English rows also has English questions."""
        info = self.infos[name]
        provides = info.provides | ({PROMPT_LANGUAGE_ANSWERS} if info.answers_in_prompt_language else set())
        if info.user and "en" in (self.file_languages(name) or []):
            return provides | {ENGLISH_QUESTION}
        return provides

    def scored_by(self, evaluator) -> list[str]:
        """Enabled data sets an evaluator scores (none when the evaluator is inactive)."""
        section = self.config["evaluators"][evaluator.section]
        if not evaluator.active(section):
            return []
        wanted = section["datasets"]
        if wanted == "all":  # every enabled set the evaluator can score
            return [name for name in self.enabled() if not evaluator.needs - self.provides(name) - self.english_answers(name)]
        return [name for name in self.enabled() if name in wanted]

    def english_answers(self, name: str) -> set[str]:
        """ENGLISH_ANSWERS, when English is among the set's languages (else nothing)."""
        return {ENGLISH_ANSWERS} if "en" in self.languages(name) else set()

    def translated_answers(self) -> list[str]:
        """Enabled data sets whose answers are translated to English: those of the evaluators that
        read translations, and the translator's own list."""
        wanted = set(self.config["translator"]["datasets"])
        for evaluator in EVALUATORS.values():
            if evaluator.reads == TRANSLATIONS:
                wanted |= set(self.scored_by(evaluator))
        return [name for name in self.enabled() if name in wanted]

    def needs_nllb(self, name: str) -> bool:
        """Its languages must have an NLLB code: its prompts or its answers are translated."""
        return bool(self.infos[name].translated_from) or name in self.translated_answers()


def _check_model_languages(name: str, spec: Mapping[str, Any], datasets: DatasetResolver) -> Iterator[str]:
    allowed = spec.get("languages")
    if allowed is None:
        return
    for dataset in datasets.enabled():
        excluded = [lang for lang in datasets.languages(dataset) if lang not in allowed]
        if excluded:
            yield (
                f"config key 'datasets.{dataset}.languages': model '{name}' excludes {excluded} "
                f"(models.{name}.languages); drop them from the data set or from the model's exclusions"
            )


def _check_dataset(name: str, spec: Mapping[str, Any], datasets: DatasetResolver, base_dir: Path) -> Iterator[str]:
    info = datasets.infos[name]
    yield from _check_languages(f"datasets.{name}.languages", spec["languages"], datasets.registry, spec["enabled"] and datasets.needs_nllb(name))
    if info.user:
        if spec["enabled"]:
            datasets.user_rows(name)
            yield from datasets.user_problems[name]
            if not datasets.user_problems[name]:
                yield from _check_languages(f"datasets.{name}.languages", datasets.languages(name), datasets.registry, datasets.needs_nllb(name))
    elif spec.get("path"):
        path = Path(spec["path"])
        if not (path if path.is_absolute() else base_dir / path).is_dir():
            yield f"config key 'datasets.{name}.path': folder '{spec['path']}' does not exist"
            return
    if not info.user and spec["enabled"]:
        yield from _check_item_selection(name, spec, info, base_dir)


def _check_item_selection(name: str, spec: Mapping[str, Any], info: DatasetInfo, base_dir: Path) -> Iterator[str]:
    """A built-in set's items.ids and items.domains against its data, when the data is here (a
    local path, or the fetched copy); otherwise its prompts job checks them."""
    from xlcons.datasets.item_ids import selection_problems

    items = spec.get("items") or {}
    if info.selection_rules:
        problems = resolve(info.selection_rules)(name, spec)
        if problems:
            yield from problems
            return
    if not info.item_ids or not (items.get("ids") or items.get("domains")):
        return
    folder = base_dir / data_folder(info, spec)  # an absolute path stays as it is
    if not folder.is_dir():
        return
    reference, what = info.item_ids
    try:
        ids = resolve(reference)(folder, spec)
    except (OSError, ValueError, KeyError):  # an incomplete or foreign folder: the prompts job names it
        return
    yield from selection_problems(name, spec, ids, what)


def _check_evaluator_datasets(datasets: DatasetResolver) -> Iterator[str]:
    """Every evaluator's data sets exist, and each has what the evaluator needs."""
    sections = {info.section for info in EVALUATORS.values()}
    for section in sorted(sections):
        wanted = datasets.config["evaluators"][section]["datasets"]
        for index, name in enumerate([] if wanted == "all" else wanted):
            if name not in datasets.infos:
                yield (
                    f"config key 'evaluators.{section}.datasets[{index}]': '{name}' is not a data set; "
                    f"declare it under datasets (configured: {', '.join(datasets.config['datasets']) or 'none'})"
                )
    for evaluator in EVALUATORS.values():
        for name in datasets.scored_by(evaluator):
            if datasets.infos[name].user and datasets.user_problems.get(name):
                continue  # its file's problems are reported already
            has = datasets.provides(name) | datasets.english_answers(name)
            for need in sorted(evaluator.needs - has):
                yield (
                    f"config key 'evaluators.{evaluator.section}.datasets': evaluator '{evaluator.name}' cannot score "
                    f"data set '{name}': it needs {explain_need(need)}"
                )
    for index, name in enumerate(datasets.config["translator"]["datasets"]):
        if name not in datasets.infos:
            yield f"config key 'translator.datasets[{index}]': '{name}' is not a data set"


def _holds_released_outputs(folder: Path) -> bool:
    """A folder of one model's released MAKQA outputs (`result_<domain>.json`)."""
    return folder.is_dir() and any(folder.glob("result_*.json"))


def _is_recorded_responses(path: Path) -> bool:
    return path.is_file() or _holds_released_outputs(path)


def released_folders(folder: Path) -> list[Path]:
    """The model folders of a folder of released outputs (paper 001's `result/`): its
    subfolders that hold `result_<domain>.json`, by name; empty when it is one model's folder."""
    if not folder.is_dir() or _holds_released_outputs(folder):
        return []
    return sorted(sub for sub in folder.iterdir() if _holds_released_outputs(sub))


def add_released_model(config: dict, base_dir: Path = Path(".")) -> None:
    """Released outputs join the models as recorded-responses models: a local folder of one
    model's outputs or of several models' folders (`released_outputs`), or paper models'
    outputs fetched by their names (`released_model`: a name, a list, or `all`)."""
    names = config.get("released_model")
    names = [names] if isinstance(names, str) else list(names or [])
    if config.get("released_outputs"):
        given = Path(config["released_outputs"])
        models = released_folders(given if given.is_absolute() else base_dir / given)
        if not models:
            if len(names) > 1:
                raise ConfigError("config key 'released_model': released_outputs holds one model's outputs; give it one name")
            config["models"][names[0] if names else "released"] = {"backend": "file", "path": config["released_outputs"]}
            return
        if names:
            raise ConfigError(
                f"config key 'released_model': released_outputs '{given}' holds the outputs of {len(models)} models "
                f"({', '.join(m.name for m in models)}), each named after its folder; leave released_model unset"
            )
        for model in models:
            if not re.fullmatch(load_schema()["$defs"]["name"]["pattern"], model.name):
                raise ConfigError(f"config key 'released_outputs': folder '{model.name}' is not a model name (letters, digits, '.', '_', '-'); rename it")
            config["models"][model.name] = {"backend": "file", "path": str(Path(config["released_outputs"]) / model.name)}
        return
    if names == ["all"]:
        names = list(RELEASED_MODELS)
    unknown = [name for name in names if name not in RELEASED_MODELS]
    if unknown:
        raise ConfigError(
            f"config key 'released_model': {', '.join(repr(n) for n in unknown)} not among paper 001's released models "
            f"({', '.join(RELEASED_MODELS)}, or all); to score outputs of your own, set released_outputs to their folder"
        )
    for name in names:
        config["models"][name] = {"backend": "file", "released": name}


def _check_translators(config: Mapping[str, Any]) -> Iterator[str]:
    primary = primary_translator_name(config)
    for name, entry in config.get("translators", {}).items():
        if name == primary:
            yield f"config key 'translators.{name}': the name is the primary translator's (translator.name or its model's folder); choose another"
        llm = entry.get("backend") == LLM_TRANSLATOR
        if llm and not entry.get(LLM_TRANSLATOR):
            yield f"config key 'translators.{name}.llm': backend llm needs the generation model that translates"
        if llm and entry.get(LLM_TRANSLATOR) and entry[LLM_TRANSLATOR]["backend"] not in LLM_TRANSLATOR_BACKENDS:
            yield (f"config key 'translators.{name}.llm.backend': {entry[LLM_TRANSLATOR]['backend']} does not run inside a translation "
                   f"job; use {' or '.join(LLM_TRANSLATOR_BACKENDS)} (for vLLM: serve the model with `vllm serve` and point "
                   "backend: openai at it with api.base_url)")
        if not llm and entry.get(LLM_TRANSLATOR):
            yield f"config key 'translators.{name}.llm': only a translator with backend: llm has one"
        if not llm and entry.get("prompt") is not None:
            yield f"config key 'translators.{name}.prompt': only a translator with backend: llm has a prompt"


def _check_qe_thresholds(config: Mapping[str, Any], registry: LanguageRegistry) -> Iterator[str]:
    """translator.qe.threshold as a mapping: `default` and language codes of the registry, one
    key per language (the schema has checked that each value is a number or null)."""
    from xlcons.translation.quality_backends import DEFAULT_KEY

    thresholds = (config["translator"].get("qe") or {}).get("threshold")
    if not isinstance(thresholds, Mapping):
        return
    seen: dict[str, str] = {}
    for key in thresholds:
        where = f"config key 'translator.qe.threshold.{key}'"
        if not isinstance(key, str):  # YAML reads a bare `no` (Norwegian), `on`, `yes` as a boolean
            yield f"{where}: a language code must be a string; quote it"
        elif key != DEFAULT_KEY:
            if key not in registry:
                yield f"{where}: '{key}' is not a language of the registry (config/languages.tsv); use a language code or `default`"
                continue
            canonical = registry[key].canonical
            if canonical in seen:
                yield f"{where}: the same language as 'translator.qe.threshold.{seen[canonical]}'; give one threshold per language"
            seen.setdefault(canonical, key)


def _check_key_envs(value: Any, path: tuple = ()) -> Iterator[str]:
    """Every option that names a key's environment variable (`api.api_key_env`, wherever a
    generation model is configured) holds a variable name, not something shaped like a key."""
    if isinstance(value, Mapping):
        for key, child in value.items():
            yield from _check_key_envs(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _check_key_envs(child, (*path, index))
    elif _is_key_env(path) and (problem := key_env_problem(_dotted(path), value)):
        yield problem


def check_semantics(config: Mapping[str, Any], registry: LanguageRegistry, base_dir: Path, datasets: DatasetResolver | None = None) -> list[str]:
    """Everything the schema cannot express; returns the problems found (empty when valid)."""
    datasets = datasets or DatasetResolver(config, registry, base_dir)
    problems: list[str] = list(_check_key_envs(config))
    owners: dict[str, tuple[str, tuple]] = {}
    for key, source in iter_model_sources(config):
        problems += _check_model_source(key, source, base_dir)
        if source.get("hf_id") and not source.get("path"):  # fetched into resources/models/<name>; a path is used where it is
            name = resource_name(key, source)
            origin = tuple(source.get(field) for field in ("hf_id", "revision", "hf_file", "path"))
            first_key, first_origin = owners.setdefault(name, (key, origin))
            if first_origin != origin:
                problems.append(
                    f"config key '{key}': resources/models/{name} already holds '{first_key}', a different model; set a distinct 'name'"
                )
    for name, spec in config.get("models", {}).items():
        problems += _check_languages(f"models.{name}.training_languages", spec.get("training_languages"), registry, False)
        problems += _check_languages(f"models.{name}.languages", spec.get("languages"), registry, False)
        problems += _check_model_languages(name, spec, datasets)
        if backend_info(spec["backend"]).recorded and spec.get("path") and not _is_recorded_responses(base_dir / spec["path"]):
            problems.append(
                f"config key 'models.{name}.path': backend file needs a responses file (CSV/JSONL/Parquet) "
                f"or a folder of released MAKQA outputs (result_<domain>.json); '{spec['path']}' is neither"
            )
    for index, pair in enumerate(config["output"]["comparisons"]):
        for name in pair:
            if name not in config.get("models", {}):
                problems.append(f"config key 'output.comparisons[{index}]': '{name}' is not a configured model")
    problems += _check_languages(
        "evaluators.information.round_trip_languages", config["evaluators"]["information"]["round_trip_languages"], registry, True
    )
    problems += _check_languages(
        "evaluators.language_id.unsupported_languages", config["evaluators"]["language_id"]["unsupported_languages"], registry, False
    )
    problems += _check_translators(config)
    problems += _check_qe_thresholds(config, registry)
    for name, spec in config["datasets"].items():
        problems += _check_dataset(name, spec, datasets, base_dir)
    problems += _check_evaluator_datasets(datasets)
    return problems


def validate_config(config: dict, *, base_dir: Path | str = ".", registry: LanguageRegistry | None = None) -> dict:
    """Schema validation with defaults, then the semantic checks; returns the filled config."""
    resolve_config(config, base_dir=base_dir, registry=registry)
    return config


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
        if section in ORDERED_SECTIONS and isinstance(value, Mapping) else _sorted_keys(value)
        for section, value in sorted(config.items())
    }
    config.clear()  # in place: Snakemake's `config` is the same object
    config.update(ordered)


def resolve_config(config: dict, *, base_dir: Path | str = ".", registry: LanguageRegistry | None = None) -> DatasetResolver:
    """Validate the config (filling its defaults), put its keys in canonical order and return
    its data sets resolved, for the plan."""
    validate_schema(config)
    if config.get("released_outputs") or config.get("released_model"):
        add_released_model(config, Path(base_dir))
        validate_schema(config)  # fills the added models' defaults
    expand_translators(config)
    canonical_order(config)
    datasets = DatasetResolver(config, registry or LanguageRegistry.load(), Path(base_dir))
    problems = check_semantics(config, datasets.registry, Path(base_dir), datasets)
    if problems:
        raise ConfigError("invalid config:\n  " + "\n  ".join(dict.fromkeys(problems)))
    return datasets


def load_config(path: Path | str, *, base_dir: Path | str = ".") -> dict:
    """Read a YAML config file and validate it (used by tests and scripts outside Snakemake);
    a key given twice in one mapping is refused (xlcons.config_files)."""
    problem = yaml_problem(path)
    if problem:
        raise ConfigError(problem)
    config = load_yaml(path) or {}
    try:
        return validate_config(config, base_dir=base_dir)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None
