"""The splitter backends: each turns a line of text (no line breaks) into sentence spans.

``get_backend(info)`` builds the backend a ``SplitterInfo`` names (pysbd, indic-nlp,
underthesea, pythainlp, the Urdu rules, blank spaCy + sentencizer, or a trained spaCy
pipeline) once per (library, language) and reuses it; ``clear_cache()`` forgets them and
the resolved languages (tests).

Blank spaCy gets a rule tokenizer that keeps only the tokenizer exceptions containing a
sentence mark (``Dr.``, ``Sr.``, ``a.m.``): the full exception tables cost seconds to load
(Indonesian has 16,000 hyphenated forms) and the ja/ko/vi/zh/th tokenizers need extra
packages (SudachiPy, mecab-ko, pyvi…) without helping to find sentence ends. The
sentencizer's punctuation is extended (Khmer ``។ ៕``, Greek ``;`` for el) and cut down
(Myanmar ``၊`` is a comma, not a full stop). Before spaCy sees a line it is cut after
the marks that always end a sentence even with no space after them (``。！？｡።፧။។``),
and after ``? ! ؟ ۔ । ॥`` before whitespace, because the tokenizer would leave those
inside a token in scripts written without spaces.

Library quirks handled here: every library's output is re-aligned with the input (on
its non-whitespace characters), because indic-nlp re-joins pieces with single spaces and
pysbd, underthesea and pythainlp trim or keep whitespace as they like; output that does
not align raises ``AlignmentError`` (the layout parser then splits that line with
``fallback_backend()``, blank ``xx`` spaCy). indic-nlp never ends a sentence at a mark
that follows a digit (meant for ``3.14`` and ``1.``), which also glues ``… 1947?`` to the
next sentence: the wrapper cuts again after ``? ! । ॥`` that follow a digit and precede
whitespace. pysbd's Arabic and Persian rules end sentences at ``:`` (Arabic also at the
comma ``،``): such pieces are joined to the next.

Nothing here downloads anything: pysbd, indic-nlp (its sentence splitter needs no
resources directory), underthesea's sentence tokenizer (a bundled parameter file) and
pythainlp's crfcut model (bundled) all work offline. pythainlp is put in offline,
read-only mode (``PYTHAINLP_OFFLINE``/``PYTHAINLP_READ_ONLY``, unless set already) so
a missing corpus raises instead of downloading and nothing is written to
``~/pythainlp-data``. underthesea's package ``__init__`` imports its translation
pipeline (transformers, about 5 s), so its self-contained sentence tokenizer module is
loaded from the installed package directly (falling back to the normal import if that
file moves).
"""

from __future__ import annotations

import importlib.util
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from xlcons.languages import HARD_SENTENCE_MARKS, SENTENCE_CLOSERS, SOFT_SENTENCE_MARKS
from xlcons.segmentation.splitters import SplitterInfo, clear_resolved
from xlcons.segmentation.urdu import urdu_sentence_spans

__all__ = ["AlignmentError", "Backend", "check_spans", "clear_cache", "fallback_backend", "get_backend"]

_backend_cache: dict[tuple[str, str], Backend] = {}


def clear_cache() -> None:
    """Forget every resolved language and built splitter."""
    clear_resolved()
    _backend_cache.clear()
    _blank_pipelines.clear()


class AlignmentError(ValueError):
    pass


class Backend:
    name = ""

    def spans(self, text: str) -> list[tuple[int, int]]:
        raise NotImplementedError


class _PieceBackend(Backend):
    """A library that returns sentence strings; they are aligned with the input."""

    def __init__(self, name: str, pieces: Callable[[str], list[str]]):
        self.name = name
        self._pieces = pieces

    def spans(self, text: str) -> list[tuple[int, int]]:
        return _align(text, self._pieces(text))


class _SpacyBackend(Backend):
    def __init__(self, name: str, nlp, presplit=None):
        self.name = name
        self.nlp = nlp
        self.presplit = presplit

    def spans(self, text: str) -> list[tuple[int, int]]:
        cuts = [0] + ([m.end() for m in self.presplit.finditer(text)] if self.presplit else [])
        cuts.append(len(text))
        spans: list[tuple[int, int]] = []
        for start, end in zip(cuts, cuts[1:]):
            if text[start:end].strip():
                doc = self.nlp(text[start:end])
                spans.extend((start + s.start_char, start + s.end_char) for s in doc.sents)
        return spans


class _UrduBackend(Backend):
    name = "urdu"

    def spans(self, text: str) -> list[tuple[int, int]]:
        return urdu_sentence_spans(text)


def _align(text: str, pieces: Sequence[str]) -> list[tuple[int, int]]:
    """Find each piece in ``text``, in order, comparing non-whitespace characters only."""
    spans: list[tuple[int, int]] = []
    pos, n = 0, len(text)
    for piece in pieces:
        core = "".join(str(piece).split())
        if not core:
            continue
        i, k, start = pos, 0, None
        while k < len(core):
            if i >= n:
                raise AlignmentError(f"piece {piece!r} runs past the text")
            ch = text[i]
            if ch.isspace():
                i += 1
                continue
            if ch != core[k]:
                raise AlignmentError(f"piece {piece!r} does not match the text at {i}")
            if start is None:
                start = i
            i += 1
            k += 1
        spans.append((start, i))
        pos = i
    if text[pos:].strip():  # the library dropped a tail: keep it as a sentence
        rest = len(text[pos:]) - len(text[pos:].lstrip())
        spans.append((pos + rest, n))
    return spans


def check_spans(text: str, spans) -> None:
    """Raise ``AlignmentError`` unless ``spans`` are in order and inside ``text``."""
    last = 0
    for start, end in spans:
        if not (last <= start <= end <= len(text)):
            raise AlignmentError(f"spans out of order: {spans}")
        last = end


def get_backend(info: SplitterInfo) -> Backend:
    key = (info.kind, info.code)
    backend = _backend_cache.get(key)
    if backend is None:
        backend = _build_backend(info.kind, info.code)
        _backend_cache[key] = backend
    return backend


def _build_backend(kind: str, code: str) -> Backend:
    if kind == "pysbd":
        import pysbd

        segmenter = pysbd.Segmenter(language=code, clean=False)
        not_final = _PYSBD_NOT_FINAL.get(code)
        if not not_final:
            return _PieceBackend(f"pysbd:{code}", segmenter.segment)

        def rejoined(text: str) -> list[str]:
            out: list[str] = []
            for piece in segmenter.segment(text):
                if out and out[-1].rstrip()[-1:] in not_final:
                    out[-1] += piece
                else:
                    out.append(piece)
            return out

        return _PieceBackend(f"pysbd:{code}", rejoined)
    if kind == "indicnlp":
        from indicnlp.tokenize.sentence_tokenize import sentence_split

        def pieces(text: str, _lang=code) -> list[str]:
            out: list[str] = []
            for piece in sentence_split(text, _lang):
                out.extend(_AFTER_DIGIT_MARK.split(piece))
            return out

        return _PieceBackend(f"indicnlp:{code}", pieces)
    if kind == "underthesea":
        return _PieceBackend("underthesea:vi", _underthesea_sent_tokenize())
    if kind == "pythainlp":
        _pythainlp_offline()
        from pythainlp.tokenize import sent_tokenize

        return _PieceBackend("pythainlp:crfcut", lambda text: sent_tokenize(text, engine=code))
    if kind == "urdu":
        return _UrduBackend()
    if kind == "spacy":
        return _SpacyBackend(f"spacy:blank-{code}", _blank_pipeline(code), _presplit_pattern(code))
    if kind == "spacy-trained":
        return _SpacyBackend(f"spacy:{code}", _trained(code))
    raise ValueError(f"unknown splitter kind {kind!r}")


# pysbd's Arabic and Persian rules end a sentence at ':' (and Arabic at the comma '،');
# a piece ending in one of those is joined to the next.
_PYSBD_NOT_FINAL = {"ar": ":\u060c", "fa": ":"}

# indic-nlp skips a mark right after a digit; '?', '!' and the dandas are never decimals.
_AFTER_DIGIT_MARK = re.compile(r"(?<=\d[?!\u0964\u0965])(?=\s)")


def _pythainlp_offline() -> None:
    """Make pythainlp raise instead of downloading, and write nothing to ~/pythainlp-data."""
    if "PYTHAINLP_OFFLINE" not in os.environ:
        os.environ["PYTHAINLP_OFFLINE"] = "1"
    if "PYTHAINLP_READ_ONLY" not in os.environ and "PYTHAINLP_READ_MODE" not in os.environ:
        os.environ["PYTHAINLP_READ_ONLY"] = "1"


def _underthesea_sent_tokenize() -> Callable[[str], list[str]]:
    spec = importlib.util.find_spec("underthesea")  # finds, does not import
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            path = Path(location) / "pipeline" / "sent_tokenize" / "__init__.py"
            if not path.is_file():
                continue
            module_spec = importlib.util.spec_from_file_location("_xlcons_underthesea_sent", path)
            module = importlib.util.module_from_spec(module_spec)
            try:
                module_spec.loader.exec_module(module)
            except ImportError:  # it started to import the package: use the package
                break
            if callable(getattr(module, "sent_tokenize", None)):
                return module.sent_tokenize
    from underthesea import sent_tokenize

    return sent_tokenize


# spaCy's sentencizer punctuation, adjusted: Khmer khan and bariyoosan added, the
# Myanmar little section (a comma) removed; Greek's question mark ';' only for el.
_EXTRA_PUNCT = ("\u17d4", "\u17d5")
_NOT_SENTENCE_FINAL = ("\u104a",)
_LANGUAGE_PUNCT = {"el": (";", "\u037e")}


def _punct_chars(code: str) -> list[str]:
    from spacy.pipeline.sentencizer import Sentencizer

    chars = [c for c in Sentencizer.default_punct_chars if c not in _NOT_SENTENCE_FINAL]
    for extra in _EXTRA_PUNCT + _LANGUAGE_PUNCT.get(code, ()):
        if extra not in chars:
            chars.append(extra)
    return chars


_TOKENIZER = "xlcons.SentenceTokenizer.v1"
_blank_pipelines: dict[str, object] = {}


def _register_tokenizer() -> None:
    import spacy

    if _TOKENIZER in spacy.registry.tokenizers:
        return

    @spacy.registry.tokenizers(_TOKENIZER)
    def create_sentence_tokenizer():
        """spaCy's rule tokenizer with only the exceptions that matter to sentence ends.

        A blank pipeline's tokenizer exceptions are mostly irrelevant here (Indonesian
        has 16,000 hyphenated forms, which take seconds to load); the ones that contain
        a sentence mark ("Dr.", "a.m.", "Sr.") are what keeps abbreviations whole. The
        rule tokenizer also replaces the ja/ko/vi/zh/th tokenizers, which need extra
        packages (SudachiPy, mecab-ko, pyvi, …) and add nothing to sentence ends.
        """
        from spacy.tokenizer import Tokenizer
        from spacy.util import compile_infix_regex, compile_prefix_regex, compile_suffix_regex

        def make(nlp):
            defaults = nlp.Defaults
            marks = set(_punct_chars(nlp.lang))
            rules = {
                text: value for text, value in (defaults.tokenizer_exceptions or {}).items() if marks.intersection(text)
            }
            return Tokenizer(
                nlp.vocab,
                rules=rules,
                prefix_search=compile_prefix_regex(defaults.prefixes).search if defaults.prefixes else None,
                suffix_search=compile_suffix_regex(defaults.suffixes).search if defaults.suffixes else None,
                infix_finditer=compile_infix_regex(defaults.infixes).finditer if defaults.infixes else None,
                token_match=defaults.token_match,
                url_match=defaults.url_match,
            )

        return make


def _blank_pipeline(code: str):
    """Blank spaCy ``code`` + sentencizer, built once per code."""
    if code in _blank_pipelines:
        return _blank_pipelines[code]
    import spacy

    _register_tokenizer()
    nlp = spacy.blank(code, config={"nlp": {"tokenizer": {"@tokenizers": _TOKENIZER}}})
    nlp.add_pipe("sentencizer", config={"punct_chars": _punct_chars(code)})
    _blank_pipelines[code] = nlp
    return nlp


# Before the blank pipeline sees a line, it is cut after marks that always end a
# sentence (even with no space after them, as in Chinese, Japanese, Amharic, Myanmar),
# and after ? ! ؟ ۔ । ॥ before whitespace (some blank classes' suffix rules keep those
# on the word), with closing quotes and brackets.
_HARD_MARKS = HARD_SENTENCE_MARKS
_SOFT_MARKS = SOFT_SENTENCE_MARKS
_CLOSING = SENTENCE_CLOSERS


def _presplit_pattern(code: str):
    soft = _SOFT_MARKS + ("".join(_LANGUAGE_PUNCT.get(code, ())))
    hard, closing = re.escape(_HARD_MARKS), re.escape(_CLOSING)
    return re.compile(rf"(?:[{hard}]+|[{re.escape(soft)}{hard}]+(?=\s))[{closing}]*")


def _trained(name: str):
    import spacy

    nlp = spacy.load(
        name,
        exclude=["ner", "lemmatizer", "textcat", "textcat_multilabel", "entity_linker", "entity_ruler", "span_ruler"],
    )
    if not ({"parser", "senter", "sentencizer"} & set(nlp.pipe_names)):
        nlp.add_pipe("sentencizer")
    return nlp


def fallback_backend() -> Backend:
    """Blank ``xx`` spaCy + sentencizer, for a line whose splitter output does not align."""
    return get_backend(SplitterInfo("xx", "spacy", "spacy", "xx"))
