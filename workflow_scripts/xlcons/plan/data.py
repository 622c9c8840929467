"""The data sets of a run: which are enabled, in which languages, how their prompts are built.

Reads the data set registry (through xlcons.config.DatasetResolver) and each set's config
section; it knows nothing of models or evaluators beyond which sets have their answers
translated (the resolver's decision).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from xlcons.data_sources import DATA_SOURCES
from xlcons.dataset_resolver import DatasetResolver
from xlcons.datasets import data_folder, dataset_options
from xlcons.plan.patterns import alternation


class DataPlan:
    def __init__(self, config: Mapping[str, Any], datasets: DatasetResolver):
        self.config, self.datasets = config, datasets

    def enabled_datasets(self) -> list[str]:
        return self.datasets.enabled()

    def info(self, dataset: str):
        return self.datasets.infos[dataset]

    def languages(self, dataset: str) -> list[str]:
        return self.datasets.languages(dataset)

    def generation_datasets(self) -> list[str]:
        """Data sets the models answer: every enabled one."""
        return self.enabled_datasets()

    def translation_datasets(self) -> list[str]:
        """Data sets whose answers the workflow translates to English."""
        return self.datasets.translated_answers()

    def prompt_translated_datasets(self) -> list[str]:
        """Data sets written in one language whose prompts the translator carries into the others."""
        return [name for name in self.enabled_datasets() if self.info(name).translated_from]

    def native_datasets(self) -> list[str]:
        """Data sets whose loader gives the prompts of every language itself."""
        return [name for name in self.enabled_datasets() if not self.info(name).translated_from]

    def source_languages(self) -> list[str]:
        """The languages the translated prompt sets are written in."""
        return sorted({self.info(name).translated_from for name in self.prompt_translated_datasets()})

    def prompt_translation_languages(self, dataset: str) -> list[str]:
        source = self.info(dataset).translated_from
        return [lang for lang in self.languages(dataset) if lang != source]

    # -- a prompts job ---------------------------------------------------------------------
    def loader(self, dataset: str) -> str:
        return self.info(dataset).module

    def loader_options(self, dataset: str) -> dict[str, Any]:
        options = dataset_options(self.info(dataset), self.config["datasets"][dataset])
        if self.info(dataset).run_languages_option:
            options[self.info(dataset).run_languages_option] = self.languages(dataset)
        return options

    def item_selection(self, dataset: str) -> dict[str, Any]:
        return self.config["datasets"][dataset]["items"]

    def dataset_location(self, dataset: str, resources: str) -> list[str]:
        """The inputs a prompts job depends on: a user's prompt file; the released files in a
        local folder (the files, not the folder, whose time does not change when a file in it is
        edited); the fetch manifest; or nothing (a set that ships with xlcons)."""
        path = self.config["datasets"][dataset].get("path")
        source = self.info(dataset).source
        if path and source and Path(path).is_dir():
            files = [
                str(Path(path) / f.relpath) for f in DATA_SOURCES[source].files if (Path(path) / f.relpath).is_file()
            ]
            return files or [path]  # a folder without them: the loader names what is missing
        if path:
            return [path]
        return [f"{resources}/data/{source}/MANIFEST.json"] if source else []

    def dataset_folder(self, dataset: str, resources: str) -> str | None:
        """Where a data set's files are: its configured path or the fetched copy."""
        return data_folder(self.info(dataset), self.config["datasets"][dataset], resources)

    def notes(self) -> list[str]:
        """What the user should know about their own prompt files (ids missing in some languages)."""
        users = [name for name in self.enabled_datasets() if self.info(name).user]
        for name in users:
            self.datasets.user_rows(name)  # reads the file once, collecting its notes
        return [note for name in users for note in self.datasets.user_notes[name]]

    # -- fetching --------------------------------------------------------------------------
    def fetched_dataset_pattern(self) -> str:
        return alternation(DATA_SOURCES)

    def dataset_fetch_params(self, source: str) -> dict[str, Any]:
        """What a fetch job needs: the source, and the mirror its data set's config names, if any."""
        # The data set the source names, then any other that is read from the same source (the
        # Language Confusion Benchmark's two tasks share one repository).
        names = [
            DATA_SOURCES[source].dataset,
            *(name for name, info in self.datasets.infos.items() if info.source == source),
        ]
        mirrors = [self.config["datasets"].get(name, {}).get("source_url") for name in dict.fromkeys(names)]
        return {"source": source, "mirror": next((mirror for mirror in mirrors if mirror), None)}

    def dataset_sources_to_fetch(self) -> list[str]:
        """The released data sources the enabled sets read and no local path provides."""
        return [
            source
            for dataset in self.enabled_datasets()
            if (source := self.info(dataset).source) and not self.config["datasets"][dataset].get("path")
        ]

    # -- a generation job ------------------------------------------------------------------
    def max_new_tokens(self, dataset: str) -> int:
        return self.config["datasets"][dataset]["max_new_tokens"] or self.info(dataset).max_new_tokens

    def system_prompt(self, dataset: str) -> str | None:
        return self.config["datasets"][dataset].get("system_prompt")
