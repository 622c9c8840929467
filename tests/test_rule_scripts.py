"""Every rule script has one shape: ``main(smk)``, called under a ``__main__`` guard that puts
the package on the path. vLLM starts its engine in a spawned process, which runs the script
again; anything at module level would run twice (the job, or truncating its log), and
Snakemake's `snakemake` object is not there to run it."""

from __future__ import annotations

import ast
import logging
import os
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from xlcons.job import HF_OFFLINE, start_job
from xlcons.usage import read_usage, recording

SCRIPTS = sorted((Path(__file__).resolve().parent.parent / "workflow_scripts").glob("*.py"))
# Local rules that may reach the network: the fetches, and prompts read from a Hub data set.
ONLINE = {"fetch_dataset.py", "fetch_model.py", "prompts.py", "prompt_table.py"}


def _is_main_guard(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.If)
        and ast.unparse(node.test) == "__name__ == '__main__'"
        and [ast.unparse(s) for s in node.body] == ["sys.path.insert(0, snakemake.scriptdir)", "main(snakemake)"]
    )


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.name for s in SCRIPTS])
def test_a_rule_script_only_defines_main_at_import(script):
    """vLLM's spawned child runs the script's own file (not Snakemake's copy with the
    `snakemake` object before it): only imports of the standard library and `main` may run."""
    tree = ast.parse(script.read_text())
    body = tree.body[1:] if ast.get_docstring(tree) else tree.body
    kinds = []
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else [node.module]
            assert all(name.split(".")[0] in sys.stdlib_module_names for name in names), ast.unparse(node)
            kinds.append("import")
        elif isinstance(node, ast.FunctionDef) and node.name == "main":
            kinds.append("main")
            first = [ast.unparse(statement) for statement in node.body[:2]]
            start = "start_job(smk, offline=False)" if script.name in ONLINE else "start_job(smk)"
            assert first == ["from xlcons.job import start_job", start], first
        elif _is_main_guard(node):
            kinds.append("guard")
        else:
            pytest.fail(f"{script.name}:{node.lineno}: runs at import: {ast.unparse(node)[:80]}")
    assert kinds[-2:] == ["main", "guard"]


class _Job:
    threads = 3

    def __init__(self, log: Path) -> None:
        self.log = [str(log)]


@pytest.fixture(autouse=True)
def _restore_logging(monkeypatch):
    """start_job points stderr and the root logger at the job's log: undone after each test."""
    original = sys.stderr
    monkeypatch.setattr("sys.stderr", original)
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    for handler in root.handlers:
        if handler not in handlers:
            handler.close()
            handler.stream.close()  # the job's log file, which start_job opened as stderr
    root.handlers[:], root.level = handlers, level


def test_a_compute_job_keeps_off_the_hub_and_to_its_cores_unless_told_otherwise(tmp_path, monkeypatch):
    for name in (*HF_OFFLINE, "OMP_NUM_THREADS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "0")  # what a user exported stays

    start_job(_Job(tmp_path / "job.log"))

    assert os.environ["HF_HUB_OFFLINE"] == "1" and os.environ["HF_DATASETS_OFFLINE"] == "1"
    assert os.environ["TRANSFORMERS_OFFLINE"] == "0"
    assert os.environ["OMP_NUM_THREADS"] == "3"
    assert sys.stderr.name == str(tmp_path / "job.log")
    logging.getLogger().info("into the job's log")
    assert "into the job's log" in (tmp_path / "job.log").read_text()


def test_no_api_key_reaches_the_job_log(tmp_path, monkeypatch):
    """Log records, warnings and tracebacks all pass redaction: the key of a `*_API_KEY`
    variable, a Bearer token and an `sk-` key are written as [redacted]."""
    key = "env-held-key-7Hq2Lx9P"
    monkeypatch.setenv("XLCONS_TEST_JOB_API_KEY", key)

    start_job(_Job(tmp_path / "job.log"))
    logging.getLogger("xlcons").error("401 Incorrect API key provided: %s", key)
    print(f"Authorization: Bearer {key[:5]}", end="", file=sys.stderr)  # a key written in two pieces
    print(f"{key[5:]} and sk-proj-Zz99Yy88Xx77Ww66", file=sys.stderr)
    try:
        raise RuntimeError(f"endpoint said: {key}")
    except RuntimeError:
        sys.excepthook(*sys.exc_info())
    sys.stderr.flush()

    log = (tmp_path / "job.log").read_text()
    assert key not in log and "sk-proj" not in log
    assert (
        "401 Incorrect API key provided: [redacted]" in log and "Authorization: Bearer [redacted] and [redacted]" in log
    )
    assert "RuntimeError: endpoint said: [redacted]" in log


def test_a_local_rule_that_downloads_is_left_online(tmp_path, monkeypatch):
    for name in HF_OFFLINE:
        monkeypatch.delenv(name, raising=False)

    start_job(_Job(tmp_path / "job.log"), offline=False)

    assert not any(name in os.environ for name in HF_OFFLINE)


RECORDED: list = []


def _record_job(smk) -> None:
    from xlcons.usage import record

    RECORDED.append((smk.rule, os.environ["OMP_NUM_THREADS"]))
    record("judge-model", "judge", requests=2)


def test_the_evaluator_script_starts_the_job_then_runs_the_function_its_rule_is_registered_with(tmp_path, monkeypatch):
    import importlib.util

    from xlcons.evaluators.registry import RULE_JOBS

    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setitem(RULE_JOBS, "judge", f"{__name__}:_record_job")
    script = Path(__file__).resolve().parent.parent / "workflow_scripts" / "evaluate.py"
    spec = importlib.util.spec_from_file_location("evaluate_script", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    job = _Job(tmp_path / "judge.log")
    job.rule = "judge"
    job.output = SimpleNamespace(usage=str(tmp_path / "usage.json"), keys=lambda: ["judgments", "usage"])
    job.resources = SimpleNamespace(gpu=1)

    with recording():
        module.main(job)

    assert RECORDED == [("judge", "3")], "started (cores set) before the registered function ran"
    # and then wrote the job's usage ledger, its rule's output `usage`
    usage = read_usage(tmp_path / "usage.json")
    assert usage["gpus"] == 1 and usage["calls"][0]["requests"] == 2
