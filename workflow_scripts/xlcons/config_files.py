"""The config files a Snakemake command line names, read as YAML before Snakemake reads them.

Snakemake reports a YAML syntax error in a `--configfile` as "Config file is not valid JSON
or YAML", naming neither the file nor the line. The workflow profile
(profiles/default/config.yaml), which Snakemake reads first on every run of this workflow,
calls `check_command_line`, so the user sees the file, line and column and what the parser
expected there. Only the syntax is checked here; the keys and values are checked by
xlcons.config when the Snakefile runs.
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


def yaml_problem(path: Path | str) -> str | None:
    """Why `path` is not valid YAML, with its line and column; None when it parses."""
    try:
        with open(path, encoding="utf-8") as handle:
            yaml.safe_load(handle)
    except UnicodeDecodeError as error:
        return f"{path}: not UTF-8 text (byte {error.start}: {error.object[error.start:error.start + 1]!r})"
    except yaml.MarkedYAMLError as error:
        return f"{path}: {_at(error.problem_mark)}: {error.problem}" + (
            f" ({error.context.removeprefix('while ')} at {_at(error.context_mark)})" if error.context and error.context_mark else "")
    except yaml.YAMLError as error:
        return f"{path}: {error}"
    return None


def _at(mark) -> str:
    return f"line {mark.line + 1}, column {mark.column + 1}" if mark else "an unknown place"


def check_command_line(argv: Sequence[str], cwd: Path | str = ".") -> None:
    """Stop with the first YAML syntax error among the command line's config files (or the
    default config when it names none). Files that are not there are left to Snakemake."""
    named = config_files(argv)
    paths = [Path(cwd) / name for name in named] if named else [Path(cwd) / DEFAULT_CONFIG]
    for path in paths:
        if path.suffix in CONFIG_SUFFIXES and path.is_file():
            problem = yaml_problem(path)
            if problem:
                raise SystemExit(f"xlcons: the config file is not valid YAML: {problem}")
