"""Each evaluator is declared beside its code: its registry entry in its own entry module, its
per-item table and adapter in its own module; the registry only collects the entries. Adding an
evaluator touches its module or package, its rule file and its tests, never the registry, the
shared schemas or the reports."""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from xlcons import schemas
from xlcons.evaluators import registry
from xlcons.evaluators.info import EvaluatorInfo
from xlcons.evaluators.registry import ENTRY_MODULES, EVALUATORS, collect, entry_modules, resolve

REPO = Path(__file__).resolve().parent.parent
LIBRARY = REPO / "workflow_scripts"
EVALUATORS_DIR = LIBRARY / "xlcons" / "evaluators"
SOURCES = [(info, source) for info in EVALUATORS.values() for source in info.results]


def module_path(module: str) -> Path:
    path = LIBRARY.joinpath(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def defined_names(module: str) -> set[str]:
    """The names a module assigns or defines at its top level (not those it imports)."""
    names = set()
    for node in ast.parse(module_path(module).read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign):
            names |= {target.id for target in node.targets if isinstance(target, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
    return names


def test_the_registry_declares_no_evaluator_and_only_collects_the_entry_modules():
    tree = ast.parse((EVALUATORS_DIR / "registry.py").read_text(encoding="utf-8"))
    calls = {node.func.id for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    assert not calls & {"EvaluatorInfo", "ResultsSource", "config_section", "closed_section"}
    named = {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)}
    for name, info in EVALUATORS.items():
        assert name not in named and info.rule_file not in named, f"the registry names the evaluator {name}"
    declared = [info for module in ENTRY_MODULES for info in importlib.import_module(module).ENTRIES]
    assert collect() == EVALUATORS and sorted(info.name for info in declared) == sorted(EVALUATORS)


def test_every_entry_module_of_the_evaluators_package_is_collected():
    found = {
        ".".join(path.relative_to(LIBRARY).with_suffix("").parts)
        for path in EVALUATORS_DIR.rglob("*.py")
        if path.name == "entry.py" or path.name.endswith("_entry.py")
    }
    assert sorted(found) == sorted(ENTRY_MODULES)
    for module in ENTRY_MODULES:
        entries = importlib.import_module(module).ENTRIES
        assert entries and all(isinstance(info, EvaluatorInfo) for info in entries), module


def test_a_new_entry_module_is_found_by_its_name_alone_in_the_order_of_the_names(tmp_path):
    (tmp_path / "zeta_entry.py").write_text("ENTRIES = ()\n")
    (tmp_path / "alpha").mkdir()
    (tmp_path / "alpha" / "entry.py").write_text("ENTRIES = ()\n")
    (tmp_path / "alpha" / "scores.py").write_text("")
    (tmp_path / "helpers.py").write_text("")
    assert entry_modules(tmp_path, "pkg") == ("pkg.alpha.entry", "pkg.zeta_entry")


def test_the_evaluators_keep_the_order_their_positions_give_whatever_the_names_of_their_modules():
    """The order of the config schema's `evaluators`, of the config reference and of the rule files."""
    assert list(EVALUATORS) == [
        "language_id",
        "judge",
        "tokenization",
        "information",
        "translationese",
        "empathy",
        "knowledge",
        "language_confusion",
        "translation_ability",
    ]
    positions = [info.position for info in EVALUATORS.values()]
    assert positions == sorted(positions)


def test_an_evaluator_without_a_position_comes_after_the_built_in_ones(tmp_path, monkeypatch):
    (tmp_path / "aaa_entry.py").write_text(
        "from xlcons.evaluators.info import EvaluatorInfo\n"
        "ENTRIES = (EvaluatorInfo('aaa', 'aaa', 'evaluate_aaa.smk', ('aaa_items',), 'aaa_items'),)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    found = collect((*ENTRY_MODULES, "aaa_entry"))
    assert list(found) == [*EVALUATORS, "aaa"]


def test_importing_the_registry_loads_no_package_outside_the_standard_library():
    """The Snakefile reads the registry (and so every entry module) while it builds the DAG."""
    probe = (
        "import sys, xlcons.evaluators.registry; "
        "print(sorted({m.split('.')[0] for m in sys.modules} - set(sys.stdlib_module_names) - {'xlcons'}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(LIBRARY), "PATH": ""},
        cwd=REPO,
    )
    outside = eval(result.stdout)  # a printed list of names
    assert not [name for name in outside if not name.startswith("_")], outside


@pytest.mark.parametrize("info,source", SOURCES, ids=[source.output for _, source in SOURCES])
def test_a_results_sources_schema_and_adapter_are_declared_together_in_its_evaluators_own_module(info, source):
    schema_module, _, schema_name = source.schema.partition(":")
    adapter_module, _, adapter_name = source.adapter.partition(":")
    assert schema_module == adapter_module, f"{info.name}: the schema and the adapter of {source.output} are apart"
    assert schema_module.startswith("xlcons.evaluators.") and schema_module != "xlcons.evaluators.registry"
    assert {schema_name, adapter_name} <= defined_names(schema_module), f"{source}: declared elsewhere, imported there"
    assert not hasattr(schemas, schema_name), f"{schema_name} is in xlcons.schemas too"


def test_the_shared_schemas_hold_no_evaluators_own_table():
    """xlcons.schemas keeps the tables every stage shares; an evaluator's tables are its own."""
    import pyarrow as pa

    for module in sorted({source.schema.partition(":")[0] for _, source in SOURCES}):
        tables = {
            name
            for name in defined_names(module)
            if isinstance(getattr(importlib.import_module(module), name), pa.Schema)
        }
        assert not tables & set(vars(schemas)), (
            f"{module}: {sorted(tables & set(vars(schemas)))} also in xlcons.schemas"
        )


def third_party_imports(module: str) -> set[str]:
    """The packages outside the library that importing a module loads: its top-level imports, and
    those of the xlcons modules it imports (functions import theirs when called)."""
    seen, todo, outside = set(), [module_path(module)], set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:
                parts = name.split(".")
                if parts[0] == "xlcons":
                    todo += [
                        p
                        for n in range(1, len(parts) + 1)
                        if (p := LIBRARY.joinpath(*parts[:n]) / "__init__.py").exists()
                    ]
                    todo += [p for p in (LIBRARY.joinpath(*parts).with_suffix(".py"),) if p.exists()]
                elif parts[0] not in sys.stdlib_module_names:
                    outside.add(parts[0])
    return outside


def test_the_results_job_can_import_every_results_sources_module_in_its_env():
    """The results rule runs in envs/report.yaml and imports each schema's and adapter's module."""
    spec = yaml.safe_load((REPO / "envs" / "report.yaml").read_text(encoding="utf-8"))
    pins = {
        re.split(r"[=<>]", item)[0].lower()
        for entry in spec["dependencies"]
        if isinstance(entry, dict)
        for item in entry["pip"]
    }
    for module in sorted(
        {source.schema.partition(":")[0] for _, source in SOURCES}
        | {r.partition(":")[0] for info in EVALUATORS.values() for r in info.derived}
    ):
        assert third_party_imports(module) <= pins, f"{module} needs {sorted(third_party_imports(module) - pins)}"


def test_every_reference_of_an_entry_resolves():
    for info in EVALUATORS.values():
        for reference in [
            *info.jobs.values(),
            *info.derived,
            *(s.schema for s in info.results),
            *(s.adapter for s in info.results),
        ]:
            assert resolve(reference) is not None, reference
    assert registry.RULE_JOBS.keys() == {rule for info in EVALUATORS.values() for rule in info.jobs}


@pytest.mark.parametrize("info", EVALUATORS.values(), ids=lambda info: info.name)
def test_every_evaluator_declares_the_metrics_of_its_figure_that_its_rows_hold_or_says_why_not(info):
    """The evaluator report (rule evaluator_report) draws what the entry declares: metrics that its
    adapter or its derived metrics write to the results table, under its `evaluator` value, each
    with a declared colour range; an evaluator without a figure says why."""
    from test_results_empty_values import every_kind_of_results
    from xlcons.reports.figure_style import metric_range

    if not info.figure_metrics:
        assert info.pair_figure is None and info.no_figure.strip(), f"{info.name}: no figure and no reason"
        return
    results = every_kind_of_results()  # every evaluator's adapter, from its own per-item table
    written = set(results.filter(results["evaluator"] == info.rows_evaluator)["metric"].to_list())
    assert written, f"{info.name}: no results rows under evaluator {info.rows_evaluator!r}"
    for metric in info.figure_metrics:
        assert metric in written, f"{info.name}: {metric} is in none of its results rows"
        metric_range(metric)  # a figure metric has its colour range declared
    if info.pair_figure is not None:
        assert info.pair_figure.output in info.outputs
        assert resolve(info.pair_figure.schema) is not None and callable(resolve(info.pair_figure.cells))


def test_the_results_rows_of_an_evaluator_name_it_or_its_declared_value():
    from test_results_empty_values import every_kind_of_results

    declared = {info.rows_evaluator for info in EVALUATORS.values() if info.results}
    assert set(every_kind_of_results()["evaluator"].to_list()) - {"translation_qe"} == declared
