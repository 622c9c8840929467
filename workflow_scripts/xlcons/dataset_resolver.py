"""Which data sets a config runs, in which languages, and which evaluator scores which of them.

`DatasetResolver` resolves the config's data sets against their registry (xlcons.datasets):
each set's entry, its languages (what `all` means for it), what it provides, the evaluators
that score it and whether its answers are translated. It is a decision of the plan, which
the config checks share, so that both read a user's prompt file once (xlcons.config builds
it, checks the config with it and hands it to the plan).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from xlcons.datasets import ENGLISH_QUESTION, PROMPT_LANGUAGE_ANSWERS, DatasetInfo, dataset_registry
from xlcons.datasets.user import check_user_dataset, read_user_rows
from xlcons.datasets.user.problems import UserDatasetError
from xlcons.evaluators.registry import ENGLISH_ANSWERS, EVALUATORS, TRANSLATIONS
from xlcons.languages import LanguageRegistry


def dataset_languages(
    info: DatasetInfo, spec: Mapping[str, Any], registry: LanguageRegistry, file_languages=None
) -> list[str]:
    """The languages a data set runs in: its list, or what `all` means for it.

    `file_languages` are the languages a user's parallel file holds (what `all` means there).
    """
    if spec["languages"] != "all":
        codes = list(spec["languages"])
        # The English prompts are what a translated set is translated from.
        return codes if not info.translated_from or "en" in codes else ["en", *codes]
    if info.languages is not None:
        return list(info.languages)
    if info.translated_from:
        return [code for code in registry.codes if code == "en" or registry[code].translatable]
    if file_languages is not None:
        return list(file_languages)
    return list(registry.codes)


class DatasetResolver:
    """The data sets of a config resolved against their registry: entries, languages, who scores them.

    Shared by the semantic checks and the plan, so both read a user's prompt file once.
    """

    def __init__(self, config: Mapping[str, Any], registry: LanguageRegistry, base_dir: Path | str = "."):
        self.config = config
        self.registry = registry
        self.base_dir = Path(base_dir)
        self.infos = dataset_registry(config["datasets"])
        self._user_rows: dict[str, Any] = {}
        self.user_problems: dict[str, list[str]] = {}
        self.user_notes: dict[str, list[str]] = {}

    def enabled(self) -> list[str]:
        return [name for name, spec in self.config["datasets"].items() if spec["enabled"]]

    def user_rows(self, name: str):
        """A user set's rows (read once), or None when its file has problems (see user_problems)."""
        if name not in self._user_rows:
            spec = self.config["datasets"][name]
            problems, notes = check_user_dataset(name, spec, self.registry, self.base_dir)
            self.user_problems[name], self.user_notes[name] = problems, notes
            rows = None
            if not problems:
                try:
                    rows = read_user_rows(name, spec, self.registry, self.base_dir)
                except UserDatasetError as error:
                    self.user_problems[name] = list(error.problems)
            self._user_rows[name] = rows
        return self._user_rows[name]

    def file_languages(self, name: str) -> list[str] | None:
        info = self.infos[name]
        if not info.user or info.translated_from:
            return None
        rows = self.user_rows(name)
        return rows.languages if rows is not None else []

    def languages(self, name: str) -> list[str]:
        return dataset_languages(
            self.infos[name], self.config["datasets"][name], self.registry, self.file_languages(name)
        )

    def provides(self, name: str) -> frozenset[str]:
        """The data set's capabilities; a user's parallel file with English rows also has English questions."""
        info = self.infos[name]
        provides = info.provides | ({PROMPT_LANGUAGE_ANSWERS} if info.answers_in_prompt_language else set())
        if info.user and "en" in (self.file_languages(name) or []):
            return provides | {ENGLISH_QUESTION}
        return provides

    def scored_by(self, evaluator) -> list[str]:
        """Enabled data sets an evaluator scores (none when the evaluator is inactive)."""
        section = self.config["evaluators"][evaluator.section]
        if not evaluator.active(section):
            return []
        wanted = section["datasets"]
        if wanted == "all":  # every enabled set the evaluator can score
            return [
                name
                for name in self.enabled()
                if not evaluator.needs - self.provides(name) - self.english_answers(name)
            ]
        return [name for name in self.enabled() if name in wanted]

    def english_answers(self, name: str) -> set[str]:
        """ENGLISH_ANSWERS, when English is among the set's languages (else nothing)."""
        return {ENGLISH_ANSWERS} if "en" in self.languages(name) else set()

    def translated_answers(self) -> list[str]:
        """Enabled data sets whose answers are translated to English: those of the evaluators that
        read translations, and the translator's own list."""
        wanted = set(self.config["translator"]["datasets"])
        for evaluator in EVALUATORS.values():
            if evaluator.reads == TRANSLATIONS:
                wanted |= set(self.scored_by(evaluator))
        return [name for name in self.enabled() if name in wanted]

    def needs_nllb(self, name: str) -> bool:
        """Its languages must have an NLLB code: its prompts or its answers are translated."""
        return bool(self.infos[name].translated_from) or name in self.translated_answers()
