"""The lock a killed local Snakemake run left behind: released on the next run only when the
record next to it proves its holder and the holder's jobs gone; every other lock stays."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from xlcons.run_lock import RECORD_PREFIX, held_lock_reasons, record_holder, release_stale_lock

pytestmark = pytest.mark.skipif(not Path("/proc/self/ns/pid").exists(), reason="needs Linux /proc")

SCRIPTS = Path(__file__).resolve().parent.parent / "workflow_scripts"


def lock_of_a_killed_run(locks: Path) -> int:
    """Snakemake's two lock files and the record of the process that took them, which has
    ended since (in its own process group, as a run started from a shell is); its PID."""
    locks.mkdir(parents=True)
    for kind in ("input", "output"):
        (locks / f"0.{kind}.lock").write_text("results/x.parquet\n")
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); from pathlib import Path; from "
        "xlcons.run_lock import record_holder; locks = Path(sys.argv[2]); "
        "print(record_holder([locks / '0.input.lock', locks / '0.output.lock'], locks).name)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(SCRIPTS), str(locks)],
        start_new_session=True,
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout.strip().removeprefix(RECORD_PREFIX).removesuffix(".json"))


def test_the_lock_of_a_process_that_ended_with_its_jobs_is_released(tmp_path):
    locks = tmp_path / ".snakemake" / "locks"
    pid = lock_of_a_killed_run(locks)
    assert release_stale_lock(locks) == [
        f"released the lock that Snakemake process {pid} left in {locks} (it was killed: "
        "neither it nor any of its jobs runs any more); the jobs it left unfinished run again"
    ]
    assert list(locks.iterdir()) == []


def test_a_lock_without_a_record_is_left_to_snakemake(tmp_path):
    locks = tmp_path / "locks"
    locks.mkdir()
    (locks / "0.output.lock").write_text("results/x.parquet\n")
    assert release_stale_lock(locks) == [] and (locks / "0.output.lock").exists()


def test_the_lock_of_a_process_that_still_runs_is_kept(tmp_path):
    locks = tmp_path / "locks"
    locks.mkdir()
    (locks / "0.output.lock").write_text("results/x.parquet\n")
    record_holder([locks / "0.output.lock"], locks)  # this very process
    assert release_stale_lock(locks) == [] and (locks / "0.output.lock").exists()


@pytest.mark.parametrize("key, value", [("host", "login2"), ("boot_id", "another-boot"), ("pid_namespace", "pid:[1]")])
def test_the_lock_of_a_process_on_another_machine_or_boot_or_container_is_kept(tmp_path, key, value):
    locks = tmp_path / "locks"
    lock_of_a_killed_run(locks)
    record = next(locks.glob(f"{RECORD_PREFIX}*.json"))
    record.write_text(json.dumps({**json.loads(record.read_text()), key: value}))
    assert release_stale_lock(locks) == [] and (locks / "0.output.lock").exists()


def test_a_job_of_the_killed_run_that_still_runs_keeps_the_lock(tmp_path):
    """Killing Snakemake alone leaves its jobs running (they write the same files): its
    process group still has members, so the lock stays."""
    locks = tmp_path / "locks"
    lock_of_a_killed_run(locks)
    record = next(locks.glob(f"{RECORD_PREFIX}*.json"))
    job = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"], start_new_session=True)
    try:
        record.write_text(json.dumps({**json.loads(record.read_text()), "process_group": job.pid}))
        assert release_stale_lock(locks) == [] and (locks / "0.output.lock").exists()
    finally:
        job.kill()
        job.wait()


def test_a_kept_lock_names_the_process_left_in_the_killed_runs_group_and_what_to_do(tmp_path):
    """Instead of Snakemake's bare LockException: which process keeps the lock (its PID and
    command line), why, and the way out when it is no job of that run."""
    locks = tmp_path / "locks"
    pid = lock_of_a_killed_run(locks)
    record = next(locks.glob(f"{RECORD_PREFIX}*.json"))
    left = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", "unrelated"], start_new_session=True)
    try:
        record.write_text(json.dumps({**json.loads(record.read_text()), "process_group": left.pid}))
        assert release_stale_lock(locks) == []
        [reason] = held_lock_reasons(locks)
    finally:
        left.kill()
        left.wait()
    assert f"Snakemake process {pid} that took it has ended" in reason
    assert f"1 process(es) of its process group {left.pid} still run, {left.pid} ({sys.executable} -c " in reason
    assert "time.sleep(30) unrelated)" in reason
    assert f"kill {left.pid}" in reason and "add --unlock to the same command" in reason


def test_a_lock_whose_snakemake_process_still_runs_says_so(tmp_path):
    locks = tmp_path / "locks"
    locks.mkdir()
    (locks / "0.output.lock").write_text("results/x.parquet\n")
    record_holder([locks / "0.output.lock"], locks)  # this very process
    [reason] = held_lock_reasons(locks)
    # the command as the process was started (argv[0] may be relative: `.venv/bin/python -m pytest`)
    program = Path(f"/proc/{os.getpid()}/cmdline").read_bytes().split(b"\0")[0].decode()
    assert f"held by Snakemake process {os.getpid()} ({program}" in reason and "which still runs" in reason


def test_a_lock_on_another_machine_says_it_cannot_be_checked_here(tmp_path):
    locks = tmp_path / "locks"
    lock_of_a_killed_run(locks)
    record = next(locks.glob(f"{RECORD_PREFIX}*.json"))
    record.write_text(json.dumps({**json.loads(record.read_text()), "host": "login2", "boot_id": "another-boot"}))
    [reason] = held_lock_reasons(locks)
    assert "on login2, in another machine, boot or container: it cannot be checked from here" in reason


def test_no_reason_is_given_for_a_released_lock_or_one_without_a_record(tmp_path):
    released = tmp_path / "released"
    lock_of_a_killed_run(released)
    release_stale_lock(released)
    unrecorded = tmp_path / "unrecorded"
    unrecorded.mkdir()
    (unrecorded / "0.output.lock").write_text("results/x.parquet\n")
    assert held_lock_reasons(released) == [] and held_lock_reasons(unrecorded) == []


def test_a_job_of_the_killed_run_that_has_exited_but_not_been_collected_does_not_keep_the_lock(tmp_path):
    """After `kill -9` the killed jobs are zombies until init collects them, which in a
    container can take a while: they run nothing, so they do not hold the lock."""
    locks = tmp_path / "locks"
    pid = lock_of_a_killed_run(locks)
    record = next(locks.glob(f"{RECORD_PREFIX}*.json"))
    job = subprocess.Popen([sys.executable, "-c", "pass"], start_new_session=True)
    try:
        while Path(f"/proc/{job.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
            pass  # it exits; this process, its parent, does not collect it yet
        record.write_text(json.dumps({**json.loads(record.read_text()), "process_group": job.pid}))
        assert release_stale_lock(locks) and not (locks / "0.output.lock").exists(), pid
    finally:
        job.wait()


def test_a_lock_file_written_anew_since_the_record_is_not_removed(tmp_path):
    locks = tmp_path / "locks"
    lock_of_a_killed_run(locks)
    (locks / "0.output.lock").unlink()
    (locks / "0.output.lock").write_text("results/y.parquet\n")  # another run's lock, same name
    os.utime(locks / "0.output.lock", ns=(1, 1))
    assert len(release_stale_lock(locks)) == 1
    assert sorted(p.name for p in locks.iterdir()) == ["0.output.lock"]


def test_an_unreadable_record_proves_nothing(tmp_path):
    locks = tmp_path / "locks"
    lock_of_a_killed_run(locks)
    next(locks.glob(f"{RECORD_PREFIX}*.json")).write_text("{not json")
    assert release_stale_lock(locks) == [] and (locks / "0.output.lock").exists()
