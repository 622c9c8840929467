"""Run the benchmarks and print one table of their figures: benchmark, figure, value, target, met?

    python -m benchmarks                       # every benchmark, full sizes (tens of minutes on 2 cores)
    python -m benchmarks --quick               # small sizes: a smoke run of every benchmark
    python -m benchmarks --only scheduling --only multiq_fidelity
    python -m benchmarks --list

Run from the repository root. Each benchmark module exposes ``figures(argv) -> dict``
(its own command-line arguments; it prints its detailed report as when run as a
script), ``QUICK`` (the arguments of ``--quick``) and ``TARGETS`` (figure -> (operator,
threshold)). A benchmark that fails is reported in the table and the others still run;
the exit status is 1 when any benchmark failed or missed a target. The targets are for the
full sizes: under --quick the met? column is shown in parentheses and only failures count.
"""

from __future__ import annotations

import argparse
import importlib
import json
import operator
import os
import sys
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCHMARKS = (
    "generation_overhead",
    "knowledge_metrics",
    "translation",
    "results_bootstrap",
    "scheduling",
    "multiq_fidelity",
    "explorer_scale",
    "gpu",
)
OPERATORS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq}
HEADER = ("benchmark", "figure", "value", "target", "met?")


def select(only: list[str] | None) -> list[str]:
    """The benchmarks to run, in the canonical order; `only` names some (comma-separated allowed)."""
    if not only:
        return list(BENCHMARKS)
    wanted = [name.strip().removesuffix(".py") for item in only for name in item.split(",") if name.strip()]
    unknown = [name for name in wanted if name not in BENCHMARKS]
    if unknown:
        raise SystemExit(f"unknown benchmark(s): {', '.join(unknown)}; known: {', '.join(BENCHMARKS)}")
    return [name for name in BENCHMARKS if name in wanted]


def met(value, target) -> str:
    """'yes' / 'no' for a figure with a target, '' without one, 'n/a' when the value cannot be compared."""
    if target is None:
        return ""
    op, threshold = target
    try:
        return "yes" if OPERATORS[op](value, threshold) else "no"
    except TypeError:
        return "n/a"


def format_value(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:,.3f}".rstrip("0").rstrip(".") if abs(value) < 1000 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def format_target(target) -> str:
    if target is None:
        return ""
    op, threshold = target
    return f"{op} {format_value(threshold)}"


def rows_of(name: str, figures: dict, targets: dict) -> list[tuple[str, str, str, str, str]]:
    rows = []
    for figure, value in figures.items():
        target = targets.get(figure)
        rows.append((name, figure, format_value(value), format_target(target), met(value, target)))
    return rows


def format_table(rows: list[tuple[str, ...]]) -> str:
    """A plain-text table with a header, one line per row, columns padded to their widest cell."""
    table = [HEADER, *rows]
    widths = [max(len(str(row[column])) for row in table) for column in range(len(HEADER))]
    lines = ["  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)).rstrip() for row in table]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def run_one(name: str, quick: bool) -> tuple[list[tuple[str, ...]], bool]:
    """(rows, ok) for one benchmark: its figures, or one row saying why it failed."""
    print(f"\n=== {name}{' (quick)' if quick else ''} ===", flush=True)
    start = time.perf_counter()
    try:
        module = importlib.import_module(f"benchmarks.{name}")
        argv = list(getattr(module, "QUICK", [])) if quick else []
        figures = module.figures(argv)
    except SystemExit as error:  # argparse or a benchmark's own clean exit
        return [(name, "error", f"exit {error.code}", "", "no")], False
    except Exception as error:  # noqa: BLE001 - one failing benchmark must not stop the others
        traceback.print_exc()
        return [(name, "error", f"{type(error).__name__}: {error}".splitlines()[0][:120], "", "no")], False
    rows = rows_of(name, figures, getattr(module, "TARGETS", {}))
    rows.append((name, "benchmark_s", format_value(round(time.perf_counter() - start, 1)), "", ""))
    if quick:  # small sizes say nothing about the full-size targets
        return [(*row[:4], f"({row[4]})" if row[4] else "") for row in rows], True
    return rows, all(row[4] != "no" for row in rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="small sizes (each module's QUICK arguments)")
    parser.add_argument(
        "--only", action="append", metavar="NAME", help="run only this benchmark (repeatable, or comma-separated)"
    )
    parser.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    parser.add_argument("--json", type=Path, help="also write the table's rows as JSON here")
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(BENCHMARKS))
        return 0
    names = select(args.only)
    os.chdir(REPO)  # the scripts' default paths are relative to the repository root
    rows, ok = [], True
    for name in names:
        found, passed = run_one(name, args.quick)
        rows += found
        ok = ok and passed
    print("\n" + format_table(rows))
    if args.quick:
        print("(quick sizes: targets are for the full sizes, so met? is only indicative)")
    if args.json:
        args.json.write_text(json.dumps([dict(zip(HEADER, row)) for row in rows], indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
