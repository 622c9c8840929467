"""What information consistency and its translationese check decide for the plan, from their
config section (`evaluators.information`): the options their jobs pass on, the languages of
the round trips the check scores, and where their item caches lived before.

xlcons.plan finds `Planner` here by name (see xlcons.plan.scoring) and asks it; the rules
(rules/evaluate_information.smk) reach it through `PLAN.planner("information")`. Standard
library only: it runs while the Snakefile builds the DAG.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

INFORMATION = "information"
TRANSLATIONESE = "translationese"
LLM_KEY = "evaluators.information.llm"  # both evaluators' LLM: one model extracts and verifies facts

# The options of both jobs: the token caps of the two kinds of LLM answers and the fact limit.
JOB_OPTIONS = ("extraction_max_new_tokens", "verification_max_new_tokens", "max_facts_per_sentence")

# The item caches that lived under results/cache/<stage>/<model>.jsonl, before every evaluator
# could score any data set: Gupta et al. 2025's information set's, by the evaluator whose jobs keep them.
LEGACY_DATASET = "information"
LEGACY_STAGES = {INFORMATION: ("information",), TRANSLATIONESE: ("translationese", "round_trip")}


class Planner:
    llm_key = LLM_KEY

    def __init__(self, section: Mapping[str, Any]):
        self.section = section

    def options(self, max_failed_share: float) -> dict[str, Any]:
        """What both jobs read beside their inputs: the token caps and the fact limit, and the
        share of LLM requests that may fail with the job still done."""
        return {**{key: self.section[key] for key in JOB_OPTIONS}, "max_failed_share": max_failed_share}

    def round_trip_languages(self, evaluator: str) -> list[str]:
        """The translationese check scores the English answers after en -> l -> en, for each
        configured language; information consistency needs no round trip."""
        return list(self.section["round_trip_languages"]) if evaluator == TRANSLATIONESE else []

    def legacy_caches(
        self,
        evaluator: str,
        results: str,
        datasets: Callable[[str], list[str]],
        models: list[str],
        cache_file: Callable[..., str],
    ) -> list[tuple[str, str]]:
        """(old, new) path of each item cache an evaluator's jobs on Gupta et al. 2025's information set
        kept before the data set was in its path, for every model, when it scores that set."""
        if LEGACY_DATASET not in datasets(evaluator):
            return []
        return [
            (f"{results}/cache/{stage}/{model}.jsonl", cache_file(stage, LEGACY_DATASET, model))
            for stage in LEGACY_STAGES.get(evaluator, ())
            for model in models
        ]
