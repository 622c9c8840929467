"""The information evaluator's LLM calls: one response cache and at most one loaded backend per job.

`Answerer.answer` turns (item, language, prompt) triples into results through the generation
machinery (`xlcons.generation.base.build_requests`, `xlcons.generation.stage.generate_missing`)
with the evaluator's ModelSpec: only what the cache lacks is generated, the backend is loaded
on the first miss and kept open for the whole job (extraction and verification share it),
and failed requests are returned, not cached. `check_failures` applies the job's
``max_failed_share`` to its distinct requests.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from xlcons.generation.base import Backend, ModelSpec, Request, Result, build_requests, effective_max_new_tokens
from xlcons.generation.cache import ResponseCache
from xlcons.generation.stage import check_failures, generate_missing, log_engine_stats

log = logging.getLogger(__name__)


class _KeepOpen(Backend):
    """The job's backend as handed to `generate_missing`, which closes what it gets: closing is left to the job."""

    name = "keep-open"

    def __init__(self, inner: Backend):
        super().__init__(inner.spec)
        self.inner = inner
        self.chunk_size = inner.chunk_size

    def generate(self, requests: Sequence[Request]) -> Iterator[Result]:
        return self.inner.generate(requests)

    def engine_stats(self) -> dict[str, int]:
        return {}  # the counters run over the whole job: logged once, when the job closes the backend

    def close(self) -> None:
        pass


class Answerer:
    """Answers prompts with one cache and (at most) one loaded backend for the whole job."""

    def __init__(self, spec: ModelSpec, cache_path: Path | str, backend_factory: Callable[[ModelSpec], Backend]):
        self.spec = spec
        self.cache = ResponseCache.of_job(cache_path)
        self.backend_factory = backend_factory
        self.backend: Backend | None = None
        self.requested: set[str] = set()
        self.generated = 0
        # Every distinct request's finish reason, with its item, for check_failures.
        self.outcomes: dict[str, tuple[str, dict[str, Any]]] = {}

    def _factory(self, spec: ModelSpec) -> Backend:
        if self.backend is None:
            self.backend = self.backend_factory(spec)
        return _KeepOpen(self.backend)

    def answer(self, prompts: Sequence[tuple[str, str, str]], max_new_tokens: int, what: str) -> list[Result]:
        """Results for (item_id, lang, prompt) triples, in their order; failed ones are returned, not cached."""
        if not prompts:
            return []
        cap = effective_max_new_tokens(self.spec, max_new_tokens)
        requests = build_requests(
            self.spec, [{"item_id": item, "lang": lang, "prompt": prompt} for item, lang, prompt in prompts], cap
        )
        missing = {request.key: request for request in requests if request.key not in self.cache}
        self.requested.update(request.key for request in requests)
        self.generated += len(missing)
        log.info(
            "%s: %d %s prompts (%d distinct), %d to generate",
            self.spec.name,
            len(requests),
            what,
            len({r.key for r in requests}),
            len(missing),
        )
        unkept = generate_missing(self.spec, requests, self.cache, self._factory, f"{self.spec.name} {what}", part=what)
        results = [unkept.get(request.key) or self.cache.get(request.key) for request in requests]
        for (item, lang, _), result in zip(prompts, results):
            self.outcomes.setdefault(
                result.key, (result.finish_reason, {"item_id": item, "lang": lang, "error": result.error})
            )
        return results

    def check_failures(self, max_failed_share: float | None) -> None:
        """Fail the job (FailedRequests) when more than `max_failed_share` of its distinct
        requests failed; their answers are cached, so a rerun asks only the failed ones."""
        if max_failed_share is not None and self.outcomes:
            reasons, rows = zip(*self.outcomes.values())
            check_failures(self.spec.name, reasons, rows, max_failed_share, "information evaluator requests")

    def close(self) -> None:
        if self.backend is not None:
            log_engine_stats(self.spec, self.backend, "extraction and verification")  # the engine's job-wide counters
            self.backend.close()
            self.backend = None


def evaluator_model_name(spec: ModelSpec) -> str:
    return str(spec.identity()["model"])


__all__ = ["Answerer", "evaluator_model_name"]
