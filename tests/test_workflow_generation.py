"""Prompts and generation through the workflow, as a user runs them: resumable and incremental."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import time

import pyarrow.parquet as pq
import pytest
import yaml

from builders import offline_language_confusion
from test_workflow import SNAKEMAKE, job_counts, snakemake
from xlcons.schemas import NO_ANSWER, PROMPTS, RESPONSES


def configure(workdir, offline_models, shared_data, *, languages, models=("tiny-llm",), extra_models=None):
    models_config = {
        name: {
            "path": str(offline_models["tiny-llm"]),
            "backend": "hf",
            "hf": {"device": "cpu"},
            "decoding": {"max_new_tokens": 4},
        }
        for name in models
    }
    models_config.update(extra_models or {})
    config = {
        "models": models_config,
        "evaluators": {
            "language_id": {"model": {"path": str(offline_models["lid176"])}, "label_scheme": "lid176"},
            "language_confusion": offline_language_confusion(offline_models),
            "judge": {"llm": {"path": str(offline_models["tiny-llm"]), "backend": "hf"}},
        },
        "datasets": {
            "multiq": {"path": str(shared_data / "multiq"), "languages": list(languages), "items": {"limit": 3}}
        },
    }
    (workdir / "config.yaml").write_text(yaml.safe_dump(config))
    return [
        "--snakefile",
        str(snakemake.__globals__["REPO"] / "Snakefile"),
        "--directory",
        str(workdir),
        "--configfile",
        str(workdir / "config.yaml"),
        "--cores",
        "2",
    ]


def generated_count(log_text: str) -> tuple[int, int]:
    """(generated, requested) from the generation log line of the last run."""
    matches = re.findall(r"(\d+) of (\d+) requests to generate", log_text)
    return (
        tuple(map(int, matches[-1])) if matches else (0, int(re.findall(r"all (\d+) requests answered", log_text)[-1]))
    )


@pytest.fixture()
def workdir(tmp_path):
    return tmp_path


def test_offline_generation_end_to_end_then_incremental(workdir, offline_models, shared_data):
    run = configure(workdir, offline_models, shared_data, languages=["en", "de"])
    first = snakemake(*run)
    assert first.returncode == 0, first.output
    out = workdir / "results" / "responses" / "multiq" / "tiny-llm"
    for lang in ("en", "de"):
        table = pq.read_table(out / f"{lang}.parquet")
        assert table.schema.equals(RESPONSES, check_metadata=False)
        assert table.num_rows == 3 and set(table["lang"].to_pylist()) == {lang}
        assert all(table["completion_tokens"].to_pylist()) and NO_ANSWER not in table["response"].to_pylist()
    assert pq.read_table(workdir / "results/prompts/multiq/en.parquet").schema.equals(PROMPTS, check_metadata=False)
    assert (workdir / "results/benchmarks/generate/multiq/tiny-llm.tsv").exists()
    log = workdir / "logs/generate/multiq/tiny-llm.log"
    assert generated_count(log.read_text()) == (6, 6)

    again = snakemake(*run, "-n")
    assert "Nothing to be done" in again.output, "a finished run is a no-op"

    # A new language: one prompts job, the model's generation job (which generates only the
    # new language's 3 items), and its evaluators and the report, which read every language.
    evaluators = {
        "language_id": 1,
        "judge": 1,
        "tokenization": 1,
        "language_confusion": 1,
        "multiq_report": 1,
        "evaluator_report": 4,  # language ID, judge, tokenization, language confusion
        "all": 1,
        "results": 1,
        "explorer": 1,
        "usage": 1,  # the usage table, with the generation job's new ledger
    }
    run = configure(workdir, offline_models, shared_data, languages=["en", "de", "fr"])
    planned = snakemake(*run, "-n")
    # (and the faithful-text checks of the two LID evaluators, which score the new prompts)
    faithful = {"language_confusion_faithful": 1, "language_id_faithful": 1}
    assert job_counts(planned.stdout) == {
        "prompts": 1,
        "prompt_table": 1,
        "generate_multiq": 1,
        **faithful,
        **evaluators,
    }
    assert snakemake(*run).returncode == 0
    assert generated_count(log.read_text()) == (3, 9)

    # A new model: only its own jobs (and the report over all models).
    run = configure(
        workdir, offline_models, shared_data, languages=["en", "de", "fr"], models=("tiny-llm", "tiny-llm-2")
    )
    planned = snakemake(*run, "-n")
    assert job_counts(planned.stdout) == {"generate_multiq": 1, **evaluators}
    assert "results/responses/multiq/tiny-llm-2/en.parquet" in planned.stdout
    assert snakemake(*run).returncode == 0

    # A changed decoding parameter of one model recomputes that model only.
    changed = {
        "tiny-llm-2": {
            "path": str(offline_models["tiny-llm"]),
            "backend": "hf",
            "hf": {"device": "cpu"},
            "decoding": {"max_new_tokens": 5},
        }
    }
    run = configure(
        workdir, offline_models, shared_data, languages=["en", "de", "fr"], models=("tiny-llm",), extra_models=changed
    )
    planned = snakemake(*run, "-n")
    # (its tokenizer analysis reads the prompts and the tokenizer only, so it stays)
    answers_changed = {key: n for key, n in evaluators.items() if key != "tokenization"}
    assert job_counts(planned.stdout) == {"generate_multiq": 1, **answers_changed}
    assert "wildcards: model=tiny-llm-2" in planned.stdout and "wildcards: model=tiny-llm\n" not in planned.stdout


def test_recorded_responses_are_a_model(workdir, offline_models, shared_data):
    recorded = workdir / "api-run.jsonl"
    recorded.write_text(
        "".join(
            json.dumps({"item_id": f"gpt-{i}", "language": "en", "response": f"answer {i}"}) + "\n" for i in (1, 2, 3)
        )
    )
    run = configure(
        workdir,
        offline_models,
        shared_data,
        languages=["en"],
        models=(),
        extra_models={"api-run": {"backend": "file", "path": str(recorded)}},
    )
    result = snakemake(*run)
    assert result.returncode == 0, result.output
    table = pq.read_table(workdir / "results/responses/multiq/api-run/en.parquet")
    assert table["response"].to_pylist() == ["answer 1", "answer 2", "answer 3"]
    assert set(table["backend"].to_pylist()) == {"file"}


def test_a_repeated_row_of_recorded_responses_stops_even_a_dry_run(workdir, offline_models, shared_data):
    """The responses file is checked before anything is scheduled, not when its job runs."""
    recorded = workdir / "api-run.csv"
    recorded.write_text("id,lang,response\ngpt-1,en,answer 1\ngpt-2,en,answer 2\ngpt-1,en,answer 3\n")
    extra = {"api-run": {"backend": "file", "path": str(recorded)}}
    run = configure(workdir, offline_models, shared_data, languages=["en"], models=(), extra_models=extra)
    result = snakemake(*run, "-n")
    assert result.returncode != 0
    assert (
        "config key 'models.api-run.path': " + str(recorded) + ", line 4, column 'id': "
        "item 'gpt-1' in language 'en' appears twice (first at line 2)"
    ) in result.output
    assert "Job stats" not in result.output


def test_a_language_the_model_excludes_is_a_config_error(workdir, offline_models, shared_data):
    excluded = {"mono": {"path": str(offline_models["tiny-llm"]), "backend": "hf", "languages": ["en"]}}
    run = configure(workdir, offline_models, shared_data, languages=["en", "de"], models=(), extra_models=excluded)
    result = snakemake(*run, "-n")
    assert result.returncode != 0
    assert "model 'mono' excludes ['de']" in result.output and "Job stats" not in result.output


def test_a_local_model_replaced_in_place_is_generated_again_and_a_moved_copy_is_not(
    workdir, offline_models, shared_data
):
    """The job's params carry the digest of a `path` model's files: new content reruns the job
    (and misses the cache), the same content in another folder is answered from the cache."""
    recorded = workdir / "run-a" / "answers.jsonl"
    recorded.parent.mkdir()
    recorded.write_text(
        "".join(
            json.dumps({"item_id": f"gpt-{i}", "language": "en", "response": f"answer {i}"}) + "\n" for i in (1, 2, 3)
        )
    )
    target = "results/responses/multiq/mine.parquet"
    run = configure(
        workdir,
        offline_models,
        shared_data,
        languages=["en"],
        models=(),
        extra_models={"mine": {"backend": "file", "path": str(recorded)}},
    )
    assert snakemake(*run, target).returncode == 0
    assert "Nothing to be done" in snakemake(*run, "-n", target).output

    recorded.write_text(recorded.read_text().replace("answer 2", "a retrained answer"))  # same file, new content
    dry = snakemake(*run, "-n", target)
    assert job_counts(dry.stdout).get("generate_multiq") == 1, dry.output
    assert snakemake(*run, target).returncode == 0
    assert pq.read_table(workdir / target)["response"].to_pylist() == ["answer 1", "a retrained answer", "answer 3"]

    moved = workdir / "run-b" / "answers.jsonl"
    moved.parent.mkdir()
    moved.write_bytes(recorded.read_bytes())
    run = configure(
        workdir,
        offline_models,
        shared_data,
        languages=["en"],
        models=(),
        extra_models={"mine": {"backend": "file", "path": str(moved)}},
    )
    assert snakemake(*run, target).returncode == 0, "the path changed: the job reruns"
    assert "all 3 requests answered from the cache" in (workdir / "logs/generate/multiq/mine.log").read_text()


def test_a_data_file_edited_in_place_makes_its_prompts_again(workdir, offline_models, shared_data):
    """A local MultiQ folder: the prompts job depends on MultiQ.csv itself, so editing it (the
    folder's own time does not change) schedules the prompts again."""
    import shutil

    local = workdir / "multiq"
    shutil.copytree(shared_data / "multiq", local)
    run = configure(workdir, offline_models, shared_data, languages=["en"])
    config = yaml.safe_load((workdir / "config.yaml").read_text())
    config["datasets"]["multiq"]["path"] = str(local)
    (workdir / "config.yaml").write_text(yaml.safe_dump(config))
    target = "results/prompts/multiq/en.parquet"
    assert snakemake(*run, target).returncode == 0
    folder_time = local.stat().st_mtime_ns

    csv = local / "MultiQ.csv"
    csv.write_text(csv.read_text(encoding="utf-8").replace("What", "Which", 1), encoding="utf-8")

    assert local.stat().st_mtime_ns == folder_time, "the folder itself looks unchanged"
    dry = snakemake(*run, "-n", target)
    assert job_counts(dry.stdout).get("prompts") == 1, dry.output


def test_a_run_killed_with_sigkill_mid_job_resumes_with_the_same_command(workdir, offline_models, shared_data):
    """`kill -9` of Snakemake and its job, after the job wrote an output but before Snakemake
    recorded it as complete, leaves the lock and an incomplete output. The same command then
    runs to the end: the lock is released (its holder provably no longer runs on this machine)
    and the incomplete job runs again (`rerun-incomplete`, in the workflow profile)."""
    run = configure(
        workdir,
        offline_models,
        shared_data,
        languages=["en"],
        models=(),
        extra_models={"api-run": {"backend": "file", "path": str(shared_data / "multiq" / "MultiQ.csv")}},
    )
    recorded = workdir / "api-run.jsonl"
    recorded.write_text(
        "".join(
            json.dumps({"item_id": f"gpt-{i}", "language": "en", "response": f"answer {i}"}) + "\n" for i in (1, 2, 3)
        )
    )
    config = yaml.safe_load((workdir / "config.yaml").read_text())
    config["models"]["api-run"]["path"] = str(recorded)
    (workdir / "config.yaml").write_text(yaml.safe_dump(config))
    target = "results/responses/multiq/api-run/en.parquet"
    output = workdir / "killed-run.log"
    started = subprocess.Popen(
        [*SNAKEMAKE, *run, target],
        start_new_session=True,
        stdout=output.open("w"),
        stderr=subprocess.STDOUT,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    try:
        deadline = time.monotonic() + 120
        job_log = workdir / "logs" / "generate" / "multiq" / "api-run.log"
        while not job_log.exists():  # the generation job has started
            assert started.poll() is None and time.monotonic() < deadline, (
                "the run ended before its generation job started:\n" + output.read_text()[-3000:]
            )
            time.sleep(0.02)
        os.kill(started.pid, signal.SIGSTOP)  # Snakemake stops; its job goes on and writes its output
        while not (workdir / target).exists():
            assert time.monotonic() < deadline, "the generation job wrote no output"
            time.sleep(0.02)
    finally:
        with contextlib.suppress(ProcessLookupError):  # a run that ended early has no group left
            os.killpg(started.pid, signal.SIGKILL)
        started.wait()
    assert list((workdir / ".snakemake" / "locks").glob("*.output.lock")) and any(
        (workdir / ".snakemake" / "incomplete").iterdir()
    ), "the killed run left no lock or no incomplete output: it finished before it was stopped"

    again = snakemake(*run, target)
    assert again.returncode == 0, again.output[-3000:]
    assert f"released the lock that Snakemake process {started.pid} left" in again.output
    assert pq.read_table(workdir / target)["response"].to_pylist() == ["answer 1", "answer 2", "answer 3"]
