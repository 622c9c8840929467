"""The English word list of the ``lcb`` language-confusion rule, offline."""

from __future__ import annotations

from pathlib import Path

# A short English word list of our own in the format of the Language Confusion Benchmark's
# `words` (one word per line; only entries in lower case and longer than three letters
# count), for the `lcb` language-confusion rule of config/offline.yaml: the benchmark's
# list is fetched from its pinned commit in a real run.
ENGLISH_WORDS = """
about above after again against also answer because been before being below between both
city country could does doing down during each every example film first from further good
have having here history house into itself just know language later like little long made
make many more most much must name never number only other over people place question
right said same science should small some such than that their them then there these they
thing think this those through time today under until very water well were what when where
which while will with without word work world would write year your English Python
""".split()


def make_english_words(target: Path, data_dir: Path | None = None) -> None:
    target.write_text("\n".join(ENGLISH_WORDS) + "\n", encoding="utf-8")
