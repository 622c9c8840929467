"""The checks of a config that a schema cannot express, each message naming its key.

Language codes that are not in the registry, languages that must be translated but have no
NLLB code, local model paths that do not exist, model sources that name both or neither of
hf_id/path, two models in one folder, data sets an evaluator cannot score, translators and
QE thresholds (xlcons.config.translators). Runs at DAG construction, before any job is
scheduled, on a config the schema has validated and completed.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from xlcons.config.models import check_model_source, resource_name
from xlcons.config.released import is_recorded_responses
from xlcons.config.translators import check_qe_thresholds, check_translators, translator_model_sources
from xlcons.config.validation import check_key_envs
from xlcons.dataset_resolver import DatasetResolver
from xlcons.datasets import DatasetInfo, data_folder
from xlcons.evaluators.registry import EVALUATORS, explain_need, resolve
from xlcons.generation.registry import backend_info
from xlcons.languages import LanguageRegistry, NotTranslatableError, UnknownLanguageError


def iter_model_sources(config: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(config key, model source) for every model the config uses, enabled or not."""
    for name, spec in config.get("models", {}).items():
        yield f"models.{name}", spec
    yield from translator_model_sources(config)
    keys = [key for info in EVALUATORS.values() for key in info.model_keys(config["evaluators"][info.section])]
    for key in dict.fromkeys(keys):
        section, name = key.removeprefix("evaluators.").split(".")
        yield key, config["evaluators"][section][name]


def _check_languages(key: str, codes, registry: LanguageRegistry, translated: bool) -> Iterator[str]:
    if codes in (None, "all"):
        return
    for index, code in enumerate(codes):
        try:
            registry[code]
            if translated and code != "en":
                registry.nllb_code(code)
        except (UnknownLanguageError, NotTranslatableError) as error:
            yield f"config key '{key}[{index}]': {error}"


def _check_recorded(name: str, path: str, base_dir: Path) -> list[str]:
    """A recorded-responses model's file, read and checked whole as a user prompt file is."""
    if not is_recorded_responses(base_dir / path):
        return [
            f"config key 'models.{name}.path': backend file needs a responses file (CSV/JSONL/Parquet) "
            f"or a folder of released MAKQA outputs (result_<domain>.json); '{path}' is neither"
        ]
    from xlcons.generation.backends.recorded import recorded_problems  # pyarrow: only when a config has one

    return recorded_problems(base_dir / path, path, f"config key 'models.{name}.path'")


def _check_model_languages(name: str, spec: Mapping[str, Any], datasets: DatasetResolver) -> Iterator[str]:
    allowed = spec.get("languages")
    if allowed is None:
        return
    for dataset in datasets.enabled():
        excluded = [lang for lang in datasets.languages(dataset) if lang not in allowed]
        if excluded:
            yield (
                f"config key 'datasets.{dataset}.languages': model '{name}' excludes {excluded} "
                f"(models.{name}.languages); drop them from the data set or from the model's exclusions"
            )


def _check_dataset(name: str, spec: Mapping[str, Any], datasets: DatasetResolver, base_dir: Path) -> Iterator[str]:
    info = datasets.infos[name]
    yield from _check_languages(
        f"datasets.{name}.languages",
        spec["languages"],
        datasets.registry,
        spec["enabled"] and datasets.needs_nllb(name),
    )
    if info.user:
        if spec["enabled"]:
            datasets.user_rows(name)
            yield from datasets.user_problems[name]
            if not datasets.user_problems[name]:
                yield from _check_languages(
                    f"datasets.{name}.languages", datasets.languages(name), datasets.registry, datasets.needs_nllb(name)
                )
    elif spec.get("path"):
        path = Path(spec["path"])
        if not (path if path.is_absolute() else base_dir / path).is_dir():
            yield f"config key 'datasets.{name}.path': folder '{spec['path']}' does not exist"
            return
    if not info.user and spec["enabled"]:
        yield from _check_item_selection(name, spec, info, base_dir)


def _check_item_selection(name: str, spec: Mapping[str, Any], info: DatasetInfo, base_dir: Path) -> Iterator[str]:
    """A built-in set's items.ids and items.domains against its data, when the data is here (a
    local path, or the fetched copy); otherwise its prompts job checks them."""
    from xlcons.datasets.item_ids import selection_problems

    items = spec.get("items") or {}
    if info.selection_rules:
        problems = resolve(info.selection_rules)(name, spec)
        if problems:
            yield from problems
            return
    if not info.item_ids or not (items.get("ids") or items.get("domains")):
        return
    folder = base_dir / data_folder(info, spec)  # an absolute path stays as it is
    if not folder.is_dir():
        return
    reference, what = info.item_ids
    try:
        ids = resolve(reference)(folder, spec)
    except (OSError, ValueError, KeyError):  # an incomplete or foreign folder: the prompts job names it
        return
    yield from selection_problems(name, spec, ids, what)


def _check_evaluator_datasets(datasets: DatasetResolver) -> Iterator[str]:
    """Every evaluator's data sets exist, and each has what the evaluator needs."""
    sections = {info.section for info in EVALUATORS.values()}
    for section in sorted(sections):
        wanted = datasets.config["evaluators"][section]["datasets"]
        for index, name in enumerate([] if wanted == "all" else wanted):
            if name not in datasets.infos:
                yield (
                    f"config key 'evaluators.{section}.datasets[{index}]': '{name}' is not a data set; "
                    f"declare it under datasets (configured: {', '.join(datasets.config['datasets']) or 'none'})"
                )
    for evaluator in EVALUATORS.values():
        for name in datasets.scored_by(evaluator):
            if datasets.infos[name].user and datasets.user_problems.get(name):
                continue  # its file's problems are reported already
            has = datasets.provides(name) | datasets.english_answers(name)
            for need in sorted(evaluator.needs - has):
                yield (
                    f"config key 'evaluators.{evaluator.section}.datasets': evaluator '{evaluator.name}' cannot score "
                    f"data set '{name}': it needs {explain_need(need)}"
                )
    for index, name in enumerate(datasets.config["translator"]["datasets"]):
        if name not in datasets.infos:
            yield f"config key 'translator.datasets[{index}]': '{name}' is not a data set"


def check_semantics(
    config: Mapping[str, Any], registry: LanguageRegistry, base_dir: Path, datasets: DatasetResolver | None = None
) -> list[str]:
    """Everything the schema cannot express; returns the problems found (empty when valid)."""
    datasets = datasets or DatasetResolver(config, registry, base_dir)
    problems: list[str] = list(check_key_envs(config))
    owners: dict[str, tuple[str, tuple]] = {}
    for key, source in iter_model_sources(config):
        problems += check_model_source(key, source, base_dir)
        if source.get("hf_id") and not source.get(
            "path"
        ):  # fetched into resources/models/<name>; a path is used where it is
            name = resource_name(key, source)
            origin = tuple(source.get(field) for field in ("hf_id", "revision", "hf_file", "path"))
            first_key, first_origin = owners.setdefault(name, (key, origin))
            if first_origin != origin:
                problems.append(
                    f"config key '{key}': resources/models/{name} already holds "
                    f"'{first_key}', a different model; set a distinct 'name'"
                )
    for name, spec in config.get("models", {}).items():
        problems += _check_languages(
            f"models.{name}.training_languages", spec.get("training_languages"), registry, False
        )
        problems += _check_languages(f"models.{name}.languages", spec.get("languages"), registry, False)
        problems += _check_model_languages(name, spec, datasets)
        if backend_info(spec["backend"]).recorded and spec.get("path"):
            problems += _check_recorded(name, spec["path"], base_dir)
    for index, pair in enumerate(config["output"]["comparisons"]):
        for name in pair:
            if name not in config.get("models", {}):
                problems.append(f"config key 'output.comparisons[{index}]': '{name}' is not a configured model")
    problems += _check_languages(
        "evaluators.information.round_trip_languages",
        config["evaluators"]["information"]["round_trip_languages"],
        registry,
        True,
    )
    problems += _check_languages(
        "evaluators.language_id.unsupported_languages",
        config["evaluators"]["language_id"]["unsupported_languages"],
        registry,
        False,
    )
    for section in ("language_confusion", "language_id"):
        problems += _check_languages(
            f"evaluators.{section}.measurable",
            list(config["evaluators"][section]["measurable"]),
            registry,
            False,
        )
    problems += check_translators(config)
    problems += check_qe_thresholds(config, registry)
    for name, spec in config["datasets"].items():
        problems += _check_dataset(name, spec, datasets, base_dir)
    problems += _check_evaluator_datasets(datasets)
    return problems
