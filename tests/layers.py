"""The library's layers, bottom to top, and the imports between its modules.

`LAYERS` is the order docs/architecture.md draws: a module may import modules of its own
layer or of a layer below, never one above. tests/test_architecture.py checks that, and
that no modules import each other in a circle. Every module of xlcons belongs to exactly
one layer: the longest prefix in `LAYERS` that names it or a package above it.

``python tests/layers.py`` prints every import between xlcons modules, each upward
import and each cycle, with counts (the figures the issue notes quote).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

LIBRARY = Path(__file__).resolve().parent.parent / "workflow_scripts"
PACKAGE = "xlcons"

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # Small shared pieces: no stage, no evaluator, no data set in particular.
    (
        "base",
        (
            "xlcons",
            "xlcons.atomic",
            "xlcons.tables",
            "xlcons.schemas",
            "xlcons.languages",
            "xlcons.lid",
            "xlcons.data_sources",
            "xlcons.fetch",
            "xlcons.config_files",
            "xlcons.config_sections",
            "xlcons.redaction",
            "xlcons.cache_lock",
            "xlcons.jsonl_cache",
            "xlcons.run_lock",
            "xlcons.fingerprint",
            "xlcons.job",
            "xlcons.progress",
            "xlcons.usage",
            "xlcons.budget",
            "xlcons.run_progress",
            "xlcons.shards",
            "xlcons.embeddings",
        ),
    ),
    ("segmentation", ("xlcons.segmentation",)),  # text into sentences and layout, for any stage
    ("datasets", ("xlcons.datasets",)),  # stage 1: prompts (and the papers' released outputs)
    ("generation", ("xlcons.generation",)),  # stage 2: models answer
    ("translation", ("xlcons.translation",)),  # stage 3: answers to English, and QE
    (
        "item scores",
        ("xlcons.item_scores", "xlcons.derived_metrics", "xlcons.measurability"),
    ),  # the per-item table every evaluator maps to
    ("evaluators", ("xlcons.evaluators",)),  # stage 4: per-item scores
    ("reports", ("xlcons.reports",)),  # stage 5: results tables, figures, paper tables
    (
        "config and plan",  # the DAG, and what is worked out from it before a run (the estimate, the `xlcons` command)
        (
            "xlcons.config",
            "xlcons.dataset_resolver",
            "xlcons.plan",
            "xlcons.schema_docs",
            "xlcons.estimate",
            "xlcons.shard_cleanup",
            "xlcons.cli",
        ),
    ),
)
RANK = {name: rank for rank, (name, _) in enumerate(LAYERS)}


@dataclass(frozen=True)
class Import:
    importer: str  # module name
    file: str  # its file, from the repository root
    line: int
    imported: str  # module name (the module itself, not a name inside it)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.importer} imports {self.imported}"


def modules(root: Path = LIBRARY) -> dict[str, Path]:
    """Module name -> file, for every .py file of the package (a package is its __init__.py)."""
    found = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def layer_of(module: str) -> str | None:
    """The layer whose longest prefix names `module` or a package above it; None if none does."""
    best, length = None, -1
    for name, prefixes in LAYERS:
        for prefix in prefixes:
            below = prefix != PACKAGE and module.startswith(prefix + ".")  # the package itself: only its __init__
            if (module == prefix or below) and len(prefix) > length:
                best, length = name, len(prefix)
    return best


def imports(root: Path = LIBRARY) -> Iterator[Import]:
    """Every import of one xlcons module by another, at module level or inside a function."""
    known = modules(root)

    def module_of(name: str) -> str:
        while name not in known and "." in name:
            name = name.rsplit(".", 1)[0]
        return name

    for importer, path in known.items():
        package = importer if path.name == "__init__.py" else importer.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: from . import x, from ..y import z
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(parts + ([node.module] if node.module else []))
                # `from package import submodule` imports the submodule; `from module import name`, the module
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
            else:
                continue
            for target in dict.fromkeys(targets):
                if target == PACKAGE or target.startswith(PACKAGE + "."):
                    imported = module_of(target)
                    if imported != importer:
                        yield Import(importer, str(path.relative_to(root.parent)), node.lineno, imported)


def upward(found: list[Import]) -> list[Import]:
    """The imports of a module from a layer above its own."""
    return [i for i in found if RANK[layer_of(i.imported)] > RANK[layer_of(i.importer)]]


def cycles(found: list[Import]) -> list[list[Import]]:
    """One circle of imports through each group of modules that import each other (Tarjan's
    strongly connected components, then a shortest path back to the start within the group)."""
    graph: dict[str, dict[str, Import]] = {}
    for i in found:
        graph.setdefault(i.importer, {}).setdefault(i.imported, i)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for succ in graph.get(node, {}):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    circles = []
    for group in groups:
        start = min(group)
        paths = {start: []}  # breadth first, back to start
        queue = [start]
        while queue:
            node = queue.pop(0)
            for succ, edge in sorted(graph.get(node, {}).items()):
                if succ == start:
                    circles.append(paths[node] + [edge])
                    queue = []
                    break
                if succ in group and succ not in paths:
                    paths[succ] = paths[node] + [edge]
                    queue.append(succ)
    return circles


def main(root: Path = LIBRARY) -> int:
    known = modules(root)
    found = list(imports(root))
    pairs = sorted({(i.importer, i.imported) for i in found})
    for importer, imported in pairs:
        print(f"{importer} -> {imported}")
    unplaced = sorted(m for m in known if layer_of(m) is None)
    placed = [i for i in found if layer_of(i.importer) and layer_of(i.imported)]
    up = upward(placed)
    circles = cycles(found)
    print(f"\n{len(known)} modules, {len(pairs)} imports between them ({len(found)} import statements)")
    print(f"{len(unplaced)} modules in no layer: {unplaced}")
    print(f"{len(up)} upward imports:")
    for i in up:
        print(f"  {i}  ({layer_of(i.importer)} -> {layer_of(i.imported)})")
    print(f"{len(circles)} cycles:")
    for circle in circles:
        print("  " + " -> ".join([circle[0].importer] + [i.imported for i in circle]))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else LIBRARY))  # another checkout's workflow_scripts
