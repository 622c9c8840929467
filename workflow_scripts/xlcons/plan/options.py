"""The run's own options that jobs pass on as params: output formats, the results' statistics,
the share of failed requests a job may leave, the run's limits, the generators' training languages."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xlcons.budget import Limits


class RunOptions:
    def __init__(self, config: Mapping[str, Any]):
        self.config = config

    def table_formats(self) -> list[str]:
        return self.config["output"]["table_formats"]

    def figure_formats(self) -> list[str]:
        return self.config["output"]["figure_formats"]

    def bootstrap_resamples(self) -> int:
        """Resamples of the results' bootstrap intervals."""
        return self.config["output"]["bootstrap_resamples"]

    def seed(self) -> int:
        """The seed of the results' bootstrap."""
        return self.config["output"]["seed"]

    def comparisons(self) -> Any:
        """The model comparisons the results table is asked for (`output.comparisons`)."""
        return self.config["output"]["comparisons"]

    def training_languages(self) -> dict[str, list[str] | None]:
        """Each generator's training languages (None: not listed), models and languages sorted:
        a set to the reports, so that reordering the models or a model's list reruns nothing."""
        models = self.config["models"]
        return {
            name: None if models[name].get("training_languages") is None else sorted(models[name]["training_languages"])
            for name in sorted(models)
        }

    def limits(self) -> Limits:
        """The run's budget (`limits`: xlcons.budget); false when the config sets none."""
        return Limits.from_config(self.config)

    def refusals(self) -> str:
        """`count` or `exclude`: how every evaluator treats a model's own refusal or empty answer."""
        return self.config["refusals"]

    def max_failed_share(self) -> float:
        """Share of a generation or judge job's requests that may fail with the job still done."""
        return self.config["generation"]["max_failed_share"]
