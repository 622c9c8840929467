"""`xlcons clean-shards`: the files of shard jobs that the config no longer plans.

    xlcons clean-shards [--configfile config.yaml [more.yaml ...]] [--config KEY=VALUE ...] [--delete]

After a shard count changes (`generation.shards`, `evaluators.<name>.shards`: 3 -> 2, or back to
1), the old shard jobs' files stay: their parts of the outputs (``<model>.shard-3-of-3.parquet``,
``judgments.shard-1-of-3.parquet``, ...), their logs, progress files and benchmarks. Nothing
reads them (the merge reads the current shards only), but they make the results folder
misleading. This command builds the workflow's DAG for the config, as `snakemake` does from the
current folder, and lists every file under the results folder and ``logs/`` whose name says it
is a shard job's (``.shard-<k>-of-<N>.``) and that no job of the DAG writes (as an output, a log
or a benchmark); with ``--delete`` it removes them.

Kept, always: the item caches (``cache/``: every job of a stage, data set and model reads the
caches of every shard of any count, so that a new count asks nothing again) and the usage
ledgers (``usage/``: what those jobs spent, which the budget guard counts).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from itertools import chain
from pathlib import Path

from xlcons.progress import STATUS_SUFFIX

SHARD_NAME = re.compile(r"\.shard-\d+-of-\d+(\.|$)")  # a shard job's file (xlcons.shards.shard_name), any suffix after
KEPT_FOLDERS = frozenset({"cache", "usage"})  # item caches and usage ledgers (the module's docstring)
LOGS = "logs"


def planned_files(snakefile: Path, configfiles: Sequence[str], overrides: Sequence[str]) -> tuple[str, set[str]]:
    """The results folder of the config and every file a job of its DAG writes (outputs, logs,
    benchmarks), relative to the current folder, as Snakemake plans them from here."""
    from snakemake.api import SnakemakeApi
    from snakemake.cli import parse_config
    from snakemake.settings.types import ConfigSettings, DAGSettings, OutputSettings, ResourceSettings

    with SnakemakeApi(OutputSettings(quiet={"all"})) as api:
        workflow_api = api.workflow(
            resource_settings=ResourceSettings(),
            config_settings=ConfigSettings(
                configfiles=[Path(path) for path in configfiles], config=parse_config(list(overrides))
            ),
            snakefile=snakefile,
            workdir=Path.cwd(),
        )
        workflow_api.dag(dag_settings=DAGSettings(forceall=True))
        workflow = workflow_api._workflow
        workflow._prepare_dag(forceall=True, ignore_incomplete=True, lock_warn_only=True, nolock=True)
        workflow._build_dag()
        files = {
            os.path.normpath(os.path.relpath(str(path)))
            for job in workflow.dag.jobs
            for path in chain(job.output, job.log, [job.benchmark] if job.benchmark else [])
        }
        return workflow.globals["PLAN"].results, files


def _written_as(path: Path) -> str:
    """The planned file that `path` stands for: a progress file stands for its job's log."""
    if path.name.endswith(STATUS_SUFFIX):
        return str(path.with_name(path.name.removesuffix(STATUS_SUFFIX) + ".log"))
    return str(path)


def stale_shard_files(results: str, planned: set[str]) -> list[Path]:
    """The shard jobs' files under `results` and ``logs/`` that no planned job writes, item
    caches and usage ledgers left out; sorted. A planned folder output covers what is in it."""
    folders = tuple(f"{path}{os.sep}" for path in planned)
    stale = []
    for root in (results, LOGS):
        for path in sorted(Path(root).rglob("*")) if Path(root).is_dir() else []:
            if not path.is_file() or not SHARD_NAME.search(path.name):
                continue
            relative = path.relative_to(root).parts
            if KEPT_FOLDERS & set(relative[:-1]):
                continue
            name = os.path.normpath(_written_as(path))
            if name not in planned and not name.startswith(folders):
                stale.append(path)
    return sorted(set(stale))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="xlcons clean-shards",
        description="List (or, with --delete, remove) the files of shard jobs that the config no longer plans "
        "(after a shard count changed); item caches and usage ledgers are kept.",
    )
    parser.add_argument("--configfile", "--configfiles", nargs="+", default=[], help="config files, merged in order")
    parser.add_argument(
        "--config", "-C", nargs="+", default=[], metavar="KEY=VALUE", help="top-level keys, as Snakemake's --config"
    )
    parser.add_argument("--snakefile", "-s", default="Snakefile", help="the workflow (default: ./Snakefile)")
    parser.add_argument("--delete", action="store_true", help="remove the files listed")
    args = parser.parse_args(argv)
    snakefile = Path(args.snakefile)
    if not snakefile.is_file():
        print(f"xlcons clean-shards: {snakefile}: no such Snakefile (run it from the repository root)", file=sys.stderr)
        return 2
    try:
        results, planned = planned_files(snakefile, args.configfile, args.config)
    except Exception as error:  # Snakemake's errors (a bad config) are its own classes
        print(f"xlcons clean-shards: the workflow cannot be planned: {error}", file=sys.stderr)
        return 2
    stale = stale_shard_files(results, planned)
    if not stale:
        print("xlcons clean-shards: no shard file is left from another shard count")
        return 0
    size = sum(path.stat().st_size for path in stale)
    for path in stale:
        print(path)
    if args.delete:
        for path in stale:
            path.unlink()
        print(f"xlcons clean-shards: removed {len(stale)} files ({size / 1e6:.1f} MB)")
    else:
        print(
            f"xlcons clean-shards: {len(stale)} files ({size / 1e6:.1f} MB) of shard jobs this config does not plan; "
            "add --delete to remove them (item caches and usage ledgers are kept)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
