"""Language identification of model responses with a fastText model (GlotLID or lid.176).

Two label schemes are understood (``evaluators.language_id.label_scheme``):

``glotlid``
    ``__label__<iso639-3>_<Script>`` (``deu_Latn``, ``zho_Hant``). A label counts as a
    registry language when its ISO 639-3 part is one of that language's
    ``glotlid_labels``; the script part is not compared (the registry lists several
    ISO codes per language, e.g. the Arabic varieties, but no scripts).
``lid176``
    ``__label__<code>`` (``de``, ``sh``, ``wuu``), matched against ``lid176_labels``.

Labels are returned without the ``__label__`` prefix. fastText predicts one line at a
time, so line breaks (and the other characters Python treats as line ends) become spaces
before prediction; a text that is empty once whitespace is removed gets no label (fastText
would answer something for it anyway).

`registry_code` maps a label back to the one registry code it stands for, for the
translation stage (translate from what the response is) and for the response axis of the
report's language matrix. Several registry rows accept the same label (he/iw, zh/zh-CN,
``hrv`` for bs/hr/sr), so the best row is chosen in this order:

1. the row whose NLLB code *is* the label (GlotLID and NLLB share the ``iso_Script``
   form: ``zho_Hant`` → zh-TW, ``zho_Hans`` → zh, ``hrv_Latn`` → hr, ``srp_Cyrl`` → sr);
2. the row whose NLLB code has the label's ISO part in another script
   (``srp_Latn`` → sr: Serbian in Latin script is still Serbian);
3. the row whose own ISO 639-3 code is the label's, in the label's script
   (``hbs_Cyrl`` → sr, ``hbs_Latn`` → hr);
4. a row accepting the ISO part in the label's script (``ary_Arab`` → ar);
5. the row whose ISO 639-3 code is the label's, in any script;
6. any row accepting it;

within a tier canonical codes come first (he before iw), then rows that list the label
earlier among their accepted labels, then registry order. For lid176 the tiers are: the
row whose code is the label, then rows accepting it (again canonical first, then position).

Only `LanguageIdentifier` needs fastText, and imports it when a model is loaded: the
label functions serve callers (the report) that do not have it.
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from xlcons.languages import Language, LanguageRegistry

LABEL_SCHEMES = ("glotlid", "lid176")
LABEL_PREFIX = "__label__"
# str.splitlines() breaks on all of these; fastText only on \n, but the rest are no text either.
_LINE_BREAKS = re.compile(r"[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]+")
DEFAULT_BATCH_SIZE = 2048


class LanguageIdError(ValueError):
    """The language-ID model or its label scheme cannot be used as configured."""


def _check_scheme(scheme: str) -> None:
    if scheme not in LABEL_SCHEMES:
        raise LanguageIdError(f"unknown label scheme {scheme!r}; known: {', '.join(LABEL_SCHEMES)}")


def strip_prefix(label: str) -> str:
    return label[len(LABEL_PREFIX) :] if label.startswith(LABEL_PREFIX) else label


def split_label(label: str, scheme: str) -> tuple[str, str | None]:
    """(language part, script part or None): ``deu_Latn`` → (deu, Latn); lid176 ``de`` → (de, None)."""
    label = strip_prefix(label)
    if scheme == "glotlid":
        iso, _, script = label.partition("_")
        return iso, script or None
    return label, None


def accepted_labels(language: Language, scheme: str) -> tuple[str, ...]:
    """The registry's labels that count as `language` under `scheme` (ISO parts for glotlid)."""
    _check_scheme(scheme)
    return language.glotlid_labels if scheme == "glotlid" else language.lid176_labels


def is_language(label: str | None, language: Language, scheme: str) -> bool:
    """Whether a predicted label counts as `language` (the registry's accepted labels)."""
    if not label:
        return False
    code, _ = split_label(label, scheme)
    return code in accepted_labels(language, scheme)


def registry_code(label: str | None, scheme: str, registry: LanguageRegistry) -> str | None:
    """The registry code a label stands for (see the module docstring), or None."""
    _check_scheme(scheme)
    if not label:
        return None
    code, script = split_label(label, scheme)
    best = None
    for order, language in enumerate(registry):
        accepted = accepted_labels(language, scheme)
        if scheme == "glotlid":
            nllb_iso, _, nllb_script = (language.nllb or "").partition("_")
            if language.nllb == f"{code}_{script}":
                tier = 0
            elif nllb_iso == code:
                tier = 1
            elif code not in accepted and language.iso639_3 != code:
                continue
            elif language.iso639_3 == code and language.script == script:
                tier = 2
            elif code in accepted and language.script == script:
                tier = 3
            elif language.iso639_3 == code:
                tier = 4
            else:
                tier = 5
        else:
            if language.code == code:
                tier = 0
            elif code in accepted:
                tier = 1
            else:
                continue
        position = accepted.index(code) if code in accepted else len(accepted)
        rank = (tier, language.canonical != language.code, position, order)
        if best is None or rank < best[0]:
            best = (rank, language.code)
    return best[1] if best else None


def clean_text(text: str) -> str:
    """The text as fastText gets it: one line, outer whitespace removed."""
    return _LINE_BREAKS.sub(" ", text).strip()


@contextlib.contextmanager
def _quiet_fasttext():
    """fastText's Python wrapper prints a warning on every load_model; keep it out of the logs."""
    import fasttext

    wrapper = getattr(fasttext, "FastText", None)
    original = getattr(wrapper, "eprint", None)
    if original is not None:
        wrapper.eprint = lambda *args, **kwargs: None
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            yield fasttext
    finally:
        if original is not None:
            wrapper.eprint = original


class LanguageIdentifier:
    """A fastText language-ID model read through the language registry."""

    def __init__(self, model_path: Path | str, label_scheme: str = "glotlid", registry: LanguageRegistry | None = None):
        _check_scheme(label_scheme)
        path = Path(model_path)
        if not path.is_file():
            raise LanguageIdError(
                f"language-ID model not found: {path} (fetch it, or fix evaluators.language_id.model)"
            )
        with _quiet_fasttext() as fasttext:
            try:
                self._model = fasttext.load_model(str(path))
            except ValueError as error:
                raise LanguageIdError(f"{path} is not a fastText model: {error}") from error
        self.path = path
        self.scheme = label_scheme
        self.registry = registry or LanguageRegistry.load()
        self.labels = frozenset(strip_prefix(label) for label in self._model.get_labels())
        self._codes = frozenset(split_label(label, label_scheme)[0] for label in self.labels)
        self._registry_codes: dict[str, str | None] = {}
        self._supported: dict[str, bool] = {}
        if label_scheme == "glotlid" and not any("_" in label for label in self.labels):
            raise LanguageIdError(
                f"{path}: labels look like lid.176's ({sorted(self.labels)[:3]}…), "
                "not GlotLID's; set label_scheme: lid176"
            )

    def predict(
        self, texts: Iterable[str], batch_size: int = DEFAULT_BATCH_SIZE
    ) -> list[tuple[str | None, float | None]]:
        """Top-1 (label, probability) per text; (None, None) for a text with nothing to identify."""
        cleaned = [clean_text(text) for text in texts]
        results: list[tuple[str | None, float | None]] = [(None, None)] * len(cleaned)
        todo = [index for index, text in enumerate(cleaned) if text]
        for start in range(0, len(todo), batch_size):
            batch = todo[start : start + batch_size]
            labels, probabilities = self._model.predict([cleaned[index] for index in batch], k=1)
            for index, label, probability in zip(batch, labels, probabilities):
                if len(label):
                    # fastText's softmax can come out a hair above 1.
                    results[index] = (strip_prefix(label[0]), min(float(probability[0]), 1.0))
        return results

    def predict_lines(
        self, lines: Sequence[str], batch_size: int = DEFAULT_BATCH_SIZE
    ) -> list[tuple[str | None, float | None]]:
        """Top-1 (label, probability) of each line exactly as given (no cleaning, no stripping):
        the Language Confusion Benchmark's call. A line must not contain ``\\n``."""
        results: list[tuple[str | None, float | None]] = []
        for start in range(0, len(lines), batch_size):
            labels, probabilities = self._model.predict(list(lines[start : start + batch_size]), k=1)
            for label, probability in zip(labels, probabilities):
                results.append((strip_prefix(label[0]), float(probability[0])) if len(label) else (None, None))
        return results

    def is_language(self, label: str | None, lang: str) -> bool:
        return is_language(label, self.registry[lang], self.scheme)

    def supports(self, lang: str) -> bool:
        """Whether the model can recognise `lang` at all (it has a label the registry accepts);
        answered once per language (the fidelity pass asks for every response)."""
        if lang not in self._supported:
            self._supported[lang] = any(
                code in self._codes for code in accepted_labels(self.registry[lang], self.scheme)
            )
        return self._supported[lang]

    def to_registry_code(self, label: str | None) -> str | None:
        if label not in self._registry_codes:
            self._registry_codes[label] = registry_code(label, self.scheme, self.registry)
        return self._registry_codes[label]

    def identify(self, texts: Sequence[str]) -> list[str | None]:
        """Registry code of each text's language (None when unknown): what the translation stage needs."""
        return [self.to_registry_code(label) for label, _ in self.predict(texts)]
