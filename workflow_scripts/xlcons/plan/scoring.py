"""Which evaluators a run uses, what they score, and what they ask of the other stages.

Everything here comes from the evaluator registry and each evaluator's config section; the
plan never names an evaluator. An evaluator whose decisions go beyond its registry entry
(which classifier to train, which languages its round trips go through) keeps them in its
package's `plan` module (`xlcons.evaluators.<section>.plan`), a `Planner` built from its
config section, which this part finds by that name and asks by method:

- `round_trip_languages(evaluator)`: the languages the English answers of the data sets the
  evaluator scores go through and back (en -> l -> en) for it; none by default.
- `legacy_caches(evaluator, results, datasets, models, cache_file)`: (old, new) paths of item
  caches the evaluator's jobs kept elsewhere before; none by default.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Mapping
from functools import cache, cached_property
from typing import Any

from xlcons.dataset_resolver import DatasetResolver
from xlcons.evaluators.registry import EVALUATORS, TRANSLATIONS, EvaluatorInfo
from xlcons.plan.data import DataPlan

PLANNER_MODULE = "xlcons.evaluators.{section}.plan"  # an evaluator package's own decisions, if it has any


@cache
def planner_class(section: str) -> type | None:
    """The `Planner` of an evaluator package's `plan` module; None for an evaluator without one
    (a plain module, or a package without `plan`). Only the package's plan module is imported."""
    package = PLANNER_MODULE.format(section=section).rpartition(".")[0]
    spec = importlib.util.find_spec(package)
    if spec is None or spec.submodule_search_locations is None:  # a module, not a package
        return None
    name = PLANNER_MODULE.format(section=section)
    return importlib.import_module(name).Planner if importlib.util.find_spec(name) else None


class EvaluatorPlan:
    def __init__(self, config: Mapping[str, Any], datasets: DatasetResolver, data: DataPlan):
        self.config, self.datasets, self.data = config, datasets, data

    def evaluators(self) -> list[EvaluatorInfo]:
        """The evaluators that score at least one enabled data set."""
        return [info for info in EVALUATORS.values() if self.datasets.scored_by(info)]

    def rule_files(self) -> list[str]:
        """Every evaluator's rule file (rules/<file>), each once, in registry order."""
        return list(dict.fromkeys(info.rule_file for info in EVALUATORS.values()))

    def evaluator_datasets(self, evaluator: str) -> list[str]:
        return self.datasets.scored_by(EVALUATORS[evaluator])

    def config_section(self, section: str) -> Mapping[str, Any]:
        """The config section `evaluators.<section>`."""
        return self.config["evaluators"][section]

    def evaluator_section(self, evaluator: str) -> Mapping[str, Any]:
        """An evaluator's config section, `evaluators.<section>` (its options)."""
        return self.config_section(EVALUATORS[evaluator].section)

    def evaluator_option(self, evaluator: str, option: str) -> Any:
        """One option of an evaluator's config section, as a rule's params pass it on."""
        return self.evaluator_section(evaluator)[option]

    def evaluator_model_keys(self, evaluator: str) -> tuple[str, ...]:
        """The config keys of the models (and model-like files) an evaluator's jobs read, as its options decide."""
        return EVALUATORS[evaluator].model_keys(self.evaluator_section(evaluator))

    def model_keys(self) -> set[str]:
        """The config keys of the models every evaluator of the run loads."""
        return {key for info in self.evaluators() for key in self.evaluator_model_keys(info.name)}

    def planner(self, evaluator: str) -> Any | None:
        """The evaluator's own planning decisions (its package's `plan.Planner` on its config
        section), or None for an evaluator that has none beyond its registry entry."""
        planner = planner_class(EVALUATORS[evaluator].section)
        return planner(self.evaluator_section(evaluator)) if planner else None

    def _ask(self, evaluator: str, question: str) -> Callable[..., Any] | None:
        return getattr(self.planner(evaluator), question, None)

    # -- what evaluators ask of the other stages --------------------------------------------
    def read_translated_datasets(self) -> list[str]:
        """Data sets whose translations an evaluator reads (those every translator translates)."""
        return list(self._read_translated)

    @cached_property
    def _read_translated(self) -> tuple[str, ...]:
        # Asked for every (data set, model) file path: computed once (the config is fixed).
        read = {d for info in self.evaluators() if info.reads == TRANSLATIONS for d in self.datasets.scored_by(info)}
        return tuple(name for name in self.data.translation_datasets() if name in read)

    def round_trips(self) -> dict[str, list[str]]:
        """The languages of the round trips (en -> l -> en) each evaluator of the run asks for, by
        evaluator: those whose planner names some."""
        trips = {}
        for info in self.evaluators():
            ask = self._ask(info.name, "round_trip_languages")
            if ask and (languages := list(ask(info.name))):
                trips[info.name] = languages
        return trips

    def legacy_caches(self, results: str, models: list[str], cache_file: Callable[..., str]) -> list[tuple[str, str]]:
        """(old, new) paths of the item caches that evaluators' jobs kept elsewhere before, as
        their planners list them: moved once, so no LLM call is made again."""
        moves = []
        for info in EVALUATORS.values():
            ask = self._ask(info.name, "legacy_caches")
            if ask:
                moves += ask(info.name, results, self.evaluator_datasets, models, cache_file)
        return moves
