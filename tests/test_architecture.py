"""The library's layers only point down, and no modules import each other in a circle.

The layer order is tests/layers.py's `LAYERS` (drawn in docs/architecture.md). Imports
are read from the source with `ast`, at module level and inside functions alike: an
import deferred to a function is still a dependency.
"""

from __future__ import annotations

import pytest

from layers import LAYERS, cycles, imports, layer_of, modules, upward


@pytest.fixture(scope="module")
def found():
    return list(imports())


def test_every_module_has_a_layer():
    unplaced = sorted(m for m in modules() if layer_of(m) is None)
    assert not unplaced, f"modules in no layer of tests/layers.py's LAYERS (add them where they belong): {unplaced}"


def test_each_prefix_names_one_layer():
    prefixes = [prefix for _, layer in LAYERS for prefix in layer]
    assert len(prefixes) == len(set(prefixes))


def test_no_module_imports_from_a_layer_above_its_own(found):
    placed = [i for i in found if layer_of(i.importer) and layer_of(i.imported)]
    violations = upward(placed)
    assert not violations, "imports from a higher layer:\n" + "\n".join(
        f"  {i} ({layer_of(i.importer)} < {layer_of(i.imported)})" for i in violations
    )


def test_no_import_cycles(found):
    circles = cycles(found)
    assert not circles, "modules that import each other in a circle:\n" + "\n".join(
        "  " + "; ".join(str(i) for i in circle) for circle in circles
    )


def test_the_checks_see_an_upward_import_and_a_cycle(tmp_path):
    """The scanner itself: a deferred import from a higher layer is found, with its file and line,
    and two modules importing each other are a cycle."""
    package = tmp_path / "workflow_scripts" / "xlcons"
    (package / "reports").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "reports" / "__init__.py").write_text("")
    (package / "reports" / "results.py").write_text("from xlcons import tables\n")
    (package / "tables.py").write_text("def f():\n    from xlcons.reports.results import x\n")
    found = list(imports(tmp_path / "workflow_scripts"))
    [up] = upward(found)
    assert (up.importer, up.imported, up.line) == ("xlcons.tables", "xlcons.reports.results", 2)
    assert str(up).startswith("workflow_scripts/xlcons/tables.py:2: xlcons.tables imports xlcons.reports.results")
    [circle] = cycles(found)
    assert {i.importer for i in circle} == {"xlcons.tables", "xlcons.reports.results"}
