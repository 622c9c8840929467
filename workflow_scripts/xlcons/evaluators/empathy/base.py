"""The interface every empathy classifier has, and loading a saved one by its recorded kind.

A classifier decides one mechanism (ER, IP or EX) for (seeker post, response) pairs:
``fit(seekers, responses, labels)`` → ``predict(seekers, responses)`` gives 0/1 per pair;
``save(directory)`` writes the model plus ``classifier.json`` (kind, mechanism, library
versions, options) and ``load_classifier(directory)`` reads any kind back.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

METADATA_NAME = "classifier.json"
KINDS = {"tfidf": "xlcons.evaluators.empathy.tfidf", "encoder": "xlcons.evaluators.empathy.encoder"}


class ClassifierError(RuntimeError):
    """A classifier cannot be trained, saved or loaded as asked; the message says why."""


class PairClassifier(ABC):
    """A binary classifier of (seeker post, response) pairs for one mechanism."""

    kind: str = ""

    def __init__(self, mechanism: str, options: dict[str, Any] | None = None):
        self.mechanism = mechanism
        self.options = dict(options or {})

    @abstractmethod
    def fit(
        self,
        seekers: Sequence[str],
        responses: Sequence[str],
        labels: Sequence[int],
        dev: tuple[Sequence[str], Sequence[str], Sequence[int]] | None = None,
    ) -> PairClassifier:
        """Train on the pairs; `dev` (seekers, responses, labels) is used only where an option asks for it."""

    @abstractmethod
    def predict(self, seekers: Sequence[str], responses: Sequence[str]) -> np.ndarray:
        """0/1 per pair (int64 array, same order)."""

    @abstractmethod
    def save(self, directory: Path | str) -> Path:
        """Write the model into `directory` (created) together with its metadata file."""

    @classmethod
    @abstractmethod
    def load(cls, directory: Path | str) -> PairClassifier: ...

    def metadata(self, **extra: Any) -> dict[str, Any]:
        return {"kind": self.kind, "mechanism": self.mechanism, "options": self.options, **extra}

    @classmethod
    def saved_metadata(cls, directory: Path | str) -> dict[str, Any]:
        """The metadata of a saved classifier, checked to be of this class's kind."""
        metadata = read_metadata(directory)
        if metadata.get("kind") != cls.kind:
            raise ClassifierError(f"{directory} holds a {metadata.get('kind')!r} classifier, not {cls.kind}")
        return metadata


def check_pairs(seekers: Sequence[str], responses: Sequence[str], labels: Sequence[int] | None = None) -> None:
    if len(seekers) != len(responses) or (labels is not None and len(labels) != len(seekers)):
        sizes = (len(seekers), len(responses)) + ((len(labels),) if labels is not None else ())
        raise ClassifierError(f"seekers, responses (and labels) must have the same length, got {sizes}")


def library_versions(*names: str) -> dict[str, str]:
    versions = {}
    for name in names:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def write_metadata(directory: Path, metadata: dict[str, Any]) -> None:
    (directory / METADATA_NAME).write_text(json.dumps(metadata, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def read_metadata(directory: Path | str) -> dict[str, Any]:
    path = Path(directory) / METADATA_NAME
    if not path.is_file():
        raise ClassifierError(f"{directory} holds no empathy classifier ({METADATA_NAME} missing)")
    return json.loads(path.read_text(encoding="utf-8"))


def classifier_class(kind: str) -> type[PairClassifier]:
    if kind not in KINDS:
        raise ClassifierError(f"unknown empathy classifier kind {kind!r}; expected one of {', '.join(KINDS)}")
    module = importlib.import_module(KINDS[kind])
    return module.CLASSIFIER


def load_classifier(directory: Path | str) -> PairClassifier:
    """Load a saved classifier of any kind (the kind is read from its metadata)."""
    return classifier_class(read_metadata(directory)["kind"]).load(directory)
