"""Language-aware sentence splitting that keeps a response's layout.

NLLB translates one sentence at a time (its quality drops with input length), so the
translation stage cuts every response into sentences, translates those, and puts the
English back where the originals were. ``split(text, lang)`` returns a ``Segmented``: a
sequence of segments, each either a sentence to translate (``translate=True``) or
layout that is kept verbatim (``translate=False``). ``Segmented.reassemble(translations)``
puts one translation in place of each sentence; given the original sentences it returns
the input byte for byte, for every input.

Layout (never sent to NLLB):

- line breaks of any kind, blank lines, leading and trailing whitespace of a line, the
  whitespace between two sentences;
- fenced code blocks (```` ``` ```` or ``~~~``, fences included; an unclosed fence runs to
  the end, as in CommonMark) and display math (``$$ … $$``, ``\\[ … \\]``);
- horizontal rules and table separator rows; the pipes of table rows (each cell is
  split on its own);
- at the start of a line: blockquote ``>``, heading ``#``…``######`` (and closing
  hashes), bullets (``- * + • ◦ ▪ ● · ・ – — →`` …), task boxes ``[ ]``/``[x]``, numbering
  ``1.`` ``1)`` ``(1)`` ``1.2.`` ``a)`` ``a.`` ``(a)`` ``iv.`` ``1、`` ``一、`` ``（一）``
  (and ``1۔`` in Urdu style), with the space after them;
- emphasis around a whole sentence (``**…**``, ``*…*``, ``__…__``, ``_…_``, ``~~…~~``)
  and a bold run opened in one sentence and closed in a later one (``**A. B.**``: the
  ``**`` of each half is layout); emphasis *inside* a sentence stays in the sentence;
- text with no letters at all (numbers, formulas, emoji), a lone URL or a line that is
  only inline code.

Sentences never span a line break: each line (list item, heading, paragraph) is split on
its own, so the English has exactly the original's lines. Paragraphs that hard-wrap a
sentence over two lines get that sentence translated in two pieces (chat models rarely
hard-wrap; keeping the lines exact matters more).

Two sentences written without whitespace between them (Chinese, Japanese, Thai, Urdu
typed without a space after ``۔``) are separated by an empty ``joint`` segment;
``reassemble`` writes a single space there when either neighbour was replaced, so
English sentences do not run together, and nothing when both are the originals.

Which splitter serves a language comes from the ``splitter`` column of
``config/languages.tsv`` (pysbd, indicnlp, underthesea, pythainlp, urdu or spacy), with
two overrides, both reported by ``splitter_info(lang)`` / ``splitter_name(lang)``:

1. a trained spaCy pipeline for the language (``<lang>_core_news_sm``/``md``/``lg``,
   ``<lang>_core_web_sm``/``md``/``lg``), when one is installed, serves it whatever the
   registry says (paper 000 used them); ``xx_sent_ud_sm``, being multilingual, only
   replaces the blank-spaCy splitter. A distribution whose major version differs from
   spaCy's is ignored (``*-core-news-*`` 999.9.9 on PyPI are squats, not models);
2. a language the registry's library does not support (pysbd's 23 languages,
   indic-nlp's script table, underthesea = vi, pythainlp = th, the Urdu rules = ur)
   falls back to blank spaCy + sentencizer.

Blank spaCy is the language's blank class (``xx`` where spaCy has none) with a rule
tokenizer that keeps only the tokenizer exceptions containing a sentence mark
(``Dr.``, ``Sr.``, ``a.m.``): the full exception tables cost seconds to load
(Indonesian has 16,000 hyphenated forms) and the ja/ko/vi/zh/th tokenizers need extra
packages (SudachiPy, mecab-ko, pyvi…) without helping to find sentence ends. The
sentencizer's punctuation is extended (Khmer ``។ ៕``, Greek ``;`` for el) and cut down
(Myanmar ``၊`` is a comma, not a full stop). Before spaCy sees a line it is cut after
the marks that always end a sentence even with no space after them (``。！？｡።፧။។``),
and after ``? ! ؟ ۔ । ॥`` before whitespace, because the tokenizer would leave those
inside a token in scripts written without spaces.

Library quirks handled here: every library's output is re-aligned with the input (on
its non-whitespace characters), because indic-nlp re-joins pieces with single spaces and
pysbd, underthesea and pythainlp trim or keep whitespace as they like; a library whose
output does not align is replaced by blank ``xx`` spaCy for that line (counted in
``Segmented.fallbacks``). Pieces with no letter or digit (indic-nlp returns ``'?'`` of
``'!?'`` alone) join the sentence before them. indic-nlp never ends a sentence at a mark
that follows a digit (meant for ``3.14`` and ``1.``), which also glues ``… 1947?`` to the
next sentence: the wrapper cuts again after ``? ! । ॥`` that follow a digit and precede
whitespace. pysbd's Arabic and Persian rules end sentences at ``:`` (Arabic also at the
comma ``،``): such pieces are joined to the next. Three classes of error that every library
makes in some language (an ordinal ``3.`` taken for a sentence end, an abbreviation before a
number ``Rs. 500`` cut, a sentence ending in ``...`` or ``?!`` not cut) are corrected on
every splitter's output (``xlcons.translation.boundaries``). The splitters see a cleaned copy of
the line, emphasis markers removed and inline code and URLs masked, so neither
``**Dr. Smith**`` nor ``a.b()`` creates a false boundary.

Nothing here downloads anything: pysbd, indic-nlp (its sentence splitter needs no
resources directory), underthesea's sentence tokenizer (a bundled parameter file) and
pythainlp's crfcut model (bundled) all work offline. pythainlp is put in offline,
read-only mode (``PYTHAINLP_OFFLINE``/``PYTHAINLP_READ_ONLY``, unless set already) so
a missing corpus raises instead of downloading and nothing is written to
``~/pythainlp-data``. underthesea's package ``__init__`` imports its translation
pipeline (transformers, about 5 s), so its self-contained sentence tokenizer module is
loaded from the installed package directly (falling back to the normal import if that
file moves).

Splitters are built once per (library, language) and reused; ``clear_cache()`` forgets
them (tests).
"""

from __future__ import annotations

import importlib.util
import os
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from xlcons.languages import REGISTRY_PATH, LanguageRegistry
from xlcons.translation.boundaries import repair

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

# --------------------------------------------------------------------------------------
# Segments
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Segment:
    """A piece of a response: a sentence to translate, or layout kept verbatim.

    ``kind`` is ``sentence``, ``layout``, ``code`` (a fenced block or display math) or
    ``joint`` (the empty place between two sentences written without a space).
    """

    text: str
    translate: bool
    kind: str = "layout"


@dataclass(frozen=True)
class Segmented:
    lang: str
    splitter: str
    segments: tuple[Segment, ...]
    fallbacks: int = 0  # lines whose splitter output could not be aligned

    @property
    def sentences(self) -> list[str]:
        return [segment.text for segment in self.segments if segment.translate]

    @property
    def text(self) -> str:
        return "".join(segment.text for segment in self.segments)

    def reassemble(self, translations: Sequence[str]) -> str:
        """Put ``translations`` (one per sentence, in order) in place of the sentences.

        Each translation is stripped of surrounding whitespace (the layout owns the
        whitespace). With the original sentences the result is the input, byte for byte.
        """
        translations = list(translations)
        originals = self.sentences
        if len(translations) != len(originals):
            raise ValueError(
                f"{len(translations)} translations for {len(originals)} sentences; "
                "reassemble needs exactly one per sentence"
            )
        new = [str(text).strip() for text in translations]
        changed = [a != b for a, b in zip(new, originals)]
        out: list[str] = []
        index = 0  # the next sentence
        for segment in self.segments:
            if segment.translate:
                out.append(new[index])
                index += 1
            elif segment.kind == "joint":
                # Between sentence index-1 and sentence index.
                if 0 < index < len(new) and (changed[index - 1] or changed[index]):
                    out.append(" ")
            else:
                out.append(segment.text)
        return "".join(out)


# --------------------------------------------------------------------------------------
# Which splitter serves a language
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SplitterInfo:
    """What serves a language: ``kind`` is the registry's splitter name, or
    ``spacy-trained`` for an installed trained pipeline; ``code`` is the library's
    language code (or the pipeline's name); ``note`` says why it differs from the
    registry, if it does."""

    lang: str
    registry: str
    kind: str
    code: str
    note: str | None = None

    @property
    def name(self) -> str:
        if self.kind == "spacy":
            return f"spacy:blank-{self.code}+sentencizer"
        if self.kind == "spacy-trained":
            return f"spacy:{self.code}"
        return f"{self.kind}:{self.code}"

    @property
    def matches_registry(self) -> bool:
        return self.kind == self.registry


_PYSBD_LANGUAGES = frozenset(
    "am ar bg da de el en es fa fr hi hy it ja kk mr my nl pl ru sk ur zh".split()
)  # pysbd 0.3.4's LANGUAGE_CODES; checked against the installed package when it loads
# indic-nlp's own codes for registry codes that differ (Konkani is 'kK' there). Bhojpuri,
# Maithili and Dogri are written in Devanagari with Hindi's sentence marks (danda, ?, !),
# which indic-nlp's Hindi rules split; it has no rules of its own for them.
_INDICNLP_CODES = {"gom": "kK", "bho": "hi", "mai": "hi", "doi": "hi"}
# spaCy's codes for registry codes that differ (after the registry's canonical code).
_SPACY_CODES = {"no": "nb", "zh-TW": "zh", "zh-CN": "zh", "iw": "he", "jw": "jv", "fil": "tl"}
_TRAINED_SUFFIXES = ("core_news_sm", "core_web_sm", "core_news_md", "core_web_md",
                     "core_news_lg", "core_web_lg")
_MULTILINGUAL_PIPELINE = "xx_sent_ud_sm"

_info_cache: dict[tuple[str, str], SplitterInfo] = {}
_backend_cache: dict[tuple[str, str], "_Backend"] = {}


def clear_cache() -> None:
    """Forget every resolved language and built splitter."""
    _info_cache.clear()
    _backend_cache.clear()
    _blank_pipelines.clear()


def _registry(path) -> LanguageRegistry:
    return LanguageRegistry.load(REGISTRY_PATH if path is None else path)


def _spacy_code(lang: str, canonical: str) -> str:
    return _SPACY_CODES.get(lang) or _SPACY_CODES.get(canonical) or canonical.split("-")[0]


def splitter_info(lang: str, *, registry_path=None) -> SplitterInfo:
    """Which splitter serves ``lang`` (resolved once, then cached)."""
    key = (lang, str(registry_path))
    if key not in _info_cache:
        _info_cache[key] = _resolve(lang, _registry(registry_path))
    return _info_cache[key]


def splitter_name(lang: str, *, registry_path=None) -> str:
    """A short name for the splitter that serves ``lang``, to record with the output."""
    return splitter_info(lang, registry_path=registry_path).name


def splitter_report(langs, *, registry_path=None) -> dict[str, str]:
    return {lang: splitter_name(lang, registry_path=registry_path) for lang in langs}


def _resolve(lang: str, registry: LanguageRegistry) -> SplitterInfo:
    language = registry[lang]  # UnknownLanguageError for a code not in the registry
    wanted = language.splitter
    spacy_code = _spacy_code(lang, language.canonical)

    trained = _trained_pipeline([f"{spacy_code}_{suffix}" for suffix in _TRAINED_SUFFIXES])
    if trained:
        return SplitterInfo(lang, wanted, "spacy-trained", trained,
                            None if wanted == "spacy" else f"trained spaCy pipeline {trained} is installed")

    code: str | None = None
    if wanted == "pysbd":
        candidate = language.canonical.split("-")[0]
        code = candidate if candidate in _pysbd_languages() else None
    elif wanted == "indicnlp":
        candidate = _INDICNLP_CODES.get(language.canonical, language.canonical)
        code = candidate if candidate in _indicnlp_languages() else None
    elif wanted == "underthesea":
        code = "vi" if language.canonical == "vi" else None
    elif wanted == "pythainlp":
        code = "crfcut" if language.canonical == "th" else None
    elif wanted == "urdu":
        code = "ur" if language.canonical == "ur" else None
    if code is not None:
        return SplitterInfo(lang, wanted, wanted, code)

    note = None if wanted == "spacy" else f"{wanted} does not support {lang!r}"
    if _trained_pipeline([_MULTILINGUAL_PIPELINE]):
        return SplitterInfo(lang, wanted, "spacy-trained", _MULTILINGUAL_PIPELINE,
                            note or f"trained spaCy pipeline {_MULTILINGUAL_PIPELINE} is installed")
    # xx (spaCy's multi-language class) where spaCy has no class for the language.
    return SplitterInfo(lang, wanted, "spacy", _blank_code(spacy_code), note)


def _pysbd_languages() -> frozenset[str]:
    try:
        from pysbd.languages import LANGUAGE_CODES
    except ImportError:  # pragma: no cover - pysbd is a dependency of the stage
        return _PYSBD_LANGUAGES
    return frozenset(LANGUAGE_CODES)


def _indicnlp_languages() -> frozenset[str]:
    try:
        from indicnlp import langinfo
    except ImportError:  # pragma: no cover
        return frozenset()
    # 'sd' there is Sindhi in Devanagari; the registry's Sindhi is Arabic script.
    return frozenset(langinfo.SCRIPT_RANGES) - {"sd"}


def _trained_pipeline(names) -> str | None:
    """The first of ``names`` installed as a package that looks like a spaCy model."""
    for name in names:
        if _is_package(name) and _plausible_model_version(name):
            return name
    return None


def _is_package(name: str) -> bool:
    """spacy.util.is_package without importing spaCy (2-3 s) for languages that never use it."""
    from importlib import metadata

    try:
        metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return False
    return True


def _plausible_model_version(name: str) -> bool:
    """A spaCy model's version follows spaCy's (3.8.x for spaCy 3.8); 999.9.9 is a squat."""
    from importlib import metadata

    try:
        version = metadata.version(name)
    except metadata.PackageNotFoundError:
        try:
            version = metadata.version(name.replace("_", "-"))
        except metadata.PackageNotFoundError:
            return True  # reported as installed; let spacy.load decide
    try:
        spacy_version = metadata.version("spacy")
    except metadata.PackageNotFoundError:
        return False
    return version.split(".")[0] == spacy_version.split(".")[0]


# --------------------------------------------------------------------------------------
# Backends: each turns a line of text (no line breaks) into sentence spans
# --------------------------------------------------------------------------------------


class _AlignmentError(ValueError):
    pass


class _Backend:
    name = ""

    def spans(self, text: str) -> list[tuple[int, int]]:
        raise NotImplementedError


class _PieceBackend(_Backend):
    """A library that returns sentence strings; they are aligned with the input."""

    def __init__(self, name: str, pieces: Callable[[str], list[str]]):
        self.name = name
        self._pieces = pieces

    def spans(self, text: str) -> list[tuple[int, int]]:
        return _align(text, self._pieces(text))


class _SpacyBackend(_Backend):
    def __init__(self, name: str, nlp, presplit=None):
        self.name = name
        self.nlp = nlp
        self.presplit = presplit

    def spans(self, text: str) -> list[tuple[int, int]]:
        cuts = [0] + ([m.end() for m in self.presplit.finditer(text)] if self.presplit else [])
        cuts.append(len(text))
        spans = []
        for start, end in zip(cuts, cuts[1:]):
            if text[start:end].strip():
                doc = self.nlp(text[start:end])
                spans.extend((start + s.start_char, start + s.end_char) for s in doc.sents)
        return spans


class _UrduBackend(_Backend):
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
                raise _AlignmentError(f"piece {piece!r} runs past the text")
            ch = text[i]
            if ch.isspace():
                i += 1
                continue
            if ch != core[k]:
                raise _AlignmentError(f"piece {piece!r} does not match the text at {i}")
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


def _get_backend(info: SplitterInfo) -> _Backend:
    key = (info.kind, info.code)
    backend = _backend_cache.get(key)
    if backend is None:
        backend = _build_backend(info.kind, info.code)
        _backend_cache[key] = backend
    return backend


def _build_backend(kind: str, code: str) -> _Backend:
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


def _blank_code(code: str) -> str:
    """``code`` if spaCy has a language class for it, else ``xx`` (any class builds with
    the tokenizer below)."""
    import spacy

    try:
        spacy.util.get_lang_class(code)
    except ImportError:
        return "xx"
    return code


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
                text: value
                for text, value in (defaults.tokenizer_exceptions or {}).items()
                if marks.intersection(text)
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
_HARD_MARKS = "。！？｡።፧፨။។៕"
_SOFT_MARKS = "?!؟۔।॥"
_CLOSING = "\"'”’»›)]}）」』"


def _presplit_pattern(code: str):
    soft = _SOFT_MARKS + ("".join(_LANGUAGE_PUNCT.get(code, ())))
    hard, closing = re.escape(_HARD_MARKS), re.escape(_CLOSING)
    return re.compile(rf"(?:[{hard}]+|[{re.escape(soft)}{hard}]+(?=\s))[{closing}]*")


def _trained(name: str):
    import spacy

    nlp = spacy.load(name, exclude=["ner", "lemmatizer", "textcat", "textcat_multilabel",
                                     "entity_linker", "entity_ruler", "span_ruler"])
    if not ({"parser", "senter", "sentencizer"} & set(nlp.pipe_names)):
        nlp.add_pipe("sentencizer")
    return nlp


def _fallback_backend() -> _Backend:
    return _get_backend(SplitterInfo("xx", "spacy", "spacy", "xx"))


# --------------------------------------------------------------------------------------
# Urdu sentence rules (our own; urduhack does not import here and is not copied)
# --------------------------------------------------------------------------------------

URDU_FULL_STOP = "\u06d4"  # ۔
URDU_QUESTION = "\u061f"  # ؟
_URDU_MARKS = frozenset(URDU_FULL_STOP + URDU_QUESTION + "?!！.")
_PERIODS = frozenset(URDU_FULL_STOP + ".")
# Closing quotes and brackets; Urdu writes closing quotes as both ” and “.
_CLOSERS = frozenset("\"'”’“‘»›)]}）」』")
# Latin abbreviations that turn up in Urdu text, lower case, without their last dot.
_LATIN_ABBREVIATIONS = frozenset(
    "dr mr mrs ms prof sr jr st vs etc no fig vol pp ed e.g i.e a.m p.m".split()
)
# Urdu spellings of Latin letter names, as in "ایم۔اے" (M.A.), "پی۔ایچ۔ڈی" (Ph.D.),
# "ڈاکٹر اے۔ خان" (Dr A. Khan). The ones that are also common words (کے "of", جی
# "yes", سی "-like", او/ای "O") count only when no space follows the mark.
_URDU_LETTER_NAMES = frozenset(
    "اے بی ڈی ایف ایچ آئی جے ایل ایم این پی کیو آر ایس ٹی یو وی ڈبلیو ایکس وائی زیڈ".split()
)
_URDU_LETTER_NAMES_UNSPACED = frozenset("سی جی کے او ای".split())
_URL = re.compile(r"(?:https?://|www\.)\S+|\S+@\S+\.\w+")


def _is_arabic_letter(ch: str) -> bool:
    return ("\u0600" <= ch <= "\u06ff" or "\u0750" <= ch <= "\u077f"
            or "\ufb50" <= ch <= "\ufdff" or "\ufe70" <= ch <= "\ufeff") and ch.isalpha()


def urdu_sentence_spans(text: str) -> list[tuple[int, int]]:
    """Sentence spans of Urdu ``text`` by a small rule set.

    1. A sentence ends after a run of ``۔ ؟ ? ! ！ .`` (``؟!`` ends together), with any
       closing quotes or brackets after it.
    2. ``.`` ends a sentence only before whitespace or the end (so ``3.14``, ``U.S``,
       file names and URLs stay whole); ``۔ ؟ ? !`` also before an Arabic-script letter
       (Urdu is often typed without a space after ``۔``).
    3. A mark directly followed by a digit never ends a sentence (``3.14``, ``۱۲۔۵``).
    4. ``۔`` or ``.`` after a one-letter word is an abbreviation (``ق۔م``, ``A.``), as
       after a listed Latin abbreviation (``Dr.``, ``e.g.``) or an Urdu spelling of a
       Latin letter (``ایم۔اے``, ``پی۔ایچ۔ڈی``, ``ڈاکٹر اے۔ خان``; the letter names
       that are also common words, such as کے and جی, only with no space after).
    5. Two or more periods (``...``, ``۔۔۔``) are an ellipsis, not an end.
    6. Nothing inside a URL or an e-mail address is a mark.
    Text without any mark is one sentence (no verb-ending heuristics).
    """
    protected = set()
    for match in _URL.finditer(text):
        protected.update(range(match.start(), match.end()))
    spans: list[tuple[int, int]] = []
    n, start, i = len(text), 0, 0
    while i < n:
        if text[i] not in _URDU_MARKS or i in protected:
            i += 1
            continue
        j = i
        while j < n and text[j] in _URDU_MARKS:
            j += 1
        k = j
        while k < n and text[k] in _CLOSERS:
            k += 1
        if _urdu_boundary(text, i, j, k):
            if text[start:k].strip():
                spans.append((start, k))
            start = k
        i = k if k > i else i + 1
    if text[start:].strip():
        spans.append((start, n))
    return [_trim(text, s, e) for s, e in spans]


def _urdu_boundary(text: str, i: int, j: int, k: int) -> bool:
    run = text[i:j]
    following = text[k] if k < len(text) else ""
    if following.isdigit() and k == j:
        return False  # rule 3
    if all(ch in _PERIODS for ch in run) and len(run) >= 2:
        return False  # rule 5
    if not following or following.isspace():
        spaced = True
    elif _is_arabic_letter(following) and "." not in run:
        spaced = False
    else:
        return False  # rule 2
    if all(ch in _PERIODS for ch in run):
        word = text[:i].split()[-1] if text[:i].split() else ""
        word = word.lstrip("\"'“‘«‹([{（")
        if len(word) == 1 and word.isalpha():
            return False
        if word.lower().rstrip(".") in _LATIN_ABBREVIATIONS:
            return False
        if re.fullmatch(r"(?:[A-Za-z]\.)+[A-Za-z]", word):
            return False  # U.S. / e.g. / Ph.D
        tail = re.split(rf"[{URDU_FULL_STOP}.]", word)[-1] if word else ""
        if tail in _URDU_LETTER_NAMES or (not spaced and tail in _URDU_LETTER_NAMES_UNSPACED):
            return False
    return True


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


# --------------------------------------------------------------------------------------
# Layout
# --------------------------------------------------------------------------------------

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_MATH_OPEN = re.compile(r"^[ \t]*(\$\$|\\\[)[ \t]*$")
_MATH_LINE = re.compile(r"^[ \t]*(?:\$\$.*\$\$|\\\[.*\\\])[ \t]*$")
_RULE = re.compile(r"^[ \t]*([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_TABLE_SEPARATOR = re.compile(r"^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*$")
_TABLE_ROW = re.compile(r"^[ \t]*\|.*\|[ \t]*$")
_CELL_SEPARATOR = re.compile(r"(?<!\\)\|")
_PREFIXES = tuple(
    re.compile(pattern)
    for pattern in (
        r">[ \t]?",  # blockquote
        r"#{1,6}(?:[ \t]+|$)",  # heading
        r"[-*+•◦‣▪▫●○■□►▶✓✔➤→·・–—](?:[ \t]+|$)",  # bullet
        r"\[[ xX]\][ \t]+",  # task box
        r"\(?\d{1,4}(?:\.\d{1,3})*[.)．）۔](?:[ \t]+|$)",  # 1. 1) (1) 1.2. 1۔
        r"\((?:\d{1,4}|[a-zA-Z])\)(?:[ \t]+|$)",  # (1) (a)
        r"(?:[ivx]{1,5}|[IVX]{1,5})[.)](?:[ \t]+|$)",  # iv. IV)
        r"\(?[a-zA-Z][.)](?:[ \t]+|$)",  # a) a. (a
        r"(?:\d{1,4}|[一二三四五六七八九十百]+)[、．][ \t]*",  # 1、 一、
        r"[（(][一二三四五六七八九十百]+[）)][ \t]*",  # （一）
    )
)
_CLOSING_HASHES = re.compile(r"[ \t]+#+[ \t]*$")
_LONE_URL = re.compile(r"^<?(?:https?://|www\.)\S+>?$")
_INLINE_CODE = re.compile(r"`[^`]+`")
_INLINE_URL = re.compile(r"(?:https?://|www\.)[^\s)\]>]*[^\s)\]>.,;:!?'\"]")


def _has_letters(text: str) -> bool:
    return any(unicodedata.category(ch).startswith("L") for ch in text)


class _Builder:
    def __init__(self, backend: _Backend):
        self.backend = backend
        self.segments: list[Segment] = []
        self.fallbacks = 0

    def layout(self, text: str, kind: str = "layout") -> None:
        if not text:
            return
        last = self.segments[-1] if self.segments else None
        if last is not None and not last.translate and last.kind == kind:
            self.segments[-1] = Segment(last.text + text, False, kind)
        else:
            self.segments.append(Segment(text, False, kind))

    def sentence(self, text: str) -> None:
        self.segments.append(Segment(text, True, "sentence"))

    def joint(self) -> None:
        self.segments.append(Segment("", False, "joint"))

    def content(self, text: str) -> None:
        """A line's text between its markers: sentences and the space between them."""
        core_start, core_end = _trim(text, 0, len(text))
        self.layout(text[:core_start])
        core = text[core_start:core_end]
        if core:
            masked = _masked(core)
            if not _has_letters("".join(ch for ch, m in zip(core, masked) if not m)) or _LONE_URL.match(core):
                self.layout(core)
            else:
                self._sentences(core, masked)
        self.layout(text[core_end:])

    def _sentences(self, core: str, masked: list[bool]) -> None:
        pieces = []
        for start, end in self._spans(core, masked):
            lead, middle, trail = _unwrap(core[start:end])
            middle_masked = masked[start + len(lead): end - len(trail)]
            visible = "".join(ch for ch, m in zip(middle, middle_masked) if not m)
            pieces.append((start, end, lead, middle, trail, _has_letters(visible)))
        pos = 0
        for index, (start, end, lead, middle, trail, is_sentence) in enumerate(pieces):
            gap = core[pos:start]
            if not gap and index and is_sentence and pieces[index - 1][5]:
                self.joint()  # two sentences written without a space between them
            self.layout(gap)
            self.layout(lead)
            if is_sentence:
                self.sentence(middle)
            else:
                self.layout(middle)
            self.layout(trail)
            pos = end
        self.layout(core[pos:])

    def _spans(self, core: str, masked: list[bool]) -> list[tuple[int, int]]:
        # What the splitter sees: emphasis markers removed, inline code / URLs masked.
        keep: list[int] = []
        chars: list[str] = []
        removed = _emphasis_positions(core, masked)
        for index, ch in enumerate(core):
            if index in removed:
                continue
            keep.append(index)
            chars.append(ch if not masked[index] or ch.isspace() else "x")
        clean = "".join(chars)
        if not clean.strip():
            return [(0, len(core))]
        try:
            clean_spans = self.backend.spans(clean)
            _check_spans(clean, clean_spans)
        except Exception:
            self.fallbacks += 1
            clean_spans = _fallback_backend().spans(clean)
        clean_spans = repair(clean, clean_spans)  # ordinals, abbreviations before numbers, ?! and ...
        spans = []
        for start, end in clean_spans:
            start, end = _trim(clean, start, end)
            if start < end:
                spans.append([keep[start], keep[end - 1] + 1])
        # Emphasis markers touching a sentence belong to it; a run of markers between
        # two sentences with no space ("？**我") closes the first if it has an odd
        # number of them, else opens the second.
        for index in range(len(spans) + 1):
            before = spans[index - 1] if index else None
            after = spans[index] if index < len(spans) else None
            a = before[1] if before else 0
            b = after[0] if after else len(core)
            left = a
            while left < b and left in removed:
                left += 1
            right = b
            while right > a and right - 1 in removed:
                right -= 1
            if before and after and left == b and a < b:
                if core[before[0]:before[1]].count(core[a:b]) % 2:
                    before[1] = b
                else:
                    after[0] = a
                continue
            if before:
                before[1] = left
            if after:
                after[0] = right
        # A piece without a letter or digit ('?' of '!?', a lone quote) joins its neighbour.
        merged: list[list[int]] = []
        for span in spans:
            if merged and not any(ch.isalnum() for ch in core[span[0]:span[1]]):
                merged[-1][1] = span[1]
            elif merged and not any(ch.isalnum() for ch in core[merged[-1][0]:merged[-1][1]]):
                merged[-1][1] = span[1]
            else:
                merged.append(span)
        return [(start, end) for start, end in merged]

    def line(self, body: str) -> None:
        """One line without its line break."""
        if _TABLE_ROW.match(body):
            pieces = _CELL_SEPARATOR.split(body)
            for index, cell in enumerate(pieces):
                if index:
                    self.layout("|")
                self.content(cell)
            return
        heading = False
        pos = len(body) - len(body.lstrip())  # the indentation
        for _ in range(8):
            for number, pattern in enumerate(_PREFIXES):
                match = pattern.match(body, pos)
                if match and match.end() > pos:
                    heading = heading or number == 1
                    pos = match.end()
                    break
            else:
                break
        self.layout(body[:pos])
        rest = body[pos:]
        suffix = ""
        if heading:
            closing = _CLOSING_HASHES.search(rest)
            if closing:
                rest, suffix = rest[: closing.start()], rest[closing.start():]
        self.content(rest)
        self.layout(suffix)


def _check_spans(text: str, spans) -> None:
    last = 0
    for start, end in spans:
        if not (last <= start <= end <= len(text)):
            raise _AlignmentError(f"spans out of order: {spans}")
        last = end


def _masked(core: str) -> list[bool]:
    masked = [False] * len(core)
    for pattern in (_INLINE_CODE, _INLINE_URL):
        for match in pattern.finditer(core):
            for index in range(match.start(), match.end()):
                masked[index] = True
    return masked


def _emphasis_positions(core: str, masked: list[bool]) -> set[int]:
    """Positions of ``*``, ``~~`` and word-edge ``_`` runs (markdown emphasis)."""
    removed: set[int] = set()
    for match in re.finditer(r"\*+|~~|_+", core):
        start, end = match.span()
        if any(masked[start:end]):
            continue
        if match.group()[0] == "_":
            before = core[start - 1] if start else " "
            after = core[end] if end < len(core) else " "
            if before.isalnum() and after.isalnum():
                continue  # snake_case
        removed.update(range(start, end))
    return removed


_WRAPPERS = ("***", "**", "*", "___", "__", "_", "~~")


def _unwrap(sentence: str) -> tuple[str, str, str]:
    """Split emphasis around a whole sentence (or left open / closed elsewhere) off it."""
    lead, core, trail = "", sentence, ""
    while core:
        for marker in _WRAPPERS:
            size = len(marker)
            if len(core) > 2 * size and core.startswith(marker) and core.endswith(marker):
                inner = core[size:-size]
                if (inner[0] != marker[0] and inner[-1] != marker[0] and marker not in inner
                        and not inner[0].isspace() and not inner[-1].isspace()):
                    lead, core, trail = lead + marker, inner, marker + trail
                    break
        else:
            opening = re.match(r"\*+|~~", core)
            closing = re.search(r"(?:\*+|~~)$", core)
            if opening and core.count(opening.group()) == 1 and opening.end() < len(core) \
                    and not core[opening.end()].isspace():
                lead, core = lead + opening.group(), core[opening.end():]
                continue
            if closing and core.count(closing.group()) == 1 and closing.start() > 0 \
                    and not core[closing.start() - 1].isspace():
                core, trail = core[: closing.start()], closing.group() + trail
                continue
            break
    return lead, core, trail


def split(text: str, lang: str, *, registry_path=None) -> Segmented:
    """Cut ``text`` (a response in ``lang``) into sentences to translate and layout."""
    info = splitter_info(lang, registry_path=registry_path)
    builder = _Builder(_get_backend(info))
    fence: tuple[str, int] | None = None  # (character, length) of an open code fence
    math: str | None = None  # the closing delimiter of an open display-math block
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
        ending = line[len(body):]
        if fence is not None:
            builder.layout(line, "code")
            close = re.match(rf"^[ \t]*{re.escape(fence[0])}{{{fence[1]},}}[ \t]*$", body)
            if close:
                fence = None
            continue
        if math is not None:
            builder.layout(line, "code")
            if body.strip() == math:
                math = None
            continue
        opened = _FENCE.match(body)
        if opened:
            fence = (opened.group(1)[0], len(opened.group(1)))
            builder.layout(line, "code")
            continue
        opened = _MATH_OPEN.match(body)
        if opened:
            math = "$$" if opened.group(1) == "$$" else "\\]"
            builder.layout(line, "code")
            continue
        if _MATH_LINE.match(body):
            builder.layout(line, "code")
            continue
        if not body.strip() or _RULE.match(body) or _TABLE_SEPARATOR.match(body):
            builder.layout(line)
            continue
        builder.line(body)
        builder.layout(ending)
    return Segmented(lang, info.name, tuple(builder.segments), builder.fallbacks)


def split_sentences(text: str, lang: str, *, registry_path=None) -> list[str]:
    """Just the sentences of ``text`` (what would be translated)."""
    return split(text, lang, registry_path=registry_path).sentences
