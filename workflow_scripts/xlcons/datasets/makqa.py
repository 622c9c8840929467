"""MAKQA (Xing et al. 2024): knowledge questions with gold answers in 12 languages.

The release has one file per domain, ``QA_merged_data_dict_<domain>.json``: a dict keyed
``"<QID>-<PID>"`` (Wikidata head entity and relation) whose ``qa_data[lang]`` is
``[question, [gold answers]]`` and whose ``triple[lang]`` is ``[entity label, relation
label, [answers]]``. ``QA_example_merged_data_dict_<domain>.json`` is the domain's pool of
few-shot examples (20 per domain, 6 for timeliness), disjoint from the questions. In the
timeliness domain the gold list is the ordered list of candidate answers, oldest first
(J. J. Watt: Central Michigan, Wisconsin, Houston Texans, Arizona Cardinals).

Counts (7 domains, 2,027 questions): geo 266, history 369, literature 145, movie 412,
science 472, sport_club 233, timeliness 130. (The paper's Table 1 lists other counts,
2,153 in total; the release is what is loaded.)

Items
    ``item_id`` is ``"<domain>/<QID>-<PID>"`` for the default variant (``few_shot``, the
    paper's setting, under which the released GPT-3.5 outputs were produced, so
    :mod:`xlcons.datasets.makqa_released` maps them onto these ids) and ``"<variant>:<domain>/<QID>-<PID>"``
    for every other variant. ``category`` is the domain, ``references`` the gold answers as
    released (timeliness: the candidate list, oldest first), ``source_lang`` the language.

Selection (``items``)
    ``domains`` keeps only those domains (they must be among the ``domains`` argument);
    ``ids`` selects exactly these questions (``"<domain>/<QID>-<PID>"``, without a variant
    prefix), in the configured order; ``limit`` keeps the first N questions **per domain**
    (in file order, or in the order of ``ids``), so a small run still covers every domain.

Prompts
    Per domain, ``few_shot`` examples are drawn from the domain's pool with
    ``random.Random(f"makqa:{seed}:{domain}")`` (stable across machines and Python
    versions), in pool-file order before sampling. The same examples serve every question
    of the domain and every language (each in that language), so the prompts of one
    question are parallel across languages, as the paper needs ("for each domain, five
    reference examples randomly selected from 20 curated examples"). The paper's prompt
    text is not published; the wording below is this project's. An example's answer is its
    gold answers joined by ", " (at most :data:`MAX_EXAMPLE_ANSWERS`, the first listed; for
    timeliness the most recent candidate, the last listed), which shows the model that a
    short answer is wanted.

Variants (paper Table 5 has three prompts: the original question, a standardized template
filled with the entity and relation, and a GPT-4 rewrite of the question)
    ``few_shot``  Table 5's Prompt 1 and the main experiments: the examples and the original
        question, in a plain ``Question: … / Answer: …`` layout (the labels are English in
        every language: a fixed scaffold, the question and answers are in the language).
    ``template``  Table 5's Prompt 2: the same, but every question (examples and target) is
        the standardized query ``"<entity>: <relation>?"`` built from the release's
        ``triple[lang]`` labels (``"Prague: continent?"``, ``"プラハ: 大陸？"``).
    ``zero_shot``  not in the paper: the original question alone in the same layout (an
        ablation of the examples; ``few_shot`` is ignored).
    ``few_shot_native_instruction``  not in the paper: ``few_shot`` with the labels and a
        one-line instruction ("answer each question briefly") in the question's language
        (wording by this project; see :data:`NATIVE_LABELS`).
    Table 5's Prompt 3 (GPT-4 rewrites) is not in the release and is not offered.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import pyarrow as pa

from xlcons.datasets.item_ids import MAKQA_FILE
from xlcons.languages import XING2024_LANGUAGES
from xlcons.schemas import PROMPTS

DATASET = "makqa"
DOMAINS = ("geo", "history", "literature", "movie", "science", "sport_club", "timeliness")
TIMELINESS = "timeliness"
# The six domains xSC and xAC are computed on (xTC uses timeliness).
KNOWLEDGE_DOMAINS = tuple(domain for domain in DOMAINS if domain != TIMELINESS)
# The paper's 12 languages, in the order of the release.
LANGUAGES = XING2024_LANGUAGES
QUESTIONS_FILE = MAKQA_FILE
EXAMPLES_FILE = "QA_example_merged_data_dict_{domain}.json"
MAX_EXAMPLE_ANSWERS = 3
DEFAULT_VARIANT = "few_shot"
EXAMPLE_SEPARATOR = "\n\n"


@dataclass(frozen=True)
class Variant:
    name: str
    examples: bool  # few-shot examples before the question
    template: bool  # questions built from the triple (entity, relation) instead of the original
    native: bool  # labels and instruction in the question's language
    description: str


VARIANTS = {
    v.name: v
    for v in (
        Variant("few_shot", True, False, False, "Table 5 Prompt 1 (main setting): k examples + the original question"),
        Variant(
            "template", True, True, False, "Table 5 Prompt 2: k examples + '<entity>: <relation>?' from the triple"
        ),
        Variant("zero_shot", False, False, False, "the original question alone (not in the paper)"),
        Variant(
            "few_shot_native_instruction",
            True,
            False,
            True,
            "few_shot with labels and a short-answer instruction in the question's language (not in the paper)",
        ),
    )
}

# (question label, answer label, instruction) per language, for few_shot_native_instruction.
# Written for this project; a native speaker's review is welcome.
NATIVE_LABELS = {
    "en": ("Question", "Answer", "Answer each question briefly."),
    "zh": ("问题", "答案", "请简短地回答每个问题。"),
    "fr": ("Question", "Réponse", "Réponds brièvement à chaque question."),
    "es": ("Pregunta", "Respuesta", "Responde brevemente a cada pregunta."),
    "ru": ("Вопрос", "Ответ", "Кратко ответь на каждый вопрос."),
    "ja": ("質問", "答え", "それぞれの質問に短く答えてください。"),
    "it": ("Domanda", "Risposta", "Rispondi brevemente a ogni domanda."),
    "de": ("Frage", "Antwort", "Beantworte jede Frage kurz."),
    "pt": ("Pergunta", "Resposta", "Responda brevemente a cada pergunta."),
    "ko": ("질문", "답변", "각 질문에 짧게 답하세요."),
    "el": ("Ερώτηση", "Απάντηση", "Απάντησε σύντομα σε κάθε ερώτηση."),
    "nl": ("Vraag", "Antwoord", "Beantwoord elke vraag kort."),
}
FULL_WIDTH_QUESTION_MARK = {"zh", "ja"}


class MAKQAError(ValueError):
    """The release or the selection is not what the config asks for; the message says which."""


# -- ids ------------------------------------------------------------------------------------
def item_id(domain: str, key: str, variant: str = DEFAULT_VARIANT) -> str:
    base = f"{domain}/{key}"
    return base if variant == DEFAULT_VARIANT else f"{variant}:{base}"


def parse_item_id(value: str) -> tuple[str, str, str]:
    """``"[variant:]domain/QID-PID"`` -> (variant, domain, key)."""
    variant, sep, rest = value.partition(":")
    if not sep:
        variant, rest = DEFAULT_VARIANT, value
    domain, sep, key = rest.partition("/")
    if not sep or not key or domain not in DOMAINS or variant not in VARIANTS:
        raise MAKQAError(
            f"{value!r} is not a MAKQA item id ('<domain>/<QID>-<PID>' or '<variant>:<domain>/<QID>-<PID>'; "
            f"domains {', '.join(DOMAINS)}; variants {', '.join(VARIANTS)})"
        )
    return variant, domain, key


# -- reading the release -------------------------------------------------------------------
def read_json_file(path: Path | str, error: type[Exception]):
    """A JSON file's content; a file that is not JSON (truncated, not UTF-8) raises `error`
    naming the file, the line and the column."""
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except json.JSONDecodeError as bad:
        raise error(
            f"{path}, line {bad.lineno}, column {bad.colno}: not valid JSON ({bad.msg}); "
            f"the file is damaged or cut short: fetch it again"
        ) from None
    except UnicodeDecodeError as bad:
        raise error(f"{path}: byte {bad.start} is not UTF-8; the file is damaged: fetch it again") from None


def _read_json(path: Path) -> dict:
    stat = path.stat()
    return _read_json_cached(str(path), stat.st_size, stat.st_mtime_ns)


@lru_cache(maxsize=32)
def _read_json_cached(path: str, size: int, mtime_ns: int) -> dict:
    data = read_json_file(path, MAKQAError)
    if not isinstance(data, dict):
        raise MAKQAError(f"{path}: expected a dict keyed '<QID>-<PID>', found a {type(data).__name__}")
    return data


def read_domain(folder: Path | str, domain: str, *, examples: bool = False) -> dict[str, dict]:
    """One domain's questions (or its example pool), in file order."""
    if domain not in DOMAINS:
        raise MAKQAError(f"unknown MAKQA domain {domain!r}; MAKQA has {', '.join(DOMAINS)}")
    path = Path(folder) / (EXAMPLES_FILE if examples else QUESTIONS_FILE).format(domain=domain)
    if not path.is_file():
        raise MAKQAError(f"MAKQA {domain}: {path} not found (fetch the release, or set datasets.makqa.path)")
    return _read_json(path)


def _qa(entry: dict, lang: str, *, path: str, key: str) -> tuple[str, list[str]]:
    qa = (entry.get("qa_data") or {}).get(lang)
    if not qa or len(qa) != 2 or not isinstance(qa[0], str) or not isinstance(qa[1], list):
        raise MAKQAError(f"{path}: item {key} has no question in language {lang!r} (qa_data[{lang!r}])")
    return qa[0], [str(answer) for answer in qa[1]]


def _triple(entry: dict, lang: str, *, path: str, key: str) -> tuple[str, str]:
    triple = (entry.get("triple") or {}).get(lang)
    if not triple or len(triple) < 2 or not triple[0] or not triple[1]:
        raise MAKQAError(f"{path}: item {key} has no triple (entity, relation) in language {lang!r}")
    return str(triple[0]), str(triple[1])


# -- prompts -------------------------------------------------------------------------------
def template_question(entity: str, relation: str, lang: str) -> str:
    mark = "？" if lang in FULL_WIDTH_QUESTION_MARK else "?"
    return f"{entity}: {relation}{mark}"


def example_answer(golds: Sequence[str], domain: str) -> str:
    if domain == TIMELINESS:
        return golds[-1]  # the most recent candidate
    return ", ".join(golds[:MAX_EXAMPLE_ANSWERS])


def draw_examples(
    pool: Mapping[str, dict], k: int, *, domain: str, seed: int, exclude: set[str] | frozenset[str] = frozenset()
) -> list[str]:
    """The keys of the k examples of a domain: seeded, the same for every question and language."""
    keys = [key for key in pool if key not in exclude]
    if k > len(keys):
        raise MAKQAError(f"datasets.makqa.few_shot: {k} examples asked, but the {domain} pool has {len(keys)}")
    return random.Random(f"makqa:{seed}:{domain}").sample(keys, k)


def build_prompt(variant: Variant, lang: str, question: str, examples: Sequence[tuple[str, str]]) -> str:
    q_label, a_label, instruction = NATIVE_LABELS[lang] if variant.native else NATIVE_LABELS["en"][:2] + (None,)
    blocks = [instruction] if instruction else []
    blocks += [f"{q_label}: {q}\n{a_label}: {a}" for q, a in examples]
    blocks.append(f"{q_label}: {question}\n{a_label}:")
    return EXAMPLE_SEPARATOR.join(blocks)


# -- selection -----------------------------------------------------------------------------
def select_items(
    questions: Mapping[str, Mapping[str, dict]], items: Mapping[str, Any], domains: Sequence[str]
) -> list[tuple[str, str]]:
    """(domain, key) pairs: filtered by domain, exactly `ids` if given, then `limit` per domain."""
    items = items or {}
    chosen = list(domains)
    if items.get("domains"):
        unknown = [d for d in items["domains"] if d not in domains]
        if unknown:
            raise MAKQAError(f"datasets.makqa.items.domains: {unknown} not among the run's domains {list(domains)}")
        chosen = [d for d in domains if d in items["domains"]]
    if items.get("ids"):
        selected = []
        for value in items["ids"]:
            domain, sep, key = value.partition("/")
            if not sep or ":" in domain or domain not in DOMAINS:
                raise MAKQAError(
                    f"datasets.makqa.items.ids: {value!r} is not '<domain>/<QID>-<PID>' (e.g. geo/Q1085-P30)"
                )
            if domain not in domains:
                raise MAKQAError(
                    f"datasets.makqa.items.ids: {value!r} is in domain {domain!r}, not among {list(domains)}"
                )
            if key not in questions[domain]:
                raise MAKQAError(f"datasets.makqa.items.ids: {value!r}: no question {key} in the {domain} file")
            if domain in chosen:
                selected.append((domain, key))
    else:
        selected = [(domain, key) for domain in chosen for key in questions[domain]]
    if items.get("limit"):
        counts: dict[str, int] = {}
        kept = []
        for domain, key in selected:
            counts[domain] = counts.get(domain, 0) + 1
            if counts[domain] <= items["limit"]:
                kept.append((domain, key))
        selected = kept
    return selected


def load(
    folder: Path | str,
    languages: Sequence[str],
    items: Mapping[str, Any] | None,
    *,
    domains: Sequence[str] | None = None,
    few_shot: int = 5,
    variants: Sequence[str] = (DEFAULT_VARIANT,),
    seed: int = 0,
) -> pa.Table:
    """MAKQA prompts (PROMPTS schema), ordered by variant, language, domain, then question."""
    domains = list(DOMAINS if domains is None else domains)
    unknown = [d for d in domains if d not in DOMAINS]
    if unknown:
        raise MAKQAError(f"datasets.makqa.domains: unknown domains {unknown}; MAKQA has {', '.join(DOMAINS)}")
    unknown = [lang for lang in languages if lang not in LANGUAGES]
    if unknown:
        raise MAKQAError(
            f"datasets.makqa.languages: MAKQA has no questions in {unknown}; it has {', '.join(LANGUAGES)}"
        )
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        raise MAKQAError(f"datasets.makqa.variants: unknown prompt variants {unknown}; known: {', '.join(VARIANTS)}")
    if few_shot < 0:
        raise MAKQAError(f"datasets.makqa.few_shot must be >= 0, not {few_shot}")
    folder = Path(folder)
    questions = {domain: read_domain(folder, domain) for domain in domains}
    selected = select_items(questions, items or {}, domains)
    needs_examples = few_shot > 0 and any(VARIANTS[v].examples for v in variants)
    example_keys: dict[str, list[str]] = {}
    pools: dict[str, dict] = {}
    used = [domain for domain in domains if any(d == domain for d, _ in selected)]
    for domain in used if needs_examples else ():
        pools[domain] = read_domain(folder, domain, examples=True)
        example_keys[domain] = draw_examples(
            pools[domain], few_shot, domain=domain, seed=seed, exclude=set(questions[domain])
        )

    columns: dict[str, list] = {name: [] for name in PROMPTS.names}
    for variant_name in variants:
        variant = VARIANTS[variant_name]
        for lang in languages:
            shots: dict[str, list[tuple[str, str]]] = {}
            for domain, keys in example_keys.items():
                path = str(folder / EXAMPLES_FILE.format(domain=domain))
                shots[domain] = []
                for key in keys:
                    question, golds = _qa(pools[domain][key], lang, path=path, key=key)
                    if variant.template:
                        question = template_question(*_triple(pools[domain][key], lang, path=path, key=key), lang)
                    shots[domain].append((question, example_answer(golds, domain)))
            for domain, key in selected:
                path = str(folder / QUESTIONS_FILE.format(domain=domain))
                entry = questions[domain][key]
                question, golds = _qa(entry, lang, path=path, key=key)
                if variant.template:
                    question = template_question(*_triple(entry, lang, path=path, key=key), lang)
                examples = shots.get(domain, []) if variant.examples else []
                columns["dataset"].append(DATASET)
                columns["item_id"].append(item_id(domain, key, variant_name))
                columns["lang"].append(lang)
                columns["prompt"].append(build_prompt(variant, lang, question, examples))
                columns["category"].append(domain)
                columns["references"].append(golds)
                columns["source_lang"].append(lang)
                columns["question_en"].append(None)
    return pa.Table.from_pydict(columns, schema=PROMPTS)
