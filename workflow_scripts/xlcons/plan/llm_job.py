"""The Snakemake functions of a job that runs one LLM."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from xlcons.plan.models import ModelSources


class LLMJob:
    """What a job that runs one LLM needs, for a role: a generator (`models.{model}`) or an
    evaluator's model (`evaluators.judge.llm`). Its methods are Snakemake input, params,
    conda and resources functions; the backend entry decides env, GPUs and memory."""

    def __init__(
        self,
        models: ModelSources,
        key: str,
        resources: str,
        envs_dir: Path | str,
        dataset: str | None = None,
        system_prompt: str | None = None,
    ):
        self.models, self.key, self.resources, self.envs_dir = models, key, resources, Path(envs_dir)
        # A generator answering a data set gets the set's system prompt when it has none of its own.
        self.dataset, self.system_prompt = dataset, system_prompt

    def _key(self, wildcards) -> str:
        return self.key.format(model=getattr(wildcards, "model", None))

    def _source(self, wildcards) -> Mapping[str, Any]:
        return self.models.sources[self._key(wildcards)]

    def weights(self, wildcards) -> list[str]:
        return self.models.model_inputs(self._key(wildcards), self.resources)

    def spec(self, wildcards) -> dict[str, Any]:
        spec = self.models.llm_spec(self._key(wildcards), self.resources)
        if self.dataset and not spec["system_prompt"]:
            spec["system_prompt"] = self.system_prompt
        return spec

    def location(self, wildcards) -> str | None:
        return self.models.local_path(self._key(wildcards), self.resources)

    def env(self, wildcards) -> str:
        return self.models.backend_env(self._key(wildcards), self.envs_dir)

    def gpus(self, wildcards) -> int:
        return self.models.backend_gpus(self._key(wildcards))

    def mem_mb(self, wildcards, attempt) -> int:
        """Grows with the retry attempt, so --retries recovers from out-of-memory kills."""
        return self.models.backend_mem_mb(self._key(wildcards)) * attempt
