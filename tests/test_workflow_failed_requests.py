"""Failed API requests through the workflow, as a user meets them: the run ends non-zero, the
next run sends only the failed requests, and what a user accepts to lose is counted as
`error` in the results table, never as a wrong answer.

The model is an OpenAI-compatible endpoint on 127.0.0.1 (tests/local_server.BatchEndpoint), which
answers every request unless its prompt is in `failing`; then it answers HTTP 500 (or, once the
key is revoked, 401 to everything), quoting the API key back in its error message: the key must
still reach no log, table, cache, explorer file or Snakemake record. A second model asks the same
endpoint through its Batch API, where the key comes back in every error a batch can hold.
"""

from __future__ import annotations

import csv
from collections import Counter

import pyarrow.parquet as pq
import pytest
import yaml

from local_server import BatchEndpoint, LineError
from test_workflow import REPO, snakemake

KEY_ENV = "XLCONS_TEST_FAILING_KEY"
API_KEY = "sk-proj-xlconsTEST0123456789abcdefGHIJ"
REVOKED_KEY = "revoked0key0xlcons0Q7w9e8r"  # not shaped like an OpenAI key: redacted as the key read


class Endpoint(BatchEndpoint):
    """Answers every prompt with one text, HTTP 500 for a prompt in `failing` and 401 to all once
    `revoked`; every error quotes the Authorization header back; counts what it was asked."""

    def __init__(self):
        super().__init__(
            lambda prompt: 401 if self.revoked else 500 if prompt in self.failing else "Paris is the answer."
        )
        self.failing: set[str] = set()
        self.revoked = False
        self.error_message = "the server is having a bad day"
        self.echo_authorization = True

    @property
    def seen(self) -> Counter[str]:
        return Counter(self.prompts)


@pytest.fixture()
def endpoint(monkeypatch):
    monkeypatch.setenv(KEY_ENV, API_KEY)
    with Endpoint() as server:
        yield server


def multiq_prompt(shared_data, item: str, lang: str) -> str:
    with open(shared_data / "multiq" / "MultiQ.csv", encoding="utf-8", newline="") as handle:
        return next(row["prompt"] for row in csv.DictReader(handle) if (row["id"], row["language"]) == (item, lang))


def configure(workdir, endpoint, offline_models, shared_data, max_failed_share=0.0, batch=False):
    """The run's config: the model `api` at the endpoint, and with `batch` the model `batch` through its Batch API."""
    api = {
        "base_url": f"http://127.0.0.1:{endpoint.server_address[1]}/v1",
        "api_key_env": KEY_ENV,
        "max_retries": 0,
        "timeout_s": 10,
    }
    models = {"api": {"backend": "openai", "hf_id": "example/api-model", "api": api}}
    if batch:
        models["batch"] = {
            "backend": "openai",
            "hf_id": "example/batch-model",
            "api": {**api, "batch": True, "batch_poll_s": 0.05},
        }
    config = {
        "models": models,
        "generation": {"max_failed_share": max_failed_share},
        "datasets": {
            "multiq": {
                "path": str(shared_data / "multiq"),
                "languages": ["en", "de"],
                "items": {"ids": ["gpt-1", "gpt-2"]},
            }
        },
        "evaluators": {
            "language_id": {"model": {"path": str(offline_models["lid176"])}, "label_scheme": "lid176"},
            "judge": {"datasets": []},
            "knowledge": {"datasets": []},
            "language_confusion": {"datasets": []},
        },
        "translator": {"datasets": []},
        "output": {"bootstrap_resamples": 0},
    }
    (workdir / "config.yaml").write_text(yaml.safe_dump(config))
    return [
        "--snakefile",
        str(REPO / "Snakefile"),
        "--directory",
        str(workdir),
        "--configfile",
        str(workdir / "config.yaml"),
        "--cores",
        "2",
    ]


def test_a_run_with_failed_requests_ends_non_zero_and_the_next_run_sends_only_those(
    tmp_path, endpoint, offline_models, shared_data
):
    run = configure(tmp_path, endpoint, offline_models, shared_data)
    failed = multiq_prompt(shared_data, "gpt-2", "de")
    endpoint.failing = {failed}
    first = snakemake(*run, "--keep-going")
    assert first.returncode != 0
    log = (tmp_path / "logs/generate/multiq/api.log").read_text()
    assert (
        "1 of 4 requests failed" in log
        and "item gpt-2 (de): InternalServerError: 500" in log
        and "the server is having a bad day" in log
    )
    assert not (tmp_path / "results/responses/multiq/api.parquet").exists(), "no output that bakes the failure in"
    assert "Incorrect API key provided: [redacted]" in log, "the error the server sent, without the key it quoted"
    assert_nowhere(tmp_path, [API_KEY], first.output)
    assert sum(endpoint.seen.values()) == 4

    endpoint.failing = set()  # the server recovered
    second = snakemake(*run)
    assert second.returncode == 0, second.output[-3000:]
    assert endpoint.seen[failed] == 2 and sum(endpoint.seen.values()) == 5, "only the failed request is sent again"
    assert (tmp_path / "results/tables/results.csv").exists()
    # The usage table says what the second run cost: the one request sent again, with the
    # endpoint's 10 + 5 tokens; the three answered the first time came from the cache.
    with open(tmp_path / "results/tables/usage.csv", encoding="utf-8", newline="") as handle:
        (row,) = [row for row in csv.DictReader(handle) if row["stage"] == "generate"]
    assert (row["called_model"], row["requests"], row["cached_requests"]) == ("example/api-model", "1", "3")
    assert (row["prompt_tokens"], row["completion_tokens"], row["failures"]) == ("10", "5", "0")


def test_failures_a_user_accepts_are_counted_as_errors_not_as_answers_and_no_echoed_key_is_kept(
    tmp_path, endpoint, offline_models, shared_data, monkeypatch
):
    """An accepted failure is `error` in the tables, its stored reason without the key the server
    quoted; a revoked key (401) stops the job with the reason in its log, again without the key.

    The model `batch` meets the key in every error a batch holds: a line that failed (HTTP 500, in
    the error file), a line the batch could not run (a top-level error in the error file) and the
    batch's own `errors`, which the request it left unanswered (it expired) is given. No file of
    the run (logs, caches, batch state, tables, explorer) holds the key."""
    run = configure(tmp_path, endpoint, offline_models, shared_data, max_failed_share=0.75, batch=True)
    endpoint.failing = {multiq_prompt(shared_data, "gpt-2", "de")}
    batch_failing = {multiq_prompt(shared_data, "gpt-2", "en"): 500}
    batch_failing[multiq_prompt(shared_data, "gpt-1", "de")] = LineError("batch_expired", "not run in time")
    endpoint.batch_reply = lambda prompt: batch_failing.get(prompt, "Paris is the answer.")
    endpoint.final_status, endpoint.answered_before_end = "expired", 3  # the fourth line (gpt-2, de) unanswered
    endpoint.batch_errors = ["the batch ran out of time"]
    result = snakemake(*run)
    assert result.returncode == 0, result.output[-3000:]
    assert (
        "1 of 4 requests failed, within generation.max_failed_share = 0.75"
        in (tmp_path / "logs/generate/multiq/api.log").read_text()
    )
    with open(tmp_path / "results/tables/results.csv", encoding="utf-8") as handle:
        rows = {(row["lang"], row["metric"]): row for row in csv.DictReader(handle) if row["model"] == "api"}
    german = rows[("de", "fidelity_same")]
    assert (german["n_items"], german["n_excluded"], german["excluded_reasons"]) == ("1", "1", "error:1")
    assert rows[("en", "fidelity_same")]["n_excluded"] == "0"
    echoed = "Incorrect API key provided: [redacted] (Authorization: Bearer [redacted])"
    errors = [e for e in pq.read_table(tmp_path / "results/responses/multiq/api.parquet")["error"].to_pylist() if e]
    assert errors and all(echoed in e for e in errors)
    batch_errors = pq.read_table(tmp_path / "results/responses/multiq/batch.parquet")["error"].to_pylist()
    assert [e.split(":")[0] for e in batch_errors if e] == [
        "batch batch_1, HTTP 500",
        "batch batch_1, error batch_expired",
        "batch batch_1 ended expired without an answer to this request (1 of 4 completed, 2 failed)",
    ]
    assert all(echoed in e for e in batch_errors if e)
    assert list((tmp_path / "results/explorer").rglob("*.js")), "the explorer's data is among the files searched"

    # The key is revoked: the endpoint answers 401, quoting the revoked key; the job stops, and says why.
    monkeypatch.setenv(KEY_ENV, REVOKED_KEY)
    endpoint.revoked = True
    refused = snakemake(*run, "results/responses/multiq/api.parquet", "--force")
    assert refused.returncode != 0
    log = (tmp_path / "logs/generate/multiq/api.log").read_text()
    assert "AuthenticationError: 401" in log and "Incorrect API key provided: [redacted]" in log, log[-3000:]
    assert_nowhere(tmp_path, [API_KEY, REVOKED_KEY], refused.output)


def assert_nowhere(folder, secrets, console: str) -> None:
    """No file under `folder` (logs, tables, caches, .snakemake/metadata) and not the console holds any of `secrets`."""
    files = [path for path in folder.rglob("*") if path.is_file()]
    assert any(".snakemake/metadata" in str(path) for path in files)
    for secret in secrets:
        assert secret not in console
        leaks = [str(path.relative_to(folder)) for path in files if secret.encode() in path.read_bytes()]
        assert not leaks, f"the key is in {leaks}"
