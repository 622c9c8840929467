"""Scheduling cost of the three paper configs together: DAG construction and a no-op rerun.

The three paper configs (Gupta et al. 2025: 12 models x 30 languages, information and
empathy; Holtermann et al. 2024: MultiQ in 137 languages; Xing et al. 2024: MAKQA in 12
languages) are merged into ONE config: every model of every paper under a distinct name
(``<paper>-<model>``, e.g. ``holtermann2024-llama2-7b``), every data set, every evaluator
(language ID, judge, information consistency with the translationese round trips in the
paper's 10 languages, empathy, knowledge consistency on MAKQA and MultiQ). An evaluator
model that shares a generator's download (``name: <model>``) follows its new name. Every model therefore runs every data
set: the worst case a single config can schedule. The merged config is validated with
`xlcons.config.load_config` before anything is timed.

``--models N`` scales the plan: N generator models in all, the papers' models first, then
copies of them in turn named ``<paper>-<model>-<k>`` (the k-th copy, k >= 2), each its own
model to the workflow (its own key, so its own ``resources/models/<key>`` folder and
download); data sets and evaluators stay as above. The targets are then < 60 s for the dry
run and for the no-op (the issue: 120 models over all built-in sets at paper scale).

Timed, each in a fresh temporary working directory (``snakemake --directory``), by
running the CLI in a subprocess (what a user waits for, interpreter start included):

``dry run``
    ``snakemake -n --forceall``: parse the workflow, validate the config, build the DAG.
``no-op``
    ``snakemake -n`` when every output exists and is up to date, which must report
    "Nothing to be done". Setting that up: the DAG's jobs and outputs are listed through
    Snakemake's own DAG (the same one ``--summary`` builds), every output file is created
    empty (a directory output gets its ``.snakemake_timestamp``), and all of them get the
    same mtime, so no output is newer than another's input (Snakemake only reruns for an
    input that is strictly newer). No metadata is recorded, so only the mtime trigger can
    fire; that is what a rerun checks for files made outside Snakemake.

``--profile FILE`` runs either under cProfile (``python -m cProfile -m snakemake``) and
prints the top functions by cumulative time, and those of rules/*.smk and xlcons.

    python benchmarks/scheduling.py                   # all three papers, 3 repeats each
    python benchmarks/scheduling.py --papers xing2024-knowledge --repeats 1
    python benchmarks/scheduling.py --profile /tmp/sched.prof
    python benchmarks/scheduling.py --models 120 --repeats 1   # the scale target
    python benchmarks/scheduling.py --models 120 --translators 2 --repeats 1   # and three translators

Each run's wall time, CPU time (user + system) and peak RSS are the Snakemake process's own
(reaped with ``os.wait4``).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import pstats
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import yaml

from xlcons.config import DatasetResolver, load_config
from xlcons.languages import LanguageRegistry

REPO = Path(__file__).resolve().parent.parent
PAPERS = ("gupta2025-translate-then-evaluate", "holtermann2024-multiq", "xing2024-knowledge")
# The papers' own models (29); what `python -m benchmarks` runs.
TARGETS = {"dry_run_s": ("<", 30.0), "noop_s": ("<", 60.0), "noop_nothing_to_be_done": ("==", True)}
# `--models N`: a config that grows to many models (the 120) must still dry-run and
# no-op within a minute each.
SCALE_TARGETS = {"dry_run_s": ("<", 60.0), "noop_s": ("<", 60.0), "noop_nothing_to_be_done": ("==", True)}


def targets_for(models: int | None) -> dict:
    """The targets of a run: the papers' models, or `--models N`."""
    return TARGETS if models is None else SCALE_TARGETS


# Extra translators (`translators`) for --translators N: the larger NLLBs, then MADLAD-400.
EXTRA_TRANSLATORS = {
    "nllb-1.3B": {"model": {"hf_id": "facebook/nllb-200-distilled-1.3B"}},
    "nllb-3.3B": {"model": {"hf_id": "facebook/nllb-200-3.3B"}},
    "madlad-3b": {"family": "madlad", "model": {"hf_id": "google/madlad400-3b-mt"}},
}


def merged_config(papers=PAPERS, round_trips: bool = True, models: int | None = None, translators: int = 0) -> dict:
    """One config with every model (renamed ``<paper>-<model>``), data set and evaluator of `papers`.

    `models`: the number of generator models in all, made by repeating the papers' models
    (see `scaled_models`); None keeps the papers' own. `translators`: how many of
    EXTRA_TRANSLATORS join the primary one (each repeats the translation, QE, information and
    empathy jobs).
    """
    if not 0 <= translators <= len(EXTRA_TRANSLATORS):
        raise ValueError(f"--translators must be between 0 and {len(EXTRA_TRANSLATORS)}, not {translators}")
    merged: dict = {"models": {}, "evaluators": {}, "datasets": {}}
    for paper in papers:
        with open(REPO / "config" / "paper" / f"{paper}.yaml", encoding="utf-8") as handle:
            config = yaml.safe_load(handle)
        prefix = paper.split("-")[0]
        names = {name: f"{prefix}-{name}" for name in config.get("models", {})}
        for name, spec in config.get("models", {}).items():
            merged["models"][names[name]] = copy.deepcopy(spec)
        for section in ("evaluators", "datasets"):
            for key, value in config.get(section, {}).items():
                merged[section].setdefault(key, {}).update(_renamed(copy.deepcopy(value), names))
        if "translator" in config:
            merged["translator"] = copy.deepcopy(config["translator"])
    datasets = merged["datasets"]
    evaluators = merged["evaluators"]
    # All evaluators on: knowledge consistency also for MultiQ (xSC), and the translationese
    # round trips of the information set (the paper's languages; every language if it has none).
    if "makqa" in datasets or "multiq" in datasets:
        evaluators.setdefault("knowledge", {})["datasets"] = [d for d in ("makqa", "multiq") if d in datasets]
    information = evaluators.setdefault("information", {})
    if round_trips and "information" in datasets and not information.get("round_trip_languages"):
        information["round_trip_languages"] = [
            lang for lang in datasets["information"].get("languages", []) if lang != "en"
        ]
    if not round_trips:
        information.pop("round_trip_languages", None)
    if models is not None:
        merged["models"] = scaled_models(merged["models"], models)
    if translators:
        merged["translators"] = copy.deepcopy(dict(list(EXTRA_TRANSLATORS.items())[:translators]))
    return merged


def scaled_models(models: dict, total: int) -> dict:
    """`total` generator models: the papers' models, then copies of them in turn, named
    ``<paper>-<model>-<k>`` (k = 2, 3, ...: the k-th copy), until there are `total`.

    A copy is a distinct model to the workflow: its own key, so its own resources folder
    (``resources/models/<key>``, since it has no ``name``) and its own download, responses,
    translations and scores. The evaluators keep their models (the information LLM keeps
    sharing the first ``qwen-2.5-14b``'s download). With `total` below the papers' count,
    the first `total` models.
    """
    if total < 1:
        raise ValueError(f"--models must be at least 1, not {total}")
    originals = list(models.items())
    scaled = dict(originals[:total])
    copy_number = 2
    while len(scaled) < total:
        for name, spec in originals:
            if len(scaled) == total:
                break
            scaled[f"{name}-{copy_number}"] = copy.deepcopy(spec)
        copy_number += 1
    return scaled


def _renamed(section, names: dict[str, str]):
    """An evaluator's model sharing a generator's download (`name: <model>`) follows the generator's new name."""
    if isinstance(section, dict):
        return {
            key: names.get(value, value) if key == "name" and isinstance(value, str) else _renamed(value, names)
            for key, value in section.items()
        }
    return section


def write_config(config: dict, path: Path) -> Path:
    path.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def validate(path: Path) -> dict:

    return load_config(path, base_dir=REPO)


def snakemake_command(config_path: Path, workdir: Path, *extra: str, profile: Path | None = None) -> list[str]:
    python = [sys.executable] + (["-m", "cProfile", "-o", str(profile)] if profile else [])
    return [
        *python,
        "-m",
        "snakemake",
        "--snakefile",
        str(REPO / "Snakefile"),
        "--directory",
        str(workdir),
        "--configfile",
        str(config_path),
        "--cores",
        "1",
        *extra,
    ]


def run_snakemake(command: list[str], timeout: int = 1800) -> tuple[float, str, int, float, float]:
    """(wall s, stdout + stderr, exit status, CPU s of the child: user + system, peak RSS of the child in MiB).

    The child is reaped with `os.wait4`, so its CPU time and peak RSS are its own (those of
    its own children, e.g. ``scontrol``, are not included).
    """
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as output:
        start = time.perf_counter()
        process = subprocess.Popen(command, cwd=REPO, env=env, stdout=output, stderr=subprocess.STDOUT)
        timer = threading.Timer(timeout, process.kill)
        timer.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            timer.cancel()
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        output.seek(0)
        text = output.read()
    cpu = usage.ru_utime + usage.ru_stime
    return wall, text, process.returncode, cpu, usage.ru_maxrss / 1024  # ru_maxrss is in KiB on Linux


TRIVIAL_SNAKEFILE = 'rule all:\n    output: "done.txt"\n    shell: "touch {output}"\n'


def slurm_probe_s() -> float | None:
    """Seconds of `scontrol show config`, which the SLURM executor plugin runs at import in every
    Snakemake CLI call (snakemake_executor_plugin_slurm.job_status_query.get_min_job_age, 10 s
    timeout); None where there is no scontrol (the plugin then skips it at once)."""
    if shutil.which("scontrol") is None:
        return None
    start = time.perf_counter()
    try:
        subprocess.run(["scontrol", "show", "config"], capture_output=True, timeout=15)
    except subprocess.TimeoutExpired:
        pass
    return time.perf_counter() - start


def startup_command(workdir: Path) -> list[str]:
    """The same CLI on a one-rule Snakefile: what any Snakemake run costs here (imports, plugins)."""
    (workdir / "Snakefile").write_text(TRIVIAL_SNAKEFILE)
    return [
        sys.executable,
        "-m",
        "snakemake",
        "--snakefile",
        str(workdir / "Snakefile"),
        "--directory",
        str(workdir),
        "--cores",
        "1",
        "-n",
        "--forceall",
        "--quiet",
        "rules",
    ]


def job_stats(output: str) -> dict[str, int]:
    """The first 'Job stats' table of a Snakemake run, rule -> count (with 'total')."""
    if "Job stats:" not in output:
        return {}
    counts = {}
    for line in output.split("Job stats:")[1].split("\n\n")[0].splitlines():
        match = re.fullmatch(r"\s*([A-Za-z_]\w*)\s+(\d+)\s*", line)
        if match:
            counts[match.group(1)] = int(match.group(2))
    return counts


def dump_outputs(config_path: Path, workdir: Path, out: Path) -> None:
    """Every job's outputs (path, is_directory) of the full DAG, as JSON; run in a subprocess.

    Uses what ``snakemake --summary`` does internally (``_prepare_dag`` + ``_build_dag``):
    there is no public API that returns the jobs, and the summary's text does not say which
    outputs are directories.
    """
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, DAGSettings, OutputSettings, ResourceSettings, StorageSettings

    with SnakemakeApi(OutputSettings()) as api:
        workflow_api = api.workflow(
            resource_settings=ResourceSettings(cores=1),
            config_settings=ConfigSettings(configfiles=[config_path]),
            storage_settings=StorageSettings(),
            snakefile=REPO / "Snakefile",
            workdir=workdir,
        )
        dag_api = workflow_api.dag(DAGSettings(forceall=True))
        workflow = dag_api.workflow_api._workflow
        workflow._prepare_dag(forceall=True, ignore_incomplete=True, lock_warn_only=True)
        workflow._build_dag()
        files = {}
        for job in workflow.dag.jobs:
            for f in job.output:
                files[str(f)] = bool(f.is_directory)
        out.write_text(json.dumps({"jobs": len(list(workflow.dag.jobs)), "outputs": files}))


def create_outputs(config_path: Path, workdir: Path) -> tuple[int, int]:
    """Create every output of the DAG in `workdir`, all with one mtime; (jobs, files)."""
    listing = workdir.parent / "outputs.json"
    code = (
        "import sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]); "
        "from benchmarks.scheduling import dump_outputs; "
        "dump_outputs(Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4]))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(REPO), str(config_path), str(workdir), str(listing)],
        cwd=REPO,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise RuntimeError(f"listing the DAG's outputs failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    listed = json.loads(listing.read_text())
    stamp = time.time() - 60
    for name, is_directory in listed["outputs"].items():
        path = Path(name) if Path(name).is_absolute() else workdir / name
        target = path / ".snakemake_timestamp" if is_directory else path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.touch()
        os.utime(target, (stamp, stamp))
        if is_directory:
            os.utime(path, (stamp, stamp))
    return listed["jobs"], len(listed["outputs"])


def top_functions(profile: Path, limit: int = 25) -> list[str]:
    """Lines for the top functions by cumulative time, then those of rules/*.smk and xlcons."""
    stats = pstats.Stats(str(profile))
    rows = []
    for (filename, line, name), (_, ncalls, tottime, cumtime, _) in stats.stats.items():
        rows.append((cumtime, tottime, ncalls, f"{Path(filename).name}:{line}({name})", filename))
    rows.sort(reverse=True)
    lines = [f"{'cumulative s':>12}{'own s':>9}{'calls':>10}  function"]
    lines += [f"{c:12.2f}{t:9.2f}{n:10d}  {label}" for c, t, n, label, _ in rows[:limit]]
    ours = [
        r
        for r in rows
        if "/rules/" in r[4] or r[4].endswith(".smk") or "/xlcons/" in r[4] or r[4].endswith("Snakefile")
    ]
    lines += ["", "of the workflow's own code (rules/*.smk, Snakefile, xlcons):"]
    lines += [f"{c:12.2f}{t:9.2f}{n:10d}  {label}" for c, t, n, label, _ in ours[:limit]]
    return lines


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", nargs="+", default=list(PAPERS), choices=PAPERS, help="paper configs to merge")
    parser.add_argument("--no-round-trips", action="store_true", help="turn the translationese round trips off")
    parser.add_argument(
        "--models",
        type=int,
        default=None,
        metavar="N",
        help="N generator models in all: the papers' models, then copies of them named "
        "<paper>-<model>-<k> (default: the papers' own models); targets < 60 s for both runs",
    )
    parser.add_argument(
        "--translators",
        type=int,
        default=0,
        metavar="N",
        help="N extra translators beside the primary one (at most "
        f"{len(EXTRA_TRANSLATORS)}: the larger NLLBs, MADLAD-400)",
    )
    parser.add_argument("--repeats", type=int, default=3, help="alternating dry-run / no-op runs (medians reported)")
    parser.add_argument(
        "--profile", type=Path, default=None, help="also profile one dry run and one no-op (FILE.dry, FILE.noop)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary working directories")
    return parser


def measure(args: argparse.Namespace) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="xlcons-sched-"))
    try:
        targets = targets_for(args.models)
        config_path = write_config(
            merged_config(args.papers, not args.no_round_trips, args.models, args.translators), tmp / "merged.yaml"
        )
        config = validate(config_path)
        models = len(config["models"])
        datasets = DatasetResolver(config, LanguageRegistry.load(), REPO)
        langs = {name: len(datasets.languages(name)) for name in datasets.enabled()}
        scale = (
            "the papers' own models"
            if args.models is None
            else f"--models {args.models}: the papers' models and copies"
        )
        scale += f", {1 + args.translators} translator{'s' if args.translators else ''}"
        print(
            f"merged config of {', '.join(args.papers)}: {models} models ({scale}); data sets (languages) {langs}; "
            f"validates with load_config"
        )

        # The no-op working directory: every output present and up to date.
        noop_dir = tmp / "noop"
        noop_dir.mkdir()
        start = time.perf_counter()
        listed_jobs, files = create_outputs(config_path, noop_dir)
        print(f"no-op setup: {files} outputs of {listed_jobs} jobs created in {time.perf_counter() - start:.1f} s")

        startup_dir = tmp / "startup"
        startup_dir.mkdir()
        times: dict[str, list[float]] = {"startup": [], "dry": [], "noop": [], "slurm": []}
        cpu = {"startup": [], "dry": [], "noop": []}
        rss = {"startup": [], "dry": [], "noop": []}
        counts, noop_ok, noop_output = {}, True, ""
        for repeat in range(args.repeats):  # alternating, so machine noise hits all three
            dry_dir = tmp / f"dry{repeat}"
            dry_dir.mkdir()
            wall, output, code, used, peak = run_snakemake(
                snakemake_command(config_path, dry_dir, "-n", "--forceall", "--quiet", "rules")
            )
            if code != 0:
                raise RuntimeError(f"dry run failed:\n{output[-4000:]}")
            times["dry"].append(wall)
            cpu["dry"].append(used)
            rss["dry"].append(peak)
            counts = job_stats(output)
            wall, noop_output, code, used, peak = run_snakemake(snakemake_command(config_path, noop_dir, "-n"))
            if code != 0:
                raise RuntimeError(f"no-op run failed:\n{noop_output[-4000:]}")
            times["noop"].append(wall)
            cpu["noop"].append(used)
            rss["noop"].append(peak)
            if "Nothing to be done" not in noop_output:
                noop_ok = False
                stats = noop_output.split("Job stats:")[1] if "Job stats:" in noop_output else noop_output[-3000:]
                print(
                    f"no-op run {repeat + 1} did NOT report 'Nothing to be done' (did the workflow change during the "
                    f"benchmark? its outputs were listed at the start); it would run:\nJob stats:{stats[:3000]}"
                )
            wall, output, code, used, peak = run_snakemake(startup_command(startup_dir))
            if code != 0:
                raise RuntimeError(f"trivial dry run failed:\n{output[-4000:]}")
            times["startup"].append(wall)
            cpu["startup"].append(used)
            rss["startup"].append(peak)
            probe = slurm_probe_s()
            if probe is not None:
                times["slurm"].append(probe)
        median = {kind: statistics.median(values) for kind, values in times.items() if values}
        cpu_median = {kind: statistics.median(values) for kind, values in cpu.items()}
        rss_peak = {kind: max(values) for kind, values in rss.items()}

        total = counts.get("total", 0)

        def runs(kind):
            return ", ".join(f"{t:.1f}" for t in times[kind])

        def target(figure):
            op, threshold = targets[figure]
            return f"target {op} {threshold:g} s"

        print(
            f"dry run (snakemake -n --forceall): median {median['dry']:.2f} s wall, {cpu_median['dry']:.2f} s CPU, "
            f"of {args.repeats} ({runs('dry')}); peak RSS {rss_peak['dry']:.0f} MiB; {total} jobs, {models} models "
            f"({target('dry_run_s')})"
        )
        print("    " + ", ".join(f"{rule} {n}" for rule, n in counts.items() if rule != "total"))
        print(
            f"no-op rerun (snakemake -n, {files} outputs present): median {median['noop']:.2f} s "
            f"wall, {cpu_median['noop']:.2f} s CPU, of {args.repeats} ({runs('noop')}); peak RSS "
            f"{rss_peak['noop']:.0f} MiB; 'Nothing to be done': {noop_ok} ({target('noop_s')})"
        )
        print(
            f"for scale, a one-rule Snakefile's dry run: median {median['startup']:.2f} "
            f"s wall, {cpu_median['startup']:.2f} s CPU ({runs('startup')}); peak RSS "
            f"{rss_peak['startup']:.0f} MiB: interpreter, imports, executor plugins"
        )
        if times["slurm"]:
            print(
                f"of which the SLURM plugin's `scontrol show config` at import (a SLURM client is installed here): "
                f"median {median['slurm']:.2f} s ({runs('slurm')}); wall minus CPU above is mostly this wait"
            )

        if args.profile:
            for kind, workdir, extra in (
                ("dry", tmp / "dry-profile", ("-n", "--forceall", "--quiet", "rules")),
                ("noop", noop_dir, ("-n",)),
            ):
                workdir.mkdir(exist_ok=True)
                out = args.profile.with_name(f"{args.profile.name}.{kind}")
                seconds, output, code, _, _ = run_snakemake(
                    snakemake_command(config_path, workdir, *extra, profile=out)
                )
                if code != 0:
                    raise RuntimeError(f"profiled {kind} run failed:\n{output[-4000:]}")
                print(f"\nprofile of the {kind} run ({seconds:.1f} s under cProfile) -> {out}")
                print("\n".join(top_functions(out)))

        return {
            "models": models,
            "jobs": total,
            "dry_run_s": round(median["dry"], 2),
            "dry_run_cpu_s": round(cpu_median["dry"], 2),
            "dry_run_peak_rss_mib": round(rss_peak["dry"]),
            "outputs": files,
            "noop_s": round(median["noop"], 2),
            "noop_cpu_s": round(cpu_median["noop"], 2),
            "noop_peak_rss_mib": round(rss_peak["noop"]),
            "snakemake_startup_s": round(median["startup"], 2),
            **({"slurm_scontrol_probe_s": round(median["slurm"], 2)} if times["slurm"] else {}),
            "noop_nothing_to_be_done": noop_ok,
        }
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


QUICK = ["--papers", "xing2024-knowledge", "--repeats", "1"]


def figures(argv: list[str] | None = None) -> dict:
    return measure(build_parser().parse_args(argv))


def summary(results: dict, targets: dict) -> str:
    """The figures as lines of figure, value, target, met? (as `python -m benchmarks` prints them)."""
    rows = [("figure", "value", "target", "met?")]
    for figure, value in results.items():
        shown = (
            ("yes" if value else "no")
            if isinstance(value, bool)
            else f"{value:g}"
            if isinstance(value, float)
            else str(value)
        )
        if figure in targets:
            op, threshold = targets[figure]
            passed = {"<": value < threshold, "==": value == threshold}[op] if op in ("<", "==") else None
            limit = ("yes" if threshold else "no") if isinstance(threshold, bool) else f"{threshold:g}"
            rows.append((figure, shown, f"{op} {limit}", "yes" if passed else "no"))
        else:
            rows.append((figure, shown, "", ""))
    widths = [max(len(row[column]) for row in rows) for column in range(4)]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    results = measure(args)
    print()
    print(summary(results, targets_for(args.models)))


if __name__ == "__main__":
    main()
