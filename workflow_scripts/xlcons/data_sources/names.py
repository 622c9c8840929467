"""The names things are fetched under: a `url` model source's file, and the data source of a
model's released answers."""

from __future__ import annotations


def url_file_name(url: str) -> str:
    """The file name a `url` model source is saved under: the URL path's last part."""
    return url.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]


def released_source_name(model: str) -> str:
    """The data source of one model's released answers: Xing et al. 2024's MAKQA outputs
    (``gpt35`` → ``makqa-released-gpt35``) or the Language Confusion Benchmark's completions
    (``lcb-command-r`` → ``lcb-released-command-r``)."""
    if model.startswith("lcb-"):
        return f"lcb-released-{model.removeprefix('lcb-')}"
    return f"makqa-released-{model}"
