"""The empathy evaluator: empathy profiles of English and translated responses, and their agreement.

For a response r to seeker post s, the empathy profile is e(r) = [f_ER(s, r), f_IP(s, r),
f_EX(s, r)], one 0/1 per EPITOME mechanism. For every item and language l, the model's
English response r_en and its response in l, translated back to English (r̂_l), are
profiled with the same classifiers and the same English seeker post s, and the item is
consistent in l when e(r_en) == e(r̂_l) (Gupta et al. 2025). A language's consistency is the share
of its scored items that are consistent; the per-mechanism agreement is the share whose
labels agree for that mechanism.

Which (item, language) cells are scored. A cell is excluded, with the first reason that
applies in this order (EMPATHY_EXCLUSIONS in xlcons.evaluators.empathy.tables):

``missing_prompt``       no English seeker post for the item;
``missing_english``      the model has no English response for the item;
``no_answer_english``    the English response is no answer of the model's: its request failed
                         (finish reason ``error`` or ``prompt_too_long``);
``missing_translation``  the language has no translated response for the item;
``no_answer``            the response in l is no answer of the model's (the same, read from the
                         responses table; translation path ``no_answer``);
``untranslatable``       the response in l could not be translated (path ``untranslatable``:
                         its text is not English, so the English classifiers cannot read it);
``abstained_both``       the model refused or said nothing (finish reason ``refused`` or
                         ``empty``) in English and in l: the same behaviour, but no empathy to
                         compare (as information consistency excludes an item without facts
                         on either side).

A model's own refusal or empty answer in ONE of the two languages counts against
consistency (Gupta et al. 2025: a model that abstains in another language must not look
consistent): the item is scored, its profiles unequal and no mechanism agreeing, and counted in
``n_abstained``. With ``refusals="exclude"`` such an item is excluded instead, with
``no_answer_english`` or ``no_answer``. A failed request says nothing about the model and is
always excluded, as the results table excludes it. The profile of whichever side is usable is
still recorded on an excluded or abstaining row. Responses the model gave in
English to a prompt in l (path ``passthrough_english``) are profiled as they are. English
rows of the translations table (l = en) are the reference itself and are skipped.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import pyarrow as pa

from xlcons.datasets.epitome import MECHANISMS, label_combination
from xlcons.evaluators.empathy.tables import EMPATHY_EXCLUSIONS, EMPATHY_ITEMS, EMPATHY_SCORES
from xlcons.schemas import NO_ANSWER, PROMPTS, RESPONSES, TRANSLATIONS, UNANSWERED_REASONS
from xlcons.tables import read_table, write_table

if TYPE_CHECKING:
    from xlcons.evaluators.empathy.base import PairClassifier

LOWER = {mechanism: mechanism.lower() for mechanism in MECHANISMS}


class EmpathyError(ValueError):
    """The inputs of the empathy job do not fit together; the message says how."""


class PairPredictor(Protocol):
    """What profiling asks of a mechanism's classifier (a PairClassifier, or a stand-in):
    0/1 per (seeker post, response) pair, in order."""

    def predict(self, seekers: Sequence[str], responses: Sequence[str]) -> Iterable[int]: ...


def classifier_name(classifiers: Mapping[str, object]) -> str:
    """The classifiers' kind (``tfidf``, ``encoder``), or ``ER:…,IP:…,EX:…`` when they differ."""
    kinds = {
        mechanism: str(getattr(classifiers[mechanism], "kind", "") or type(classifiers[mechanism]).__name__)
        for mechanism in MECHANISMS
    }
    if len(set(kinds.values())) == 1:
        return kinds["ER"]
    return ",".join(f"{mechanism}:{kinds[mechanism]}" for mechanism in MECHANISMS)


def profile_pairs(
    pairs: list[tuple[str, str]], classifiers: Mapping[str, PairPredictor]
) -> dict[tuple[str, str], dict[str, int]]:
    """(seeker post, response) -> {mechanism: 0/1}, each distinct pair classified once per mechanism."""
    missing = [mechanism for mechanism in MECHANISMS if mechanism not in classifiers]
    if missing:
        raise EmpathyError(f"no classifier for mechanism(s) {missing}")
    distinct = list(dict.fromkeys(pairs))
    profiles: dict[tuple[str, str], dict[str, int]] = {pair: {} for pair in distinct}
    if not distinct:
        return profiles
    seekers, responses = [pair[0] for pair in distinct], [pair[1] for pair in distinct]
    for mechanism in MECHANISMS:
        predicted = list(classifiers[mechanism].predict(seekers, responses))
        if len(predicted) != len(distinct):
            raise EmpathyError(f"the {mechanism} classifier returned {len(predicted)} labels for {len(distinct)} pairs")
        for pair, label in zip(distinct, predicted):
            profiles[pair][mechanism] = int(label)
    return profiles


def _is_no_answer(text: str | None) -> bool:
    return text is not None and text.strip() == NO_ANSWER


REFUSAL_RULES = ("count", "exclude")


def empathy_items(
    prompts: pa.Table,
    english: pa.Table,
    translations: pa.Table,
    classifiers: Mapping[str, PairPredictor],
    responses: pa.Table | None = None,
    refusals: str = "count",
) -> pa.Table:
    """One EMPATHY_ITEMS row per (data set, model, item, language ≠ en); see the module doc for the rules.
    `responses` (every language's RESPONSES rows; default `english`) tells a failed request from the
    model's own "No answer" in a language; `refusals` is ``count`` (default) or ``exclude``."""
    if refusals not in REFUSAL_RULES:
        raise EmpathyError(f"refusals must be one of {REFUSAL_RULES}, not {refusals!r}")
    seeker = {(row["dataset"], row["item_id"]): row["prompt"] for row in prompts.to_pylist() if row["lang"] == "en"}
    order = {key: index for index, key in enumerate(seeker)}
    english_rows = {
        (row["dataset"], row["model"], row["item_id"]): row["response"]
        for row in english.to_pylist()
        if row["lang"] == "en"
    }
    failed = {
        (row["dataset"], row["model"], row["item_id"], row["lang"])
        for table in (english, responses if responses is not None else english)
        for row in table.select(["dataset", "model", "item_id", "lang", "finish_reason"]).to_pylist()
        if row["finish_reason"] in UNANSWERED_REASONS
    }
    translated = {}
    languages: dict[tuple[str, str], set[str]] = defaultdict(set)
    for row in translations.to_pylist():
        if row["lang"] == "en":
            continue
        key = (row["dataset"], row["model"], row["item_id"], row["lang"])
        if key in translated:
            raise EmpathyError(f"translations: {key} appears twice")
        translated[key] = row
        languages[(row["dataset"], row["model"])].add(row["lang"])
    if not english_rows and not translated:
        raise EmpathyError("neither English responses nor translations to profile")

    # The grid: every English item and every translated item, for every language of its (data set, model).
    items: dict[tuple[str, str], set[str]] = defaultdict(set)
    for dataset, model, item in english_rows:
        items[(dataset, model)].add(item)
    for dataset, model, item, _ in translated:
        items[(dataset, model)].add(item)

    cells = []
    for (dataset, model), langs in languages.items():
        for lang in langs:
            for item in items[(dataset, model)]:
                cells.append((dataset, model, item, lang))
    cells.sort(key=lambda c: (c[0], c[1], c[3], order.get((c[0], c[2]), len(order)), c[2]))

    to_profile: list[tuple[str, str]] = []
    plan = []
    for dataset, model, item, lang in cells:
        post = seeker.get((dataset, item))
        response_en = english_rows.get((dataset, model, item))
        row = translated.get((dataset, model, item, lang))
        english_usable = post is not None and response_en is not None and not _is_no_answer(response_en)
        path = row["translation_path"] if row is not None else None
        other_usable = (
            post is not None
            and row is not None
            and path not in ("no_answer", "untranslatable")
            and not _is_no_answer(row["translation"])
        )
        abstained_en = _is_no_answer(response_en) and (dataset, model, item, "en") not in failed
        abstained_l = (
            row is not None
            and (path == "no_answer" or _is_no_answer(row["translation"]))
            and (dataset, model, item, lang) not in failed
        )
        counted = refusals == "count"
        if post is None:
            reason = "missing_prompt"
        elif response_en is None:
            reason = "missing_english"
        elif _is_no_answer(response_en) and not (abstained_en and counted):
            reason = "no_answer_english"
        elif row is None:
            reason = "missing_translation"
        elif (path == "no_answer" or _is_no_answer(row["translation"])) and not (abstained_l and counted):
            reason = "no_answer"
        elif path == "untranslatable":
            reason = "untranslatable"
        elif abstained_en and abstained_l:
            reason = "abstained_both"
        else:
            reason = None
        pair_en = (post, response_en) if english_usable else None
        pair_l = (post, row["translation"]) if other_usable else None
        to_profile.extend(pair for pair in (pair_en, pair_l) if pair is not None)
        plan.append((dataset, model, item, lang, path, reason, pair_en, pair_l, abstained_en or abstained_l))

    profiles = profile_pairs(to_profile, classifiers)
    name = classifier_name(classifiers)
    out = []
    for dataset, model, item, lang, path, reason, pair_en, pair_l, abstained in plan:
        e_en = profiles[pair_en] if pair_en is not None else None
        e_l = profiles[pair_l] if pair_l is not None else None
        scored = reason is None
        compared = scored and not abstained  # an abstaining side agrees with nothing
        record = {
            "dataset": dataset,
            "model": model,
            "item_id": item,
            "lang": lang,
            "status": "ok" if scored else "excluded",
            "excluded_reason": reason,
            "translation_path": path,
            "profile_en": label_combination(e_en) if e_en else None,
            "profile": label_combination(e_l) if e_l else None,
            "equal": (e_en == e_l if compared else False) if scored else None,
            "classifier": name,
        }
        for mechanism, lower in LOWER.items():
            record[f"{lower}_en"] = e_en[mechanism] if e_en else None
            record[lower] = e_l[mechanism] if e_l else None
            record[f"{lower}_agree"] = (e_en[mechanism] == e_l[mechanism] if compared else False) if scored else None
        out.append(record)
    return pa.Table.from_pylist(out, schema=EMPATHY_ITEMS)


def language_scores(items: pa.Table) -> pa.Table:
    """Per (data set, model, language): consistency, per-mechanism agreement, counts (EMPATHY_SCORES)."""
    groups: dict[tuple[str, str, str], list[dict]] = defaultdict(list)
    for row in items.to_pylist():
        groups[(row["dataset"], row["model"], row["lang"])].append(row)
    out = []
    for (dataset, model, lang), rows in sorted(groups.items()):
        scored = [row for row in rows if row["status"] == "ok"]
        reasons = Counter(row["excluded_reason"] for row in rows if row["status"] != "ok")
        unknown = set(reasons) - set(EMPATHY_EXCLUSIONS)
        if unknown:
            raise EmpathyError(f"empathy items: unknown exclusion reasons {sorted(map(str, unknown))}")
        n = len(scored)
        record = {
            "dataset": dataset,
            "model": model,
            "lang": lang,
            "consistency": sum(bool(row["equal"]) for row in scored) / n if n else None,
            "n_items": n,
            "n_excluded": len(rows) - n,
            "classifier": ",".join(sorted({row["classifier"] for row in rows})),
        }
        for lower in LOWER.values():
            record[f"{lower}_agreement"] = sum(bool(row[f"{lower}_agree"]) for row in scored) / n if n else None
        for reason in EMPATHY_EXCLUSIONS:
            record[f"n_{reason}"] = reasons.get(reason, 0)
        record["n_abstained"] = sum(row["profile_en"] is None or row["profile"] is None for row in scored)
        out.append(record)
    return pa.Table.from_pylist(out, schema=EMPATHY_SCORES)


def load_classifiers(classifier_dirs: Mapping[str, Path | str]) -> dict[str, PairClassifier]:
    from xlcons.evaluators.empathy.base import load_classifier

    missing = [mechanism for mechanism in MECHANISMS if mechanism not in classifier_dirs]
    if missing:
        raise EmpathyError(
            f"classifier_dirs lacks {missing} (needs one directory per mechanism: {', '.join(MECHANISMS)})"
        )
    classifiers = {mechanism: load_classifier(classifier_dirs[mechanism]) for mechanism in MECHANISMS}
    wrong = {m: c.mechanism for m, c in classifiers.items() if getattr(c, "mechanism", m) != m}
    if wrong:
        raise EmpathyError(f"classifier directories hold the wrong mechanisms: {wrong}")
    return classifiers


def run_empathy_job(
    classifier_dirs: Mapping[str, Path | str],
    english_prompts_file: Path | str,
    english_responses_file: Path | str,
    translations_file: Path | str | Sequence[Path | str],
    out_items: Path | str,
    *,
    out_scores: Path | str | None = None,
    responses_file: Path | str | Sequence[Path | str] | None = None,
    refusals: str = "count",
) -> pa.Table:
    """One model's empathy items (and, with `out_scores`, its per-language scores) from the stage
    files; `translations_file` may be one file or one per language; `responses_file` the model's
    answers in every language (one table: their finish reasons tell a failed request from a refusal)."""
    prompts = read_table(english_prompts_file, PROMPTS)
    english = read_table(english_responses_file, RESPONSES)
    paths = [translations_file] if isinstance(translations_file, (str, Path)) else list(translations_file)
    translations = pa.concat_tables([read_table(path, TRANSLATIONS) for path in paths])
    response_paths = [responses_file] if isinstance(responses_file, (str, Path)) else list(responses_file or [])
    responses = pa.concat_tables([read_table(path, RESPONSES) for path in response_paths]) if response_paths else None
    items = empathy_items(
        prompts, english, translations, load_classifiers(classifier_dirs), responses=responses, refusals=refusals
    )
    write_table(items, out_items, EMPATHY_ITEMS)
    if out_scores is not None:
        write_table(language_scores(items), out_scores, EMPATHY_SCORES)
    return items


def run_empathy_scores(items_files, out_scores: Path | str) -> pa.Table:
    """The per-language scores of one or more items files (e.g. every model's), as one table."""
    items = pa.concat_tables([read_table(path, EMPATHY_ITEMS) for path in items_files])
    scores = language_scores(items)
    write_table(scores, out_scores, EMPATHY_SCORES)
    return scores


def rule_empathy_consistency(smk) -> None:
    """Rule empathy_consistency: EPITOME profiles of one model's English and translated answers."""
    inputs, output = smk.input, smk.output
    classifiers = dict(zip(("ER", "IP", "EX"), inputs.classifiers))
    run_empathy_job(
        classifiers,
        inputs.prompts,
        inputs.english,
        inputs.translations,
        output.per_item,
        out_scores=output.scores,
        responses_file=inputs.responses,
        refusals=smk.params.refusals,
    )
