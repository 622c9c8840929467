"""How many jobs one (data set, model) job of a stage is split into, and their files (xlcons.shards).

`generation.shards` splits every generation job; `evaluators.<section>.shards` the jobs of an
evaluator whose entry says it can be split (EvaluatorInfo.sharded: the judge, the information
evaluator). With 1 (the default) a stage's rules are the unsharded ones and the DAG has no
shard job; with N, each (data set, model) has N shard jobs (`{shard}` 1 to N, of the same
rule), each writing its share of the outputs and its own usage ledger beside the unsharded
job's files (`job_file`), and a merge job (the rule `<rule>_merge`) that writes the unsharded
job's outputs from them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xlcons.evaluators.registry import EVALUATORS
from xlcons.plan.scoring import EvaluatorPlan
from xlcons.shards import check_count, shard_path

GENERATE = "generate"  # the generation stage; any other stage is an evaluator's name
SHARDS = "shards"  # the option's name, in `generation` and in a sharded evaluator's section


class ShardPlan:
    def __init__(self, config: Mapping[str, Any], scoring: EvaluatorPlan):
        self.config, self.scoring = config, scoring

    def _option(self, stage: str) -> tuple[str, Mapping[str, Any]] | None:
        """(config key, section) of a stage's shard count; None for a stage that is never split."""
        if stage == GENERATE:
            return f"generation.{SHARDS}", self.config.get("generation") or {}
        info = EVALUATORS.get(stage)
        if info is None or not info.sharded:
            return None
        return info.option_key(SHARDS), self.scoring.evaluator_section(stage)

    def shards_key(self, stage: str) -> str | None:
        """The config key of a stage's shard count; None for a stage that is never split."""
        option = self._option(stage)
        return option[0] if option else None

    def shards(self, stage: str) -> int:
        """The number of jobs one (data set, model) job of `stage` runs as (1: unsharded)."""
        option = self._option(stage)
        if option is None:
            return 1
        key, section = option
        return check_count(section.get(SHARDS, 1), key)

    def sharded(self, stage: str) -> bool:
        return self.shards(stage) > 1

    def shard_indices(self, stage: str) -> list[int]:
        """The shards of a (data set, model) job of `stage`: 1 to N."""
        return list(range(1, self.shards(stage) + 1))

    def shard_file(self, path: str, stage: str, shard: int | str = "{shard}") -> str:
        """A shard job's file beside the unsharded job's `path` (`shard` left open by default)."""
        return shard_path(path, shard, self.shards(stage))

    def job_file(self, path: str, stage: str, shard: int | str | None = "{shard}") -> str:
        """A file of a job of `stage`: the unsharded job's `path` itself, or a shard job's beside it
        (`shard` left open by default). A rule's outputs, log and cache are these: with one job,
        exactly today's; with N, the file names say which shard a job is (xlcons.shards.job_shard)."""
        return self.shard_file(path, stage, shard) if self.sharded(stage) and shard is not None else path

    def unsharded_files(self, paths: list[str], stage: str) -> list[str]:
        """Outputs that only the unsharded job writes (its merge does, when the stage is sharded)."""
        return [] if self.sharded(stage) else paths

    def shard_files(self, path: str, stage: str) -> list[str]:
        """The files of every shard job of `stage` beside `path`; `[path]` itself when unsharded
        (a stage's usage ledgers: one per job that ran)."""
        if not self.sharded(stage):
            return [path]
        return [self.shard_file(path, stage, shard) for shard in self.shard_indices(stage)]
