"""A total deadline for one HTTP request of the openai client (what `api.timeout_s` bounds).

The HTTP stack under the `openai` client (httpx2 over httpcore2) has timeouts for each step
only: connecting, and each read or write on the socket. A server that sends a byte every few
seconds never trips them, so one request could last minutes, or forever. Here every connect,
read and write of a thread inside `deadline(seconds)` gets at most the time left until the
deadline, and none starts past it: the request then fails with the client's own timeout error
(`openai.APITimeoutError`), which the backend retries and records like any timeout.

The bound is kept by the connections' network backend, the layer that owns the sockets:
`bound_requests(http_client)` wraps the backend of each connection pool of an httpx2 client
(the direct one and any proxy's), so a request keeps its deadline through the headers and
the body, however the server paces them, while the client reads proxies from the environment
as it always does. A thread outside `deadline` is bounded per step only, as before.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import httpcore2
import httpx2

_local = threading.local()


@contextmanager
def deadline(seconds: float | None) -> Iterator[None]:
    """Within the block, this thread's requests through a bound client end `seconds` from now at
    the latest (None: no deadline)."""
    outer = getattr(_local, "end", None)
    _local.end = None if seconds is None else time.monotonic() + seconds
    try:
        yield
    finally:
        _local.end = outer


def _left(timeout: float | None, error: type[Exception]) -> float | None:
    """The timeout for the next step: the step's own, or the time left before the deadline when
    that is shorter; past the deadline, `error`."""
    end = getattr(_local, "end", None)
    if end is None:
        return timeout
    left = end - time.monotonic()
    if left <= 0:
        raise error("the request ran past its deadline (api.timeout_s)")
    return left if timeout is None else min(timeout, left)


class _BoundStream(httpcore2.NetworkStream):
    def __init__(self, stream: httpcore2.NetworkStream):
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, _left(timeout, httpcore2.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, _left(timeout, httpcore2.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None) -> Any:
        return _BoundStream(
            self._stream.start_tls(ssl_context, server_hostname, _left(timeout, httpcore2.ConnectTimeout))
        )

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class _BoundBackend(httpcore2.NetworkBackend):
    def __init__(self, backend: httpcore2.NetworkBackend):
        self._backend = backend

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.NetworkStream:
        timeout = _left(timeout, httpcore2.ConnectTimeout)
        return _BoundStream(self._backend.connect_tcp(host, port, timeout, local_address, socket_options))

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore2.NetworkStream:
        timeout = _left(timeout, httpcore2.ConnectTimeout)
        return _BoundStream(self._backend.connect_unix_socket(path, timeout, socket_options))

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


def bound_requests(client: httpx2.Client) -> httpx2.Client:
    """`client` with every connection pool's network backend bounded by `deadline`; returns it.

    Raises RuntimeError when the client is not built as httpx2 builds it (another version's
    internals), rather than leaving requests without their deadline unnoticed."""
    transports = [client._transport, *client._mounts.values()]
    for transport in transports:
        if transport is None:  # a pattern the environment exempts from its proxy (NO_PROXY)
            continue
        pool = getattr(transport, "_pool", None)
        backend = getattr(pool, "_network_backend", None)
        if not isinstance(backend, httpcore2.NetworkBackend):
            raise RuntimeError(
                f"cannot bound the requests of {type(transport).__name__} (httpx2 {httpx2.__version__}, httpcore2 "
                f"{httpcore2.__version__}): its connection pool has no network backend where expected"
            )
        if not isinstance(backend, _BoundBackend):
            pool._network_backend = _BoundBackend(backend)
    return client
