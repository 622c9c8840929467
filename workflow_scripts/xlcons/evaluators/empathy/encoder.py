"""A fine-tuned transformer encoder for one mechanism, on (seeker post, response) sequence pairs.

Any encoder that `AutoModelForSequenceClassification` can load (a Hub name or a local
directory) gets a fresh two-way head and is fine-tuned with transformers' `Trainer`; the
pair is encoded as the tokenizer's sequence pair (``[CLS] seeker [SEP] response [SEP]``),
truncating the longer side first. Gupta et al. 2025 fine-tuned ModernBERT-large with lr 2.5e-5 for
10 epochs (ER, IP) and 5.5e-5 for 5 epochs (EX), then retrained on train+dev
(:data:`PAPER_HYPERPARAMETERS`; which examples are trained on is `training`'s business).

``select_on_dev`` (for tuning) evaluates on the dev pairs after every epoch and keeps the
epoch with the best dev macro-F1. Training uses the GPU when torch sees one (bf16 where it
supports it), the CPU otherwise. Saved as ``model/`` (weights, config, tokenizer) next to
``classifier.json``; prediction runs in batches, longest pairs first.
"""

from __future__ import annotations

import logging
import math
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from xlcons.evaluators.empathy.base import (
    ClassifierError,
    PairClassifier,
    check_pairs,
    library_versions,
    write_metadata,
)

log = logging.getLogger(__name__)

MODEL_DIR = "model"
PAPER_MODEL = "answerdotai/ModernBERT-large"
PAPER_HYPERPARAMETERS: dict[str, dict[str, Any]] = {
    "ER": {"learning_rate": 2.5e-5, "epochs": 10},
    "IP": {"learning_rate": 2.5e-5, "epochs": 10},
    "EX": {"learning_rate": 5.5e-5, "epochs": 5},
}
DEFAULTS: dict[str, Any] = {
    "model": PAPER_MODEL,
    "learning_rate": 2.5e-5,
    "epochs": 10,
    "max_steps": None,  # stop after this many optimiser steps (tests, smoke runs); None: all epochs
    "batch_size": 16,
    "eval_batch_size": 64,
    "gradient_accumulation_steps": 1,
    "max_length": 512,
    "weight_decay": 0.01,
    "warmup_ratio": 0.1,
    "seed": 42,
    "select_on_dev": False,
    "bf16": "auto",  # true / false / "auto" (on a GPU that supports it)
    "device": "auto",  # "auto" (GPU when available), "cpu" or "cuda"
}


def hyperparameters(mechanism: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """The defaults, overlaid with the paper's learning rate and epochs for the mechanism, then with `options`."""
    return {**DEFAULTS, **PAPER_HYPERPARAMETERS.get(mechanism, {}), **(options or {})}


def _device(preference: str) -> str:
    import torch

    if preference == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if preference == "cuda" and not torch.cuda.is_available():
        raise ClassifierError("device 'cuda' asked for, but torch sees no GPU")
    if preference not in ("cpu", "cuda"):
        raise ClassifierError(f"device must be auto, cpu or cuda, not {preference!r}")
    return preference


def _bf16(setting: Any, device: str) -> bool:
    import torch

    if setting == "auto":
        return device == "cuda" and torch.cuda.is_bf16_supported()
    return bool(setting)


class _Pairs:
    """Tokenised pairs as a map-style dataset (a list of feature dicts) for the Trainer."""

    def __init__(self, encoded: dict[str, list], labels: Sequence[int] | None):
        self.encoded = encoded
        self.labels = None if labels is None else [int(label) for label in labels]

    def __len__(self) -> int:
        return len(self.encoded["input_ids"])

    def __getitem__(self, index: int) -> dict[str, Any]:
        item = {name: values[index] for name, values in self.encoded.items()}
        if self.labels is not None:
            item["labels"] = self.labels[index]
        return item


def _macro_f1(prediction) -> dict[str, float]:
    from sklearn.metrics import accuracy_score, f1_score

    predicted = np.argmax(prediction.predictions, axis=-1)
    gold = prediction.label_ids
    return {
        "accuracy": float(accuracy_score(gold, predicted)),
        "macro_f1": float(f1_score(gold, predicted, average="macro")),
    }


class EncoderClassifier(PairClassifier):
    kind = "encoder"

    def __init__(self, mechanism: str, options: dict[str, Any] | None = None):
        merged = hyperparameters(mechanism, options)
        unknown = sorted(set(merged) - set(DEFAULTS))
        if unknown:
            raise ClassifierError(f"unknown encoder option(s) {unknown}; known: {sorted(DEFAULTS)}")
        super().__init__(mechanism, merged)
        # transformers' model and tokenizer once trained or loaded (third-party, read as Any).
        self.model: Any = None
        self.tokenizer: Any = None
        self.history: list[dict[str, Any]] = []

    def _encode(self, seekers: Sequence[str], responses: Sequence[str]) -> dict[str, list]:
        encoded = self.tokenizer(
            list(seekers), list(responses), truncation="longest_first", max_length=self.options["max_length"]
        )
        return {name: list(values) for name, values in encoded.items()}

    def fit(self, seekers, responses, labels, dev=None) -> EncoderClassifier:
        from transformers import (
            AutoModelForSequenceClassification,
            AutoTokenizer,
            DataCollatorWithPadding,
            Trainer,
            TrainingArguments,
            set_seed,
        )

        check_pairs(seekers, responses, labels)
        o = self.options
        if o["select_on_dev"] and dev is None:
            raise ClassifierError("select_on_dev needs the dev pairs")
        device = _device(o["device"])
        set_seed(o["seed"])
        self.tokenizer = AutoTokenizer.from_pretrained(str(o["model"]))
        self.model = AutoModelForSequenceClassification.from_pretrained(
            str(o["model"]), num_labels=2, id2label={0: "no", 1: "yes"}, label2id={"no": 0, "yes": 1}
        )
        if self.tokenizer.pad_token is None:
            raise ClassifierError(f"the tokenizer of {o['model']} has no padding token")
        train = _Pairs(self._encode(seekers, responses), labels)
        evaluation = _Pairs(self._encode(*dev[:2]), dev[2]) if o["select_on_dev"] else None
        steps_per_epoch = math.ceil(len(train) / (o["batch_size"] * o["gradient_accumulation_steps"]))
        total_steps = o["max_steps"] or steps_per_epoch * o["epochs"]
        work = Path(tempfile.mkdtemp(prefix="xlcons-empathy-encoder-"))
        try:
            arguments = TrainingArguments(
                output_dir=str(work),
                num_train_epochs=o["epochs"],
                max_steps=o["max_steps"] or -1,
                learning_rate=o["learning_rate"],
                per_device_train_batch_size=o["batch_size"],
                per_device_eval_batch_size=o["eval_batch_size"],
                gradient_accumulation_steps=o["gradient_accumulation_steps"],
                weight_decay=o["weight_decay"],
                warmup_steps=int(round(o["warmup_ratio"] * total_steps)),
                seed=o["seed"],
                bf16=_bf16(o["bf16"], device),
                use_cpu=device == "cpu",
                eval_strategy="epoch" if evaluation is not None else "no",
                save_strategy="epoch" if evaluation is not None else "no",
                save_total_limit=1 if evaluation is not None else None,
                save_only_model=True,
                load_best_model_at_end=evaluation is not None,
                metric_for_best_model="macro_f1" if evaluation is not None else None,
                greater_is_better=True if evaluation is not None else None,
                logging_strategy="epoch",
                report_to="none",
                disable_tqdm=True,
                dataloader_num_workers=0,
            )
            trainer = Trainer(
                model=self.model,
                args=arguments,
                train_dataset=train,
                eval_dataset=evaluation,
                data_collator=DataCollatorWithPadding(self.tokenizer),
                compute_metrics=_macro_f1 if evaluation is not None else None,
            )
            trainer.train()
            self.model = trainer.model
            self.history = [dict(entry) for entry in trainer.state.log_history]
            if evaluation is not None:
                self.history.append({"best_checkpoint_metric": trainer.state.best_metric})
        finally:
            shutil.rmtree(work, ignore_errors=True)
        self.model.eval()
        return self

    def predict(self, seekers, responses) -> np.ndarray:
        import torch

        if self.model is None:
            raise ClassifierError("the encoder classifier is not trained or loaded")
        check_pairs(seekers, responses)
        if not len(seekers):
            return np.zeros(0, dtype=np.int64)
        device = _device(self.options.get("device", "auto"))
        self.model.to(device).eval()
        encoded = self._encode(seekers, responses)
        order = sorted(range(len(seekers)), key=lambda i: -len(encoded["input_ids"][i]))
        predicted: np.ndarray = np.zeros(len(seekers), dtype=np.int64)
        size = int(self.options["eval_batch_size"])
        with torch.inference_mode():
            for start in range(0, len(order), size):
                indices = order[start : start + size]
                batch = self.tokenizer.pad(
                    [{name: values[i] for name, values in encoded.items()} for i in indices], return_tensors="pt"
                )
                logits = self.model(**{name: tensor.to(device) for name, tensor in batch.items()}).logits
                predicted[indices] = logits.argmax(dim=-1).cpu().numpy()
        return predicted

    def save(self, directory) -> Path:
        if self.model is None:
            raise ClassifierError("the encoder classifier is not trained or loaded")
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        self.model.save_pretrained(str(directory / MODEL_DIR))
        # transformers 5 records how a tokenizer was loaded in its init kwargs; leave that out.
        for key in ("is_local", "local_files_only"):
            self.tokenizer.init_kwargs.pop(key, None)
        self.tokenizer.save_pretrained(str(directory / MODEL_DIR))
        write_metadata(
            directory,
            self.metadata(
                model_dir=MODEL_DIR,
                base_model=str(self.options["model"]),
                history=self.history,
                libraries=library_versions("transformers", "torch", "accelerate"),
            ),
        )
        return directory

    @classmethod
    def load(cls, directory) -> EncoderClassifier:
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        metadata = cls.saved_metadata(directory)
        options = {key: value for key, value in (metadata.get("options") or {}).items() if key in DEFAULTS}
        classifier = cls(metadata["mechanism"], options)
        path = Path(directory) / metadata.get("model_dir", MODEL_DIR)
        classifier.tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        classifier.model = AutoModelForSequenceClassification.from_pretrained(str(path), local_files_only=True)
        classifier.model.eval()
        classifier.history = metadata.get("history", [])
        return classifier


CLASSIFIER = EncoderClassifier
