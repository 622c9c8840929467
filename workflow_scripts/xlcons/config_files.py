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

`--config KEY=VALUE` sets top-level keys only; Snakemake stops on a dotted key
(`output.bootstrap_resamples=50`) with a traceback, before the Snakefile runs, so
`check_command_line` names such an entry first and says how to set a nested key
(`config_override_problem`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import yaml

CONFIG_OPTIONS = ("--configfile", "--configfiles")
# What the Snakefile reads when the command line names no config file.
DEFAULT_CONFIG = Path("config") / "config.yaml"
CONFIG_SUFFIXES = (".yaml", ".yml", ".json")
OVERRIDE_OPTIONS = ("--config", "-C")
# What Snakemake's --config accepts as a key (snakemake.cli.parse_config).
_OVERRIDE_KEY = re.compile(r"[a-zA-Z_][\w-]*\w$")


def _option_values(argv: Sequence[str], options: Sequence[str]) -> list[str]:
    """The values given to `options` (each takes one or more values, up to the next option),
    in command-line order."""
    values: list[str] = []
    taking = False
    for arg in argv:
        name, eq, value = arg.partition("=")
        if name in options:
            taking = not eq
            if eq:
                values.append(value)
        elif arg.startswith("-"):
            taking = False
        elif taking:
            values.append(arg)
    return values


def config_files(argv: Sequence[str]) -> list[str]:
    """The files given to --configfile/--configfiles, in command-line order."""
    return _option_values(argv, CONFIG_OPTIONS)


def config_override_problem(argv: Sequence[str]) -> str | None:
    """Why a `--config` entry would stop Snakemake with a traceback (not KEY=VALUE, or a key
    that is not a name, such as a dotted path), with how to set a nested key; None when every
    entry is one Snakemake reads."""
    for entry in _option_values(argv, OVERRIDE_OPTIONS):
        key, eq, value = entry.partition("=")
        if not eq:
            return f"xlcons: --config {entry}: each --config entry is KEY=VALUE (a top-level config key)"
        if _OVERRIDE_KEY.match(key):
            continue
        if "." not in key:
            return f"xlcons: --config {entry}: '{key}' is not a config key name (letters, digits, _ and -)"
        section, _, rest = key.partition(".")
        nested = "".join(f"{'  ' * depth}{part}:\n" for depth, part in enumerate(rest.split(".")[:-1], start=1))
        return (
            f"xlcons: --config {entry}: --config sets top-level keys only (KEY=VALUE), and Snakemake reads "
            f"'{key}' as one name, not as a path into the section '{section}'. To set the nested key {key}, "
            f"write it to a YAML file, for example overrides.yaml:\n\n{section}:\n{nested}"
            f"{'  ' * (rest.count('.') + 1)}{rest.split('.')[-1]}: {value}\n\n"
            "and name that file after your config: --configfile config/config.yaml overrides.yaml (later files "
            "override the earlier ones key by key; docs/configuration.md)"
        )
    return None


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
    """Stop with a --config entry Snakemake would not read (`config_override_problem`), or the
    first YAML problem among the command line's config files (or the default config when it
    names none)."""
    if problem := config_override_problem(argv):
        raise SystemExit(problem)
    named = config_files(argv)
    problem = first_problem([Path(cwd) / name for name in named] if named else [Path(cwd) / DEFAULT_CONFIG])
    if problem:
        raise SystemExit(problem)
