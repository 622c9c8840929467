"""The comparisons information consistency scores: one `Pair` per item and language, from the job's tables.

A pair is the English response of an item and either its translation back to English
(`pairs_from_translations`: TRANSLATIONS rows with the English RESPONSES row of the same
item, comparison ``translation``) or its round trip en -> l -> en (`pairs_from_round_trips`,
comparison ``round_trip``, the translationese check). Inputs that do not fit together raise
`InformationError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from xlcons.schemas import UNANSWERED_REASONS

TRANSLATION = "translation"
ROUND_TRIP = "round_trip"


class InformationError(ValueError):
    """The inputs do not fit together (a translation without its English response, two models)."""


@dataclass(frozen=True)
class Pair:
    """One comparison: the English side and the translated (or round-trip) side of one item."""

    dataset: str
    model: str
    item_id: str
    lang: str
    comparison: str
    english: str
    translated: str
    translation_path: str | None = None
    failed_request: str | None = None  # the finish reason of a side's failed generation request


def _failed_requests(responses: pa.Table) -> dict[tuple[str, str, str], str]:
    """(dataset, item_id, lang) → finish reason of the RESPONSES rows with no answer of the model's."""
    return {
        (row["dataset"], row["item_id"], row["lang"]): row["finish_reason"]
        for row in responses.select(["dataset", "item_id", "lang", "finish_reason"]).to_pylist()
        if row["finish_reason"] in UNANSWERED_REASONS
    }


def pairs_from_translations(
    english_responses: pa.Table, translations: pa.Table, responses: pa.Table | None = None
) -> list[Pair]:
    """One pair per TRANSLATIONS row, with the English RESPONSES row of the same item (rows in
    other languages ignored). A pair whose answer in its language (from `responses`, every
    language's RESPONSES rows) or in English is a failed request carries its finish reason."""
    english: dict[tuple[str, str], Mapping[str, Any]] = {}
    failed = _failed_requests(english_responses) | (_failed_requests(responses) if responses is not None else {})
    for row in english_responses.select(["dataset", "model", "item_id", "lang", "response"]).to_pylist():
        if row["lang"] == "en":
            english[(row["dataset"], row["item_id"])] = row
    pairs, missing = [], []
    for row in translations.select(
        ["dataset", "model", "item_id", "lang", "translation", "translation_path"]
    ).to_pylist():
        reference = english.get((row["dataset"], row["item_id"]))
        if reference is None:
            missing.append(f"{row['dataset']}/{row['item_id']}")
            continue
        if reference["model"] != row["model"]:
            raise InformationError(
                f"translations of model '{row['model']}' compared with "
                f"English responses of model '{reference['model']}'"
            )
        pairs.append(
            Pair(
                row["dataset"],
                row["model"],
                row["item_id"],
                row["lang"],
                TRANSLATION,
                reference["response"],
                row["translation"],
                row["translation_path"],
                failed.get((row["dataset"], row["item_id"], row["lang"]))
                or failed.get((row["dataset"], row["item_id"], "en")),
            )
        )
    if missing:
        raise InformationError(
            f"no English response for {sorted(set(missing))[:10]}; information "
            "consistency needs the English response of every translated item"
        )
    return pairs


def pairs_from_round_trips(round_trips: pa.Table) -> list[Pair]:
    """One pair per ROUND_TRIPS row: the original English response against its round trip."""
    return [
        Pair(
            row["dataset"],
            row["model"],
            row["item_id"],
            row["lang"],
            ROUND_TRIP,
            row["response"],
            row["round_trip"],
            row["translation_path"],
        )
        for row in round_trips.select(
            ["dataset", "model", "item_id", "lang", "response", "round_trip", "translation_path"]
        ).to_pylist()
    ]


__all__ = ["ROUND_TRIP", "TRANSLATION", "InformationError", "Pair", "pairs_from_round_trips", "pairs_from_translations"]
