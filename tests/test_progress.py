"""xlcons.progress: the lines a long model job prints, driven by a hand-set clock."""

from __future__ import annotations

import io
import json
import os
import sys
from datetime import datetime

import pyarrow as pa
import pytest

from builders import response_rows
from xlcons.progress import Progress, format_eta, format_rate, set_status_file, status_file_for_log, table_owners
from xlcons.run_progress import collect, record_planned, render


class Clock:
    """A clock that moves only when the test says so."""

    def __init__(self, now: float = 1000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture()
def clock():
    return Clock()


def lines(stream: io.StringIO) -> list[str]:
    return stream.getvalue().splitlines()


def test_a_line_every_20_seconds_at_most_and_one_at_the_end(clock):
    out = io.StringIO()
    progress = Progress("generate clinic_qa/smollm2-135m", 100, clock=clock, streams=[out])
    clock.now += 5
    progress.update(10)  # 5 s since the start: too soon
    assert lines(out) == []
    clock.now += 15
    progress.update(30)  # 40 items in 20 s: 2/s, 60 left -> 30 s
    assert lines(out) == ["generate clinic_qa/smollm2-135m: 40/100 items, 2.00/s, ETA 00:30"]
    clock.now += 19
    progress.update(10)  # 19 s after the last line: still quiet
    assert len(lines(out)) == 1
    clock.now += 1
    progress.update(0)  # 20 s after it: 50 items in 40 s = 1.25/s, 50 left -> 40 s
    assert lines(out)[-1] == "generate clinic_qa/smollm2-135m: 50/100 items, 1.25/s, ETA 00:40"
    clock.now += 60
    progress.update(50)  # done: no periodic line, the end line says it
    assert len(lines(out)) == 2
    progress.finish()  # 100 items in 100 s
    progress.finish()  # once only
    assert lines(out)[2:] == ["generate clinic_qa/smollm2-135m: 100/100 items, 1.00/s, ETA 00:00"]


def test_the_eta_counts_minutes_past_an_hour_and_the_rate_keeps_meaningful_digits(clock):
    out = io.StringIO()
    progress = Progress("translate information/tiny-llm deu_Latn→eng_Latn", 4000, unit="sentences", clock=clock)
    progress.streams = [out]
    clock.now += 30
    progress.update(30)  # 1/s, 3970 left -> 3970 s = 66 min 10 s
    assert lines(out) == ["translate information/tiny-llm deu_Latn→eng_Latn: 30/4000 sentences, 1.00/s, ETA 66:10"]
    assert format_eta(3970) == "66:10" and format_eta(59.6) == "01:00" and format_eta(None) == "--:--"
    assert format_rate(0.1149) == "0.11" and format_rate(12.34) == "12.3" and format_rate(345.6) == "346"


def test_nothing_done_yet_has_no_eta_and_leaving_the_block_writes_the_end_line(clock):
    out = io.StringIO()
    with Progress("judge clinic_qa/tiny-llm", 18, clock=clock, streams=[out]) as progress:
        clock.now += 25
        progress.update(0)  # a slow first batch: 0 items in 25 s
        assert lines(out) == ["judge clinic_qa/tiny-llm: 0/18 items, 0.00/s, ETA --:--"]
        clock.now += 11
        progress.update(18)
    # 18 items in 36 s
    assert lines(out)[1:] == ["judge clinic_qa/tiny-llm: 18/18 items, 0.50/s, ETA 00:00"]


def test_the_lines_go_to_the_console_and_to_the_job_log_it_was_redirected_to(clock, monkeypatch):
    console, log = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "__stderr__", console)
    monkeypatch.setattr(sys, "stderr", log)  # what xlcons.job.start_job does in a rule script
    Progress("generate multiq/tiny-llm", 2, clock=clock).finish()
    assert lines(console) == lines(log) == ["generate multiq/tiny-llm: 0/2 items, 0.00/s, ETA --:--"]

    monkeypatch.setattr(sys, "stderr", console)  # outside a rule script: one stream, one line
    Progress("generate multiq/tiny-llm", 2, clock=clock).finish()
    assert len(lines(console)) == 2


def test_a_job_is_named_after_the_data_sets_and_models_of_its_rows():
    rows = response_rows([("1", "de", "Ja"), ("2", "de", "Nein")], model="tiny-llm", dataset="clinic_qa")
    assert table_owners(rows) == "clinic_qa/tiny-llm"
    both = pa.concat_tables([rows, response_rows([("1", "de", "Ja")], model="smollm2-135m", dataset="clinic_qa")])
    assert table_owners(both) == "clinic_qa/tiny-llm+clinic_qa/smollm2-135m"
    assert table_owners(rows.slice(0, 0)) == "(no rows)"


def test_with_tokens_counted_the_line_gives_their_rate_too(clock):
    out = io.StringIO()
    progress = Progress("generate multiq/tiny-llm", 10, clock=clock, streams=[out])
    clock.now += 20
    progress.update(4, tokens=1000)  # 4 items and 1000 tokens in 20 s
    progress.update(1, tokens=None)  # a backend that does not count: no tokens added
    assert lines(out) == ["generate multiq/tiny-llm: 4/10 items, 0.20/s, 50.0 tokens/s, ETA 00:30"]


# -- the status file each job keeps, and `xlcons progress`, which reads them all


@pytest.fixture()
def status_file(tmp_path):
    path = status_file_for_log(tmp_path / "logs" / "generate" / "multiq" / "tiny-llm.log")
    set_status_file(path)
    yield path
    set_status_file(None)


def read_status(path):
    return json.loads(path.read_text(encoding="utf-8"))


def test_a_job_keeps_its_figures_beside_its_log_at_the_start_at_every_line_and_at_the_end(clock, status_file):
    assert status_file.name == "tiny-llm.progress.json"
    wall = Clock(now=1_800_000_000.0)
    progress = Progress("generate multiq/tiny-llm", 10, clock=clock, wall_clock=wall, streams=[io.StringIO()])
    (part,) = read_status(status_file)["parts"]
    assert (part["done"], part["total"], part["state"], part["eta_s"]) == (0, 10, "running", None)
    clock.now += 20
    progress.update(5, tokens=400)
    status = read_status(status_file)
    assert status["updated"] == 1_800_000_020.0 and status["pid"] == os.getpid()
    (part,) = status["parts"]
    assert part["done"] == 5 and part["rate"] == 0.25 and part["tokens_per_s"] == 20.0 and part["eta_s"] == 20.0
    clock.now += 20
    progress.update(5, tokens=400)
    progress.finish()
    (part,) = read_status(status_file)["parts"]
    assert (part["done"], part["state"], part["eta_s"], part["tokens"]) == (10, "finished", 0.0, 800)
    # A second part of the same job (a translation job's next language pair) is kept beside the first.
    Progress("translate multiq/tiny-llm deu_Latn→eng_Latn", 3, unit="sentences", clock=clock, streams=[])
    assert [part["job"] for part in read_status(status_file)["parts"]] == [
        "generate multiq/tiny-llm",
        "translate multiq/tiny-llm deu_Latn→eng_Latn",
    ]


SNAKEMAKE_LOG = """\
Building DAG of jobs...
Job stats:
job           count
----------  -------
all               1
generate          4
total             5

Select jobs to execute...
[Sat Dec  5 21:40:13 2026]
localrule prompts_multiq:
1 of 5 steps (20%) done
2 of 5 steps (40%) done
"""


def write_run(directory, parts_by_job, *, updated, log_text=SNAKEMAKE_LOG, log_name="2027-01-15T080000.000000"):
    (directory / ".snakemake" / "log").mkdir(parents=True)
    (directory / ".snakemake" / "log" / f"{log_name}.snakemake.log").write_text(log_text)
    for job, parts in parts_by_job.items():
        path = directory / "logs" / f"{job}.progress.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        status = {"format": "xlcons-progress", "version": 1, "host": "n1", "pid": 1, "updated": updated[job]}
        path.write_text(json.dumps({**status, "parts": parts}))


def part(job, done, total, *, unit="items", state="running", rate=1.0, tokens=0, tokens_per_s=0.0, eta_s=None):
    return {
        "job": job,
        "unit": unit,
        "done": done,
        "total": total,
        "state": state,
        "rate": rate,
        "tokens": tokens,
        "tokens_per_s": tokens_per_s,
        "eta_s": eta_s,
    }


def test_the_run_progress_sums_the_jobs_of_the_latest_invocation_and_flags_silent_ones(tmp_path):
    started = datetime(2027, 1, 15, 8, 0, 0).timestamp()
    write_run(
        tmp_path,
        {
            "generate/multiq/tiny-llm": [
                part("generate multiq/tiny-llm", 30, 100, tokens=900, tokens_per_s=45.0, rate=1.5, eta_s=46.7)
            ],
            "generate/multiq/smollm2": [part("generate multiq/smollm2", 100, 100, state="finished", eta_s=0.0)],
            "translate/multiq/tiny-llm": [
                part("translate multiq/tiny-llm deu_Latn→eng_Latn", 5, 40, unit="sentences", rate=0.5, eta_s=70)
            ],
            "generate/multiq/old": [part("generate multiq/old", 1, 9)],  # from an earlier invocation
        },
        updated={
            "generate/multiq/tiny-llm": started + 100,
            "generate/multiq/smollm2": started + 50,
            "translate/multiq/tiny-llm": started + 10,  # 90 s without a line: silent
            "generate/multiq/old": started - 3600,
        },
    )
    run = collect(tmp_path, now=started + 100)
    assert run.invocation is not None and (run.invocation.done, run.invocation.planned) == (2, 5)
    assert not run.invocation.finished and not run.invocation.failed
    assert sorted(p.state for p in run.parts) == ["finished", "running", "silent"]
    assert run.items() == {"items": (130, 200), "sentences": (5, 40)}
    text = render(run).splitlines()
    assert text[0].startswith("run started 2027-01-15 08:00:00: 2 of 5 jobs done (40%)  [")
    assert text[1] == (
        "model jobs: 1 running, 1 silent, 1 finished; items in the 3 started (the jobs not started yet are not "
        "known): 130/200 items, 5/40 sentences"
    )
    assert text[2].split() == "generate multiq/tiny-llm 30/100 items, 1.50/s, 45.0 tokens/s, ETA 00:47".split()
    assert text[3].split()[-8:] == "ETA 01:10 (silent for 01:30: killed or stuck?)".split()
    assert len(text) == 4  # a finished job has no line of its own


def test_a_finished_or_failed_invocation_says_so(tmp_path):
    ended = SNAKEMAKE_LOG + "5 of 5 steps (100%) done\nComplete log(s): .snakemake/log/x.snakemake.log\n"
    write_run(tmp_path / "ok", {}, updated={}, log_text=ended)
    assert "5 of 5 jobs done (100%) - ended" in render(collect(tmp_path / "ok"))
    failed = (
        SNAKEMAKE_LOG + "Exiting because a job execution failed. Look below for error messages\nComplete log(s): x\n"
    )
    write_run(tmp_path / "failed", {}, updated={}, log_text=failed)
    assert "2 of 5 jobs done (40%) - failed" in render(collect(tmp_path / "failed"))
    assert render(collect(tmp_path / "none")).startswith("no snakemake run in this folder yet")


def test_the_run_progress_is_over_the_planned_model_jobs_not_the_started_ones(tmp_path):
    """Issue 40: 5 model jobs planned (the workflow's onstart records them), 2 started and done:
    their items are all done (39/39), but the run is not: 2 of 5 jobs' work, 40%. A job that
    keeps no status file (QE) is done once its ledger is written."""
    started = datetime(2027, 1, 15, 8, 0, 0).timestamp()
    done = {"generate/d/a": [part("generate d/a", 20, 20, state="finished")]}
    done["generate/d/b"] = [part("generate d/b", 19, 19, state="finished")]
    write_run(tmp_path, done, updated=dict.fromkeys(done, started + 60))
    jobs = ["generate/d/a", "generate/d/b", "generate/d/c", "translate/d/a", "translation_qe/d/a"]
    planned = record_planned(
        [(status_file_for_log(f"logs/{job}.log"), f"results/usage/{job}.json") for job in jobs], tmp_path
    )
    os.utime(planned, (started + 1, started + 1))  # by the invocation's onstart
    run = collect(tmp_path, now=started + 60)
    assert run.items() == {"items": (39, 39)}
    assert run.share_done() == pytest.approx(2 / 5)
    assert render(run).splitlines()[1] == (
        "model jobs: 5 planned: 0 running, 0 silent, 2 finished, 3 not started; 40% of their work done; "
        "items in the 2 started: 39/39 items"
    )
    # Half of a third job's items, and the QE job's ledger written: (1 + 1 + 0.5 + 0 + 1) / 5.
    status = {"format": "xlcons-progress", "version": 1, "host": "n1", "pid": 1, "updated": started + 60}
    parts = [part("generate d/c", 5, 10), part("generate d/c", 0, 4)]  # one job, two parts
    (tmp_path / "logs" / "generate/d/c.progress.json").write_text(json.dumps({**status, "parts": parts}))
    ledger = tmp_path / "results" / "usage" / "translation_qe" / "d" / "a.json"
    ledger.parent.mkdir(parents=True)
    ledger.write_text("{}")
    os.utime(ledger, (started + 30, started + 30))
    run = collect(tmp_path, now=started + 60)
    assert run.share_done() == pytest.approx((1 + 1 + 5 / 14 + 0 + 1) / 5)
    assert "5 planned: 1 running, 0 silent, 3 finished, 1 not started; 67% of their work done" in render(run)


def test_a_plan_recorded_before_the_invocation_started_is_not_read(tmp_path):
    started = datetime(2027, 1, 15, 8, 0, 0).timestamp()
    write_run(tmp_path, {}, updated={})
    planned = record_planned([("logs/generate/d/a.progress.json", "results/usage/generate/d/a.json")], tmp_path)
    os.utime(planned, (started - 60, started - 60))  # an earlier invocation's
    assert collect(tmp_path, now=started + 1).planned is None
    os.utime(planned, (started + 1, started + 1))
    [job] = collect(tmp_path, now=started + 1).planned
    assert job.status == tmp_path / "logs/generate/d/a.progress.json"
