"""The models of a run: every configured model source, where its files are, what loading it needs.

A model is a config key (`models.<name>`, `translator.model`, `evaluators.judge.llm`, ...)
with its source (a Hub id, a local path, a URL, released outputs or a served endpoint). The
generation backend registry decides which sources are files a job reads.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from xlcons.config.checks import iter_model_sources
from xlcons.config.models import resource_name
from xlcons.data_sources.names import released_source_name, url_file_name
from xlcons.fingerprint import local_content
from xlcons.generation.registry import BACKENDS, backend_info, model_fields
from xlcons.plan.patterns import alternation


def needs_weights(source: Mapping[str, Any]) -> bool:
    """The model is a local file or folder the job reads (not a served endpoint)."""
    local = backend_info(source["backend"]).local_files if "backend" in source else True
    return local and bool(source.get("hf_id") or source.get("path") or source.get("released") or source.get("url"))


def released_source(source: Mapping[str, Any]) -> str | None:
    """The data source of a model's fetched released outputs, if it is one."""
    return released_source_name(source["released"]) if source.get("released") else None


def _identity(spec: Mapping[str, Any]) -> tuple[Any, ...]:
    """What tells a served model apart in a job's params: its backend, id and options section,
    as a job's params carry them (model_fields: options at a quiet default left out), whether
    `spec` is the model's config or a job's params."""
    options_key = BACKENDS[spec["backend"]].options_key
    options = model_fields(spec).get(options_key) if options_key else None
    return spec["backend"], spec.get("hf_id"), repr(options) if options_key else None


def _keyed_specs(value: Any) -> Iterator[Mapping[str, Any]]:
    """Every model of a backend that reads a key from the environment, anywhere in a job's params."""
    if isinstance(value, Mapping):
        backend = value.get("backend")
        if isinstance(backend, str) and backend in BACKENDS and BACKENDS[backend].key_env_options:
            yield value
        for child in value.values():
            yield from _keyed_specs(child)
    elif isinstance(value, list | tuple):
        for child in value:
            yield from _keyed_specs(child)


class ModelSources:
    """Every model of the config by its key, and the files, digests and fields a job of one reads."""

    def __init__(self, config: Mapping[str, Any]):
        self.config = config
        self.sources = dict(iter_model_sources(config))
        # The folder name under resources/models/ of every model that has files somewhere.
        self.names = {
            key: resource_name(key, source)
            for key, source in self.sources.items()
            if source.get("hf_id") or source.get("path") or source.get("url")
        }

    def generators(self) -> list[str]:
        """The models under test (`models`), in config order."""
        return list(self.config["models"])

    def tokenizer_models(self) -> list[str]:
        """Generators whose tokenizer is on disk (not API models, not recorded responses)."""
        return [name for name, spec in self.config["models"].items() if backend_info(spec["backend"]).has_tokenizer]

    def needs_weights(self, key: str) -> bool:
        return needs_weights(self.sources[key])

    def hub_models(self) -> dict[str, dict[str, Any]]:
        """Every configured model that comes from the Hub, by its folder name."""
        return {
            self.names[key]: {field: source.get(field) for field in ("hf_id", "revision", "hf_file", "url", "sha256")}
            for key, source in self.sources.items()
            if (source.get("hf_id") or source.get("url")) and not source.get("path") and needs_weights(source)
        }

    def hub_model_pattern(self) -> str:
        return alternation(self.hub_models())

    def model_location(self, key: str, resources: str) -> str:
        """What a job waits for: the configured path, the released data's manifest or the fetch marker."""
        source = self.sources[key]
        if source.get("path"):
            return source["path"]
        if source.get("released"):
            return f"{resources}/data/{released_source(source)}/MANIFEST.json"
        return f"{resources}/models/{self.names[key]}/.xlcons-fetched.json"

    def local_path(self, key: str, resources: str) -> str | None:
        """Where a model's files are on disk: its configured path, or its fetched folder (or the
        fetched file, for single-file models such as GlotLID); None for an API model."""
        source = self.sources.get(key)
        if source is None:
            return None
        if source.get("path"):
            return source["path"]
        if not needs_weights(source):
            return None
        if source.get("released"):
            return f"{resources}/data/{released_source(source)}"
        folder = f"{resources}/models/{self.names[key]}"
        if source.get("url"):
            return f"{folder}/{url_file_name(source['url'])}"
        return f"{folder}/{source['hf_file']}" if source.get("hf_file") else folder

    def missing_api_keys(self, job_params: Iterable[Any], environ: Mapping[str, str] | None = None) -> list[str]:
        """One message per model that the given jobs call over an API (a backend with
        `key_env_options`: `openai`) whose key's environment variable is unset or empty here;
        each names the model's config key and the variable, never a value. `job_params` are the
        params of the jobs a run will execute; a model no such job calls is not checked. With no
        API model configured, `job_params` is not read at all (the workflow passes them lazily:
        working out every job's params of a large run costs seconds)."""
        environ = os.environ if environ is None else environ
        keyed = {
            key: (source, info)
            for key, source in self.sources.items()
            if (info := BACKENDS.get(source.get("backend", ""))) is not None and info.key_env_options
        }
        if not keyed:
            return []
        called = {_identity(spec) for params in job_params for spec in _keyed_specs(params)}
        problems = []
        for key, (source, info) in keyed.items():
            if _identity(source) not in called:
                continue
            options = source.get(info.options_key or "") or {}
            for option in info.key_env_options:
                variable = options.get(option)
                if variable and not environ.get(variable):
                    problems.append(
                        f"config key '{key}' (backend {info.name}) reads its API key from the environment "
                        f"variable {variable}, which is not set on this machine: export {variable} before "
                        f"starting the run (never put the key in the config), or name another variable in "
                        f"{key}.{info.options_key}.{option}"
                    )
        return problems

    def model_inputs(self, key: str, resources: str) -> list[str]:
        """The marker or local path of a model a job loads (nothing for an API model, or none configured)."""
        source = self.sources.get(key)
        return [self.model_location(key, resources)] if source is not None and needs_weights(source) else []

    def llm_spec(self, key: str, resources: str) -> dict[str, Any]:
        """What the generation backends need to run an LLM: the fields that change its answers,
        plus `location` (reporting-only keys stay out, so editing them reruns nothing) and, for
        a local `path`, the digest of its files: a job's params change, and Snakemake reruns
        it, when the checkpoint (or the responses file) there is replaced or retrained."""
        return {
            **model_fields(self.sources[key]),
            "location": self.local_path(key, resources),
            "content": self.content(key),
        }

    def content(self, key: str) -> str | None:
        """The digest of a local `path` model's files (xlcons.fingerprint); None for a Hub,
        served or fetched model, a model the config does not have, or a path that is not
        there (validation names it). In a job's params: a checkpoint replaced or retrained in
        place reruns the job, a moved one does not."""
        return local_content(self.sources.get(key, {}).get("path"))

    def backend_env(self, key: str, envs_dir: Path | str) -> str:
        """The conda env file of a job that runs this LLM, as its backend entry names it."""
        return str(Path(envs_dir) / f"{backend_info(self.sources[key]['backend']).env}.yaml")

    def backend_gpus(self, key: str) -> int:
        source = self.sources[key]
        return backend_info(source["backend"]).gpus(source)

    def backend_mem_mb(self, key: str) -> int:
        return backend_info(self.sources[key]["backend"]).mem_mb
