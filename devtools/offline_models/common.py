"""What several model families share: the MultiQ text they are trained on, seeding, and the
damping of special tokens that keeps random-weight models from stopping early."""

from __future__ import annotations

import contextlib
import csv
import functools
import random
from collections.abc import Iterable, Iterator
from pathlib import Path

SEED = 20240607
MULTIQ_CSV = Path("multiq") / "MultiQ.csv"


class OfflineModelError(RuntimeError):
    """An offline model cannot be built (missing package or data, or a failed self-check)."""


# --------------------------------------------------------------------------------------
# MultiQ text
# --------------------------------------------------------------------------------------


def multiq_csv(data_dir: Path) -> Path:
    path = Path(data_dir) / MULTIQ_CSV
    if not path.is_file():
        raise OfflineModelError(f"MultiQ not found at {path}; pass the released data folder (…/shared/data)")
    return path


def read_multiq(path: Path) -> tuple[tuple[str, str, str], ...]:
    """(id, language, prompt) rows of MultiQ.csv, in file order (cached while the file is unchanged)."""
    stat = path.stat()
    return _read_multiq_cached(path.resolve(), stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=4)
def _read_multiq_cached(path: Path, size: int, mtime_ns: int) -> tuple[tuple[str, str, str], ...]:
    with path.open(newline="", encoding="utf-8") as handle:
        return tuple((row["id"], row["language"], row["prompt"]) for row in csv.DictReader(handle))


def multiq_prompts(data_dir: Path) -> dict[str, list[tuple[str, str]]]:
    """language -> [(question id, prompt)] in file order."""
    by_language: dict[str, list[tuple[str, str]]] = {}
    for qid, language, prompt in read_multiq(multiq_csv(data_dir)):
        by_language.setdefault(language, []).append((qid, prompt))
    return by_language


def multiq_inputs(data_dir: Path | None) -> dict[str, Path]:
    """The inputs (for the stamp) of a model trained on MultiQ."""
    if data_dir is None:
        raise OfflineModelError("this model is trained on MultiQ: pass data_dir")
    return {"MultiQ.csv": multiq_csv(data_dir)}


def one_line(text: str) -> str:
    return " ".join(text.split())


# --------------------------------------------------------------------------------------
# Random weights
# --------------------------------------------------------------------------------------


@contextlib.contextmanager
def seeded(seed: int = SEED) -> Iterator[None]:
    """Seed python and torch for a build without disturbing the caller's random state."""
    import torch

    state = random.getstate()
    with torch.random.fork_rng(devices=[]):
        random.seed(seed)
        torch.manual_seed(seed)
        try:
            yield
        finally:
            random.setstate(state)


# Random weights at the usual std (0.02) give nearly flat logits: greedy decoding then repeats one
# token whatever the input. A wider init makes the output depend on the input (which is what the
# CTranslate2 equivalence test needs to mean something).
TINY_INIT_STD = 0.5
# Special tokens (language codes, <unk>, </s>, chat roles …) get tiny embeddings; with tied output
# embeddings their logits stay near 0, far below the largest logit of an ordinary token, so the
# tiny models never generate them: decoded output (skip_special_tokens) is never empty, and it
# always runs to max_new_tokens.
SPECIAL_TOKEN_EMBEDDING_SCALE = 0.05


def damp_special_tokens(model, special_ids: Iterable[int]) -> None:
    """Scale the input embeddings of `special_ids` by SPECIAL_TOKEN_EMBEDDING_SCALE (tied embeddings only)."""
    import torch

    if not model.config.tie_word_embeddings:
        raise OfflineModelError("damping special tokens relies on tied input/output embeddings")
    with torch.no_grad():
        model.get_input_embeddings().weight[sorted(set(special_ids))] *= SPECIAL_TOKEN_EMBEDDING_SCALE


def save_tokenizer(tokenizer, target: Path) -> None:
    # transformers 5 records how a tokenizer was loaded (is_local, local_files_only) in its
    # init kwargs, and save_pretrained writes them into tokenizer_config.json; leave them out.
    for key in ("is_local", "local_files_only"):
        tokenizer.init_kwargs.pop(key, None)
    tokenizer.save_pretrained(str(target))
