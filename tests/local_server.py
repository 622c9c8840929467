"""A local HTTP server on 127.0.0.1 that stands in for an upstream repository in the tests.

It serves the released files of ../shared/data in the upstream layout (a *mirror*, what
``datasets.<data set>.source_url`` names), records every request, and answers 503 on demand.
"""

from __future__ import annotations

import functools
import shutil
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from xlcons.data_sources import DataFile, DataSource

# Where ../shared/data holds a copy of each source (the released outputs of GPT-3.5 sit inside
# the MAKQA folder there); the other models' released outputs have no copy here.
SHARED_COPIES = {"multiq": "multiq", "epitome": "epitome", "makqa": "makqa", "makqa-released-gpt35": "makqa/result_gpt35"}


def shared_copy(shared_data: Path, source: DataSource) -> Path:
    return shared_data / SHARED_COPIES[source.name]


class _Handler(SimpleHTTPRequestHandler):
    """Serves files from a directory; records every request; answers 503 when told to."""

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        server: LocalServer = self.server.owner
        with server.lock:
            server.requests.append(self.path)
            failures_left = server.failures.get(self.path, 0)
            if failures_left:
                server.failures[self.path] = failures_left - 1
        if failures_left:
            self.send_error(503, "busy")
            return
        super().do_GET()

    def log_message(self, format, *args) -> None:  # noqa: A002 (keep the test output quiet)
        pass


class LocalServer:
    """``with LocalServer(root) as server:`` serves ``root`` until the block ends."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.requests: list[str] = []
        self.failures: dict[str, int] = {}
        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Handler, directory=str(self.root)))
        self.httpd.owner = self
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> "LocalServer":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(timeout=5)

    def fail(self, path: str, times: int) -> None:
        """Answer the next ``times`` requests for ``path`` with 503 Service Unavailable."""
        self.failures[path] = times

    def mirror(self, source: DataSource, shared_data: Path, *, prefix: str = "mirror") -> str:
        """Serve the released files of ``source`` in the upstream layout; return the mirror's URL."""
        for f in source.files:
            target = self.root / prefix / f.upstream
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(shared_copy(shared_data, source) / f.relpath, target)
        return f"{self.url}/{prefix}"

    def path_of(self, source: DataSource, f: DataFile, prefix: str = "mirror") -> str:
        """The request path under which the mirror serves ``f``."""
        return f"/{prefix}/{f.upstream}"
