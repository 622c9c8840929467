"""Which splitter serves a language.

Which splitter serves a language comes from the ``splitter`` column of
``config/languages.tsv`` (pysbd, indicnlp, underthesea, pythainlp, urdu or spacy), with
two overrides, both reported by ``splitter_info(lang)`` / ``splitter_name(lang)``:

1. a trained spaCy pipeline for the language (``<lang>_core_news_sm``/``md``/``lg``,
   ``<lang>_core_web_sm``/``md``/``lg``), when one is installed, serves it whatever the
   registry says (Gupta et al. 2025 used them); ``xx_sent_ud_sm``, being multilingual, only
   replaces the blank-spaCy splitter. A distribution whose major version differs from
   spaCy's is ignored (``*-core-news-*`` 999.9.9 on PyPI are squats, not models);
2. a language the registry's library does not support (pysbd's 23 languages,
   indic-nlp's script table, underthesea = vi, pythainlp = th, the Urdu rules = ur)
   falls back to blank spaCy + sentencizer.

Blank spaCy is the language's blank class (``xx`` where spaCy has none). A language is
resolved once, then cached; ``clear_resolved()`` forgets the resolutions.
"""

from __future__ import annotations

from dataclasses import dataclass

from xlcons.languages import REGISTRY_PATH, LanguageRegistry

__all__ = ["SplitterInfo", "splitter_info", "splitter_name", "splitter_report", "clear_resolved"]


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
_TRAINED_SUFFIXES = ("core_news_sm", "core_web_sm", "core_news_md", "core_web_md", "core_news_lg", "core_web_lg")
_MULTILINGUAL_PIPELINE = "xx_sent_ud_sm"

_info_cache: dict[tuple[str, str], SplitterInfo] = {}


def clear_resolved() -> None:
    """Forget every resolved language."""
    _info_cache.clear()


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
        return SplitterInfo(
            lang,
            wanted,
            "spacy-trained",
            trained,
            None if wanted == "spacy" else f"trained spaCy pipeline {trained} is installed",
        )

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
        return SplitterInfo(
            lang,
            wanted,
            "spacy-trained",
            _MULTILINGUAL_PIPELINE,
            note or f"trained spaCy pipeline {_MULTILINGUAL_PIPELINE} is installed",
        )
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


def _blank_code(code: str) -> str:
    """``code`` if spaCy has a language class for it, else ``xx`` (any class builds with
    the sentence tokenizer of ``xlcons.segmentation.backends``)."""
    import spacy

    try:
        spacy.util.get_lang_class(code)
    except ImportError:
        return "xx"
    return code
