"""The config files a Snakemake command line names, read as YAML before Snakemake reads them.

Snakemake reports a YAML syntax error in a `--configfile` as "Config file is not valid JSON
or YAML", naming neither the file nor the line. The workflow profile
(profiles/default/config.yaml), which Snakemake reads first on every run of this workflow,
calls `check_command_line`, so the user sees the file, line and column and what the parser
expected there.

A key given twice in one mapping is refused too (`UniqueKeyLoader`): PyYAML, and so
Snakemake, keeps the last one silently, so two `smollm2-135m:` entries would run the second
one's model under the label. Snakemake reads a duplicate without complaint, so the Snakefile
checks the files it read as well (rules/common.smk), whatever profile the run uses. Only the
file is checked here; the keys and values are checked by xlcons.config when the Snakefile
runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import yaml

CONFIG_OPTIONS = ("--configfile", "--configfiles")
# What the Snakefile reads when the command line names no config file.
DEFAULT_CONFIG = Path("config") / "config.yaml"
CONFIG_SUFFIXES = (".yaml", ".yml", ".json")


def config_files(argv: Sequence[str]) -> list[str]:
    """The files given to --configfile/--configfiles (each takes one or more values, up to
    the next option), in command-line order."""
    files: list[str] = []
    taking = False
    for arg in argv:
        name, eq, value = arg.partition("=")
        if name in CONFIG_OPTIONS:
            taking = not eq
            if eq:
                files.append(value)
        elif arg.startswith("-"):
            taking = False
        elif taking:
            files.append(arg)
    return files


class DuplicateKeyError(yaml.constructor.ConstructorError):
    """A mapping that gives one key twice; `key` is its dotted path in the document."""

    def __init__(self, key: str, first: yaml.Mark, second: yaml.Mark):
        super().__init__(
            problem=f"the key `{key}` is given twice (first on line {first.line + 1}); "
            "YAML would silently keep the last one: remove or rename one of them",
            problem_mark=second,
        )
        self.key = key


class UniqueKeyLoader(yaml.SafeLoader):
    """`yaml.SafeLoader` that refuses a key given twice in one mapping, at any depth (keys are
    compared as read, so `yes` and `true` are the same key). A key that overrides one merged in
    with `<<:` is not a duplicate."""

    def get_single_node(self):
        node = super().get_single_node()
        if node is not None:
            self._refuse_duplicates(node, "", set())
        return node

    def _refuse_duplicates(self, node: yaml.Node, path: str, seen: set[int]) -> None:
        if id(node) in seen:  # an alias of a node already walked
            return
        seen.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                self._refuse_duplicates(item, f"{path}[{index}]", seen)
        elif isinstance(node, yaml.MappingNode):
            first: dict = {}
            for key_node, value_node in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True) if isinstance(key_node, yaml.ScalarNode) else None
                name = f"{path}.{key}" if path else str(key)
                try:
                    if key in first:
                        raise DuplicateKeyError(name, first[key], key_node.start_mark)
                    if key is not None:
                        first[key] = key_node.start_mark
                except TypeError:  # an unhashable key: left to the constructor
                    pass
                self._refuse_duplicates(value_node, name, seen)


def load_yaml(path: Path | str):
    """A YAML (or JSON) config file's content, read with `UniqueKeyLoader`."""
    with open(path, encoding="utf-8") as handle:
        return yaml.load(handle, Loader=UniqueKeyLoader)  # noqa: S506 (a SafeLoader)


def yaml_problem(path: Path | str) -> str | None:
    """Why `path` is not valid YAML (a syntax error or a key given twice), with its line and
    column; None when it parses."""
    try:
        load_yaml(path)
    except UnicodeDecodeError as error:
        return f"{path}: not UTF-8 text (byte {error.start}: {error.object[error.start : error.start + 1]!r})"
    except yaml.MarkedYAMLError as error:
        return f"{path}: {_at(error.problem_mark)}: {error.problem}" + (
            f" ({error.context.removeprefix('while ')} at {_at(error.context_mark)})"
            if error.context and error.context_mark
            else ""
        )
    except yaml.YAMLError as error:
        return f"{path}: {error}"
    return None


def _at(mark) -> str:
    return f"line {mark.line + 1}, column {mark.column + 1}" if mark else "an unknown place"


def first_problem(paths: Sequence[Path | str]) -> str | None:
    """The first problem among config files (`yaml_problem`), as the message to stop with;
    files that are not there, or not YAML or JSON by their name, are left to Snakemake."""
    for path in map(Path, paths):
        if path.suffix in CONFIG_SUFFIXES and path.is_file():
            problem = yaml_problem(path)
            if problem:
                return f"xlcons: the config file is not valid YAML: {problem}"
    return None


def check_command_line(argv: Sequence[str], cwd: Path | str = ".") -> None:
    """Stop with the first YAML problem among the command line's config files (or the
    default config when it names none)."""
    named = config_files(argv)
    problem = first_problem([Path(cwd) / name for name in named] if named else [Path(cwd) / DEFAULT_CONFIG])
    if problem:
        raise SystemExit(problem)
