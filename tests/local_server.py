"""Local HTTP servers on 127.0.0.1 that stand in for what a run reaches over the network.

``LocalServer`` stands in for an upstream repository: it serves the released files of
../shared/data in the upstream layout (a *mirror*, what ``datasets.<data set>.source_url``
names), records every request, and answers 503 on demand. ``ChatEndpoint`` stands in for an
OpenAI-compatible model endpoint with scripted answers.
"""

from __future__ import annotations

import functools
import json
import shutil
import threading
from http.server import BaseHTTPRequestHandler, SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from xlcons.data_sources.spec import DataFile, DataSource

# Where ../shared/data holds a copy of each source (the released outputs of GPT-3.5 sit inside
# the MAKQA folder there); the other models' released outputs have no copy here.
SHARED_COPIES = {
    "multiq": "multiq",
    "epitome": "epitome",
    "makqa": "makqa",
    "makqa-released-gpt35": "makqa/result_gpt35",
    # the Language Confusion Benchmark's prompts, and the completions of two of its ten models
    "lcb": "lcb",
    "lcb-released-command-r-plus": "lcb/outputs",
    "lcb-released-llama-3-instruct": "lcb/outputs",
}


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

    def __enter__(self) -> LocalServer:
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


class ChatEndpoint(ThreadingHTTPServer):
    """An OpenAI-compatible chat completions endpoint on 127.0.0.1 for the tests.

    Every POST is recorded (`bodies`; `prompts` holds each request's last message) and
    answered with `reply(prompt)`: a text, or an int for that HTTP error status. With
    `echo_authorization`, an error's message quotes the request's Authorization header back,
    as careless servers do with a 401 ("Incorrect API key provided: ..."). Use it as a
    context manager (served from a thread while inside).
    """

    daemon_threads = True

    def __init__(self, reply=None):
        super().__init__(("127.0.0.1", 0), _ChatHandler)
        self.lock = threading.Lock()
        self.bodies: list[dict] = []
        self.reply = reply or (lambda prompt: "ok")
        self.error_message = "scripted failure"  # the body of an error answer
        self.echo_authorization = False
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    @property
    def prompts(self) -> list[str]:
        with self.lock:
            return [body["messages"][-1]["content"] for body in self.bodies]

    def __enter__(self) -> ChatEndpoint:
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.shutdown()
        self.server_close()
        self._thread.join(timeout=5)


class _ChatHandler(BaseHTTPRequestHandler):
    server: ChatEndpoint

    def log_message(self, *args) -> None:  # keep the test output quiet
        pass

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with self.server.lock:
            self.server.bodies.append(body)
        answer = self.server.reply(body["messages"][-1]["content"])
        if isinstance(answer, int):
            message = self.server.error_message
            if self.server.echo_authorization:
                header = self.headers.get("Authorization", "")
                message += f"; Incorrect API key provided: {header.removeprefix('Bearer ')} (Authorization: {header})"
            status, payload = answer, {"error": {"message": message, "type": "server_error", "code": None}}
        else:
            status, payload = (
                200,
                {
                    "id": "chatcmpl-test",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body["model"],
                    "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}
                    ],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                },
            )
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
