"""The `xlcons` command (pyproject's [project.scripts]): subcommands for what runs outside Snakemake.

xlcons estimate --configfile config/quickstart.yaml    # what a run will send, before it runs
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from xlcons.estimate import command as estimate_command


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="xlcons", description="Cross-lingual consistency of LLMs, as one Snakemake workflow."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    estimate_command.add_arguments(
        commands.add_parser(
            "estimate", help="requests, tokens and cost a run will send, before it runs (running no model)"
        )
    )
    args = parser.parse_args(argv)
    return estimate_command.run(args)


if __name__ == "__main__":
    raise SystemExit(main())
