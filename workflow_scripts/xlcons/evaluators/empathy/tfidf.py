"""The CPU baseline: TF-IDF features of the seeker post and of the response, logistic regression.

Features (one ColumnTransformer over the (seeker post, response) pair):

* seeker post: word 1-2-grams (what the seeker writes about shapes what a reply must do);
* response: word 1-3-grams and character 2-5-grams within word boundaries (the cues of the
  mechanisms: "I'm so sorry", "I understand", "what happened?", and their misspellings);

all sublinear TF, min_df 2. L2-regularised logistic regression on top, C = 4 (picked once
on the dev split from 1/4/10; the test split is never looked at). Trains in a few seconds.
Saved as ``model.joblib`` next to ``classifier.json``.
"""

from __future__ import annotations

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

MODEL_NAME = "model.joblib"
DEFAULTS: dict[str, Any] = {
    "C": 4.0,
    "max_iter": 2000,
    "class_weight": None,  # or "balanced"
    "seeker_word_ngrams": [1, 2],
    "response_word_ngrams": [1, 3],
    "response_char_ngrams": [2, 5],
    "min_df": 2,
}


def _matrix(seekers: Sequence[str], responses: Sequence[str]) -> np.ndarray:
    check_pairs(seekers, responses)
    matrix: np.ndarray = np.empty((len(seekers), 2), dtype=object)
    matrix[:, 0] = list(seekers)
    matrix[:, 1] = list(responses)
    return matrix


class TfidfClassifier(PairClassifier):
    kind = "tfidf"

    def __init__(self, mechanism: str, options: dict[str, Any] | None = None):
        unknown = sorted(set(options or {}) - set(DEFAULTS))
        if unknown:
            raise ClassifierError(f"unknown tfidf option(s) {unknown}; known: {sorted(DEFAULTS)}")
        super().__init__(mechanism, {**DEFAULTS, **(options or {})})
        self.pipeline = None

    def _build(self):
        from sklearn.compose import ColumnTransformer
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import Pipeline

        o = self.options
        common = {"sublinear_tf": True, "min_df": o["min_df"], "dtype": np.float32}
        features = ColumnTransformer(
            [
                ("seeker_words", TfidfVectorizer(ngram_range=tuple(o["seeker_word_ngrams"]), **common), 0),
                ("response_words", TfidfVectorizer(ngram_range=tuple(o["response_word_ngrams"]), **common), 1),
                (
                    "response_chars",
                    TfidfVectorizer(analyzer="char_wb", ngram_range=tuple(o["response_char_ngrams"]), **common),
                    1,
                ),
            ]
        )
        model = LogisticRegression(C=o["C"], max_iter=o["max_iter"], class_weight=o["class_weight"])
        return Pipeline([("features", features), ("logistic_regression", model)])

    def fit(self, seekers, responses, labels, dev=None) -> TfidfClassifier:
        check_pairs(seekers, responses, labels)
        y = np.asarray(labels, dtype=np.int64)
        if len(set(y.tolist())) < 2:
            raise ClassifierError(
                f"{self.mechanism}: training labels are all {y[0] if len(y) else '(none)'}; need both classes"
            )
        self.pipeline = self._build().fit(_matrix(seekers, responses), y)
        return self

    def predict(self, seekers, responses) -> np.ndarray:
        if self.pipeline is None:
            raise ClassifierError("the TF-IDF classifier is not trained")
        if len(seekers) == 0:
            return np.zeros(0, dtype=np.int64)
        return self.pipeline.predict(_matrix(seekers, responses)).astype(np.int64)

    def save(self, directory) -> Path:
        import joblib

        if self.pipeline is None:
            raise ClassifierError("the TF-IDF classifier is not trained")
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        joblib.dump(self.pipeline, directory / MODEL_NAME)
        write_metadata(
            directory, self.metadata(model_file=MODEL_NAME, libraries=library_versions("scikit-learn", "joblib"))
        )
        return directory

    @classmethod
    def load(cls, directory) -> TfidfClassifier:
        import joblib

        metadata = cls.saved_metadata(directory)
        classifier = cls(metadata["mechanism"], metadata.get("options"))
        classifier.pipeline = joblib.load(Path(directory) / metadata.get("model_file", MODEL_NAME))
        return classifier


CLASSIFIER = TfidfClassifier
