"""The empathy classifiers: the TF-IDF baseline on EPITOME, and the encoder path on a tiny model."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest

from xlcons.datasets.epitome import MECHANISMS, mechanism_examples
from xlcons.evaluators.empathy.base import ClassifierError, load_classifier
from xlcons.evaluators.empathy.tfidf import TfidfClassifier
from xlcons.evaluators.empathy.training import EVALUATION_NAME, PAPER_TEST_SCORES, evaluate, scores, train_classifier

# What the baseline must reach on the test split (a baseline of this kind reaches ~0.77/0.83/0.90).
MIN_TEST_ACCURACY = {"ER": 0.74, "IP": 0.80, "EX": 0.88}


@pytest.fixture(scope="module")
def epitome_dir(shared_data: Path) -> Path:
    return shared_data / "epitome"


@pytest.fixture(scope="module")
def tfidf_models(epitome_dir, tmp_path_factory):
    root = tmp_path_factory.mktemp("tfidf")
    return {m: (root / m, train_classifier("tfidf", m, epitome_dir, None, root / m)) for m in MECHANISMS}


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_tfidf_baseline_reaches_its_test_accuracy(tfidf_models, mechanism):
    _, evaluation = tfidf_models[mechanism]
    test = evaluation["test"]
    assert test["accuracy"] >= MIN_TEST_ACCURACY[mechanism], test
    assert 0 < test["positive_f1"] <= test["macro_f1"] or mechanism == "IP"
    assert evaluation["n_test"] == test["n"] == 610
    assert evaluation["n_train"] + evaluation["n_dev"] + evaluation["n_test"] == 3084
    assert evaluation["n_trained_on"] == evaluation["n_train"] + evaluation["n_dev"]  # train+dev by default
    assert evaluation["paper_test"] == PAPER_TEST_SCORES[mechanism]


def test_tfidf_saves_metadata_and_reloads_to_the_same_predictions(tfidf_models, epitome_dir):
    directory, evaluation = tfidf_models["ER"]
    metadata = json.loads((directory / "classifier.json").read_text())
    assert metadata["kind"] == "tfidf" and metadata["mechanism"] == "ER" and "scikit-learn" in metadata["libraries"]
    assert json.loads((directory / EVALUATION_NAME).read_text())["test"] == evaluation["test"]
    reloaded = load_classifier(directory)
    assert isinstance(reloaded, TfidfClassifier)
    assert evaluate(reloaded, mechanism_examples(epitome_dir, "ER")["test"]) == evaluation["test"]


def test_a_second_training_writes_the_same_evaluation_bytes_and_logs_its_time(
    tfidf_models, epitome_dir, tmp_path, caplog
):
    """A rerun of the training job changes no result file: the evaluation holds no run-to-run
    variable field (the training time goes to the log; the rule's benchmark file has the job's)."""
    directory, _ = tfidf_models["ER"]
    with caplog.at_level(logging.INFO, logger="xlcons.evaluators.empathy.training"):
        train_classifier("tfidf", "ER", epitome_dir, None, tmp_path / "ER")
    assert (tmp_path / "ER" / EVALUATION_NAME).read_bytes() == (directory / EVALUATION_NAME).read_bytes()
    assert re.fullmatch(r"tfidf ER: trained on \d+ pairs in \d+\.\d\d s", caplog.messages[-1])


def test_interface_errors():
    with pytest.raises(ClassifierError, match="unknown tfidf option"):
        TfidfClassifier("ER", {"C": 1.0, "alpha": 2})
    with pytest.raises(ClassifierError, match="both classes"):
        TfidfClassifier("ER").fit(["a", "b"], ["c", "d"], [0, 0])
    with pytest.raises(ClassifierError, match="same length"):
        TfidfClassifier("ER").fit(["a", "b"], ["c"], [0, 1])
    with pytest.raises(ClassifierError, match="not trained"):
        TfidfClassifier("ER").predict(["a"], ["b"])
    with pytest.raises(ClassifierError, match="train_on must then be 'train'"):
        train_classifier("encoder", "ER", "unused", None, "unused", {"select_on_dev": True})
    with pytest.raises(ClassifierError, match="unknown empathy classifier kind"):
        train_classifier("svm", "ER", "unused", None, "unused", {"train_on": "train"})


def test_scores_are_accuracy_macro_and_positive_f1():
    result = scores([1, 1, 0, 0], [1, 0, 0, 0])
    assert result["accuracy"] == 0.75
    assert result["positive_f1"] == pytest.approx(2 / 3)
    assert result["macro_f1"] == pytest.approx((2 / 3 + 0.8) / 2)


# -- the encoder path -------------------------------------------------------------------------


def build_tiny_encoder(target: Path, texts: list[str]) -> Path:
    """A randomly initialised two-layer BERT (hidden 32) with a WordPiece vocabulary of the texts."""
    import torch
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import BertConfig, BertForSequenceClassification, PreTrainedTokenizerFast

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    backend = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    backend.normalizer = normalizers.BertNormalizer(lowercase=True)
    backend.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    backend.train_from_iterator(
        texts, trainers.WordPieceTrainer(vocab_size=400, special_tokens=specials, show_progress=False)
    )
    cls, sep = backend.token_to_id("[CLS]"), backend.token_to_id("[SEP]")
    backend.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", cls), ("[SEP]", sep)]
    )
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]", sep_token="[SEP]",
        mask_token="[MASK]", model_max_length=64,
    )  # fmt: skip
    config = BertConfig(
        vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
        max_position_embeddings=64, pad_token_id=tokenizer.pad_token_id,
    )  # fmt: skip
    torch.manual_seed(0)
    BertForSequenceClassification(config).save_pretrained(str(target))
    tokenizer.save_pretrained(str(target))
    return target


def test_encoder_trains_saves_reloads_and_predicts_on_cpu(epitome_dir, tmp_path):
    import numpy as np

    from xlcons.evaluators.empathy.encoder import PAPER_HYPERPARAMETERS, EncoderClassifier, hyperparameters

    examples = mechanism_examples(epitome_dir, "EX")
    texts = [text for e in examples["train"][:300] for text in (e.seeker_post, e.response_post)]
    base = build_tiny_encoder(tmp_path / "tiny-bert", texts)
    options = {
        "model": str(base), "train_on": "train", "limit_train": 64, "epochs": 1, "batch_size": 16,
        "max_length": 64, "learning_rate": 1e-3, "select_on_dev": True, "device": "cpu", "eval_batch_size": 128,
    }  # fmt: skip
    evaluation = train_classifier("encoder", "EX", epitome_dir, None, tmp_path / "EX", options)
    assert evaluation["n_trained_on"] == 64 and evaluation["dev"]["n"] == evaluation["n_dev"]
    assert evaluation["options"]["learning_rate"] == 1e-3  # options override the paper's EX settings
    assert 0 <= evaluation["test"]["accuracy"] <= 1
    saved = tmp_path / "EX"
    assert (saved / "model" / "config.json").is_file() and (saved / "model" / "tokenizer.json").is_file()

    reloaded = load_classifier(saved)
    assert isinstance(reloaded, EncoderClassifier) and reloaded.mechanism == "EX"
    assert evaluate(reloaded, examples["test"]) == evaluation["test"]
    predicted = reloaded.predict(["I feel so alone tonight"] * 3, ["I'm sorry. What happened?", "ok", "Same here."])
    assert predicted.dtype == np.int64 and set(predicted.tolist()) <= {0, 1} and len(predicted) == 3
    assert len(reloaded.predict([], [])) == 0

    assert hyperparameters("EX")["learning_rate"] == PAPER_HYPERPARAMETERS["EX"]["learning_rate"] == 5.5e-5
    assert hyperparameters("ER")["epochs"] == 10 and hyperparameters("EX")["epochs"] == 5
    with pytest.raises(ClassifierError, match="unknown encoder option"):
        EncoderClassifier("ER", {"lr": 1})
