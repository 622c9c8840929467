"""Translation ability of the model under test (Xing et al. 2024 §5): chrF and chrF++ of its
translations of FLORES-200 sentences, per direction (corpus level, sacrebleu).

One job per (data set, model) reads the translation prompts (xlcons.datasets.flores: the
target language in `category`, the reference in `references`) and the model's answers, and
writes two tables:

* TRANSLATION_ITEMS, one row per prompt: the translation as scored (`hypothesis`), its
  sentence-level chrF and chrF++, `status`: `ok`; `empty` (no answer, or nothing left once
  the wrapping is removed: scored as the empty translation, which is the model's failure);
  `refused` (the model refused to translate, in its words (xlcons.evaluators.translation_answer
  says how that is recognised) or by the provider's refusal (`finish_reason` `refused`): not
  a translation, so not scored, counted in `n_refused`); `error` (the request failed: not
  scored, counted in `n_failed`);
  `prompt_too_long` (the prompt did not fit the model's context: not scored, counted in
  `n_failed` and, of those, in `n_too_long`); and
  `changed`: the scored text is not the whole stripped answer (null for failed requests,
  refusals and answers the generation stage marked empty).
* TRANSLATION_DIRECTIONS, one row per (source, target): corpus chrF and chrF++ of the
  direction's scored sentences, as sacrebleu's `CHRF().corpus_score` (character 6-grams,
  beta 2; chrF++ adds word bigrams), `n_refused`, the refusals left out of it, and
  `n_changed`, the answers whose scored text is not the whole answer.

What is scored of an answer (`answer`):
* `answer` (default): the translation without what chat models wrap it in, a preamble
  ("Sure! Here is the translation:"), a label ("German:", "Translation: …"), quotes,
  markdown and a trailing note; of a base model's continuation, the first line
  (xlcons.evaluators.translation_answer says exactly what is removed);
* `first_line`: the first non-empty line, with a leading `<target language>:` label (the
  prompt's own cue, echoed) removed;
* `whole`: the stripped answer as it is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import polars as pl
import pyarrow as pa

from xlcons.evaluators.translation_answer import extract_translation, is_refusal
from xlcons.languages import LanguageRegistry
from xlcons.schemas import (
    DATASET,
    ITEM_ID,
    LANG,
    MODEL,
    NO_TRANSLATOR,
    PROMPT_TOO_LONG,
    PROMPTS,
    RESPONSES,
    RESULTS,
    UNANSWERED_REASONS,
)
from xlcons.tables import read_table, write_table

ANSWER_MODES = ("answer", "first_line", "whole")
DEFAULT_ANSWER = "answer"
METRICS = ("chrF", "chrF++")
REFUSED = "refused"
STATUSES = ("ok", "empty", REFUSED, "error", PROMPT_TOO_LONG)
# Not scored: failed requests (no answer of the model's) and refusals (no translation).
NOT_SCORED = (*UNANSWERED_REASONS, REFUSED)
EVALUATOR = "translation_ability"

TRANSLATION_ITEMS = pa.schema(
    [
        DATASET,
        MODEL,
        ITEM_ID,
        LANG,
        pa.field("target", pa.string(), nullable=False),
        pa.field("status", pa.string(), nullable=False),
        pa.field("hypothesis", pa.string()),
        pa.field("reference", pa.string(), nullable=False),
        pa.field("chrf", pa.float64()),
        pa.field("chrf_pp", pa.float64()),
        pa.field("changed", pa.bool_()),  # the scored text is not the whole stripped answer
    ]
)

TRANSLATION_DIRECTIONS = pa.schema(
    [
        DATASET,
        MODEL,
        pa.field("source", pa.string(), nullable=False),
        pa.field("target", pa.string(), nullable=False),
        pa.field("chrf", pa.float64()),
        pa.field("chrf_pp", pa.float64()),
        pa.field("n_items", pa.int32(), nullable=False),  # sentences scored (empty answers included, refusals not)
        pa.field("n_empty", pa.int32(), nullable=False),
        pa.field("n_failed", pa.int32(), nullable=False),  # failed requests, not scored
        pa.field("n_too_long", pa.int32(), nullable=False),  # of those, prompts over the model's context
        pa.field("n_refused", pa.int32(), nullable=False),  # refusals, not scored
        pa.field("n_changed", pa.int32(), nullable=False),  # answers whose scored text is not the whole answer
    ]
)


class TranslationAbilityError(ValueError):
    """The prompts or answers are not what the evaluator scores; the message says which."""


def scored_text(response: str, target_name: str, mode: str = DEFAULT_ANSWER, target: str | None = None) -> str:
    """The part of an answer that is scored as the translation (see the module's docstring);
    `target` is the target language's code (its native names are labels too, in `answer`)."""
    if mode not in ANSWER_MODES:
        raise ValueError(f"evaluators.translation_ability.answer: {mode!r} is not one of {ANSWER_MODES}")
    text = response.strip()
    if mode == "whole":
        return text
    if mode == "answer":
        return extract_translation(text, target, target_name)
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return re.sub(rf"^{re.escape(target_name)}\s*:\s*", "", line, flags=re.IGNORECASE).strip()


def item_table(
    prompts: pa.Table, responses: pa.Table, mode: str = DEFAULT_ANSWER, registry: LanguageRegistry | None = None
) -> pl.DataFrame:
    """One row per prompt with its scored translation, reference and status (no scores yet)."""
    registry = registry or LanguageRegistry.load()
    asked = pl.from_arrow(prompts.select(["dataset", "item_id", "lang", "category", "references"]))
    not_requests = asked.filter(pl.col("category").is_null() | (pl.col("references").list.len() != 1))
    if not_requests.height:
        bad = not_requests.row(0, named=True)
        raise TranslationAbilityError(
            f"prompt {bad['item_id']} in {bad['lang']} is not a translation request "
            f"(a target language in `category` and one reference translation)"
        )
    answered = pl.from_arrow(responses.select(["model", "item_id", "lang", "response", "finish_reason"]))
    frame = asked.join(answered, on=["item_id", "lang"], how="inner")
    if frame.height < asked.height:
        missing = asked.join(answered, on=["item_id", "lang"], how="anti").row(0, named=True)
        raise TranslationAbilityError(
            f"no answer to prompt {missing['item_id']} in {missing['lang']} "
            f"({asked.height - frame.height} prompts unanswered)"
        )
    names = {code: registry[code].name for code in frame["category"].unique().to_list()}
    rows = []
    for row in frame.iter_rows(named=True):
        failed = row["finish_reason"] in UNANSWERED_REASONS  # no answer of the model's
        refused = row["finish_reason"] == REFUSED or (
            not failed and is_refusal(row["response"] or "", row["category"])
        )  # an answer, but no translation
        empty = row["finish_reason"] == "empty"
        hypothesis = (
            None
            if failed or refused
            else ""
            if empty
            else scored_text(row["response"], names[row["category"]], mode, row["category"])
        )
        status = row["finish_reason"] if failed else REFUSED if refused else "empty" if not hypothesis else "ok"
        changed = None if failed or refused or empty else hypothesis != (row["response"] or "").strip()
        rows.append(
            {
                "dataset": row["dataset"],
                "model": row["model"],
                "item_id": row["item_id"],
                "lang": row["lang"],
                "target": row["category"],
                "status": status,
                "hypothesis": hypothesis,
                "reference": row["references"][0],
                "changed": changed,
            }
        )
    return pl.DataFrame(
        rows,
        schema={
            **{
                name: pl.String
                for name in ("dataset", "model", "item_id", "lang", "target", "status", "hypothesis", "reference")
            },
            "changed": pl.Boolean,
        },
    )


def score_items(items: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(TRANSLATION_ITEMS, TRANSLATION_DIRECTIONS) rows of an item table."""
    from sacrebleu.metrics import CHRF

    chrf, chrf_pp = CHRF(), CHRF(word_order=2)
    sentence, sentence_pp, directions = [], [], []
    for (dataset, model, source, target), part in items.group_by(
        ["dataset", "model", "lang", "target"], maintain_order=True
    ):
        scored = part.filter(~pl.col("status").is_in(NOT_SCORED))
        hypotheses, references = scored["hypothesis"].to_list(), scored["reference"].to_list()
        directions.append(
            {
                "dataset": dataset,
                "model": model,
                "source": source,
                "target": target,
                "chrf": chrf.corpus_score(hypotheses, [references]).score if hypotheses else None,
                "chrf_pp": chrf_pp.corpus_score(hypotheses, [references]).score if hypotheses else None,
                "n_items": scored.height,
                "n_empty": int((part["status"] == "empty").sum()),
                "n_failed": int(part["status"].is_in(UNANSWERED_REASONS).sum()),
                "n_too_long": int((part["status"] == PROMPT_TOO_LONG).sum()),
                "n_refused": int((part["status"] == REFUSED).sum()),
                "n_changed": int(part["changed"].sum()) if "changed" in part.columns else 0,
            }
        )
    for row in items.iter_rows(named=True):
        ok = row["status"] not in NOT_SCORED
        sentence.append(chrf.sentence_score(row["hypothesis"], [row["reference"]]).score if ok else None)
        sentence_pp.append(chrf_pp.sentence_score(row["hypothesis"], [row["reference"]]).score if ok else None)
    scored_items = items.with_columns(
        pl.Series("chrf", sentence, pl.Float64), pl.Series("chrf_pp", sentence_pp, pl.Float64)
    )
    if "changed" not in scored_items.columns:
        scored_items = scored_items.with_columns(pl.lit(None, pl.Boolean).alias("changed"))
    scored_items = scored_items.select([field.name for field in TRANSLATION_ITEMS])
    return scored_items, pl.DataFrame(directions, schema=pl.from_arrow(TRANSLATION_DIRECTIONS.empty_table()).schema)


def run_translation_ability(
    prompt_files: Sequence[Path | str],
    response_files: Sequence[Path | str],
    items_path: Path | str,
    directions_path: Path | str,
    *,
    answer: str = DEFAULT_ANSWER,
) -> None:
    """The rule's job: one model's answers to one translation set in, its two tables out."""
    prompts = pa.concat_tables([read_table(path, PROMPTS) for path in prompt_files])
    responses = pa.concat_tables([read_table(path, RESPONSES) for path in response_files])
    items, directions = score_items(item_table(prompts, responses, answer))
    write_table(items.to_arrow(), items_path, TRANSLATION_ITEMS)
    write_table(directions.to_arrow(), directions_path, TRANSLATION_DIRECTIONS)


def language_means(directions: pl.DataFrame) -> pl.DataFrame:
    """Per (data set, model, language): mean corpus chrF and chrF++ of its directions as source,
    as target, and both (every direction the language is in), with the sentences behind them."""
    keys = ["dataset", "model"]
    as_source = (
        directions.rename({"source": "lang"})
        .group_by([*keys, "lang"])
        .agg(pl.col("chrf").mean().alias("chrF as source"), pl.col("chrf_pp").mean().alias("chrF++ as source"))
    )
    as_target = (
        directions.rename({"target": "lang"})
        .group_by([*keys, "lang"])
        .agg(pl.col("chrf").mean().alias("chrF as target"), pl.col("chrf_pp").mean().alias("chrF++ as target"))
    )
    both = pl.concat(
        [directions.rename({"source": "lang"}).drop("target"), directions.rename({"target": "lang"}).drop("source")]
    )
    both = both.group_by([*keys, "lang"]).agg(
        pl.col("chrf").mean().alias("chrF"),
        pl.col("chrf_pp").mean().alias("chrF++"),
        pl.col("n_items").sum(),
        pl.col("n_failed").sum(),
        pl.col("n_too_long").sum(),
        pl.col("n_refused").sum(),
    )
    return (
        both.join(as_source, on=[*keys, "lang"], how="left")
        .join(as_target, on=[*keys, "lang"], how="left")
        .sort([*keys, "lang"])
    )


def excluded_reasons(n_error: int, n_too_long: int, n_refused: int = 0) -> str | None:
    """RESULTS' `excluded_reasons` of the sentences not scored: "reason:count; ...", most
    frequent first (ties by name); None when every sentence was scored."""
    reasons = (("error", n_error), (PROMPT_TOO_LONG, n_too_long), (REFUSED, n_refused))
    counts = sorted((-count, reason) for reason, count in reasons if count)
    return "; ".join(f"{reason}:{-count}" for count, reason in counts) or None


def to_results(directions: pa.Table) -> pl.DataFrame:
    """RESULTS rows (kind `corpus`): per language, chrF and chrF++ averaged over the directions
    it is in (as source or target), the per-language translation ability of Xing et al. 2024's Figure 3."""
    means = language_means(pl.from_arrow(directions))
    if means.is_empty():
        return pl.from_arrow(RESULTS.empty_table())
    rows = [
        {
            "dataset": row["dataset"],
            "evaluator": EVALUATOR,
            "translator": NO_TRANSLATOR,
            "model": row["model"],
            "lang": row["lang"],
            "metric": metric,
            "kind": "corpus",
            "value": row[metric],
            "ci_low": None,
            "ci_high": None,
            "n_items": row["n_items"],
            "n_excluded": row["n_failed"] + row["n_refused"],
            "excluded_reasons": excluded_reasons(
                row["n_failed"] - row["n_too_long"], row["n_too_long"], row["n_refused"]
            ),
            "note": None if row[metric] is not None else f"{metric} undefined: no direction with {row['lang']} scored",
            "n_resamples": 0,
            "ci_level": 0.95,
        }
        for row in means.iter_rows(named=True)
        for metric in METRICS
    ]
    return pl.from_arrow(pa.Table.from_pylist(rows, schema=RESULTS))


def rule_translation_ability(smk) -> None:
    """Rule translation_ability: chrF and chrF++ of one model's translations, per direction."""
    run_translation_ability(
        smk.input.prompts, smk.input.responses, smk.output.per_item, smk.output.directions, answer=smk.params.answer
    )
