"""What an evaluator's registry entry is made of, and the helpers that build one.

An entry (`EvaluatorInfo`) says what the evaluator needs from a data set (checked against
the data set registry before anything is scheduled, with the evaluator and the data set
named), which models it loads (config keys under its section), what it reads (the answers,
or their English translations: a data set scored by such an evaluator has its answers
translated), the rule file that runs it, the files one (data set, model) job writes under
``evaluations/<data set>/<model>/``, and how the results stage reads them (per-item table
schema, adapter to ITEM_SCORES, derived metrics), as "module:name" strings resolved when the
results job runs, its config section (the JSON schema of ``evaluators.<section>``, which
xlcons.config.load_schema adds to the schema file) and the function each of its rules runs
(through the one evaluator script, workflow_scripts/evaluate.py). Which data sets it scores
is config (``evaluators.<name>.datasets``, defaulting to what its section declares).

Each evaluator declares its entries beside its code, in a module of its own that imports
this one (``evaluators/<name>_entry.py``, or ``entry.py`` in its package), and
:mod:`xlcons.evaluators.registry` collects them. Standard library only, here and in the
entry modules: the Snakefile reads the registry while it builds the DAG.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from xlcons.config_sections import closed_section
from xlcons.item_scores import OWN_ANSWER

# Beyond the data set capabilities: English is among the languages the set runs in
# (the English answer is the reference the other languages are compared with).
ENGLISH_ANSWERS = "english_answers"

RESPONSES = "responses"
TRANSLATIONS = "translations"


@dataclass(frozen=True)
class ResultsSource:
    """One output the results stage reads: per-item rows (ITEM_SCORES) or corpus rows (RESULTS)."""

    output: str  # an entry of EvaluatorInfo.outputs
    schema: str  # "module:NAME" of its pyarrow schema
    adapter: str  # "module:function" from that table to ITEM_SCORES (corpus: RESULTS) rows
    corpus: bool = False


@dataclass(frozen=True)
class PairFigure:
    """An evaluator whose scores are over language pairs (knowledge's C_ij) draws them as language ×
    language matrices: one panel per figure metric and model, from this per-pair output."""

    output: str  # an entry of EvaluatorInfo.outputs, one file per (data set, model)
    schema: str  # "module:NAME" of its pyarrow schema
    # "module:function" from that table to the cells drawn: model, metric, lang_i, lang_j, value
    cells: str


@dataclass(frozen=True)
class ItemDetails:
    """One more per-item output that the item explorer shows beside the results sources: rows
    keyed by (dataset, model, item_id, lang), several per item (an information evaluator's
    facts and their verdicts, a knowledge item's variants). Not scored: no adapter."""

    output: str  # an entry of EvaluatorInfo.outputs
    schema: str  # "module:NAME" of its pyarrow schema


def _always(section: Mapping[str, Any]) -> bool:
    return True


def _no_models(section: Mapping[str, Any]) -> tuple[str, ...]:
    return ()


@dataclass(frozen=True)
class EvaluatorInfo:
    name: str  # its key in the plan and the results inputs
    section: str  # evaluators.<section> in the config: its options and its `datasets`
    rule_file: str  # rules/<file>, included by the Snakefile
    outputs: tuple[str, ...]  # files of one (data set, model) job: evaluations/<d>/<m>/<output>.parquet
    target: str  # the output the run asks for (the others come with it)
    reads: str = RESPONSES
    needs: frozenset[str] = frozenset()
    models: Callable[[Mapping[str, Any]], tuple[str, ...]] = _no_models  # model keys under the section
    results: tuple[ResultsSource, ...] = ()
    # Per-item outputs beyond `results` that the item explorer shows (xlcons.reports.explorer).
    details: tuple[ItemDetails, ...] = ()
    derived: tuple[str, ...] = ()  # "module:NAME" of DerivedMetric objects of the results table
    # Its item-level metrics whose item values are binary outcomes (1/0: a pass, an agreement, a
    # correct answer), so that a results row's value is a rate: the results table gives those rows
    # a Wilson score interval instead of the bootstrap (xlcons.reports.results). Also their
    # `@qe_pass` copies (the same rate over the items that pass QE).
    rates: tuple[str, ...] = ()
    active: Callable[[Mapping[str, Any]], bool] = _always  # runs at all, given its section
    tokenizer_models_only: bool = False  # scores the generators that have a local tokenizer only
    answers: tuple[str, ...] = (OWN_ANSWER,)  # whose failed requests exclude an item (see OWN_ANSWER)
    # The JSON schema of its config section, evaluators.<section> (built by `config_section`); None for
    # an entry that shares another's section. The config schema's `evaluators` is assembled from these.
    options: Mapping[str, Any] | None = None
    # What each of its rules runs: rule name -> "module:function", called by the one evaluator
    # script (workflow_scripts/evaluate.py) with the Snakemake job object.
    jobs: Mapping[str, str] = field(default_factory=dict)
    # Its scores rest on the primary translator's output although it reads no translation table
    # (the translationese round trips): the results' `translator` column names it.
    through_primary_translator: bool = False
    # Its jobs call a model (an LLM): each writes a usage ledger (xlcons.usage), its rule's output
    # `usage` at Layout.usage_file(<its name>, ...), which the run's usage.csv gathers.
    calls_models: bool = False
    # With calls_models: "module:function" that estimates one of its jobs before a run (`xlcons
    # estimate` and the budget check before scheduling: requests, prompt tokens, a completion bound),
    # called with the estimate's Context and the job (xlcons.estimate.stages). Without one its jobs
    # are `unknown` in the estimate; tests/test_registries.py asks every model-calling entry for one.
    estimate: str = ""
    # Its (data set, model) job can be split over `evaluators.<section>.shards` jobs by item
    # (xlcons.shards; its section then has `shards`: SHARDS_OPTION), each on its own GPUs, and
    # merged by its rule `<rule>_merge` (in `jobs`) into the outputs of the unsharded job.
    sharded: bool = False
    # Its place among the evaluators: in the config schema's `evaluators`, the config reference,
    # the rule files the Snakefile includes and the results inputs (ascending, then by entry
    # module name; the built-in evaluators hold 10 to 80, a new one may leave the default).
    position: int = 1000
    # The one metric the run's summary (results/summary.md) reports for it: a metric its adapter
    # or its derived metrics write to the results table. None for an evaluator without results
    # rows, with `no_headline` saying why.
    headline: str | None = None
    no_headline: str = ""
    # The `evaluator` value of its rows in the results table, where it is not its name (language_id's
    # rows are `fidelity`).
    results_evaluator: str = ""
    # Its report (rule evaluator_report, one job per data set it scored): the metrics of the results
    # table drawn as a models × languages heatmap each (on the range xlcons.reports.figure_style
    # declares for the metric), or, with `pair_figure`, as language × language matrices per model.
    # None for an evaluator without results rows, with `no_figure` saying why.
    figure_metrics: tuple[str, ...] = ()
    pair_figure: PairFigure | None = None
    no_figure: str = ""
    # Its faithful-text check (xlcons.measurability): the metric its rule `<name>_faithful` (in
    # `jobs`) scores each data set's own prompts on, one job per data set, whose verdicts its
    # (data set, model) jobs read (input `measurability`) and tables/measurability.csv gathers.
    faithful_metric: str = ""

    @property
    def rows_evaluator(self) -> str:
        """The `evaluator` value of its rows in the results table."""
        return self.results_evaluator or self.name

    def option_key(self, option: str) -> str:
        """The config key of one of its options, as errors name it."""
        return f"evaluators.{self.section}.{option}"

    def model_keys(self, section: Mapping[str, Any]) -> tuple[str, ...]:
        """Config keys of the models it loads: `models` gives them under its own section, or whole."""
        return tuple(key if "." in key else f"evaluators.{self.section}.{key}" for key in self.models(section))


# The `shards` option of a sharded evaluator's section (EvaluatorInfo.sharded).
SHARDS_OPTION: Mapping[str, Any] = {
    "description": "Jobs that one (data set, model) job is split into, by a stable hash of the item id, "
    "each with the GPUs and memory of the unsharded job; a light local job merges their tables into "
    "the unsharded job's outputs. The item caches are shared, so changing it computes nothing again "
    "(docs/cluster.md#one-models-work-over-many-gpus-shards). 1: one job.",
    "type": "integer",
    "minimum": 1,
    "default": 1,
}


def llm(section: Mapping[str, Any]) -> tuple[str, ...]:
    """`models` of an evaluator that runs the LLM of its section's `llm` key."""
    return ("llm",)


def config_section(
    description: str, datasets: list[str] | str, datasets_description: str, properties: Mapping[str, Any]
) -> dict[str, Any]:
    """The schema of an evaluator's config section: its options, and `datasets` (the sets it scores by default)."""
    datasets_key = {"description": datasets_description, "$ref": "#/$defs/dataset_names", "default": datasets}
    return closed_section(description, {**properties, "datasets": datasets_key})
