"""What a validated config asks the workflow to do: which jobs, which files, which models.

The Snakefile asks this package instead of reading the config itself, so the rules stay
declarative and every decision (which evaluator scores which data set, which models a
stage loads, where each file goes, what each job's params are) is unit-tested in one place.
It reads the three registries (data sets, evaluators, generation backends) and restates
none of their facts; an evaluator's own decisions stay in its package (its `plan` module,
see `xlcons.plan.scoring`).

One part per concern, composed by `Plan` (xlcons.plan.facade):

- `data`: the enabled data sets, their languages and prompt loaders;
- `models`: every model source, its files and what a job of it needs (`llm_job`: LLMJob);
- `layout`: where every file goes under the results folder;
- `scoring`: which evaluators score which data sets, and what they ask of other stages;
- `translation`: the translators, their path prefixes (`via`) and their jobs' params;
- `quality`: quality estimation of the translations, and round trips;
- `evaluation`: the evaluation jobs and what the results stage reads;
- `targets`: the downloads and the files the run asks for;
- `options`: the run's output and reporting options;
- `sharding`: over how many jobs one (data set, model) job of a stage is spread;
- `patterns`: wildcard constraints.
"""

from __future__ import annotations

from xlcons.plan.facade import FORWARDED, Plan
from xlcons.plan.llm_job import LLMJob
from xlcons.plan.patterns import alternation, via_alternation

__all__ = ["FORWARDED", "LLMJob", "Plan", "alternation", "via_alternation"]
