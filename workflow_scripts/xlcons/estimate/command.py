"""`xlcons estimate`: the command line of the estimate.

    xlcons estimate --configfile config/quickstart.yaml [more.yaml ...] [--config KEY=VALUE ...] [--csv PATH] [--json]

The config files are merged in order and `--config` entries set top-level keys, as Snakemake
does (its own `update_config` and `parse_config`), then validated and planned as the
Snakefile does (xlcons.config.resolve_config, xlcons.plan.Plan), from the current folder
(the repository root, where `snakemake` runs). With no `--configfile`, config/config.yaml,
as the Snakefile reads it.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from xlcons.config import ConfigError, resolve_config
from xlcons.config_files import DEFAULT_CONFIG, config_override_problem, load_yaml, yaml_problem
from xlcons.estimate import estimate
from xlcons.estimate.check import limits_problem
from xlcons.estimate.table import render_csv, render_json, render_text, write_csv
from xlcons.plan import Plan

LEGEND = (
    "basis: exact = counted from the prompts to send; bound = at most this; approx = from answers not written "
    "yet (docs/usage.md#before-a-run-the-estimate). tokens: tokenizer = the model's own; chars/4 = an "
    "approximation. max_completion_tokens and cost_usd are upper figures: every request writing max_new_tokens."
)


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("--configfile", "--configfiles", nargs="+", default=[], help="config files, merged in order")
    parser.add_argument(
        "--config", "-C", nargs="+", default=[], metavar="KEY=VALUE", help="top-level keys, as Snakemake's --config"
    )
    parser.add_argument(
        "--resources", default="resources", help="where fetched models and data are (default: resources)"
    )
    parser.add_argument("--csv", metavar="PATH", help="also write the table as CSV")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    return parser


def run_config(configfiles: Sequence[str], overrides: Sequence[str]) -> dict[str, Any]:
    """The config a `snakemake --configfile ... --config ...` run of this workflow gets."""
    from snakemake.cli import parse_config
    from snakemake.utils import update_config

    config: dict[str, Any] = {}
    for path in configfiles or [str(DEFAULT_CONFIG)]:
        if not Path(path).is_file():
            raise ConfigError(f"{path}: no such config file")
        if problem := yaml_problem(path):
            raise ConfigError(problem)
        update_config(config, load_yaml(path) or {})
    if overrides:
        if problem := config_override_problem(["--config", *overrides]):
            raise ConfigError(problem)
        update_config(config, parse_config(overrides))
    return config


def run(args: argparse.Namespace) -> int:
    try:
        config = run_config(args.configfile, args.config)
        datasets = resolve_config(config, base_dir=Path.cwd())
    except ConfigError as error:
        print(f"xlcons estimate: {error}", file=sys.stderr)
        return 2
    plan = Plan(config, datasets=datasets)
    rows = estimate(plan, args.resources)
    if args.csv:
        write_csv(rows, args.csv)
    if args.json:
        sys.stdout.write(render_json(rows))
    else:
        sys.stdout.write(render_text(rows) + textwrap.fill(LEGEND, 100) + "\n")
    problem, notes = limits_problem(plan, args.resources)
    for line in [*notes, *([problem] if problem else [])]:
        print(line, file=sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = add_arguments(argparse.ArgumentParser(prog="xlcons estimate", description=__doc__.split("\n\n")[0]))
    return run(parser.parse_args(argv))


__all__ = ["add_arguments", "main", "render_csv", "run", "run_config"]
