"""The project's own workflow through the SLURM profile, on the local cluster: the offline
config (MultiQ, the tiny model) runs end to end, GPU rules on the GPU partition."""

from __future__ import annotations

import re
import shutil
import subprocess

import pyarrow.parquet as pq
import pytest
import yaml

from slurm.fixtures import slurm_cluster, slurm_workdir  # noqa: F401  (fixtures)
from test_slurm import snakemake
from test_workflow import REPO
from test_workflow_multiq import offline_subset

pytestmark = pytest.mark.slurm


def partition_of(job_id: str) -> str:
    """The partition of a finished job (the cluster keeps finished jobs for MinJobAge = 300 s)."""
    out = subprocess.run(["scontrol", "-o", "show", "job", job_id], capture_output=True, text=True, timeout=10).stdout
    return re.search(r"Partition=(\S+)", out).group(1)


def jobs_of(workdir, rule: str) -> list[str]:
    """SLURM job ids of a rule's jobs, from the file names of their logs under logs/slurm/."""
    return [path.stem for path in (workdir / "logs" / "slurm" / f"rule_{rule}").rglob("*.log")]


def checkout(root) -> None:
    """The repository's tracked files under ``root``: a user's clone, to type the commands in."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    for name in filter(None, files.split("\0")):
        if (REPO / name).is_file() and not name.startswith("tests/data/"):
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, root / name)


def test_the_offline_config_runs_end_to_end_through_the_slurm_executor(slurm_workdir, offline_models, shared_data):
    """`snakemake --profile slurm` as typed at the root of a clone (plus the local cluster's
    own settings, layered on top): the offline config, GPU rules on the GPU partition."""
    checkout(slurm_workdir)
    offline_subset(slurm_workdir, shared_data, ["en", "de"], 2)
    config = yaml.safe_load((slurm_workdir / "config.yaml").read_text())
    config["models"] = {"tiny-llm": {**config["models"]["tiny-llm"], "decoding": {"max_new_tokens": 4}}}
    config["translator"]["gpus"] = 1  # a GPU job here
    config["evaluators"]["judge"]["llm"] = config["models"]["tiny-llm"]
    config["evaluators"]["knowledge"]["datasets"] = []
    config["output"]["comparisons"] = []
    (slurm_workdir / "config.yaml").write_text(yaml.safe_dump(config))

    run = snakemake(
        slurm_workdir,
        "--profile",
        "slurm",
        "--profile",
        "tests/slurm/profile",
        "--configfile",
        "config.yaml",
        timeout=600,
        profile=False,
    )
    assert run.returncode == 0, run.output[-6000:]
    fidelity = pq.read_table(slurm_workdir / "results/evaluations/multiq/tiny-llm/fidelity.parquet")
    assert fidelity.num_rows == 4
    assert (slurm_workdir / "results/translations/multiq/tiny-llm/de.parquet").exists()
    assert (slurm_workdir / "results/tables/multiq/table3_accuracy.csv").exists()

    gpu_jobs, cpu_jobs = jobs_of(slurm_workdir, "translate_multiq"), jobs_of(slurm_workdir, "generate_multiq")
    assert gpu_jobs and cpu_jobs, run.output[-3000:]
    assert {partition_of(job) for job in gpu_jobs} == {"gpu"}
    assert {partition_of(job) for job in cpu_jobs + jobs_of(slurm_workdir, "judge")} == {"cpu"}
    assert not jobs_of(slurm_workdir, "prompts") and not jobs_of(slurm_workdir, "multiq_report"), (
        "light rules run locally"
    )
