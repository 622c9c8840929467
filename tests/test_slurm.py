"""The SLURM profile, as users run it, against a real SLURM cluster on this machine.

Each test writes a tiny Snakefile and runs

    snakemake --profile slurm --profile tests/slurm/profile

with XLCONS_SLURM_PARTITION=cpu and XLCONS_SLURM_GPU_PARTITION=gpu, on the local
cluster of tests/slurm/cluster.py (installed and started when missing; see
tests/slurm/fixtures.py for when these tests skip and when they fail). The jobs record
what SLURM gave them ($SLURM_JOB_PARTITION, $CUDA_VISIBLE_DEVICES, $SLURM_MEM_PER_NODE):
without slurmdbd there is no sacct to ask afterwards.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from textwrap import dedent

import pytest

from slurm.fixtures import jobs_under, slurm_cluster, slurm_workdir  # noqa: F401  (fixtures)

pytestmark = pytest.mark.slurm

REPO = Path(__file__).resolve().parent.parent
PROFILES = ["--profile", str(REPO / "slurm"), "--profile", str(REPO / "tests" / "slurm" / "profile")]
# The workflow's own profile (rerun triggers), which Snakemake finds next to xlcons' Snakefile;
# named here because these tests run Snakefiles of their own.
WORKFLOW_PROFILE = ["--workflow-profile", str(REPO / "profiles" / "default")]
# What each job writes about itself, as one line of key=value: the partition, the GPUs
# it may use and the memory SLURM allocated it (from scontrol: the job step the executor
# runs the rule in does not inherit $SLURM_MEM_PER_NODE).
RECORD_SH = """\
mem=$(scontrol -o show job "$SLURM_JOB_ID" | grep -o 'MinMemoryNode=[0-9]*' | cut -d= -f2)
echo "partition=${SLURM_JOB_PARTITION:-unset} cuda=${CUDA_VISIBLE_DEVICES:-none} mem=${mem:-unset} job=${SLURM_JOB_ID:-unset}"
"""  # noqa: E501
RECORD = "bash record.sh"


class Run:
    def __init__(self, returncode: int, output: str):
        self.returncode, self.output = returncode, output


def environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "SBATCH_", "XLCONS_SLURM_"))}
    env.update(XLCONS_SLURM_PARTITION="cpu", XLCONS_SLURM_GPU_PARTITION="gpu")
    return env


def start(workdir: Path, *args: str, profile: bool = True) -> tuple[subprocess.Popen, Path]:
    log = workdir / f"snakemake-{time.monotonic_ns()}.out"
    cmd = [sys.executable, "-m", "snakemake", *(PROFILES if profile else []), *WORKFLOW_PROFILE, *args]
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, cwd=workdir, env=environment(), stdout=out, stderr=subprocess.STDOUT)
    return proc, log


def finish(proc: subprocess.Popen, log: Path, timeout: float) -> Run:
    """Wait for snakemake; past the timeout, interrupt it (SIGINT cancels its SLURM jobs) and fail."""
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        pytest.fail(f"snakemake ran past {timeout} s and was interrupted:\n{log.read_text()[-6000:]}")
    return Run(proc.returncode, log.read_text())


def snakemake(workdir: Path, *args: str, timeout: float = 90, profile: bool = True) -> Run:
    return finish(*start(workdir, *args, profile=profile), timeout=timeout)


def record(path: Path) -> dict[str, str]:
    return dict(item.split("=", 1) for item in path.read_text().split())


def wait_for(condition, timeout: float, what: str, log: Path | None = None):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(
                f"timed out after {timeout} s waiting for {what}" + (f":\n{log.read_text()[-4000:]}" if log else "")
            )
        time.sleep(0.2)


def test_gpu_jobs_run_on_the_gpu_partition_with_a_device_cpu_jobs_on_the_cpu_partition(slurm_workdir):
    (slurm_workdir / "record.sh").write_text(RECORD_SH)
    (slurm_workdir / "Snakefile").write_text(
        dedent(f"""
        rule all:
            input: "cpu.txt", "gpu.txt"

        rule on_cpu:
            output: "cpu.txt"
            resources: mem_mb=200, runtime=5
            shell: '{RECORD} > {{output}}'

        rule on_gpu:
            output: "gpu.txt"
            resources: gpu=1, mem_mb=200, runtime=5
            shell: '{RECORD} > {{output}}'
    """)
    )
    run = snakemake(slurm_workdir)
    assert run.returncode == 0, run.output
    cpu, gpu = record(slurm_workdir / "cpu.txt"), record(slurm_workdir / "gpu.txt")
    assert (cpu["partition"], cpu["cuda"]) == ("cpu", "none"), cpu
    assert (gpu["partition"], gpu["cuda"]) == ("gpu", "0"), gpu
    assert cpu["mem"] == gpu["mem"] == "200"
    assert cpu["job"] != gpu["job"]
    # SLURM's own job logs go under logs/slurm/ (the profile's slurm-logdir).
    assert list((slurm_workdir / "logs" / "slurm").rglob(f"{gpu['job']}.log")), run.output


def test_a_failed_job_is_retried_with_more_memory(slurm_workdir):
    (slurm_workdir / "record.sh").write_text(RECORD_SH)
    (slurm_workdir / "Snakefile").write_text(
        dedent(f"""
        rule flaky:
            output: "flaky.txt"
            resources: mem_mb=lambda wildcards, attempt: 150 * attempt, runtime=5
            shell:
                '''
                {RECORD} >> attempts.txt
                # The first attempt fails, as if it had run out of memory.
                if [ ! -e failed-once ]; then touch failed-once; exit 1; fi
                {RECORD} > {{output}}
                '''
    """)
    )
    run = snakemake(slurm_workdir)
    assert run.returncode == 0, run.output
    attempts = [
        dict(item.split("=", 1) for item in line.split())
        for line in (slurm_workdir / "attempts.txt").read_text().splitlines()
    ]
    assert [a["mem"] for a in attempts] == ["150", "300"], attempts
    assert attempts[0]["job"] != attempts[1]["job"]
    assert record(slurm_workdir / "flaky.txt")["mem"] == "300"


KILLABLE = dedent("""
    rule all:
        input: "c.txt"

    rule a:
        output: "a.txt"
        script: "scripts/a.py"

    # Two jobs that each run until the test releases them.
    rule b:
        input: "a.txt"
        output: "b{i}.txt"
        resources: mem_mb=200, runtime=5
        shell:
            '''
            touch b{wildcards.i}.started
            echo partial > {output}
            while [ ! -e release{wildcards.i} ]; do sleep 0.2; done
            sed s/a/b{wildcards.i}/g {input} > {output}
            '''

    rule c:
        input: "b1.txt", "b2.txt"
        output: "c.txt"
        resources: mem_mb=200, runtime=5
        shell: "cat {input} | sed s/b/c/g > {output}"
""")
A_SCRIPT = 'open(snakemake.output[0], "w").write("a1 a2 a3\\n")\n'
OUTPUTS = ("a.txt", "b1.txt", "b2.txt", "c.txt")


def write_killable(workdir: Path) -> None:
    (workdir / "Snakefile").write_text(KILLABLE)
    (workdir / "scripts").mkdir()
    (workdir / "scripts" / "a.py").write_text(A_SCRIPT)


def test_a_killed_run_resumes_without_recomputing_finished_jobs(slurm_workdir, tmp_path_factory):
    # The uninterrupted run, for comparison: local, nothing to wait for, run meanwhile.
    reference = tmp_path_factory.mktemp("reference")
    write_killable(reference)
    for i in (1, 2):
        (reference / f"release{i}").touch()
    uninterrupted = start(reference, "--cores", "1", profile=False)

    work = slurm_workdir
    write_killable(work)
    proc, log = start(work)
    plain = finish(*uninterrupted, timeout=60)
    assert plain.returncode == 0, plain.output
    # b1 and b2 run on the cluster once a has finished: kill snakemake itself (SIGKILL,
    # as when the login session dies) while they run.
    started = lambda: all((work / f"b{i}.started").exists() for i in (1, 2))  # noqa: E731
    wait_for(lambda: started() or proc.poll() is not None, 90, "jobs b1 and b2 to start", log)
    assert proc.poll() is None, log.read_text()
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    orphans = jobs_under(work)
    assert len(orphans) == 2, f"b1 and b2 should outlive the killed snakemake: {orphans}"
    # The orphaned b1 finishes on its own; b2 is lost (cancelled) half-way.
    (work / "release1").touch()
    wait_for(lambda: len(jobs_under(work)) == 1, 60, "the orphaned job b1 to finish")
    subprocess.run(["scancel", *jobs_under(work)], check=True, timeout=10)
    wait_for(lambda: not jobs_under(work), 60, "the cancelled job b2 to end")
    finished = {name: (work / name).stat().st_mtime_ns for name in ("a.txt", "b1.txt")}

    # The user's rerun: unlock (the killed process left its lock), then the same command.
    (work / "release2").touch()
    unlock = snakemake(work, "--unlock", timeout=60)
    assert unlock.returncode == 0, unlock.output
    rerun = snakemake(work)
    assert rerun.returncode == 0, rerun.output
    ran = set(re.findall(r"^rule (\w+):", rerun.output, flags=re.M))
    assert ran == {"b", "c"}, rerun.output
    assert re.findall(r"^    output: (b\d\.txt)", rerun.output, flags=re.M) == ["b2.txt"], rerun.output
    assert {name: (work / name).stat().st_mtime_ns for name in finished} == finished
    for name in OUTPUTS:
        assert (work / name).read_bytes() == (reference / name).read_bytes(), name

    # Editing a rule's script after the run does not make its finished jobs rerun
    # (the workflow profile's rerun-triggers leave out `code`); -R/--forcerun reruns them and what depends on them.
    script = work / "scripts" / "a.py"
    script.write_text(A_SCRIPT + "# edited during the run\n")
    idle = snakemake(work, "-n", timeout=60)
    assert idle.returncode == 0 and "Nothing to be done" in idle.output, idle.output
    forced = snakemake(work, "-n", "-R", "a", timeout=60)
    assert forced.returncode == 0, forced.output
    assert set(re.findall(r"^rule (\w+):", forced.output, flags=re.M)) == {"a", "b", "c", "all"}, forced.output
