"""xlcons.progress: the lines a long model job prints, driven by a hand-set clock."""

from __future__ import annotations

import io
import sys

import pyarrow as pa
import pytest

from builders import response_rows
from xlcons.progress import Progress, format_eta, format_rate, table_owners


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
