"""A real single-node SLURM cluster on this machine, for the SLURM tests and CI.

Debian's Slurm 22.05 (slurmctld, slurmd, slurm-client) and munge, run as root without
systemd or cgroups, with two partitions on the one node: `cpu` (the default) and `gpu`,
which has one fake GPU (its device file is a symlink to /dev/null), so jobs that ask
for `gpu=1` get `CUDA_VISIBLE_DEVICES=0` and no real device.

    python tests/slurm/cluster.py start     # install if needed, start, wait for an idle node
    python tests/slurm/cluster.py status
    python tests/slurm/cluster.py stop      # stops only the daemons `start` started

`start()` is idempotent: when the cluster already answers it starts nothing. It only
starts the daemons that are not running, and `stop()` stops only those (by the process
ids it recorded), so a cluster someone else started is left alone. It never overwrites
a slurm.conf it did not write. There is no slurmdbd, hence no sacct: the Snakemake
profile for this cluster must use `slurm-status-command: squeue`.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

PACKAGES = ("slurmctld", "slurmd", "slurm-client", "munge")
BINARIES = ("slurmctld", "slurmd", "sinfo", "sbatch", "squeue", "scontrol", "munged", "munge")
CPU_PARTITION = "cpu"
GPU_PARTITION = "gpu"

SLURM_CONF = Path("/etc/slurm/slurm.conf")
GRES_CONF = Path("/etc/slurm/gres.conf")
MUNGE_KEY = Path("/etc/munge/munge.key")
RUN_DIR = Path("/run/xlcons-slurm")
FAKE_GPU = RUN_DIR / "fake-gpu0"
STATE_FILE = RUN_DIR / "started.json"
LOG_DIR = Path("/var/log/slurm")
SLURMCTLD_PID = Path("/run/slurmctld.pid")
SLURMD_PID = Path("/run/slurmd.pid")
POLICY_RC = Path("/usr/sbin/policy-rc.d")
MARKER = "# xlcons-test-cluster: written by tests/slurm/cluster.py; safe to delete"
READY_STATES = {"idle", "mixed", "allocated", "completing"}


class ClusterUnavailable(RuntimeError):
    """SLURM cannot be installed or started here (not root, no apt, a foreign slurm.conf)."""


class ClusterError(RuntimeError):
    """SLURM is installed but the cluster did not come up: a real failure."""


@dataclass
class Started:
    """What one `start()` call started: daemon name -> process id."""

    daemons: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    installed: bool = False

    def to_json(self) -> str:
        return json.dumps({"daemons": self.daemons, "seconds": self.seconds, "installed": self.installed})

    @classmethod
    def from_json(cls, text: str) -> Started:
        data = json.loads(text)
        return cls(
            daemons={k: int(v) for k, v in data["daemons"].items()},
            seconds=data["seconds"],
            installed=data["installed"],
        )


def required() -> bool:
    """True in CI: there the SLURM tests must fail, not skip, when no cluster can be had.

    CI is recognised by CI=1/true (what most CI services set) or XLCONS_REQUIRE_SLURM=1.
    """

    def truthy(name: str) -> bool:
        return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no")

    return truthy("CI") or truthy("XLCONS_REQUIRE_SLURM")


def node_name() -> str:
    return socket.gethostname().split(".")[0]


def _run(*cmd: str, timeout: float = 30, check: bool = False, **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kwargs)
    if check and result.returncode != 0:
        raise ClusterError(f"{' '.join(cmd)} failed ({result.returncode}): {result.stdout}{result.stderr}")
    return result


def _alive(pid: int, name: str) -> bool:
    """Process `pid` runs (is not a zombie) and is called `name`."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    comm, state = stat[stat.index("(") + 1 : stat.rindex(")")], stat[stat.rindex(")") + 2 :].split()[0]
    return comm == name[:15] and state not in ("Z", "X")


def _running(name: str) -> list[int]:
    """The pids of the running processes called `name`, from /proc (pid files can be stale)."""
    return sorted(int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit() and _alive(int(p.name), name))


# -- installation -------------------------------------------------------------------------


def installed() -> bool:
    return all(shutil.which(b) for b in BINARIES)


def install(timeout: float = 600) -> bool:
    """Install the Debian packages when missing; True when it installed something."""
    if installed():
        return False
    if os.geteuid() != 0:
        raise ClusterUnavailable("SLURM is not installed and installing it needs root")
    if not shutil.which("apt-get"):
        raise ClusterUnavailable("SLURM is not installed and there is no apt-get to install it")
    created_policy = False
    if not POLICY_RC.exists():
        # Keep the packages' maintainer scripts from starting services during the install.
        POLICY_RC.write_text("#!/bin/sh\n# temporary, from xlcons tests/slurm/cluster.py\nexit 101\n")
        POLICY_RC.chmod(0o755)
        created_policy = True
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    cmd = ["apt-get", "install", "-y", "-q", "--no-install-recommends", *PACKAGES]
    try:
        result = _run(*cmd, timeout=timeout, env=env)
        if result.returncode != 0:
            # The package lists may be missing or stale: refresh once and retry.
            _run("apt-get", "update", "-q", timeout=timeout, env=env)
            result = _run(*cmd, timeout=timeout, env=env)
    except subprocess.TimeoutExpired as exc:
        raise ClusterUnavailable(f"apt-get did not finish in {timeout:.0f} s") from exc
    finally:
        if created_policy:
            POLICY_RC.unlink(missing_ok=True)
    if result.returncode != 0 or not installed():
        raise ClusterUnavailable(f"apt-get could not install {' '.join(PACKAGES)}: {result.stderr.strip()[-800:]}")
    return True


# -- configuration ------------------------------------------------------------------------


def _hardware() -> tuple[str, int]:
    """The node line's CPU topology from `slurmd -C`, and 85 % of its memory in MB."""
    out = _run("slurmd", "-C", check=True).stdout
    line = next(ln for ln in out.splitlines() if ln.startswith("NodeName="))
    fields = dict(item.split("=", 1) for item in line.split() if "=" in item)
    topology = " ".join(
        f"{k}={fields[k]}"
        for k in ("CPUs", "Boards", "SocketsPerBoard", "CoresPerSocket", "ThreadsPerCore")
        if k in fields
    )
    return topology, int(int(fields["RealMemory"]) * 0.85)


def slurm_conf() -> str:
    host = node_name()
    topology, memory = _hardware()
    return f"""{MARKER}
ClusterName=xlcons-test
SlurmctldHost={host}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
# Without a default, one job would be given the whole node's memory.
DefMemPerCPU=1000
# Finished jobs stay visible to squeue for 5 minutes (the executor polls with squeue).
MinJobAge=300
ReturnToService=2
SchedulerType=sched/backfill
SlurmctldPidFile={SLURMCTLD_PID}
SlurmdPidFile={SLURMD_PID}
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldLogFile={LOG_DIR}/slurmctld.log
SlurmdLogFile={LOG_DIR}/slurmd.log
SlurmctldPort=6817
SlurmdPort=6818
InactiveLimit=0
KillWait=5
GresTypes=gpu
NodeName={host} NodeAddr=127.0.0.1 {topology} RealMemory={memory} Gres=gpu:fake:1 State=UNKNOWN
PartitionName={CPU_PARTITION} Nodes={host} Default=YES MaxTime=INFINITE State=UP
PartitionName={GPU_PARTITION} Nodes={host} MaxTime=INFINITE State=UP
"""


def gres_conf() -> str:
    # Slurm rejects a plain file as a GPU device; a symlink to /dev/null passes.
    return f"{MARKER}\nNodeName={node_name()} Name=gpu Type=fake File={FAKE_GPU}\n"


def _ours(path: Path) -> bool:
    return not path.exists() or path.read_text().startswith(MARKER)


def configure() -> None:
    for path in (SLURM_CONF, GRES_CONF):
        if not _ours(path):
            raise ClusterUnavailable(
                f"{path} exists and was not written by the xlcons tests; not touching a real SLURM set-up"
            )
    for directory in (SLURM_CONF.parent, RUN_DIR, LOG_DIR, Path("/var/spool/slurmctld"), Path("/var/spool/slurmd")):
        directory.mkdir(parents=True, exist_ok=True)
    if FAKE_GPU.is_symlink() or FAKE_GPU.exists():
        FAKE_GPU.unlink()
    FAKE_GPU.symlink_to("/dev/null")
    for path, text in ((SLURM_CONF, slurm_conf()), (GRES_CONF, gres_conf())):
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
    import pwd

    munge = pwd.getpwnam("munge")
    for directory in (MUNGE_KEY.parent, Path("/run/munge"), Path("/var/lib/munge"), Path("/var/log/munge")):
        directory.mkdir(parents=True, exist_ok=True)
        os.chown(directory, munge.pw_uid, munge.pw_gid)
    MUNGE_KEY.parent.chmod(0o700)
    if not MUNGE_KEY.exists():
        MUNGE_KEY.write_bytes(os.urandom(1024))
    os.chown(MUNGE_KEY, munge.pw_uid, munge.pw_gid)
    MUNGE_KEY.chmod(0o400)


# -- running ------------------------------------------------------------------------------


def _munge_works() -> bool:
    try:
        cred = _run("munge", "-n", timeout=10)
        return cred.returncode == 0 and _run("unmunge", input=cred.stdout, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _node_state() -> str | None:
    try:
        result = _run("sinfo", "-h", "-N", "-n", node_name(), "-o", "%T", timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    states = {s.strip().rstrip("*~#!%$@^-+").lower() for s in result.stdout.split()}
    return next(iter(states)) if result.returncode == 0 and len(states) == 1 else None


def is_running() -> bool:
    """slurmctld answers, the node is up and both partitions exist."""
    if not installed():
        return False
    try:
        ping = _run("scontrol", "ping", timeout=10)
        parts = _run("sinfo", "-h", "-o", "%R", timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return (
        ping.returncode == 0
        and "UP" in ping.stdout
        and {CPU_PARTITION, GPU_PARTITION} <= set(parts.stdout.split())
        and _node_state() in READY_STATES
    )


def _log_tail(lines: int = 15) -> str:
    tails = []
    for log in (LOG_DIR / "slurmctld.log", LOG_DIR / "slurmd.log"):
        if log.exists():
            tails.append(f"--- {log}\n" + "\n".join(log.read_text(errors="replace").splitlines()[-lines:]))
    return "\n".join(tails)


def _start_daemon(name: str, cmd: list[str]) -> None:
    """Run a daemon's start command (it forks into the background) and wait for it."""
    result = _run(*cmd, timeout=30)
    deadline = time.monotonic() + 15
    while not _running(name):
        if time.monotonic() > deadline:
            raise ClusterError(f"{name} did not start: {result.stdout}{result.stderr}\n{_log_tail()}")
        time.sleep(0.1)


def start(timeout: float = 90, install_timeout: float = 600) -> Started:
    """Install if needed and start what is not running; a no-op when the cluster is up."""
    t0 = time.monotonic()
    if is_running():
        return Started()
    if os.geteuid() != 0:
        raise ClusterUnavailable("no SLURM cluster is running and starting one needs root")
    record = Started(installed=install(timeout=install_timeout))
    configure()
    started: list[str] = []
    try:
        if not _munge_works():
            if _running("munged"):
                raise ClusterError("munged is running but credentials do not verify (another key?)")
            started.append("munged")
            _start_daemon("munged", ["runuser", "-u", "munge", "--", "/usr/sbin/munged"])
            deadline = time.monotonic() + 10
            while not _munge_works():
                if time.monotonic() > deadline:
                    raise ClusterError("munged started but munge credentials do not verify")
                time.sleep(0.1)
        if not _running("slurmctld"):
            # -c: start from a clean state (no jobs or node states left from an earlier run).
            started.append("slurmctld")
            _start_daemon("slurmctld", ["slurmctld", "-c"])
        deadline = time.monotonic() + timeout
        while _run("scontrol", "ping", timeout=10).returncode != 0:
            if time.monotonic() > deadline:
                raise ClusterError(f"slurmctld does not answer\n{_log_tail()}")
            time.sleep(0.2)
        if not _running("slurmd"):
            started.append("slurmd")
            _start_daemon("slurmd", ["slurmd", "-N", node_name()])
        while not is_running():
            if _node_state() in ("down", "drained", "draining", "fail"):
                _run("scontrol", "update", f"nodename={node_name()}", "state=resume", timeout=10)
            if time.monotonic() > deadline:
                raise ClusterError(f"the node did not become idle (state {_node_state()})\n{_log_tail()}")
            time.sleep(0.2)
    except BaseException:
        record.daemons = {name: pid for name in started for pid in _running(name)[:1]}
        stop(record)
        raise
    # Daemons fork while they start: record the pids once the cluster is up. Nothing
    # of these names ran before (else it would not have been started), so they are ours.
    for name in started:
        deadline = time.monotonic() + 10
        while len(pids := _running(name)) != 1:
            if time.monotonic() > deadline:
                stop(Started({name: pid for name in started for pid in _running(name)}))
                raise ClusterError(f"expected one {name} process, found {pids}")
            time.sleep(0.1)
        record.daemons[name] = pids[0]
    record.seconds = round(time.monotonic() - t0, 1)
    return record


def stop(record: Started) -> None:
    """Stop exactly the daemons `record` says were started (slurmd, slurmctld, then munged)."""
    for name in ("slurmd", "slurmctld", "munged"):
        pid = record.daemons.get(name)
        if not pid or not _alive(pid, name):
            continue
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 15
        while _alive(pid, name) and time.monotonic() < deadline:
            time.sleep(0.1)
        if _alive(pid, name):
            os.kill(pid, signal.SIGKILL)
    record.daemons.clear()


def main(argv: list[str]) -> int:
    command = argv[1] if len(argv) > 1 else "status"
    if command == "start":
        try:
            record = start()
        except ClusterUnavailable as exc:
            print(f"unavailable: {exc}", file=sys.stderr)
            return 2
        if record.daemons:
            previous = Started.from_json(STATE_FILE.read_text()) if STATE_FILE.exists() else Started()
            previous.daemons.update(record.daemons)
            STATE_FILE.write_text(Started(previous.daemons, record.seconds, record.installed).to_json())
            print(f"started {', '.join(record.daemons)} in {record.seconds} s (installed: {record.installed})")
        else:
            print("already running; nothing started")
        return 0
    if command == "stop":
        if not STATE_FILE.exists():
            print("nothing recorded as started by `start`; nothing stopped")
            return 0
        record = Started.from_json(STATE_FILE.read_text())
        stop(record)
        STATE_FILE.unlink()
        print("stopped what `start` had started")
        return 0
    if command == "status":
        up = is_running()
        print("running" if up else "not running")
        return 0 if up else 1
    print(__doc__)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))
