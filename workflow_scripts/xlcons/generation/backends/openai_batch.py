"""The openai backend in Batch API mode (`api.batch: true`): one uploaded file instead of one call per request.

OpenAI's Batch API answers a file of chat completion requests within 24 hours at half the
price. The job writes the requests its cache lacks as a JSONL batch input file (one line per
request: `custom_id` is the request's cache key, `body` exactly what the direct mode sends,
OpenAIBackend.request_kwargs), uploads it, creates the batch, records the batch in a state file
beside the job's cache (xlcons.generation.backends.batch_state) before it first polls, polls
every `api.batch_poll_s` seconds, and, when the batch ends, reads its output and error files:
each line becomes a Result as a direct answer would (parse_completion, the same usage and
prompt-cache counts), so the generation stage caches, counts and checks them as it does any.

Started again after a kill, the job finds the batch in the state file and polls it again
instead of submitting its requests twice. Which requests a recorded batch covers is in the
state file: a batch still pending that holds requests this run needs is resumed (answers to
requests the run no longer asks for, after a config change, are dropped); the requests no
pending batch holds go into a new batch. Lines that failed (the error file, a status other
than 200) and requests a batch that expired, failed or was cancelled left unanswered are
`error` results: the cache does not keep them, `generation.max_failed_share` decides whether
the job fails, and a rerun submits a batch of only those.

With the run's limits set (xlcons.budget), the requests a new batch would hold are admitted
against them before the upload, each at its bound (`request_bound`): those that fit are
submitted, the rest held back (said in the job's log and counted as `held_requests` in its
usage ledger), and once the submitted ones are answered and cached the job stops with
BudgetHeld, so a batch never takes the run past a limit. Pending batches resumed were paid already.

Calls to the Files and Batches endpoints are retried like a direct request (tenacity, rate
limits and server errors); creating a batch is retried on rate limits only, since a create that
timed out may have created a batch, and a second one would be paid twice. A call that still
fails stops the job, with its batches recorded: running it again resumes them.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime, timezone
from typing import Any, TypeVar

import openai

from xlcons import budget
from xlcons.generation.backends.batch_state import COLLECTED, LOST, BatchEntry, BatchState, keys_digest
from xlcons.generation.backends.openai_api import (
    FATAL_ERRORS,
    OpenAIBackend,
    describe_error,
    refused_for_length,
)
from xlcons.generation.base import GenerationError, ModelSpec, Request, Result
from xlcons.generation.registry import backend_info
from xlcons.progress import Progress
from xlcons.redaction import redact
from xlcons.schemas import PROMPT_TOO_LONG

log = logging.getLogger(__name__)

CHAT_ENDPOINT = "/v1/chat/completions"
COMPLETION_WINDOW = "24h"  # the only window the Batch API offers
# A batch in one of these states changes no more; its output and error files are final.
FINAL_STATUSES = ("completed", "expired", "failed", "cancelled")
# A batch found at the endpoint but not in the state file (OpenAIBatchBackend._unrecorded) is taken
# over when it was created this recently and still holds or has answers (not failed or cancelled).
ADOPT_WITHIN_S = 48 * 3600.0
UNADOPTABLE = ("failed", "cancelling", "cancelled")
# The chat format's tokens around a message (role, start and end markers) and before the answer,
# at most: part of a request's bound for the budget (OpenAIBatchBackend.request_bound).
CHAT_FORMAT_TOKENS = 8
# Log a waiting batch's status at least this often (seconds), even when nothing changed.
HEARTBEAT_S = 600.0

T = TypeVar("T")


def _rate_limited(error: BaseException) -> bool:
    return isinstance(error, openai.RateLimitError)


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _counts(batch: Any) -> dict[str, int]:
    counts = getattr(batch, "request_counts", None)
    return {name: int(getattr(counts, name, 0) or 0) for name in ("completed", "failed", "total")}


class OpenAIBatchBackend(OpenAIBackend):
    """Answers every request of a generate call through batches; chunking is left to the batches."""

    def __init__(self, spec: ModelSpec, *, backoff_s: float = 1.0):
        super().__init__(spec, backoff_s=backoff_s)
        options = spec.options
        info = backend_info(spec.backend)  # unset at their defaults in a job's params (quiet_defaults)
        self.poll_s = float(options.get("batch_poll_s") or info.option_default("batch_poll_s"))
        self.max_requests = int(options.get("batch_max_requests") or info.option_default("batch_max_requests"))
        # Every missing request in one generate call: the answers of a batch arrive at once, and a
        # killed job loses none of them (the batch stays at the provider, recorded in the state file).
        self.chunk_size = sys.maxsize
        self.endpoint = str(self.client.base_url)
        # Batches whose every answer this backend has handed over: marked collected in the state
        # file at the next call or at close, when the stage has saved those answers in its cache.
        self._handed_over: dict[str, tuple[str, dict[str, int]]] = {}

    # -- the state file

    def _state(self) -> BatchState:
        if not self.spec.state_path:
            raise GenerationError(
                f"model '{self.spec.name}': api.batch needs a job that keeps a cache of answers (a model's "
                "generation, the judge, the information evaluator); the LLM translator asks sentence by sentence: "
                "set api.batch: false for it"
            )
        return BatchState(self.spec.state_path)

    def _mark_handed_over(self, state: BatchState) -> None:
        for batch_id, (outcome, counts) in self._handed_over.items():
            state.mark(batch_id, COLLECTED, outcome, counts)
        self._handed_over.clear()

    # -- calls to the endpoint

    def _call(
        self, what: str, call: Callable[..., T], retryable: Callable[[BaseException], bool] | None = None, **kwargs: Any
    ) -> T:
        """One call to the Files or Batches endpoint, retried; what still fails stops the job."""
        retrying = self.retrying(retryable) if retryable else self.retrying()
        try:
            try:
                return retrying(call, **kwargs)
            finally:
                self._count(retries=max(0, retrying.statistics.get("attempt_number", 1) - 1))
        except FATAL_ERRORS as error:
            raise GenerationError(
                f"model '{self.spec.name}': the endpoint refused {what}, {describe_error(error)}; check the key "
                "(api.api_key_env), the model name (api.model), the endpoint (api.base_url) and that it offers the "
                "Batch API (api.batch)"
            ) from None
        except Exception as error:  # noqa: BLE001 - named, then the job stops with its batches recorded
            raise GenerationError(
                f"model '{self.spec.name}': {what} failed: {describe_error(error)}; every batch submitted so far "
                f"is recorded in {self.spec.state_path}, so running the job again resumes it"
            ) from None

    def batch_line(self, request: Request) -> dict[str, Any]:
        """One line of the batch input file: the request's body as the direct mode would send it."""
        kwargs = self.request_kwargs(request)
        extra = kwargs.pop("extra_body", None) or {}  # the client merges it into the body; so does the line
        return {"custom_id": request.key, "method": "POST", "url": CHAT_ENDPOINT, "body": {**kwargs, **extra}}

    def _unrecorded(self, state: BatchState, digest: str) -> Any | None:
        """A batch at the endpoint that this model's job created for exactly these requests (its
        metadata's key digest) and the state file does not know: the job stopped after creating
        it and before recording it (a create that timed out on the client but reached the server,
        a kill in between). Created within ADOPT_WITHIN_S and not failed or cancelled; None when
        there is none, or the endpoint cannot list its batches."""
        known = {entry.id for entry in state.entries}
        horizon = time.time() - ADOPT_WITHIN_S
        try:
            for batch in self.client.batches.list(limit=100):  # newest first; pages as it goes
                if (batch.created_at or 0) < horizon:
                    break
                metadata = batch.metadata or {}
                if (
                    metadata.get("xlcons_keys_sha256") == digest
                    and metadata.get("xlcons_model") == self.spec.name[:500]
                    and batch.status not in UNADOPTABLE
                    and batch.id not in known
                ):
                    return batch
        except Exception as error:  # noqa: BLE001 - no list (another provider): submit as usual
            log.info("%s: the endpoint's batches cannot be listed (%s)", self.spec.name, describe_error(error))
        return None

    def _submit(self, state: BatchState, requests: Sequence[Request]) -> BatchEntry:
        keys = [request.key for request in requests]
        digest = keys_digest(keys)
        found = self._unrecorded(state, digest)
        if found is not None:
            entry = BatchEntry(found.id, self.endpoint, self.model, found.input_file_id, _now(), keys)
            state.add(entry)
            log.warning(
                "%s: batch %s (%s) holds exactly these %d requests but was not recorded in %s (an earlier run "
                "stopped right after creating it); recorded and resumed instead of submitting them again",
                self.spec.name,
                found.id,
                found.status,
                len(keys),
                state.path,
            )
            return entry
        data = "".join(json.dumps(self.batch_line(r), ensure_ascii=False) + "\n" for r in requests).encode()
        upload = self._call(
            "uploading the batch input file",
            self.client.files.create,
            file=(f"xlcons-{self.spec.name}-{digest[:12]}.jsonl", data, "application/jsonl"),
            purpose="batch",
        )
        batch = self._call(
            "creating the batch",
            self.client.batches.create,
            retryable=_rate_limited,
            input_file_id=upload.id,
            endpoint=CHAT_ENDPOINT,
            completion_window=COMPLETION_WINDOW,
            metadata={"xlcons_model": self.spec.name[:500], "xlcons_keys_sha256": digest},
        )
        entry = BatchEntry(batch.id, self.endpoint, self.model, upload.id, _now(), keys)
        state.add(entry)  # before the first poll: a killed job finds it
        log.info(
            "%s: submitted batch %s with %d requests (input file %s); recorded in %s",
            self.spec.name,
            batch.id,
            len(keys),
            upload.id,
            state.path,
        )
        return entry

    def _retrieve(self, entry: BatchEntry) -> Any | None:
        """The batch as the endpoint sees it now, or None when the endpoint no longer knows it."""
        try:
            return self.client.batches.retrieve(entry.id)
        except openai.NotFoundError:
            return None
        except Exception:  # noqa: BLE001 - retried like any call (a 404 above is an answer, not a failure)
            return self._call(f"looking at batch {entry.id}", self.client.batches.retrieve, batch_id=entry.id)

    def _lines(self, file_id: str | None) -> list[dict[str, Any]]:
        if not file_id:
            return []
        content = self._call(f"downloading file {file_id}", self.client.files.content, file_id=file_id)
        lines = []
        for number, line in enumerate(content.text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError as error:  # its request is then one the batch did not answer
                log.warning("%s: file %s, line %d is not JSON (%s); skipped", self.spec.name, file_id, number, error)
                continue
            if isinstance(record, dict):
                lines.append(record)
            else:
                log.warning("%s: file %s, line %d is not a JSON object; skipped", self.spec.name, file_id, number)
        return lines

    # -- one line of the output or error file

    def _line_result(self, batch_id: str, line: Mapping[str, Any]) -> Result:
        key = str(line.get("custom_id"))
        response = line.get("response") or {}
        body = response.get("body") if isinstance(response, Mapping) else None
        status = response.get("status_code") if isinstance(response, Mapping) else None
        if line.get("error") or status != 200:
            error = line.get("error") or (body.get("error") if isinstance(body, Mapping) else None) or {}
            if not isinstance(error, Mapping):  # an error given as bare text
                error = {"message": error}
            code, message = error.get("code"), error.get("message") or body
            if status == 400 and refused_for_length(code, message):
                why = f"the endpoint found the prompt too long for the model (batch {batch_id}): {message}"
                return Result(key, "", PROMPT_TOO_LONG, error=redact(why))
            where = f"HTTP {status}" if status else f"error {code}"
            return Result(key, "", "error", error=redact(f"batch {batch_id}, {where}: {message}"))
        if not isinstance(body, Mapping):  # read as a direct answer is (parse_completion), whatever its shape
            return Result(key, "", "error", error=f"batch {batch_id}: unreadable response: the body is not an object")
        return self.completion_result(key, body)

    def _repeated(self, batch_id: str, repeated: Mapping[str, list[Result]]) -> dict[str, Result]:
        """The result of each request a batch answered more than once: the answer when every
        copy says the same, else a failed request (which answer counts is unknown; a rerun asks
        again); said in the log either way."""
        results = {}
        for key, copies in repeated.items():
            texts = {(copy.response, copy.finish_reason) for copy in copies}
            if len(texts) == 1:
                results[key] = copies[0]
                continue
            results[key] = Result(
                key,
                "",
                "error",
                sum(copy.prompt_tokens or 0 for copy in copies),  # each copy was billed
                sum(copy.completion_tokens or 0 for copy in copies),
                error=f"batch {batch_id} holds {len(copies)} different answers to this request (custom_id {key}); "
                "none kept",
            )
        if repeated:
            log.warning(
                "%s: batch %s answered %d requests more than once (custom_id %s); the same answer twice is kept once, "
                "%d with different answers are recorded as failed requests",
                self.spec.name,
                batch_id,
                len(repeated),
                ", ".join(list(repeated)[:5]) + (", ..." if len(repeated) > 5 else ""),
                sum(result.finish_reason == "error" for result in results.values()),
            )
        return results

    def _collect(self, batch: Any, entry: BatchEntry, wanted: Mapping[str, Request]) -> Iterator[Result]:
        """The results of a finished batch for the requests of `wanted` it holds."""
        answered: dict[str, Result] = {}
        repeated: dict[str, list[Result]] = {}  # a custom_id answered more than once
        for line in self._lines(batch.output_file_id) + self._lines(getattr(batch, "error_file_id", None)):
            result = self._line_result(batch.id, line)
            if result.key in answered and "error" not in (result.finish_reason, answered[result.key].finish_reason):
                repeated.setdefault(result.key, [answered[result.key]]).append(result)
            if result.key not in answered or answered[result.key].finish_reason == "error":
                answered[result.key] = result
        answered.update(self._repeated(batch.id, repeated))
        counts = _counts(batch)
        reasons = "; ".join(
            str(getattr(error, "message", error)) for error in (getattr(batch.errors, "data", None) or [])
        )
        # The batch's own errors are the endpoint's words, which may quote the key: redacted like every error.
        missing = redact(
            f"batch {batch.id} ended {batch.status} without an answer to this request "
            f"({counts['completed']} of {counts['total']} completed, {counts['failed']} failed)"
            + (f": {reasons}" if reasons else "")
        )
        asked = [key for key in entry.keys if key in wanted]
        unused = len(set(answered) - set(asked))
        if unused:
            log.info(
                "%s: batch %s answered %d requests this run no longer asks for; not kept",
                self.spec.name,
                batch.id,
                unused,
            )
        for key in asked:
            yield answered.get(key) or Result(key, "", "error", error=missing)
        self._handed_over[batch.id] = (batch.status, counts)

    # -- the generate call

    def _resumable(self, state: BatchState, wanted: Mapping[str, Request]) -> list[BatchEntry]:
        """The pending batches of the state file that hold requests of `wanted`, as the endpoint still has them."""
        resumed = []
        for entry in state.pending():
            needed = sum(key in wanted for key in entry.keys)
            elsewhere = entry.endpoint != self.endpoint or entry.model != self.model
            if elsewhere or not needed:
                log.info(
                    "%s: batch %s (%s at %s) %s; left as it is",
                    self.spec.name,
                    entry.id,
                    entry.model,
                    entry.endpoint,
                    "is another model's or endpoint's" if elsewhere else "holds no request of this call",
                )
                continue
            if self._retrieve(entry) is None:
                log.warning(
                    "%s: batch %s, recorded in %s, is unknown to %s; its %d requests are submitted again",
                    self.spec.name,
                    entry.id,
                    state.path,
                    self.endpoint,
                    needed,
                )
                state.mark(entry.id, LOST)
                continue
            log.info(
                "%s: resuming batch %s (submitted %s; %d of its %d requests still missing) instead of submitting again",
                self.spec.name,
                entry.id,
                entry.submitted_at,
                needed,
                entry.requests,
            )
            resumed.append(entry)
        return resumed

    def generate(self, requests: Sequence[Request]) -> Iterator[Result]:
        state = self._state()
        self._mark_handed_over(state)  # the previous call's answers are in the cache by now
        wanted = {request.key: request for request in requests}
        batches = self._resumable(state, wanted)
        covered = {key for entry in batches for key in entry.keys}
        rest = [request for request in wanted.values() if request.key not in covered]
        # The run's limits (xlcons.budget): a batch is paid whatever is checked after, so only the
        # requests whose bound fits go out; the stage stops the job once they are answered.
        admitted = rest[: budget.admit(self.model, [self.request_bound(request) for request in rest])]
        for start in range(0, len(admitted), self.max_requests):
            batches.append(self._submit(state, admitted[start : start + self.max_requests]))
        yield from self._wait(batches, wanted)
        if len(admitted) < len(rest) and (held := budget.held()) is not None:
            raise held

    def request_bound(self, request: Request) -> tuple[int, int]:
        """At most how many (prompt, completion) tokens a request takes: a byte-level BPE tokenizer
        (OpenAI's, and most) writes at most one token per UTF-8 byte of a message's text, plus
        the chat format's tokens around each message and before the answer; and `max_tokens`."""
        prompt = sum(len(str(message["content"]).encode()) + CHAT_FORMAT_TOKENS for message in request.messages)
        return prompt + CHAT_FORMAT_TOKENS, request.max_new_tokens

    def _wait(self, batches: list[BatchEntry], wanted: Mapping[str, Request]) -> Iterator[Result]:
        """Poll the batches until each has ended, handing over each one's results as it ends."""
        waiting = {entry.id: entry for entry in batches}
        total = sum(entry.requests for entry in batches)
        progress = Progress(f"{self.spec.name} batches", total, unit="requests")
        seen: dict[str, tuple[str, int, int]] = {}
        logged: dict[str, float] = {}
        try:
            while waiting:
                for batch_id, entry in list(waiting.items()):
                    batch = self._retrieve(entry)
                    if batch is None:
                        raise GenerationError(
                            f"model '{self.spec.name}': batch {batch_id} disappeared from {self.endpoint} while "
                            "it was running; run the job again to submit its requests anew"
                        )
                    counts = _counts(batch)
                    now = (batch.status, counts["completed"], counts["failed"])
                    done = counts["completed"] + counts["failed"]
                    progress.update(max(0, done - sum(seen.get(batch_id, ("", 0, 0))[1:])))
                    if now != seen.get(batch_id) or time.monotonic() - logged.get(batch_id, 0.0) >= HEARTBEAT_S:
                        log.info(
                            "%s: batch %s %s, %d of %d requests completed, %d failed",
                            self.spec.name,
                            batch_id,
                            batch.status,
                            counts["completed"],
                            counts["total"],
                            counts["failed"],
                        )
                        logged[batch_id] = time.monotonic()
                    seen[batch_id] = now
                    if batch.status in FINAL_STATUSES:
                        del waiting[batch_id]
                        yield from self._collect(batch, entry, wanted)
                if waiting:
                    time.sleep(self.poll_s)
        finally:
            progress.finish()

    def close(self) -> None:
        if self._handed_over and self.spec.state_path:
            self._mark_handed_over(BatchState(self.spec.state_path))
        super().close()
