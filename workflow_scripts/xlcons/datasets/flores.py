"""FLORES-200 as translation prompts: the model under test translates each sentence into
each other language of the run (Xing et al. 2024 §5, 12 languages, 132 directions).

The release (`flores200_dataset.tar.gz`) holds one file per language and split,
`flores200_dataset/<split>/<nllb code>.<split>`, one sentence per line, line N the same
sentence in every language. The loader reads the sentences from the tarball itself, or from
an unpacked copy (a folder holding `devtest/`, or `flores200_dataset/devtest/`).

One prompt asks for one direction. Its row is in the *source* language's table (`lang`);
`item_id` is `<line>:<target>` (line numbers from 1), so the same request from every source
language shares its id; `category` is the target language and `references` holds the target
sentence. The wording is the project's own (docs/translation-ability.md):

    Translate this sentence from German into French. Reply with the French translation only.

    German: <sentence>
    French:

With `few_shot: k`, k sentence pairs of the `dev` split (drawn once with `seed`, the same
lines for every direction, so the prompts stay parallel) come first as `German: …` /
`French: …` pairs.
"""

from __future__ import annotations

import random
import tarfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from xlcons.data_sources.catalog import FLORES_ARCHIVE, FLORES_ROOT_FOLDER
from xlcons.datasets.item_ids import FLORES_SPLIT_SIZES
from xlcons.languages import LanguageRegistry
from xlcons.schemas import PROMPTS

SPLITS = ("dev", "devtest")
INSTRUCTION = "Translate this sentence from {source} into {target}. Reply with the {target} translation only."


class FloresError(ValueError):
    """The release or the selection is not what the config asks for; the message says which."""


def item_id(line: int, target: str) -> str:
    return f"{line}:{target}"


def parse_item_id(value: str) -> tuple[int, str]:
    """(line, target language) of an item id."""
    line, _, target = value.partition(":")
    return int(line), target


def _member(split: str, code: str) -> str:
    return f"{split}/{code}.{split}"


def _lines(text: str) -> list[str]:
    return text.rstrip("\n").split("\n") if text else []


def read_split(folder: Path | str, split: str, codes: Sequence[str]) -> dict[str, list[str]]:
    """{NLLB code: sentences} of one split, from the tarball or an unpacked copy in `folder`."""
    folder = Path(folder)
    archive = folder if folder.is_file() else folder / FLORES_ARCHIVE
    for root in (folder, folder / FLORES_ROOT_FOLDER):
        if root.is_dir() and (root / split).is_dir():
            missing = [code for code in codes if not (root / _member(split, code)).is_file()]
            if missing:
                raise FloresError(f"{root / split}: no file for {', '.join(_member(split, c) for c in missing)}")
            return {code: _lines((root / _member(split, code)).read_text(encoding="utf-8")) for code in codes}
    if not archive.is_file():
        raise FloresError(
            f"FLORES-200 not found in {folder}: expected {FLORES_ARCHIVE} or an unpacked "
            f"{FLORES_ROOT_FOLDER}/{split}/ (fetch it, or set datasets.flores.path)"
        )
    wanted = {f"{FLORES_ROOT_FOLDER}/{_member(split, code)}": code for code in codes}
    found: dict[str, list[str]] = {}
    with tarfile.open(archive) as tar:
        for member in tar:
            code = wanted.get(member.name.removeprefix("./"))
            if code and member.isfile():
                found[code] = _lines(tar.extractfile(member).read().decode("utf-8"))
    missing = [name for name, code in wanted.items() if code not in found]
    if missing:
        raise FloresError(f"{archive}: the archive has no {', '.join(missing)}")
    return found


def select_lines(n_lines: int, items: Mapping[str, Any], split: str) -> list[int]:
    """Line numbers (from 1): exactly `ids`, or the first `limit` lines, or all."""
    if items.get("domains"):
        raise FloresError(
            "datasets.flores.items.domains: FLORES sentences have no domains; "
            "choose the language pairs with datasets.flores.directions"
        )
    if items.get("ids"):
        lines = []
        for index, value in enumerate(items["ids"]):
            if not str(value).isdigit() or not 1 <= int(value) <= n_lines:
                raise FloresError(
                    f"datasets.flores.items.ids[{index}]: {value!r} is not a line number of the "
                    f"{split} split (1 to {n_lines})"
                )
            lines.append(int(value))
        return lines
    return list(range(1, n_lines + 1))[: items.get("limit") or None]


def targets_of(source: str, languages: Sequence[str], directions) -> list[str]:
    """The languages `source` is translated into: every other language of the run, or the listed pairs."""
    if directions in (None, "all"):
        return [lang for lang in languages if lang != source]
    return [target for lang, target in directions if lang == source and target in languages]


def prompt_text(source_name: str, target_name: str, sentence: str, examples: Sequence[tuple[str, str]] = ()) -> str:
    parts = [INSTRUCTION.format(source=source_name, target=target_name), ""]
    for example_source, example_target in examples:
        parts += [f"{source_name}: {example_source}", f"{target_name}: {example_target}", ""]
    parts += [f"{source_name}: {sentence}", f"{target_name}:"]
    return "\n".join(parts)


def few_shot_lines(k: int, seed: int, n_lines: int = FLORES_SPLIT_SIZES["dev"]) -> list[int]:
    """The `dev` lines of the in-context examples: one seeded draw for the whole run."""
    if k > n_lines:
        raise FloresError(f"datasets.flores.few_shot: {k} examples asked for, the dev split has {n_lines} sentences")
    return sorted(random.Random(seed).sample(range(1, n_lines + 1), k)) if k else []


def load(
    folder: Path | str,
    languages: Sequence[str],
    items: Mapping[str, Any],
    *,
    split: str = "devtest",
    directions=None,
    few_shot: int = 0,
    seed: int = 0,
    run_languages: Sequence[str] | None = None,
    registry: LanguageRegistry | None = None,
) -> pa.Table:
    """Translation prompts out of each of `languages` into the other run languages (PROMPTS schema).

    `run_languages` are all the languages of the run (the targets); `languages` those whose
    table is wanted (one, in the prompts job)."""
    registry = registry or LanguageRegistry.load()
    run_languages = list(run_languages or languages)
    codes = {lang: registry.nllb_code(lang) for lang in dict.fromkeys([*run_languages, *languages])}
    sentences = read_split(folder, split, sorted(set(codes.values())))
    lengths = {len(lines) for lines in sentences.values()}
    if len(lengths) != 1:
        counts = ", ".join(f"{code} {len(lines)}" for code, lines in sorted(sentences.items()))
        raise FloresError(f"{folder}: the {split} files are not parallel (lines: {counts})")
    lines = select_lines(lengths.pop(), items, split)
    dev = read_split(folder, "dev", sorted(set(codes.values()))) if few_shot else {}
    examples_at = few_shot_lines(few_shot, seed, min(map(len, dev.values()))) if dev else []
    rows = []
    for source in languages:
        for target in targets_of(source, run_languages, directions):
            source_code, target_code = codes[source], codes[target]
            examples = [(dev[source_code][n - 1], dev[target_code][n - 1]) for n in examples_at]
            for line in lines:
                rows.append(
                    {
                        "dataset": "flores",
                        "item_id": item_id(line, target),
                        "lang": source,
                        "prompt": prompt_text(
                            registry[source].name, registry[target].name, sentences[source_code][line - 1], examples
                        ),
                        "category": target,
                        "references": [sentences[target_code][line - 1]],
                        "source_lang": source,
                        "question_en": None,
                    }
                )
    return pa.Table.from_pylist(rows, schema=PROMPTS)
