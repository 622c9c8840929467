"""Empathy prompts (Gupta et al. 2025): 100 EPITOME seeker posts from the test split, in English.

The posts are drawn from the test split of the committed EPITOME split
(``datasets/data/epitome_split.tsv``, see :mod:`xlcons.datasets.epitome`), so no
prompt was seen by the empathy classifiers in training.

Stratification: every test post gets the label combination of its response(s), one 0/1
per mechanism, written as the category ``ER1-IP0-EX1``; a post with several annotated
responses (about 1.5 % of them) counts a mechanism as present when any of its responses
shows it. The ``n_posts`` (100) are spread over the combinations in proportion to their
test-split counts (largest remainders; every combination present gets at least one post
while there are enough to go round) and drawn per combination with a seeded shuffle.

Order: within a combination the drawn posts keep their shuffled order, and the
combinations are interleaved in proportion to their sizes (the k-th post of a combination
of size n sits at (k + 0.5) / n), so the first N items (``items.limit``) are themselves
close to a stratified sample. ``items.ids`` takes exactly those seeker posts (any split),
``items.domains`` keeps the given combinations.

Only English rows are returned (``source_lang`` en): the other languages are machine
translations of these prompts, made by the workflow's translation stage.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from xlcons.datasets.epitome import MECHANISMS, SEED, label_combination, read_pairs, read_split
from xlcons.schemas import PROMPTS

N_POSTS = 100
SPLIT = "test"


class EmpathyPromptsError(ValueError):
    """The release, the split or the selection is not what the config asks for; the message says which."""


def post_labels(pairs) -> dict[str, dict[str, Any]]:
    """sp_id -> {seeker_post, labels (any response per mechanism), n_responses}, in release order."""
    posts: dict[str, dict[str, Any]] = {}
    for pair in pairs:
        post = posts.setdefault(
            pair.sp_id, {"seeker_post": pair.seeker_post, "labels": dict.fromkeys(MECHANISMS, 0), "n_responses": 0}
        )
        post["n_responses"] += 1
        for mechanism in MECHANISMS:
            post["labels"][mechanism] = max(post["labels"][mechanism], int(pair.labels[mechanism]))
    for post in posts.values():
        post["category"] = label_combination(post["labels"])
    return posts


def allocate(counts: Mapping[str, int], total: int) -> dict[str, int]:
    """Posts per stratum: proportional by largest remainders, then at least one per stratum when total allows."""
    available = sum(counts.values())
    if total >= available:
        return dict(counts)
    strata = sorted(counts)
    quotas = {s: total * counts[s] / available for s in strata}
    shares = {s: math.floor(quotas[s]) for s in strata}
    for s in sorted(strata, key=lambda s: (-(quotas[s] - shares[s]), s))[: total - sum(shares.values())]:
        shares[s] += 1  # quota < count, so a share never exceeds its stratum
    if total >= len(strata):
        for s in sorted(strata, key=lambda s: (counts[s], s)):
            if shares[s] == 0:
                donor = max((d for d in strata if shares[d] > 1), key=lambda d: (shares[d] - quotas[d], d))
                shares[donor] -= 1
                shares[s] = 1
    return shares


def stratified_sample(categories: Mapping[str, str], n_posts: int, seed: int) -> list[str]:
    """`n_posts` ids from {id: category}, stratified by category, in interleaved order (see the module doc)."""
    strata: dict[str, list[str]] = defaultdict(list)
    for item, category in sorted(categories.items()):
        strata[category].append(item)
    shares = allocate({category: len(ids) for category, ids in strata.items()}, n_posts)
    rng = random.Random(seed)
    keyed: list = []
    for category in sorted(strata):
        ids = list(strata[category])
        rng.shuffle(ids)
        chosen = ids[: shares[category]]
        keyed.extend(((k + 0.5) / len(chosen), category, item) for k, item in enumerate(chosen))
    return [item for _, _, item in sorted(keyed)]


def select_items(
    posts: Mapping[str, Mapping[str, Any]],
    split: Mapping[str, str],
    items: Mapping[str, Any],
    *,
    n_posts: int,
    seed: int,
) -> list[str]:
    if items.get("ids"):
        unknown = [item for item in items["ids"] if item not in posts]
        if unknown:
            raise EmpathyPromptsError(f"datasets.empathy.items.ids: not EPITOME seeker posts (sp_id): {unknown[:10]}")
        order = list(items["ids"])
    else:
        test = {sp_id: post["category"] for sp_id, post in posts.items() if split.get(sp_id) == SPLIT}
        if not test:
            raise EmpathyPromptsError("the EPITOME split has no test posts among the release's seeker posts")
        order = stratified_sample(test, n_posts, seed)
    if items.get("domains"):
        known = sorted({post["category"] for post in posts.values()})
        unknown = [domain for domain in items["domains"] if domain not in known]
        if unknown:
            raise EmpathyPromptsError(
                f"datasets.empathy.items.domains: unknown label combinations {unknown}; known: {known}"
            )
        order = [item for item in order if posts[item]["category"] in items["domains"]]
    if items.get("limit"):
        order = order[: items["limit"]]
    return order


def load(
    folder: Path | str,
    languages: Sequence[str],
    items: Mapping[str, Any],
    *,
    n_posts: int = N_POSTS,
    seed: int = SEED,
    split_file: Path | str | None = None,
) -> pa.Table:
    """The selected seeker posts as English prompts (PROMPTS schema); `languages` must be ['en'] (or include it)."""
    others = [lang for lang in languages if lang != "en"]
    if others:
        raise EmpathyPromptsError(
            f"empathy prompts exist in English only; {others} are made by "
            "translating them (the translation stage), not by the loader"
        )
    posts = post_labels(read_pairs(folder))
    ids = select_items(posts, read_split(split_file), items or {}, n_posts=n_posts, seed=seed)
    if not languages:
        ids = []
    return pa.Table.from_pydict(
        {
            "dataset": ["empathy"] * len(ids),
            "item_id": ids,
            "lang": ["en"] * len(ids),
            "prompt": [posts[item]["seeker_post"] for item in ids],
            "category": [posts[item]["category"] for item in ids],
            "references": [None] * len(ids),
            "source_lang": ["en"] * len(ids),
            "question_en": [None] * len(ids),
        },
        schema=PROMPTS,
    )
