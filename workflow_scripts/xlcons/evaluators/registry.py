"""The evaluator registry, one entry each: every fact the workflow needs about an evaluator.

An entry says what the evaluator needs from a data set (checked against the data set
registry before anything is scheduled, with the evaluator and the data set named), which
models it loads (config keys under its section), what it reads (the answers, or their
English translations: a data set scored by such an evaluator has its answers translated),
the rule file that runs it, the files one (data set, model) job writes under
``evaluations/<data set>/<model>/``, and how the results stage reads them (per-item table
schema, adapter to ITEM_SCORES, derived metrics), as "module:name" strings resolved when
the results job runs, its config section (the JSON schema of ``evaluators.<section>``, which
xlcons.config.load_schema adds to the schema file) and the function each of its rules runs
(through the one evaluator script, workflow_scripts/evaluate.py). Which data sets it scores
is config (``evaluators.<name>.datasets``, defaulting to what its section declares).

Adding an evaluator is an entry here, its module, its rule file and its tests (see
docs/extending.md). Standard library only: the Snakefile reads it while it builds the DAG.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from xlcons.config_sections import closed_section
from xlcons.data_sources import LCB_WORDS_SHA256, LCB_WORDS_URL, LID176_SHA256, LID176_URL
from xlcons.datasets import ENGLISH_QUESTION, PROMPT_LANGUAGE_ANSWERS, SEEKER_POST, TRANSLATION_REQUESTS
from xlcons.item_scores import ENGLISH_ANSWER, OWN_ANSWER  # the answers a score rests on

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
    # The JSON schema of its config section, evaluators.<section> (built by _section); None for
    # an entry that shares another's section. The config schema's `evaluators` is assembled from these.
    options: Mapping[str, Any] | None = None
    # What each of its rules runs: rule name -> "module:function", called by the one evaluator
    # script (workflow_scripts/evaluate.py) with the Snakemake job object.
    jobs: Mapping[str, str] = field(default_factory=dict)
    # Its scores rest on the primary translator's output although it reads no translation table
    # (the translationese round trips): the results' `translator` column names it.
    through_primary_translator: bool = False

    def model_keys(self, section: Mapping[str, Any]) -> tuple[str, ...]:
        """Config keys of the models it loads: `models` gives them under its own section, or whole."""
        return tuple(key if "." in key else f"evaluators.{self.section}.{key}" for key in self.models(section))


def _llm(section: Mapping[str, Any]) -> tuple[str, ...]:
    return ("llm",)


def _lid_model(section: Mapping[str, Any]) -> tuple[str, ...]:
    return ("evaluators.language_id.model",)


LCB_MODEL_KEY = "evaluators.language_confusion.model"
LCB_WORDS_KEY = "evaluators.language_confusion.words"


def _language_confusion_models(section: Mapping[str, Any]) -> tuple[str, ...]:
    """The benchmark's rule reads its own lid.176 and word list; the strict rule the language_id model."""
    if section.get("rule", "lcb") == "lcb":
        return (LCB_MODEL_KEY, LCB_WORDS_KEY)
    return _lid_model(section)


def _embedder(section: Mapping[str, Any]) -> tuple[str, ...]:
    return ("embedder",) if section.get("embedder") is not None else ()


def _encoder(section: Mapping[str, Any]) -> tuple[str, ...]:
    return ("encoder",) if section["classifier"] == "encoder" else ()


def _round_trips(section: Mapping[str, Any]) -> bool:
    return bool(section["round_trip_languages"])


def _section(
    description: str, datasets: list[str] | str, datasets_description: str, properties: Mapping[str, Any]
) -> dict[str, Any]:
    """The schema of an evaluator's config section: its options, and `datasets` (the sets it scores by default)."""
    datasets_key = {"description": datasets_description, "$ref": "#/$defs/dataset_names", "default": datasets}
    return closed_section(description, {**properties, "datasets": datasets_key})


def _schedule(learning_rate: float, epochs: int) -> dict[str, Any]:
    """One EPITOME mechanism's fine-tuning schedule, with that mechanism's own defaults (a partial
    override such as `EX: {epochs: 3}` keeps the paper's learning rate of EX)."""
    return closed_section(
        f"The mechanism's fine-tuning schedule (paper 000: learning rate {learning_rate}, {epochs} epochs).",
        {
            "learning_rate": {
                "description": "Peak learning rate.",
                "type": "number",
                "exclusiveMinimum": 0,
                "default": learning_rate,
            },
            "epochs": {"description": "Training epochs.", "type": "integer", "minimum": 1, "default": epochs},
        },
    )


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
            options=_section(
                "Language identification of responses (MultiQ language fidelity; source language of translations).",
                ["multiq"],
                "Data sets whose answers get language fidelity (paper 004): the share answered in the prompted language, in English, in another. Needs nothing of a data set.",
                {
                    "model": {
                        "description": "A fastText language-ID model file (GlotLID by default; lid.176 or any fastText LID model by path).",
                        "$ref": "#/$defs/model_source",
                        "default": {"hf_id": "cis-lmu/glotlid", "hf_file": "model.bin"},
                    },
                    "label_scheme": {
                        "description": "How the model's labels map to the language registry: `glotlid` (`__label__<iso639-3>_<Script>`, matched on ISO 639-3 against the registry's glotlid_labels) or `lid176` (`__label__<code>`, matched against lid176_labels).",
                        "enum": ["glotlid", "lid176"],
                        "default": "glotlid",
                    },
                    "unsupported_languages": {
                        "description": "Languages the LID model cannot recognise; excluded from fidelity and reported as excluded (GlotLID knows neither Meiteilon nor Dogri).",
                        "type": "array",
                        "items": {"type": "string"},
                        "default": ["mni-Mtei", "doi"],
                    },
                    "robust": {
                        "description": "Paper 004's robustness variant — drop the numeric questions and responses under 10 characters.",
                        "type": "boolean",
                        "default": False,
                    },
                },
            ),
            jobs={"language_id": "xlcons.evaluators.language_id:rule_language_id"},
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
            options=_section(
                "The LLM judge of MultiQ answer correctness (paper 004's yes/no instruction).",
                ["multiq"],
                "Data sets whose answers the judge scores; each needs an English question per item (English rows, or a `question_en` column).",
                {
                    "llm": {
                        "description": "The judge model; any generation backend.",
                        "$ref": "#/$defs/llm",
                        "default": {"hf_id": "Qwen/Qwen2.5-7B-Instruct", "backend": "vllm"},
                    }
                },
            ),
            jobs={"judge": "xlcons.evaluators.judge:rule_judge"},
        ),
        # Paper 004 Table 5: how each generator's tokenizer cuts each language's prompts.
        EvaluatorInfo(
            "tokenization",
            "tokenization",
            "evaluate_tokenization.smk",
            ("tokenization",),
            "tokenization",
            tokenizer_models_only=True,
            options=_section(
                "How each generator's tokenizer cuts each language's prompts (paper 004, Table 5); generators with a local tokenizer only.",
                ["multiq"],
                "Data sets whose prompts are tokenized.",
                {},
            ),
            jobs={"tokenization": "xlcons.evaluators.tokenization:rule_tokenization"},
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
            options=_section(
                "Information consistency (atomic fact extraction and verification by an LLM).",
                ["information"],
                "Data sets scored for information consistency; each needs English among its languages. Their answers are translated to English.",
                {
                    "llm": {
                        "description": "The fact extraction and verification model (paper 000 used Qwen-2.5-14B).",
                        "$ref": "#/$defs/llm",
                        "default": {"hf_id": "Qwen/Qwen2.5-14B-Instruct", "backend": "vllm"},
                    },
                    "extraction_max_new_tokens": {
                        "description": "Token cap of one fact-extraction answer (the facts of one sentence). The LLM's own decoding.max_new_tokens wins when set.",
                        "type": "integer",
                        "minimum": 1,
                        "default": 256,
                    },
                    "verification_max_new_tokens": {
                        "description": "Token cap of one verification answer (Supported / Not supported).",
                        "type": "integer",
                        "minimum": 1,
                        "default": 32,
                    },
                    "max_facts_per_sentence": {
                        "description": "Facts kept per sentence at most (a looping extractor cannot flood the verifier).",
                        "type": "integer",
                        "minimum": 1,
                        "default": 24,
                    },
                    "round_trip_languages": {
                        "description": "Translationese check (paper 000's self-consistency table): each model's English answers go en → l → en through the translator for these languages and are scored against the originals. Empty: no check.",
                        "type": "array",
                        "items": {"type": "string"},
                        "uniqueItems": True,
                        "default": [],
                    },
                },
            ),
            jobs={"information_consistency": "xlcons.evaluators.information.stage:rule_information_consistency"},
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
            answers=(ENGLISH_ANSWER,),  # the English answer and its own round trip,
            jobs={"translationese_check": "xlcons.evaluators.information.stage:rule_translationese_check"},
            through_primary_translator=True,
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
            options=_section(
                "Empathy consistency (EPITOME classifiers for ER, IP, EX).",
                ["empathy"],
                "Data sets scored for empathy consistency; each needs EPITOME seeker posts as prompts (the built-in `empathy` set) and English among its languages. Their answers are translated to English.",
                {
                    "classifier": {
                        "description": "`tfidf` (TF-IDF + logistic regression, trains on a CPU in seconds) or `encoder` (a fine-tuned transformer encoder, trained on a GPU).",
                        "enum": ["tfidf", "encoder"],
                        "default": "tfidf",
                    },
                    "encoder": {
                        "description": "The encoder to fine-tune when classifier is `encoder` (paper 000 used ModernBERT-large).",
                        "$ref": "#/$defs/model_source",
                        "default": {"hf_id": "answerdotai/ModernBERT-large"},
                    },
                    "seed": {
                        "description": "Seed of the encoder's training (the train/dev/test split is the committed seed-42 file, the same for every user).",
                        "type": "integer",
                        "default": 42,
                    },
                    "train_on": {
                        "description": "`train+dev` (the paper's final models) or `train` (keeps dev for selection; required by encoder_training.select_on_dev).",
                        "enum": ["train+dev", "train"],
                        "default": "train+dev",
                    },
                    "tfidf": {
                        "description": "TF-IDF + logistic regression settings.",
                        "type": "object",
                        "default": {},
                        "additionalProperties": False,
                        "properties": {
                            "C": {
                                "description": "Inverse regularisation strength of the logistic regression (chosen once on dev).",
                                "type": "number",
                                "exclusiveMinimum": 0,
                                "default": 4.0,
                            },
                            "class_weight": {
                                "description": "`balanced` reweights the classes by their frequency; null trains unweighted.",
                                "enum": ["balanced", None],
                                "default": None,
                            },
                        },
                    },
                    "encoder_training": {
                        "description": "Fine-tuning settings of the encoder shared by the three mechanisms.",
                        "type": "object",
                        "default": {},
                        "additionalProperties": False,
                        "properties": {
                            "batch_size": {
                                "description": "Training batch size per device.",
                                "type": "integer",
                                "minimum": 1,
                                "default": 16,
                            },
                            "max_length": {
                                "description": "Token cap of a (seeker post, response) pair.",
                                "type": "integer",
                                "minimum": 8,
                                "default": 512,
                            },
                            "warmup_ratio": {
                                "description": "Share of the steps with linear warm-up.",
                                "type": "number",
                                "minimum": 0,
                                "maximum": 1,
                                "default": 0.1,
                            },
                            "weight_decay": {
                                "description": "AdamW weight decay.",
                                "type": "number",
                                "minimum": 0,
                                "default": 0.01,
                            },
                            "select_on_dev": {
                                "description": "Evaluate on dev after every epoch and keep the best epoch (tuning; needs train_on `train`).",
                                "type": "boolean",
                                "default": False,
                            },
                            "max_steps": {
                                "description": "Stop after this many optimiser steps (smoke runs); null trains every epoch.",
                                "type": ["integer", "null"],
                                "minimum": 1,
                                "default": None,
                            },
                        },
                    },
                    "hyperparameters": {
                        "description": "Learning rate and epochs per mechanism (paper 000's by default).",
                        "type": "object",
                        "default": {},
                        "additionalProperties": False,
                        "properties": {
                            "ER": _schedule(2.5e-5, 10),
                            "IP": _schedule(2.5e-5, 10),
                            "EX": _schedule(5.5e-5, 5),
                        },
                    },
                },
            ),
            jobs={
                "train_empathy_classifier": "xlcons.evaluators.empathy.training:rule_train_empathy_classifier",
                "empathy_consistency": "xlcons.evaluators.empathy.profiles:rule_empathy_consistency",
            },
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
            options=_section(
                "Knowledge consistency on MAKQA (xSC, xAC, xTC, xC).",
                ["makqa"],
                "Data sets scored for knowledge consistency. Any set of parallel items gets xSC; one with gold answers (MAKQA, or a user set with a `reference` column) also xAC, and xTC for a `timeliness` category. Add `multiq` for the xSC of MultiQ's answers.",
                {
                    "embedder": {
                        "description": "The sentence embedder of xSC (LaBSE by default; any sentence-transformers model). Null leaves xSC (and xC) missing, never zero.",
                        "anyOf": [{"$ref": "#/$defs/model_source"}, {"type": "null"}],
                        "default": {"hf_id": "sentence-transformers/LaBSE"},
                    },
                    "oracle": {
                        "description": "Also score the gold answers as if they were a model (the paper's Oracle row of xSC).",
                        "type": "boolean",
                        "default": True,
                    },
                    "oracle_answers": {
                        "description": "What the Oracle embeds per question: `joined` (all gold answers, comma-joined) or `first` (the first gold answer).",
                        "enum": ["joined", "first"],
                        "default": "joined",
                    },
                    "timeliness_ranking": {
                        "description": "How xTC ranks the timeliness candidates: `recency` (rank 1 = most recent, the paper's text) or `list_position` (rank 1 = first listed, the released code and published numbers).",
                        "enum": ["recency", "list_position"],
                        "default": "recency",
                    },
                },
            ),
            jobs={"knowledge_scores": "xlcons.evaluators.knowledge:rule_knowledge_scores"},
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
            models=_language_confusion_models,
            results=(
                ResultsSource(
                    "language_confusion",
                    "xlcons.evaluators.language_confusion:LANGUAGE_CONFUSION",
                    "xlcons.evaluators.language_confusion:to_item_scores",
                ),
            ),
            derived=("xlcons.evaluators.language_confusion:LCPR",),
            options=_section(
                "Language confusion (Marchisio et al. 2024): line-level language ID of every answer (does it switch language part way?) and, for non-Latin-script languages, English words inside it; reported as line-level and word-level pass rates and their harmonic mean. By default exactly as the Language Confusion Benchmark's scorer defines them (docs/language-confusion.md).",
                "all",
                "Data sets whose answers are checked for language confusion; needs nothing of a data set. `all`: every enabled data set.",
                {
                    "rule": {
                        "description": "`lcb`: the Language Confusion Benchmark's scorer (compute_metrics.py at commit 0cfdbb4): punctuation removed, lines split on newlines, tokens by jieba/fugashi/whitespace, fastText lid.176 (`model`) with a line at or below probability 0.3 `unknown` and an error, the exact label required, English words from its word list (`words`), WPR over the answers without a line error. `strict`: xlcons's earlier rule (language_id's model, lines below `min_confidence` skipped, any Latin-script word outside code counts as English); see docs/language-confusion.md for every difference.",
                        "enum": ["lcb", "strict"],
                        "default": "lcb",
                    },
                    "model": {
                        "description": "The `lcb` rule's language-ID model: fastText's lid.176.bin, fetched from its pinned URL (sha256 checked), or a local file (`path`, e.g. lid.176.ftz).",
                        "$ref": "#/$defs/model_source",
                        "default": {"url": LID176_URL, "sha256": LID176_SHA256, "name": "lid176"},
                    },
                    "words": {
                        "description": "The `lcb` rule's English word list (one word per line; entries in lower case and longer than three letters count): the benchmark's `words`, fetched from its pinned commit (sha256 checked), or a local file (`path`).",
                        "$ref": "#/$defs/model_source",
                        "default": {"url": LCB_WORDS_URL, "sha256": LCB_WORDS_SHA256, "name": "lcb-words"},
                    },
                    "min_line_tokens": {
                        "description": "Lines with fewer tokens are not judged (too short to identify); the benchmark's 5.",
                        "type": "integer",
                        "minimum": 1,
                        "default": 5,
                    },
                    "min_confidence": {
                        "description": "`strict` rule only: a line whose top language-ID probability is below this is unknown (not judged).",
                        "type": "number",
                        "minimum": 0,
                        "maximum": 1,
                        "default": 0.5,
                    },
                },
            ),
            jobs={
                "language_confusion": "xlcons.evaluators.language_id:rule_language_confusion",
                "language_confusion_report": "xlcons.reports.language_confusion:rule_language_confusion_report",
                "lcb_tasks": "xlcons.reports.lcb:rule_lcb_tasks",
            },
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
            options=_section(
                "The model under test as a translator (paper 001 §5): chrF and chrF++ (sacrebleu, corpus level) of its translations per direction, per language, and their correlation with xSC/xAC when MAKQA is scored in the same run.",
                ["flores"],
                "Data sets of translation requests scored (each needs a target language and a reference per prompt: the built-in `flores`).",
                {
                    "answer": {
                        "description": "What of an answer is scored: `answer` (the translation without a chat model's wrapping: preamble, label line or prefix, quotes, markdown, trailing note; of a multi-line answer without wrapping, its first line; see docs/translation-ability.md), `first_line` (the first non-empty line, an echoed `<target language>:` label removed) or `whole` (the stripped answer).",
                        "enum": ["answer", "first_line", "whole"],
                        "default": "answer",
                    }
                },
            ),
            jobs={"translation_ability": "xlcons.evaluators.translation_ability:rule_translation_ability"},
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
        PROMPT_LANGUAGE_ANSWERS: "answers meant to be in the prompt's language (a translation set's are in its target language)",
        "references": "gold answers (a `reference` column)",
    }[need]
