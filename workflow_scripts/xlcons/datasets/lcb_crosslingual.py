"""The Language Confusion Benchmark's cross-lingual task (xlcons.datasets.lcb): English prompts
asking for another language."""

from xlcons.datasets.lcb import load_task


def load(folder, languages, items):
    return load_task("crosslingual", "lcb-crosslingual", folder, languages, items)
