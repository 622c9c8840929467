"""The `xlcons` command (pyproject's [project.scripts]): what runs beside Snakemake, by subcommand.

xlcons estimate --configfile config/quickstart.yaml   # what a run will send and cost, before it runs
xlcons progress [--directory DIR] [--watch 30]        # how far a running run has got
xlcons clean-shards --configfile my.yaml [--delete]   # shard jobs' files a changed shard count left
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from xlcons import run_progress, shard_cleanup
from xlcons.estimate import command as estimate_command

COMMANDS: dict[str, tuple[Callable[[Sequence[str]], int], str]] = {
    "estimate": (estimate_command.main, "requests, tokens and cost a run will send, before it runs (runs no model)"),
    "progress": (run_progress.main, "how far the run in a folder has got: jobs done and items per model job"),
    "clean-shards": (
        shard_cleanup.main,
        "list (--delete: remove) the files of shard jobs the config no longer plans, after a shard count changed",
    ),
}


def usage() -> str:
    lines = ["usage: xlcons <command> [options]   (xlcons <command> --help for its options)", "", "commands:"]
    return "\n".join(lines + [f"  {name:<12} {text}" for name, (_, text) in COMMANDS.items()])


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] in (["-h"], ["--help"]):
        print(usage())
        return 0
    if not args or args[0] not in COMMANDS:
        print(usage(), file=sys.stderr)
        return 2
    command, _ = COMMANDS[args[0]]
    return command(args[1:])


if __name__ == "__main__":
    raise SystemExit(main())
