"""How a user set's problems are collected and reported: each a self-contained line naming the
config key, the file, the line (or row) and the column, listed in file order and capped, and
the error that carries them."""

from __future__ import annotations

from collections.abc import Sequence

MAX_PROBLEMS = 20
MAX_LISTED = 10


class UserDatasetError(ValueError):
    """A user prompt set that cannot be loaded; the message lists every problem, one per line."""

    def __init__(self, problems: Sequence[str]):
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


class Problems:
    """Problems of one source, each a self-contained line naming the config key and file.

    They are found in several passes (bytes, records, fields, duplicates) but listed in
    file order, as someone fixing them in an editor goes through the file."""

    def __init__(self, name: str, label: str, key: str | None = None):
        """`key` heads every message: the config key of the file (`datasets.<name>` unless given)."""
        self.name, self.label = name, label
        self.key = key or f"datasets.{name}"
        self._found: list[tuple[int, str]] = []

    def __bool__(self) -> bool:
        return bool(self._found)

    def at(self, where: str, column: str | None, message: str) -> None:
        column_part = f", column {column!r}" if column else ""
        position = int(where.split()[1])  # "line 4", "row 2", "line 1 (header)"
        self._found.append((position, f"{self.key}: {self.label}, {where}{column_part}: {message}"))

    def of_file(self, message: str) -> None:
        self._found.append((0, f"{self.key}: {self.label}: {message}"))

    def in_file_order(self) -> list[str]:
        return [text for _, text in sorted(self._found, key=lambda found: found[0])]


def capped(problems: list[str]) -> list[str]:
    if len(problems) <= MAX_PROBLEMS:
        return problems
    return problems[:MAX_PROBLEMS] + [f"… and {len(problems) - MAX_PROBLEMS} more problems"]


def listed(values: Sequence[str]) -> str:
    shown = ", ".join(map(str, values[:MAX_LISTED]))
    return shown + (f" and {len(values) - MAX_LISTED} more" if len(values) > MAX_LISTED else "")
