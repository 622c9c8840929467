"""The translators of a run: `translator` (the primary) and the extra ones under `translators`.

An extra translator's files mirror the primary's under results/by-translator/<name>/ (its
`via`); the primary's `via` is empty, so a run with one translator keeps its paths. Extra
translators translate only the data sets whose translations an evaluator reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xlcons.config.translators import RUN_TRANSLATOR_KEYS, primary_translator_name, translator_model_key
from xlcons.evaluators.registry import LANGUAGE_ID_MODEL_KEY
from xlcons.plan.models import ModelSources
from xlcons.plan.scoring import EvaluatorPlan
from xlcons.translation.registry import LLM_TRANSLATOR, TRANSLATOR_BACKENDS

PRIMARY_MODEL = "translator.model"


class TranslationPlan:
    def __init__(self, config: Mapping[str, Any], models: ModelSources, evaluators: EvaluatorPlan):
        self.config, self.models, self.evaluators = config, models, evaluators

    def translators(self) -> list[str]:
        """Every translator of the answers that the run uses, by name: the primary first."""
        return [self.primary_translator(), *self.extra_translators()]

    def primary_translator(self) -> str:
        return primary_translator_name(self.config)

    def extra_translators(self) -> list[str]:
        """The `translators` entries, when some data set's translations are read by an evaluator."""
        return list(self.config.get("translators", {})) if self.evaluators.read_translated_datasets() else []

    # -- path prefixes ---------------------------------------------------------------------
    def via(self, translator: str) -> str:
        """The path prefix of a translator's files under the results folder ("" for the primary)."""
        return "" if self._is_primary(translator) else f"by-translator/{translator}/"

    def vias(self) -> list[str]:
        return [self.via(name) for name in self.translators()]

    def translator_of(self, via: str) -> str:
        """The translator whose files lie under `via` (a rule's `{via}` wildcard)."""
        return via.removeprefix("by-translator/").removesuffix("/") or self.primary_translator()

    def translator_vias(self, dataset: str) -> list[str]:
        """The translators of a data set's answers, as vias: the primary's for every translated
        set, the extra ones' for the sets an evaluator reads translations of."""
        return self.vias() if dataset in self.evaluators.read_translated_datasets() else [""]

    # -- one translator's section and model ------------------------------------------------
    def _is_primary(self, translator: str | None) -> bool:
        return translator is None or translator == self.primary_translator()

    def translator_section(self, translator: str | None = None) -> Mapping[str, Any]:
        if self._is_primary(translator):
            return self.config["translator"]
        return self.config["translators"][translator]

    def translator_key(self, translator: str | None = None) -> str:
        """The config key of a translator's model (an LLM translator's `llm`)."""
        if self._is_primary(translator):
            return PRIMARY_MODEL
        return translator_model_key(translator, self.config["translators"][translator])

    def is_llm_translator(self, translator: str | None) -> bool:
        return self.translator_section(translator)["backend"] == LLM_TRANSLATOR

    def translator_gpus(self, translator: str | None = None) -> int:
        """GPUs of a translation job: the section's `gpus`, an LLM translator's its backend's."""
        if self.is_llm_translator(translator):
            return self.models.backend_gpus(self.translator_key(translator))
        return self.translator_section(translator)["gpus"]

    def translator_fields(self, translator: str | None = None, resources: str | None = None) -> dict[str, Any]:
        """The translator section a translation job reads: without the list of data sets, so
        adding a data set to translate reruns nothing already translated, without the QE
        section (its own job) and the name (a label). An LLM translator's `llm` is its model's
        params, as an evaluator LLM's."""
        section = self.translator_section(translator)
        # The default family is left out: a translation job from before families existed is
        # not rerun for a key that changes nothing.
        fields = {
            key: value
            for key, value in section.items()
            if key not in RUN_TRANSLATOR_KEYS and (key, value) != ("family", "nllb")
        }
        key = self.translator_key(translator)
        if self.is_llm_translator(translator):
            return fields | {"llm": self.models.llm_spec(key, resources or "resources")}
        return fields | {"content": self.models.content(key)}

    # -- CTranslate2 conversions -----------------------------------------------------------
    def ctranslate2_dir(self, resources: str, translator: str | None = None) -> str | None:
        """Where a translator converted to CTranslate2 goes (ctranslate2 backend only): one
        folder per checkpoint and compute type, shared by translators that agree on both."""
        section = self.translator_section(translator)
        if not TRANSLATOR_BACKENDS[section["backend"]].converted:
            return None
        return f"{resources}/ctranslate2/{self.models.names[self.translator_key(translator)]}-{section['compute_type']}"

    def ctranslate2_conversions(self, resources: str) -> dict[str, str]:
        """Each CTranslate2 folder of the run, with the translator that converts it (the first that uses it)."""
        conversions: dict[str, str] = {}
        for translator in self.translators():
            folder = self.ctranslate2_dir(resources, translator)
            if folder:
                conversions.setdefault(folder, translator)
        return conversions

    def translator_weights(self, resources: str, translator: str | None = None) -> list[str]:
        """What a translation job waits for: the converted model (CTranslate2), else the
        checkpoint's marker or path (an LLM translator: its model's, none for an API model)."""
        converted = self.ctranslate2_dir(resources, translator)
        return [converted] if converted else self.models.model_inputs(self.translator_key(translator), resources)

    # -- the language-ID model that picks each answer's source language --------------------
    def detects_response_language(self) -> bool:
        """The language-ID model, not the prompt's language, names the language each answer is translated from."""
        return self.config["translator"]["detect_response_language"]

    def translation_lid_inputs(self, resources: str) -> list[str]:
        return self.models.model_inputs(LANGUAGE_ID_MODEL_KEY, resources) if self.detects_response_language() else []

    def translation_lid_path(self, resources: str) -> str | None:
        return self.models.local_path(LANGUAGE_ID_MODEL_KEY, resources) if self.detects_response_language() else None

    def translation_lid_content(self) -> str | None:
        """The digest of a local LID model's files, when it picks the source languages."""
        return self.models.content(LANGUAGE_ID_MODEL_KEY) if self.detects_response_language() else None
