"""Gupta et al. 2025's published figures (docs/methods.md §1) for the Translate-then-Evaluate report.

The paper's labels of its twelve models (matched with this project's config names by
:func:`paper_model`), their averaged consistency, Llama-3.1-8B's self-consistency of the round
trips, and the EPITOME classifiers' test scores.
"""

from __future__ import annotations

# This project's config names of Gupta et al. 2025's models -> the labels of the paper's tables.
PAPER_MODELS = {
    "aya-expanse-8b": "aya-exp-8b",
    "aya-expanse-32b": "aya-exp-32b",
    "gemma-2-9b": "gemma-2-9b",
    "gemma-2-27b": "gemma-2-27b",
    "llama-3.1-8b": "Llama-3.1-8B",
    "llama-3.3-70b": "Llama-3.3-70B",
    "qwen-2.5-14b": "Qwen-2.5-14B",
    "qwen-2.5-72b": "Qwen-2.5-72B",
    "gemini-2.0-flash-lite": "gemini-2.0-lite",
    "gemini-2.0-flash": "gemini-2.0",
    "gpt-4o-mini": "gpt-4o-mini",
    "gpt-4o": "gpt-4o",
}
# Gupta et al. 2025's averaged consistency, information / empathy (docs/methods.md §1).
PUBLISHED_AVERAGES = {
    "aya-exp-8b": {"information": 0.42, "empathy": 0.65},
    "aya-exp-32b": {"information": 0.49, "empathy": 0.67},
    "gemma-2-9b": {"information": 0.52, "empathy": 0.59},
    "gemma-2-27b": {"information": 0.59, "empathy": 0.60},
    "Llama-3.1-8B": {"information": 0.32, "empathy": 0.45},
    "Llama-3.3-70B": {"information": 0.49, "empathy": 0.48},
    "Qwen-2.5-14B": {"information": 0.39, "empathy": 0.60},
    "Qwen-2.5-72B": {"information": 0.49, "empathy": 0.61},
    "gemini-2.0-lite": {"information": 0.65, "empathy": 0.65},
    "gemini-2.0": {"information": 0.64, "empathy": 0.60},
    "gpt-4o-mini": {"information": 0.62, "empathy": 0.76},
    "gpt-4o": {"information": 0.68, "empathy": 0.82},
}
# Gupta et al. 2025's table "Self-consistency": Llama-3.1-8B, round trips en→l→en, Qwen evaluator.
PUBLISHED_SELF_CONSISTENCY = {
    "Llama-3.1-8B": {
        "ar": 0.90,
        "cs": 0.91,
        "fr": 0.93,
        "hi": 0.91,
        "ja": 0.86,
        "ml": 0.90,
        "fa": 0.89,
        "ru": 0.94,
        "es": 0.94,
        "ta": 0.86,
    },
}
# Gupta et al. 2025's ModernBERT-large classifiers on the EPITOME test split (%).
PAPER_CLASSIFIERS = {
    "ER": {"f1": 86.1, "accuracy": 87.2},
    "IP": {"f1": 87.3, "accuracy": 87.4},
    "EX": {"f1": 92.0, "accuracy": 95.8},
}
MECHANISMS = tuple(PAPER_CLASSIFIERS)


def paper_model(model: str) -> str | None:
    """The paper's label of `model` (a config name such as ``llama-3.1-8b`` or the paper's own label), else None."""
    lowered = model.lower()
    if lowered in PAPER_MODELS:
        return PAPER_MODELS[lowered]
    for label in PUBLISHED_AVERAGES:
        if label.lower() == lowered:
            return label
    return None
