"""The evaluator registry: every evaluator's entry, collected from the evaluators themselves.

Each evaluator declares its entries (`xlcons.evaluators.info.EvaluatorInfo`: what it needs
of a data set, the models it loads, its rule file and outputs, how the results stage reads
them, its config section and the function each of its rules runs) beside its code, as
`ENTRIES` of its entry module (`evaluators/<name>_entry.py`, or `entry.py` in its package).
This module only finds and collects them, ordered by each entry's `position` (the order of
the config schema's `evaluators`, of its generated reference and of the rule files the
Snakefile includes), and derives what the plan, the config checks
and the results stage look up.

Adding an evaluator is its module or package (with its entry module), its rule file and its
tests; nothing here changes (see docs/extending.md). Standard library only: the
Snakefile reads it while it builds the DAG, and the entry modules are as light.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from xlcons.datasets import ENGLISH_QUESTION, PROMPT_LANGUAGE_ANSWERS, SEEKER_POST, TRANSLATION_REQUESTS
from xlcons.evaluators.info import ENGLISH_ANSWERS, RESPONSES, TRANSLATIONS, EvaluatorInfo, ResultsSource

# The language-ID evaluator's section and model key, which the translation stage and QE read too.
from xlcons.evaluators.language_id_entry import LANGUAGE_ID_MODEL_KEY, LANGUAGE_ID_SECTION

__all__ = [
    "ENGLISH_ANSWERS",
    "ENTRY_MODULES",
    "EVALUATORS",
    "LANGUAGE_ID_MODEL_KEY",
    "LANGUAGE_ID_SECTION",
    "QE_INPUT",
    "RESPONSES",
    "RESPONSES_INPUT",
    "RESULTS_SOURCES",
    "RULE_JOBS",
    "TRANSLATIONS",
    "EvaluatorInfo",
    "ResultsSource",
    "collect",
    "explain_need",
    "resolve",
]


def entry_modules(root: Path = Path(__file__).parent, package: str = __package__) -> tuple[str, ...]:
    """The evaluators' entry modules, found by name (`<name>_entry.py` beside the evaluators, or
    `entry.py` in an evaluator's package), in the order of their names. Nothing is imported
    to find them: adding an evaluator adds its entry module and edits no list."""
    found = [path.stem for path in root.glob("*_entry.py")]
    found += [f"{path.parent.name}.entry" for path in root.glob("*/entry.py")]
    return tuple(f"{package}.{name}" for name in sorted(found))


ENTRY_MODULES = entry_modules()


def collect(modules: tuple[str, ...] = ENTRY_MODULES) -> dict[str, EvaluatorInfo]:
    """Every entry of the entry modules by name, ordered by `position` (then as the modules and
    their `ENTRIES` list them); a name declared twice fails."""
    found: dict[str, tuple[tuple[int, int, int], EvaluatorInfo]] = {}
    for rank, module in enumerate(modules):
        for index, info in enumerate(importlib.import_module(module).ENTRIES):
            if info.name in found:
                raise ValueError(f"evaluator '{info.name}' is declared twice (again in {module})")
            found[info.name] = ((info.position, rank, index), info)
    return {name: info for name, (_, info) in sorted(found.items(), key=lambda item: item[1][0])}


EVALUATORS: dict[str, EvaluatorInfo] = collect()


# The results rule's input of response tables, beside the evaluators' outputs: which
# requests failed, so that the scores resting on them are marked `error`.
RESPONSES_INPUT = "responses"
# And the quality estimates of the translated sentences (TRANSLATION_QE), when QE is on:
# each item's mean QE, and every translation-reading evaluator's scores on passing items.
QE_INPUT = "translation_qe"
# And the faithful-text checks' tables (xlcons.measurability): tables/measurability.csv and the
# summary's count of the languages each evaluator cannot measure.
MEASURABILITY_INPUT = "measurability"

# Every results source by its output name (unique across evaluators), with its evaluator:
# what the results rule names its inputs by.
RESULTS_SOURCES: dict[str, tuple[EvaluatorInfo, ResultsSource]] = {
    source.output: (info, source) for info in EVALUATORS.values() for source in info.results
}


# Every evaluator rule by name, with the "module:function" it runs (EvaluatorInfo.jobs).
RULE_JOBS: dict[str, str] = {rule: job for info in EVALUATORS.values() for rule, job in info.jobs.items()}


def resolve(reference: str) -> Any:
    """The object a "module:name" reference of an entry names (imports the module)."""
    module, _, name = reference.partition(":")
    return getattr(importlib.import_module(module), name)


def explain_need(need: str) -> str:
    """A need, in the words of the error message that reports it missing."""
    return {
        ENGLISH_QUESTION: "an English question per item (English rows, or a `question_en` column)",
        ENGLISH_ANSWERS: "English among the data set's languages (the English answer is the reference)",
        SEEKER_POST: "EPITOME seeker posts as prompts (the built-in `empathy` set)",
        TRANSLATION_REQUESTS: "translation requests with a reference translation (the built-in `flores` set)",
        PROMPT_LANGUAGE_ANSWERS: "answers meant to be in the prompt's "
        "language (a translation set's are in its target language)",
        "references": "gold answers (a `reference` column)",
    }[need]
