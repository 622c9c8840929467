"""The lock a killed Snakemake process left behind, released on the next run when that process
provably no longer runs.

Snakemake locks the files a run will write (.snakemake/locks/<n>.input.lock and
<n>.output.lock) and removes the lock when the run ends; after `kill -9`, an out-of-memory
kill or a power loss the lock stays, and the next run stops with LockException until the user
types `--unlock`. The lock files do not say who holds them, so a run records it next to them
when it starts its jobs (the Snakefile's `onstart`, local runs only): the machine (host name,
boot id, PID namespace), the process (PID, start time, process group) and which lock files,
with their inode and time. A later run releases those lock files only when the record proves
the holder gone: the same machine and boot, no process with that PID and start time, and no
process left in its process group (its jobs) other than the new run's own ancestors.

Everything else is left to Snakemake's LockException, whose fix docs/cluster.md#resuming
spells out: a lock without a record (a cluster run, another Snakemake), a holder on another
machine (a second login node on the same file system), a record that cannot be read, or a
system without /proc. Where a record says who keeps a lock, `held_lock_reasons` says it in
words before Snakemake's bare exception: the Snakemake process that still runs, or the
processes left in a killed run's process group (with their command lines), and what to do.
"""

from __future__ import annotations

import json
import os
import re
import socket
from collections.abc import Iterable
from pathlib import Path

from xlcons.redaction import redact

LOCKS = Path(".snakemake") / "locks"
# Snakemake's own lock files; the records are named so that Snakemake's pattern skips them.
SNAKEMAKE_LOCK = re.compile(r"\d+\.(input|output)\.lock")
RECORD_PREFIX = "xlcons-holder-"


def _machine() -> dict[str, str] | None:
    """What tells this machine, boot and PID namespace apart; None without /proc."""
    try:
        boot_id = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        pid_namespace = os.readlink("/proc/self/ns/pid")
    except OSError:
        return None
    return {"host": socket.gethostname(), "boot_id": boot_id, "pid_namespace": pid_namespace}


def _stat(pid: int | str) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command name (fields 3 on); None when the
    process does not exist."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()


def _start_time(pid: int) -> str | None:
    fields = _stat(pid)
    return fields[19] if fields else None  # field 22: start time, in clock ticks since boot


def _ancestors(pid: int) -> set[int]:
    """`pid` and the processes above it."""
    found = set()
    while pid > 0 and pid not in found:
        found.add(pid)
        fields = _stat(pid)
        pid = int(fields[1]) if fields else 0  # field 4: parent PID
    return found


def _group_members(group: int) -> set[int]:
    """The live processes of a process group. A zombie (state Z or X: it has exited, and
    waits for its parent, or for init after its parent was killed, to collect its status)
    runs nothing and is not counted."""
    members = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat(entry.name)  # field 3: state; field 5: process group
            if fields and fields[0] not in ("Z", "X") and int(fields[2]) == group:
                members.add(int(entry.name))
    return members


def _identity(path: Path) -> list[int]:
    status = path.stat()
    return [status.st_ino, status.st_mtime_ns]


def record_holder(lock_files: Iterable[str | Path], locks: Path = LOCKS) -> Path | None:
    """Record this process as the holder of `lock_files` (its Snakemake lock); the record
    goes with the lock when Snakemake removes the folder at the end of the run."""
    machine = _machine()
    files = [Path(name) for name in lock_files]
    if machine is None or not files:
        return None
    pid = os.getpid()
    record = {
        **machine,
        "pid": pid,
        "start_time": _start_time(pid),
        "process_group": os.getpgid(0),
        "lock_files": {path.name: _identity(path) for path in files if path.is_file()},
    }
    path = locks / f"{RECORD_PREFIX}{pid}.json"
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(json.dumps(record), encoding="utf-8")
    partial.replace(path)
    return path


def _keepers(record: dict, machine: dict[str, str]) -> list[int] | None:
    """The live processes that keep the record's lock: its Snakemake process while that runs,
    else what is left of its process group (its jobs) other than this run's own ancestors;
    [] when the record proves them all gone, None when it cannot tell (another machine, boot
    or PID namespace, or no start time recorded)."""
    if any(record.get(key) != value for key, value in machine.items()) or record.get("start_time") is None:
        return None
    if _start_time(record["pid"]) == record["start_time"]:
        return [record["pid"]]
    return sorted(_group_members(record["process_group"]) - _ancestors(os.getpid()))


def _command(pid: int, limit: int = 120) -> str:
    """A process's command line, shortened to `limit` characters and redacted (it may hold a key)."""
    try:
        words = Path(f"/proc/{pid}/cmdline").read_bytes().rstrip(b"\0").split(b"\0")
    except OSError:
        return "?"
    command = " ".join(word.decode(errors="replace") for word in words) or "?"
    return redact(command if len(command) <= limit else command[: limit - 1] + "…")


def _records(locks: Path) -> Iterable[tuple[Path, dict, dict[str, list[int]]]]:
    """Each readable holder record: its path, its content and the Snakemake lock files it names
    (an unreadable record proves nothing and is skipped)."""
    for path in sorted(locks.glob(f"{RECORD_PREFIX}*.json")):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            files = {
                name: identity for name, identity in record["lock_files"].items() if SNAKEMAKE_LOCK.fullmatch(name)
            }
            int(record["pid"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue
        yield path, record, files


def release_stale_lock(locks: Path = LOCKS) -> list[str]:
    """Remove the lock files whose recorded holder is provably gone; one message per holder
    released, saying which process it was."""
    machine = _machine()
    if machine is None or not locks.is_dir():
        return []
    released = []
    for path, record, files in _records(locks):
        try:
            if _keepers(record, machine) != []:
                continue
        except (OSError, ValueError, KeyError, TypeError):
            continue
        for name, identity in files.items():
            lock = locks / name
            try:
                if _identity(lock) == identity:
                    lock.unlink()
            except FileNotFoundError:
                pass
        path.unlink(missing_ok=True)
        released.append(
            f"released the lock that Snakemake process {record['pid']} left in {locks} "
            "(it was killed: neither it nor any of its jobs runs any more); "
            "the jobs it left unfinished run again"
        )
    return released


def held_lock_reasons(locks: Path = LOCKS) -> list[str]:
    """Why each recorded lock that is still in `locks` is kept: one message per holder record
    whose lock files are still there, naming the processes that keep it (PID and command line)
    and what to do. Call after `release_stale_lock`; a lock without a record gets no message."""
    machine = _machine()
    if machine is None or not locks.is_dir():
        return []
    reasons = []
    for _, record, files in _records(locks):
        if not any((locks / name).is_file() for name in files):
            continue
        pid = record["pid"]
        try:
            keepers = _keepers(record, machine)
        except (OSError, ValueError, KeyError, TypeError):
            keepers = None
        if keepers is None:
            reasons.append(
                f"the lock in {locks} was taken by Snakemake process {pid} on {record.get('host', 'another machine')}, "
                "in another machine, boot or container: it cannot be checked from here. Once that run has ended "
                "(and its jobs: `squeue --me` on a cluster), add --unlock to the same command, then run it again"
            )
        elif keepers == [pid]:
            reasons.append(
                f"the lock in {locks} is held by Snakemake process {pid} ({_command(pid)}), which still runs: "
                f"wait for it to end, or stop it (kill {pid}) and run the same command again"
            )
        else:
            listed = ", ".join(f"{keeper} ({_command(keeper)})" for keeper in keepers)
            reasons.append(
                f"the lock in {locks} is kept although Snakemake process {pid} that took it has ended: "
                f"{len(keepers)} process(es) of its process group {record['process_group']} still run, "
                f"{listed}, and they may be its jobs, writing the files that the lock protects. Wait for "
                f"them to end or end them (kill {' '.join(map(str, keepers))}); if none of them is a job of that "
                "run (a program started in the same shell pipeline, say), add --unlock to the same command, "
                "then run it again"
            )
    return reasons
