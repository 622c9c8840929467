"""The Language Confusion Benchmark's monolingual task (xlcons.datasets.lcb): prompts in the answer's language."""

from xlcons.datasets.lcb import load_task


def load(folder, languages, items):
    return load_task("monolingual", "lcb-monolingual", folder, languages, items)
