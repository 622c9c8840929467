"""The generation job: prompts of one data set in, one response table per language out.

The model is loaded only when something is missing from the cache, once, and serves
every language; identical prompts (MultiQ's he/iw, zh/zh-CN) are generated once. Results
reach the cache as the backend yields them, so a killed job resumes where it stopped.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from xlcons import budget
from xlcons.generation.base import (
    Backend,
    GenerationError,
    ModelSpec,
    Request,
    Result,
    build_requests,
    decoding_hash,
    effective_max_new_tokens,
    finalize,
    ledger_name,
    load_backend,
)
from xlcons.generation.cache import ResponseCache
from xlcons.generation.registry import backend_info
from xlcons.progress import Progress
from xlcons.schemas import PROMPT_TOO_LONG, PROMPTS, RESPONSES, UNANSWERED_REASONS
from xlcons.shards import ShardError, merge_rows, shard_rows
from xlcons.tables import read_table, write_table
from xlcons.usage import record

log = logging.getLogger(__name__)


def _chunks(requests: Sequence[Request], size: int) -> Iterable[Sequence[Request]]:
    for start in range(0, len(requests), size):
        yield requests[start : start + size]


def log_engine_stats(spec: ModelSpec, backend: Backend, part: str = "generate") -> dict[str, int]:
    """Put the engine's counters in the job log (vLLM: what the prefix cache saved) and in the
    job's usage ledger under `part` (prompt tokens served from a prefix cache, API retries)."""
    stats = backend.engine_stats()
    record(ledger_name(spec), part, cached_tokens=stats.get("cached_prompt_tokens"), retries=stats.get("retries"))
    if stats.get("prompt_tokens"):
        log.info(
            "%s: prefix cache served %d of %d prompt tokens (%.1f%%); %d computed",
            spec.name,
            stats["cached_prompt_tokens"],
            stats["prompt_tokens"],
            100 * stats["cached_prompt_tokens"] / stats["prompt_tokens"],
            stats["computed_prompt_tokens"],
        )
    return stats


def backend_state_path(cache_path: Path) -> Path:
    """Where the backend of the job owning the cache at `cache_path` keeps what must outlive its
    process (ModelSpec.state_path; the Batch API's submitted batches): `<cache>.batches.json` beside
    the cache, one per cache, so jobs that share a cache folder never share it."""
    return cache_path.with_name(cache_path.stem + ".batches.json")


def generate_missing(
    spec: ModelSpec,
    requests: Sequence[Request],
    cache: ResponseCache,
    backend_factory: Callable[[ModelSpec], Backend] = load_backend,
    job: str | None = None,
    part: str = "generate",
) -> dict[str, Result]:
    """Answer every request not in the cache; returns this run's results that the cache does not
    keep (failed requests, prompts too long for the model: ResponseCache.put) by key. Progress
    lines (xlcons.progress) go to the console and the log under `job` (default: the model's name).
    The job's usage ledger (xlcons.usage) counts, under `part`, the distinct requests sent and
    their tokens and failures, and the distinct requests the cache answered. Before each chunk the
    run's budget is checked (xlcons.budget): past a limit the job stops with BudgetExceeded, the
    answers received so far flushed to the cache (a Batch API backend sends only the requests
    whose bound fits, xlcons.budget.admit, and stops with BudgetHeld once they are answered)."""
    distinct = {request.key for request in requests}
    unique = list({request.key: request for request in requests if request.key not in cache}.values())
    name = ledger_name(spec)
    record(name, part, cached_requests=len(distinct) - len(unique))
    unkept: dict[str, Result] = {}
    if not unique:
        log.info("%s: all %d requests answered from the cache", spec.name, len(requests))
        return unkept
    log.info("%s: %d of %d requests to generate (%d cached)", spec.name, len(unique), len(requests), len(cache))
    started = time.perf_counter()
    backend = backend_factory(replace(spec, state_path=str(backend_state_path(cache.path))))
    progress = Progress(job or spec.name, len(unique))
    try:
        for chunk in _chunks(unique, backend.chunk_size):
            budget.check()  # the cache holds every answer so far (flushed after each chunk)
            for raw in backend.generate(chunk):
                result = finalize(raw)
                record(
                    name,
                    part,
                    requests=result.finish_reason != PROMPT_TOO_LONG,  # never sent: no room in the context
                    prompt_tokens=result.prompt_tokens if result.finish_reason != PROMPT_TOO_LONG else 0,
                    completion_tokens=result.completion_tokens,
                    failures=result.finish_reason == "error",
                )
                cache.put(result)
                if result.finish_reason in UNANSWERED_REASONS:
                    unkept[result.key] = result
                progress.update(tokens=result.completion_tokens)
            cache.flush()
    except budget.BudgetHeld as held:  # requests the budget kept from a batch: in the ledger too
        record(name, part, held_requests=held.held)
        raise
    finally:
        progress.finish()
        cache.flush()
        log_engine_stats(spec, backend, part)
        backend.close()
        budget.save()  # a job that stops here keeps what it sent beside its usage output
    seconds = time.perf_counter() - started
    failed = sum(result.finish_reason == "error" for result in unkept.values())
    log.info(
        "%s: generated %d in %.1f s (%.2f items/s), %d failed, %d too long for the model's context",
        spec.name,
        len(unique),
        seconds,
        len(unique) / seconds,
        failed,
        len(unkept) - failed,
    )
    return unkept


def response_table(
    spec: ModelSpec,
    rows: Sequence[Mapping[str, Any]],
    requests: Sequence[Request],
    results: Mapping[str, Result],
    max_new_tokens: int,
) -> pa.Table:
    """The RESPONSES rows for prompt rows, in prompt order."""
    model_hash = decoding_hash(spec, max_new_tokens)
    records = []
    for row, request in zip(rows, requests):
        result = results[request.key]
        records.append(
            {
                "dataset": row["dataset"],
                "model": spec.name,
                "item_id": row["item_id"],
                "lang": row["lang"],
                "prompt": row["prompt"],
                "response": result.response,
                "finish_reason": result.finish_reason,
                "prompt_tokens": result.prompt_tokens,
                "completion_tokens": result.completion_tokens,
                "backend": spec.backend,
                "decoding_hash": model_hash,
                "error": result.error,
            }
        )
    return pa.Table.from_pylist(records, schema=RESPONSES)


def run_generation(
    spec: ModelSpec,
    prompts: pa.Table,
    dataset_max_new_tokens: int,
    cache_path: Path | str,
    backend_factory: Callable[[ModelSpec], Backend] = load_backend,
    job: str | None = None,
    part: str = "generate",
) -> pa.Table:
    """Responses for every prompt row, generating only what the cache lacks (`job` names its
    progress lines, `part` its entry in the usage ledger)."""
    max_new_tokens = effective_max_new_tokens(spec, dataset_max_new_tokens)
    rows = prompts.to_pylist()
    requests = build_requests(spec, rows, max_new_tokens)
    cache = ResponseCache.of_job(cache_path)
    unkept = generate_missing(spec, requests, cache, backend_factory, job, part)
    results = {request.key: unkept.get(request.key) or cache.get(request.key) for request in requests}
    table = response_table(spec, rows, requests, results, max_new_tokens)
    log_prompts_too_long(spec.name, table)
    return table


def log_prompts_too_long(name: str, responses: pa.Table) -> list[dict[str, Any]]:
    """Name in the job log every prompt the model could not take (finish reason `prompt_too_long`):
    item, language, its token count and the model's context. Every run of the job says so, the
    ones answered from the cache too, since its outputs hold them. Returns those rows."""
    rows = [
        row
        for row in responses.select(["item_id", "lang", "finish_reason", "error"]).to_pylist()
        if row["finish_reason"] == PROMPT_TOO_LONG
    ]
    if rows:
        lines = "".join(f"\n  item {row['item_id']} ({row['lang']}): {row['error']}" for row in rows)
        log.warning(
            "model '%s': %d of %d prompts do not fit the model's context; they were not generated, are recorded as "
            "No answer (finish_reason %s) and are excluded from the scores (shorten them, or use a model "
            "with a longer context):%s",
            name,
            len(rows),
            responses.num_rows,
            PROMPT_TOO_LONG,
            lines,
        )
    return rows


class FailedRequests(GenerationError):
    """More of a job's requests failed than ``generation.max_failed_share`` allows."""


def check_failures(
    name: str, reasons: Sequence[str | None], rows: Sequence[Mapping[str, Any]], max_failed_share: float, what: str
) -> None:
    """Raise FailedRequests when the share of `error` results is above the threshold.

    Called after the answers are cached and before any output is written: the job fails,
    Snakemake runs it again on the next invocation, and only the failed requests (which the
    cache does not keep) are sent again.
    """
    failed = [row for reason, row in zip(reasons, rows) if reason == "error"]
    if not failed or len(failed) / len(reasons) <= max_failed_share:
        if failed:
            log.warning(
                "%s: %d of %d %s failed, within generation.max_failed_share = %s; kept as No answer",
                name,
                len(failed),
                len(reasons),
                what,
                max_failed_share,
            )
        return
    first = failed[0]
    where = f"{first.get('item_id')}" + (f" ({first['lang']})" if first.get("lang") else "")
    raise FailedRequests(
        f"model '{name}': {len(failed)} of {len(reasons)} {what} failed ({len(failed) / len(reasons):.1%}; "
        f"generation.max_failed_share is {max_failed_share}). First: item {where}: "
        f"{first.get('error')}. No output was written; the {len(reasons) - len(failed)} other answers are cached, so "
        "running the workflow again requests only the failed ones "
        "(raise generation.max_failed_share to keep them as No answer)."
    )


def _note_unused_records(spec: ModelSpec, prompts: pa.Table) -> None:
    """Warn about the rows of a recorded-responses file that this job does not score."""
    from xlcons.generation.backends.recorded import read_recorded, unused_records

    wanted = zip(prompts["item_id"].to_pylist(), prompts["lang"].to_pylist())
    for note in unused_records(read_recorded(spec.location), wanted):
        log.warning("model '%s': %s holds %s", spec.name, spec.location, note)


def run_generation_job(
    spec: ModelSpec,
    prompt_files: Sequence[Path | str],
    response_files: Sequence[Path | str],
    languages: Sequence[str],
    dataset_max_new_tokens: int,
    cache_path: Path | str,
    backend_factory: Callable[[ModelSpec], Backend] = load_backend,
    table_path: Path | str | None = None,
    max_failed_share: float = 0.0,
    shard: tuple[int, int] | None = None,
) -> None:
    """The rule's job: the prompts (any files, any languages) in; one response file per language
    of `languages` out, and, at `table_path`, all of them as one table (what the evaluators read).
    More failed requests than `max_failed_share` fail the job instead (check_failures).
    A shard job (`shard`: (k, N), xlcons.shards) answers the items of shard k only and writes
    just the table; `merge_generation_shards` makes the job's outputs of the N tables."""
    if len(languages) != len(response_files):
        raise ValueError(f"{len(response_files)} response files for {len(languages)} languages")
    prompts = pa.concat_tables([read_table(path, PROMPTS) for path in prompt_files])
    datasets = "+".join(dict.fromkeys(prompts["dataset"].to_pylist()))
    job = f"generate {datasets}/{spec.name}" if datasets else f"generate {spec.name}"
    if shard is not None:
        prompts = shard_rows(prompts, *shard)
        job += f" (shard {shard[0]} of {shard[1]})"
    responses = run_generation(spec, prompts, dataset_max_new_tokens, cache_path, backend_factory, job)
    check_failures(
        spec.name,
        responses["finish_reason"].to_pylist(),
        responses.select(["item_id", "lang", "error"]).to_pylist(),
        max_failed_share,
        "requests",
    )
    if backend_info(spec.backend).recorded and shard is None:
        _note_unused_records(spec, prompts)
    _write_responses(responses, languages, response_files, table_path)


def _write_responses(
    responses: pa.Table,
    languages: Sequence[str],
    response_files: Sequence[Path | str],
    table_path: Path | str | None,
) -> None:
    for lang, out in zip(languages, response_files):
        write_table(responses.filter(pc.equal(responses["lang"], lang)), out, RESPONSES)
    if table_path is not None:
        write_table(responses, table_path, RESPONSES)


def merge_generation_shards(
    prompt_files: Sequence[Path | str],
    shard_files: Sequence[Path | str],
    response_files: Sequence[Path | str],
    languages: Sequence[str],
    table_path: Path | str,
) -> None:
    """The merge of a sharded generation job: the shards' response tables in, the unsharded
    job's outputs out (one file per language and the table), rows in prompt order."""
    if len(languages) != len(response_files):
        raise ValueError(f"{len(response_files)} response files for {len(languages)} languages")
    prompts = pa.concat_tables([read_table(path, PROMPTS) for path in prompt_files])
    responses = merge_rows([read_table(path, RESPONSES) for path in shard_files], prompts, RESPONSES)
    if responses.num_rows != prompts.num_rows:
        raise ShardError(
            f"the {len(shard_files)} shard tables hold {responses.num_rows} answers for {prompts.num_rows} prompts: "
            "they were written from other prompts; run the shard jobs again"
        )
    _write_responses(responses, languages, response_files, table_path)
