"""The data set registry: every fact about a prompt set, built-in or declared by a user.

A data set is one `DatasetInfo`. The five built-in sets (the papers') are entries of
`BUILT_IN` with a loader module each; any other name under `datasets:` in the config is a
user set (a file of parallel prompts, or English prompts to translate) whose entry
`dataset_registry` derives from its config section, with `xlcons.datasets.user` as its
loader. The plan reads only these entries, so to the workflow a user set and MultiQ are
the same kind of thing. Standard library only at import time: the Snakefile reads the
registry while it builds the DAG.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from xlcons.languages import GUPTA2025_LANGUAGES, XING2024_LANGUAGES

# What a data set can offer an evaluator (xlcons.evaluators.registry states which it needs).
ENGLISH_QUESTION = "english_question"  # each item's question in English: an `en` row or `question_en`
REFERENCES = "references"  # gold answers
SEEKER_POST = "seeker_post"  # the prompt is an EPITOME seeker post (the empathy classifiers' input)
# Each prompt asks for a translation into its `category` language, the reference translation
# in `references` (FLORES-200).
TRANSLATION_REQUESTS = "translation_requests"
# The answers are meant to be in the prompt's language (every set but a translation task,
# whose answers are in the target language): what language fidelity and confusion check.
PROMPT_LANGUAGE_ANSWERS = "prompt_language_answers"
CAPABILITIES = (ENGLISH_QUESTION, REFERENCES, SEEKER_POST, TRANSLATION_REQUESTS, PROMPT_LANGUAGE_ANSWERS)

# The Language Confusion Benchmark's languages (monolingual task; the cross-lingual one has no English).
LCB_MONOLINGUAL_LANGUAGES = ("ar", "de", "en", "es", "fr", "hi", "id", "it", "ja", "ko", "pt", "ru", "tr", "vi", "zh")
LCB_CROSSLINGUAL_LANGUAGES = tuple(lang for lang in LCB_MONOLINGUAL_LANGUAGES if lang != "en")
_LCB_MIRROR = {
    "source_url": {
        "description": "A mirror of the Language Confusion Benchmark's repository (its layout: "
        "test_sets.zip, outputs/<model>.csv) to download its prompts and released completions from, "
        "instead of its pinned GitHub commit (one set's mirror serves both tasks and the completions).",
        "type": ["string", "null"],
        "default": None,
    }
}

USER_MODULE = "xlcons.datasets.user"
USER_TYPES = ("parallel", "translated")
USER_MAX_NEW_TOKENS = 512


@dataclass(frozen=True)
class DatasetInfo:
    name: str
    module: str  # holds `load(folder, languages, items, **options) -> pyarrow.Table` (PROMPTS)
    languages: tuple[str, ...] | None  # the languages `all` means; None: what the data has
    max_new_tokens: int  # the generation cap when the config gives none (papers' settings)
    source: str | None = None  # the released data set it is fetched as (xlcons.data_sources), if any
    options: tuple[str, ...] = ()  # keys of datasets.<name> passed on to `load`
    # The one language the set is written in, when the other languages are machine
    # translations of it (Gupta et al. 2025's prompts); `load` then returns that language only.
    translated_from: str | None = None
    provides: frozenset[str] = frozenset()  # CAPABILITIES it offers
    user: bool = False  # declared in the config, read by the user-set loader
    # ("module:function", what its ids are) reading {item id: domain} from the data with the
    # standard library, so the config check can name unknown items.ids (xlcons.datasets.item_ids).
    item_ids: tuple[str, str] | None = None
    # "module:function" (name, config entry) -> problems of its item selection that need no data.
    selection_rules: str | None = None
    # The loader also gets every language of the run under this keyword (FLORES: the targets
    # of each source language's prompts).
    run_languages_option: str | None = None
    answers_in_prompt_language: bool = True  # False: PROMPT_LANGUAGE_ANSWERS is not offered
    # Its prompts are text in their own language (False: an English request for an answer in
    # another): the faithful-text check (xlcons.measurability) scores them as answers.
    faithful_prompts: bool = True
    # The JSON schema of its config section, datasets.<name> (built by _config_section); the
    # config schema's built-in sets are these (xlcons.config.load_schema). None for a user set.
    config_schema: Mapping[str, Any] | None = None

    @property
    def kind(self) -> str:
        return "translated" if self.translated_from else "parallel"


def _config_section(description: str, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The schema of a built-in set's config section: the fields every set has (`$defs/dataset`),
    and its own options, each with a description and a default. Off unless named."""
    if not options:
        return {"description": description, "$ref": "#/$defs/dataset", "default": {"enabled": False}}
    return {
        "description": description,
        "type": "object",
        "default": {"enabled": False},
        "unevaluatedProperties": False,
        "allOf": [{"$ref": "#/$defs/dataset_fields"}],
        "properties": dict(options),
    }


BUILT_IN = {
    info.name: info
    for info in (
        # Holtermann et al. 2024: no system prompt, greedy, 256 new tokens; every question has an English row.
        DatasetInfo(
            "multiq",
            "xlcons.datasets.multiq",
            None,
            256,
            "multiq",
            provides=frozenset({ENGLISH_QUESTION}),
            item_ids=("xlcons.datasets.item_ids:multiq", "MultiQ ids (they look like gpt-1, lmsys-7)"),
            config_schema=_config_section(
                "MultiQ (Holtermann et al. 2024): 200 simple questions in "
                "137 languages. Off unless named; naming it turns it on."
            ),
        ),
        # Xing et al. 2024: short answers after five in-context examples, in its 12 languages.
        DatasetInfo(
            "makqa",
            "xlcons.datasets.makqa",
            XING2024_LANGUAGES,
            64,
            "makqa",
            ("domains", "few_shot", "variants", "seed"),
            provides=frozenset({ENGLISH_QUESTION, REFERENCES}),
            item_ids=("xlcons.datasets.item_ids:makqa", "MAKQA questions of the run's domains"),
            selection_rules="xlcons.datasets.item_ids:makqa_selection_problems",
            config_schema=_config_section(
                "MAKQA (Xing et al. 2024) — knowledge questions with gold answers in 12 languages.",
                {
                    "source_url": {
                        "description": "A mirror of Xing et al. 2024's repository (the same layout: "
                        "data/QA_merged_data_dict_<domain>.json, result/<model>/…) to download "
                        "MAKQA and the released outputs from, instead of its pinned GitHub commit.",
                        "type": ["string", "null"],
                        "default": None,
                    },
                    "domains": {
                        "description": "MAKQA domains to run.",
                        "type": "array",
                        "items": {
                            "enum": ["geo", "history", "literature", "movie", "science", "sport_club", "timeliness"]
                        },
                        "uniqueItems": True,
                        "default": ["geo", "history", "literature", "movie", "science", "sport_club", "timeliness"],
                    },
                    "few_shot": {
                        "description": "In-context examples per prompt, drawn (seeded) from the domain's example pool.",
                        "type": "integer",
                        "minimum": 0,
                        "default": 5,
                    },
                    "variants": {
                        "description": "Prompt variants (paper Table 5): `few_shot` (the paper's prompting: "
                        "examples then the question), `template` (entity and relation filled into a "
                        "fixed pattern), `zero_shot` (the question alone), `few_shot_native_instruction` "
                        "(examples with labels and a one-line instruction in the question's language).",
                        "type": "array",
                        "items": {"enum": ["few_shot", "template", "zero_shot", "few_shot_native_instruction"]},
                        "uniqueItems": True,
                        "minItems": 1,
                        "default": ["few_shot"],
                    },
                    "seed": {
                        "description": "Seed of the few-shot example draw (one draw per "
                        "domain, shared by every language, so the prompts stay parallel).",
                        "type": "integer",
                        "default": 0,
                    },
                },
            ),
        ),
        # Gupta et al. 2025: English prompts machine-translated into its 30 languages; long answers.
        DatasetInfo(
            "information",
            "xlcons.datasets.information",
            ("en", *GUPTA2025_LANGUAGES),
            1024,
            translated_from="en",
            provides=frozenset({ENGLISH_QUESTION}),
            config_schema=_config_section(
                "Gupta et al. 2025's information-seeking prompts (written by this project), translated from English."
            ),
        ),
        DatasetInfo(
            "empathy",
            "xlcons.datasets.empathy",
            ("en", *GUPTA2025_LANGUAGES),
            512,
            "epitome",
            translated_from="en",
            provides=frozenset({ENGLISH_QUESTION, SEEKER_POST}),
            item_ids=("xlcons.datasets.item_ids:empathy", "EPITOME seeker posts (sp_id)"),
            config_schema=_config_section(
                "Gupta et al. 2025's empathy prompts — EPITOME seeker "
                "posts from the test split, translated from English."
            ),
        ),
        # Xing et al. 2024 §5: FLORES-200 sentences for the model under test to translate, every
        # ordered pair of the run's languages (its 12: 132 directions).
        DatasetInfo(
            "flores",
            "xlcons.datasets.flores",
            XING2024_LANGUAGES,
            256,
            "flores200",
            ("split", "directions", "few_shot", "seed"),
            provides=frozenset({TRANSLATION_REQUESTS}),
            selection_rules="xlcons.datasets.item_ids:flores_selection_problems",
            run_languages_option="run_languages",
            answers_in_prompt_language=False,
            config_schema=_config_section(
                "FLORES-200 (Xing et al. 2024 §5): sentences the model under test translates among the run's "
                "languages (Xing et al. 2024's 12 by default: 132 directions), scored by "
                "`evaluators.translation_ability`. Fetched from the NLLB release (`flores200_dataset.tar.gz`, "
                "sha256-checked). `items.limit`: sentences per direction; `items.ids`: line numbers of the split.",
                {
                    "source_url": {
                        "description": "A mirror of https://dl.fbaipublicfiles.com/nllb/ "
                        "holding flores200_dataset.tar.gz, to download it from instead.",
                        "type": ["string", "null"],
                        "default": None,
                    },
                    "split": {
                        "description": "The split translated: `devtest` (1,012 sentences, the paper's) or `dev` (997).",
                        "enum": ["devtest", "dev"],
                        "default": "devtest",
                    },
                    "directions": {
                        "description": "`all` (every ordered pair of the run's "
                        "languages) or a list of [source, target] pairs among them.",
                        "anyOf": [
                            {"const": "all"},
                            {
                                "type": "array",
                                "items": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2},
                                "minItems": 1,
                            },
                        ],
                        "default": "all",
                    },
                    "few_shot": {
                        "description": "Example translations before each sentence, from the `dev` split "
                        "(one seeded draw for all directions); 0 is zero-shot, as in the paper.",
                        "type": "integer",
                        "minimum": 0,
                        "default": 0,
                    },
                    "seed": {"description": "Seed of the few-shot example draw.", "type": "integer", "default": 0},
                },
            ),
        ),
        # The Language Confusion Benchmark (Marchisio et al. 2024): prompts whose answers are
        # checked for language confusion; its completions were capped at 100 new tokens.
        DatasetInfo(
            "lcb-monolingual",
            "xlcons.datasets.lcb_monolingual",
            LCB_MONOLINGUAL_LANGUAGES,
            100,
            "lcb",
            item_ids=(
                "xlcons.datasets.item_ids:lcb_monolingual",
                "Language Confusion Benchmark ids (monolingual/<source>/<row>)",
            ),
            config_schema=_config_section(
                "The Language Confusion Benchmark's monolingual task (Marchisio et al. 2024): "
                "prompts written in the language the answer must be in, 15 languages (Aya, Dolly, "
                "Okapi, native prompts). Not parallel: each language has its own prompts. "
                "`items.domains`: its sources; `items.limit`: the first N prompts of each source.",
                _LCB_MIRROR,
            ),
        ),
        DatasetInfo(
            "lcb-crosslingual",
            "xlcons.datasets.lcb_crosslingual",
            LCB_CROSSLINGUAL_LANGUAGES,
            100,
            "lcb",
            item_ids=(
                "xlcons.datasets.item_ids:lcb_crosslingual",
                "Language Confusion Benchmark ids (crosslingual/<source>/<row>)",
            ),
            faithful_prompts=False,
            config_schema=_config_section(
                "The Language Confusion Benchmark's cross-lingual task: English prompts asking for an answer in "
                "one of 14 other languages (Okapi, ShareGPT, complex prompts); a prompt's language is the one its "
                "answer must be in, which fidelity and language confusion check. `items` as for lcb-monolingual.",
                _LCB_MIRROR,
            ),
        ),
    )
}


def user_dataset_info(name: str, spec: Mapping[str, Any]) -> DatasetInfo:
    """The entry of a user set, from its config section (schema defaults filled in)."""
    columns = spec.get("columns") or {}
    provides = set()
    if columns.get("reference"):
        provides.add(REFERENCES)
    if columns.get("question_en") or spec["type"] == "translated":
        provides.add(ENGLISH_QUESTION)
    # A parallel file with English rows also gives every item its English question; whether
    # it has them is known once the file is read (the plan asks xlcons.datasets.user).
    return DatasetInfo(
        name,
        USER_MODULE,
        None,
        USER_MAX_NEW_TOKENS,
        options=("type", "columns", "hf_dataset", "split"),
        translated_from="en" if spec["type"] == "translated" else None,
        provides=frozenset(provides),
        user=True,
    )


def dataset_registry(datasets_config: Mapping[str, Any]) -> dict[str, DatasetInfo]:
    """Every data set the config can run: the built-in ones, then the user sets it declares."""
    registry = dict(BUILT_IN)
    for name, spec in datasets_config.items():
        if name not in BUILT_IN:
            registry[name] = user_dataset_info(name, spec)
    return registry


def load_prompts(dataset: DatasetInfo | str, folder, languages, items, options=None):
    """The prompts of a data set (an entry, or a built-in set's name) in the given languages (PROMPTS schema)."""
    if isinstance(dataset, str):
        if dataset not in BUILT_IN:
            raise KeyError(f"data set '{dataset}' is not built in; available: {', '.join(sorted(BUILT_IN))}")
        dataset = BUILT_IN[dataset]
    return run_loader(dataset.module, folder, languages, items, options)


def run_loader(module: str, folder, languages, items, options=None):
    """Call a loader module by name (what the prompts rule hands its script)."""
    return importlib.import_module(module).load(folder, languages, items, **(options or {}))


def data_folder(info: DatasetInfo, spec: Mapping[str, Any], resources: str = "resources") -> str | None:
    """Where a data set's files are: its configured path, or the copy its fetch job writes."""
    return spec.get("path") or (f"{resources}/data/{info.source}" if info.source else None)


def dataset_options(info: DatasetInfo, spec: Mapping[str, Any]) -> dict:
    """The loader's own options, from the data set's config section (a user set also gets its name)."""
    options = {key: spec.get(key) for key in info.options}
    return {"name": info.name, **options} if info.user else options
