"""Keep the README's example output true: each example block is regenerated from a real run.

A block to keep is a fenced block right after a marker line naming the run's file it shows
(relative to the run's folder) and which of its rows, one selector per ``|``, each a list of
``column=value`` pairs that a row must all match::

    <!-- readme-example: results/tables/results.csv | evaluator=information metric=F | evaluator=empathy -->
    ```
    dataset,evaluator,...
    information,information,...
    ```

The block holds the file's header and, in the order of the selectors, the rows each selects
(a row selected twice is shown once). A selector that selects nothing is an error: an example
whose rows a run no longer writes is stale too.

    python -m devtools.readme_examples --run DIR --check   # exit 1, naming each stale block
    python -m devtools.readme_examples --run DIR --write   # rewrite the blocks from DIR

The end-to-end test of Gupta et al. 2025's stages (tests/test_workflow_translate_then_evaluate.py)
runs the check on its own run, so a change that moves the numbers fails until the README is
rewritten with ``--write`` from such a run (``pytest --basetemp``, see docs/testing.md).
"""

from __future__ import annotations

import argparse
import csv
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

MARKER = re.compile(r"^<!-- readme-example: (?P<spec>.+?) -->\s*$")
FENCE = "```"
# Numbers are compared to this absolute tolerance: the last digit of a float may differ
# between CPUs (vectorised sums); anything a reader would see as another value may not.
TOLERANCE = 5e-4


class ExampleError(ValueError):
    """A marker or block that cannot be read, or rows a run does not have; names the README line."""


@dataclass(frozen=True)
class Example:
    line: int  # 1-based line of the marker
    file: str  # relative to the run folder
    selectors: tuple[tuple[tuple[str, str], ...], ...]
    start: int  # 0-based index of the first line inside the fence
    end: int  # 0-based index of the closing fence


def _selector(text: str, where: str) -> tuple[tuple[str, str], ...]:
    pairs = []
    for token in text.split():
        column, sep, value = token.partition("=")
        if not sep or not column:
            raise ExampleError(f"{where}: '{token}' is not column=value")
        pairs.append((column, value))
    if not pairs:
        raise ExampleError(f"{where}: an empty row selector")
    return tuple(pairs)


def find_examples(lines: list[str], source: str = "README.md") -> list[Example]:
    """The marked blocks of a README, each with the fence it governs."""
    examples = []
    for index, line in enumerate(lines):
        match = MARKER.match(line)
        if not match:
            continue
        where = f"{source}:{index + 1}"
        file, *selectors = (part.strip() for part in match["spec"].split("|"))
        if not file or not selectors:
            raise ExampleError(f"{where}: a marker names a file and at least one row selector")
        if index + 1 >= len(lines) or not lines[index + 1].startswith(FENCE):
            raise ExampleError(f"{where}: the marker is not followed by a fenced block")
        end = next((i for i in range(index + 2, len(lines)) if lines[i].startswith(FENCE)), None)
        if end is None:
            raise ExampleError(f"{where}: the fenced block after the marker is not closed")
        parsed = tuple(_selector(text, where) for text in selectors)
        examples.append(Example(index + 1, file, parsed, index + 2, end))
    return examples


def _records(path: Path) -> tuple[list[str], list[tuple[list[str], str]]]:
    """The header's fields and each record's fields with its text as the file has it (a quoted
    empty string stays ``""``, a quoted field keeps its quotes)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    reader = csv.reader(iter(lines))
    records, start = [], 0
    for fields in reader:
        records.append((fields, "\n".join(lines[start : reader.line_num])))
        start = reader.line_num
    if not records:
        raise ExampleError(f"{path} is empty")
    return records[0][0], records[1:]


def render(example: Example, run: Path, source: str = "README.md") -> list[str]:
    """The block's lines as the run writes them: the header, then the selected rows."""
    path = run / example.file
    where = f"{source}:{example.line}"
    if not path.is_file():
        raise ExampleError(f"{where}: the run {run} has no {example.file}")
    header, rows = _records(path)
    chosen: list[int] = []
    for selector in example.selectors:
        unknown = [column for column, _ in selector if column not in header]
        if unknown:
            raise ExampleError(f"{where}: {example.file} has no column {', '.join(unknown)}")
        positions = [(header.index(column), value) for column, value in selector]
        matched = [i for i, (row, _) in enumerate(rows) if all(row[p] == value for p, value in positions)]
        if not matched:
            text = " ".join(f"{column}={value}" for column, value in selector)
            raise ExampleError(f"{where}: no row of {example.file} in {run} matches '{text}'")
        chosen.extend(i for i in matched if i not in chosen)
    header_text = path.read_text(encoding="utf-8").splitlines()[0]
    return [header_text, *(line for i in chosen for line in rows[i][1].split("\n"))]


def _same_field(shown: str, written: str) -> bool:
    if shown == written:
        return True
    try:
        a, b = float(shown), float(written)
    except ValueError:
        return False
    return math.isfinite(a) and math.isfinite(b) and abs(a - b) <= TOLERANCE


def same_block(shown: list[str], written: list[str]) -> bool:
    """The README's block says what the run wrote (numbers to TOLERANCE)."""
    if len(shown) != len(written):
        return False
    for a, b in zip(shown, written, strict=True):
        fields_a, fields_b = next(csv.reader([a])), next(csv.reader([b]))
        if len(fields_a) != len(fields_b) or not all(map(_same_field, fields_a, fields_b)):
            return False
    return True


def stale_examples(readme: Path, run: Path) -> list[str]:
    """One message per block whose rows differ from the run's, naming the line and the first difference."""
    lines = readme.read_text(encoding="utf-8").splitlines()
    problems = []
    for example in find_examples(lines, readme.name):
        written = render(example, run, readme.name)
        shown = lines[example.start : example.end]
        if not same_block(shown, written):
            first = next(
                (i for i, (a, b) in enumerate(zip(shown, written, strict=False)) if not same_block([a], [b])),
                min(len(shown), len(written)),
            )
            problems.append(
                f"{readme.name}:{example.line + 2 + first}: the example of {example.file} is stale: "
                f"shown {shown[first] if first < len(shown) else '(nothing)'!r}, "
                f"the run wrote {written[first] if first < len(written) else '(nothing)'!r}"
            )
    return problems


def write_examples(readme: Path, run: Path) -> int:
    """Rewrite every block from the run; returns how many changed. The README is written whole."""
    lines = readme.read_text(encoding="utf-8").splitlines()
    changed = 0
    for example in reversed(find_examples(lines, readme.name)):
        written = render(example, run, readme.name)
        if lines[example.start : example.end] != written:
            lines[example.start : example.end] = written
            changed += 1
    temporary = readme.with_name(readme.name + ".tmp")
    temporary.write_text("\n".join(lines) + "\n", encoding="utf-8")
    temporary.replace(readme)
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", type=Path, required=True, help="the run's folder (holding results/)")
    parser.add_argument("--readme", type=Path, default=Path(__file__).resolve().parent.parent / "README.md")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="exit 1 when a block differs from the run")
    mode.add_argument("--write", action="store_true", help="rewrite the blocks from the run")
    args = parser.parse_args(argv)
    try:
        if args.write:
            print(f"{write_examples(args.readme, args.run)} example block(s) rewritten in {args.readme}")
            return 0
        problems = stale_examples(args.readme, args.run)
    except ExampleError as error:
        print(error, file=sys.stderr)
        return 2
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
