"""The evaluator registry, one entry each: every fact the workflow needs about an evaluator.

An entry says what the evaluator needs from a data set (checked against the data set
registry before anything is scheduled, with the evaluator and the data set named), which
models it loads (config keys under its section), what it reads (the answers, or their
English translations: a data set scored by such an evaluator has its answers translated),
the rule file that runs it, the files one (data set, model) job writes under
``evaluations/<data set>/<model>/``, and how the results stage reads them (per-item table
schema, adapter to ITEM_SCORES, derived metrics), as "module:name" strings resolved when
the results job runs. Which data sets it scores is config (``evaluators.<name>.datasets``).

Adding an evaluator is an entry here, its module, its rule file and its tests (see
docs/extending.md). Standard library only: the Snakefile reads it while it builds the DAG.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from xlcons.datasets import ENGLISH_QUESTION, PROMPT_LANGUAGE_ANSWERS, SEEKER_POST, TRANSLATION_REQUESTS

# Beyond the data set capabilities: English is among the languages the set runs in
# (the English answer is the reference the other languages are compared with).
ENGLISH_ANSWERS = "english_answers"

RESPONSES = "responses"
TRANSLATIONS = "translations"

# The answers one item's score rests on (EvaluatorInfo.answers): the answer in the item's
# language, and the English answer it is compared with. A score resting on a request that
# failed is not a score of the model: the results stage excludes it with status `error`.
OWN_ANSWER = "own"
ENGLISH_ANSWER = "english"


@dataclass(frozen=True)
class ResultsSource:
    """One output the results stage reads: per-item rows (ITEM_SCORES) or corpus rows (RESULTS)."""

    output: str  # an entry of EvaluatorInfo.outputs
    schema: str  # "module:NAME" of its pyarrow schema
    adapter: str  # "module:function" from that table to ITEM_SCORES (corpus: RESULTS) rows
    corpus: bool = False


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
    derived: tuple[str, ...] = ()  # "module:NAME" of DerivedMetric objects of the results table
    active: Callable[[Mapping[str, Any]], bool] = _always  # runs at all, given its section
    tokenizer_models_only: bool = False  # scores the generators that have a local tokenizer only
    answers: tuple[str, ...] = (OWN_ANSWER,)  # whose failed requests exclude an item (see OWN_ANSWER)

    def model_keys(self, section: Mapping[str, Any]) -> tuple[str, ...]:
        """Config keys of the models it loads: `models` gives them under its own section, or whole."""
        return tuple(key if "." in key else f"evaluators.{self.section}.{key}" for key in self.models(section))


def _llm(section: Mapping[str, Any]) -> tuple[str, ...]:
    return ("llm",)


def _lid_model(section: Mapping[str, Any]) -> tuple[str, ...]:
    return ("evaluators.language_id.model",)


def _embedder(section: Mapping[str, Any]) -> tuple[str, ...]:
    return ("embedder",) if section.get("embedder") is not None else ()


def _encoder(section: Mapping[str, Any]) -> tuple[str, ...]:
    return ("encoder",) if section["classifier"] == "encoder" else ()


def _round_trips(section: Mapping[str, Any]) -> bool:
    return bool(section["round_trip_languages"])


_SCHEMAS = "xlcons.schemas"
_ADAPTERS = "xlcons.reports.item_scores"

EVALUATORS: dict[str, EvaluatorInfo] = {
    info.name: info
    for info in (
        # Paper 004: is the answer in the language of the question (response-level LID)?
        EvaluatorInfo(
            "language_id",
            "language_id",
            "evaluate_language_id.smk",
            ("fidelity",),
            "fidelity",
            needs=frozenset({PROMPT_LANGUAGE_ANSWERS}),
            models=_lid_model,
            results=(ResultsSource("fidelity", f"{_SCHEMAS}:FIDELITY", f"{_ADAPTERS}:from_fidelity"),),
        ),
        # Paper 004: is the answer correct, judged by an LLM against the English question?
        EvaluatorInfo(
            "judge",
            "judge",
            "evaluate_judge.smk",
            ("judgments",),
            "judgments",
            needs=frozenset({ENGLISH_QUESTION}),
            models=_llm,
            results=(ResultsSource("judgments", f"{_SCHEMAS}:JUDGMENTS", f"{_ADAPTERS}:from_judgments"),),
        ),
        # Paper 004 Table 5: how each generator's tokenizer cuts each language's prompts.
        EvaluatorInfo(
            "tokenization", "tokenization", "evaluate_tokenization.smk", ("tokenization",), "tokenization", tokenizer_models_only=True
        ),
        # Paper 000: atomic facts of the English answer and of each translated answer, checked both ways.
        EvaluatorInfo(
            "information",
            "information",
            "evaluate_information.smk",
            ("information_items", "information_facts", "information_scores"),
            "information_scores",
            reads=TRANSLATIONS,
            needs=frozenset({ENGLISH_ANSWERS}),
            models=_llm,
            results=(ResultsSource("information_items", f"{_SCHEMAS}:INFORMATION_ITEMS", f"{_ADAPTERS}:from_information"),),
            derived=("xlcons.reports.results:INFORMATION_F",),
            answers=(OWN_ANSWER, ENGLISH_ANSWER),
        ),
        # Paper 000's translationese check: the English answers en -> l -> en, scored like the above.
        EvaluatorInfo(
            "translationese",
            "information",
            "evaluate_information.smk",
            ("translationese_items", "translationese_facts", "translationese_scores"),
            "translationese_scores",
            needs=frozenset({ENGLISH_ANSWERS}),
            models=_llm,
            results=(ResultsSource("translationese_items", f"{_SCHEMAS}:INFORMATION_ITEMS", f"{_ADAPTERS}:from_information"),),
            active=_round_trips,
            answers=(ENGLISH_ANSWER,),  # the English answer and its own round trip
        ),
        # Paper 000: EPITOME empathy profiles of the English and the translated answers.
        EvaluatorInfo(
            "empathy",
            "empathy",
            "evaluate_empathy.smk",
            ("empathy_items", "empathy_scores"),
            "empathy_scores",
            reads=TRANSLATIONS,
            needs=frozenset({ENGLISH_ANSWERS, SEEKER_POST}),
            models=_encoder,
            results=(ResultsSource("empathy_items", f"{_SCHEMAS}:EMPATHY_ITEMS", f"{_ADAPTERS}:from_empathy"),),
            answers=(OWN_ANSWER, ENGLISH_ANSWER),
        ),
        # Paper 001: xSC on any parallel set; xAC and xTC where there are gold answers.
        EvaluatorInfo(
            "knowledge",
            "knowledge",
            "evaluate_knowledge.smk",
            ("knowledge_scores", "knowledge_pairs", "knowledge_items"),
            "knowledge_scores",
            models=_embedder,
            results=(
                ResultsSource("knowledge_scores", f"{_SCHEMAS}:KNOWLEDGE_SCORES", f"{_ADAPTERS}:knowledge_results", corpus=True),
            ),
        ),
        # Marchisio et al. 2024: does the answer switch language part way (line level), or
        # mix in English words (word level, non-Latin scripts)?
        EvaluatorInfo(
            "language_confusion",
            "language_confusion",
            "evaluate_language_confusion.smk",
            ("language_confusion",),
            "language_confusion",
            needs=frozenset({PROMPT_LANGUAGE_ANSWERS}),
            models=_lid_model,
            results=(
                ResultsSource(
                    "language_confusion",
                    "xlcons.evaluators.language_confusion:LANGUAGE_CONFUSION",
                    "xlcons.evaluators.language_confusion:to_item_scores",
                ),
            ),
            derived=("xlcons.evaluators.language_confusion:LCPR",),
        ),
        # Paper 001 §5: the model under test as a translator, chrF and chrF++ per direction.
        EvaluatorInfo(
            "translation_ability",
            "translation_ability",
            "evaluate_translation_ability.smk",
            ("translation_items", "translation_directions"),
            "translation_directions",
            needs=frozenset({TRANSLATION_REQUESTS}),
            results=(
                ResultsSource(
                    "translation_directions",
                    "xlcons.evaluators.translation_ability:TRANSLATION_DIRECTIONS",
                    "xlcons.evaluators.translation_ability:to_results",
                    corpus=True,
                ),
            ),
        ),
    )
}


# The results rule's input of response tables, beside the evaluators' outputs: which
# requests failed, so that the scores resting on them are marked `error`.
RESPONSES_INPUT = "responses"
# And the quality estimates of the translated sentences (TRANSLATION_QE), when QE is on:
# each item's mean QE, and every translation-reading evaluator's scores on passing items.
QE_INPUT = "translation_qe"

# Every results source by its output name (unique across evaluators), with its evaluator:
# what the results rule names its inputs by.
RESULTS_SOURCES: dict[str, tuple[EvaluatorInfo, ResultsSource]] = {
    source.output: (info, source) for info in EVALUATORS.values() for source in info.results
}


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
        PROMPT_LANGUAGE_ANSWERS: "answers meant to be in the prompt's language (a translation set's are in its target language)",
        "references": "gold answers (a `reference` column)",
    }[need]
