"""Language-aware sentence splitting that keeps a response's layout.

NLLB translates one sentence at a time (its quality drops with input length), so the
translation stage cuts every response into sentences, translates those, and puts the
English back where the originals were; the information evaluator cuts English texts into
the sentences it extracts facts from. ``split(text, lang)`` returns a ``Segmented``: a
sequence of segments, each either a sentence (``translate=True``) or layout that is kept
verbatim (``translate=False``); ``Segmented.reassemble(translations)`` puts one
translation in place of each sentence, and given the original sentences returns the input
byte for byte. ``split_sentences(text, lang)`` is just the sentences.

One module per job, each importing only those above it in this list (and
``xlcons.languages``):

- ``segments``: the segment model (``Segment``, ``Segmented``);
- ``boundaries``: the corrections of three classes of boundary error, on every splitter's
  output;
- ``urdu``: the Urdu sentence rules;
- ``splitters``: which splitter serves a language (``splitter_info``, ``splitter_name``);
- ``backends``: the libraries behind the splitters, built once and cached;
- ``layout``: the Markdown layout parser (``split``, ``split_sentences``).

This package sits at the bottom of the library: it imports no stage (translation,
evaluators, reports, generation), so every stage may use it. Nothing here downloads
anything; ``clear_cache()`` forgets every resolved language and built splitter (tests).
"""

from xlcons.segmentation.backends import clear_cache
from xlcons.segmentation.layout import split, split_sentences
from xlcons.segmentation.segments import Segment, Segmented
from xlcons.segmentation.splitters import SplitterInfo, splitter_info, splitter_name, splitter_report
from xlcons.segmentation.urdu import urdu_sentence_spans

__all__ = [
    "Segment",
    "Segmented",
    "SplitterInfo",
    "split",
    "split_sentences",
    "splitter_info",
    "splitter_name",
    "splitter_report",
    "urdu_sentence_spans",
    "clear_cache",
]
