"""Local HTTP servers on 127.0.0.1 that stand in for what a run reaches over the network.

``LocalServer`` stands in for an upstream repository: it serves the released files of
../shared/data in the upstream layout (a *mirror*, what ``datasets.<data set>.source_url``
names), records every request, and answers 503 on demand. ``ChatEndpoint`` stands in for an
OpenAI-compatible model endpoint with scripted answers; ``BatchEndpoint`` adds OpenAI's
Batch API to it (files, batches, scripted polling, partial failure, expiry).
"""

from __future__ import annotations

import email
import email.policy
import functools
import json
import shutil
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

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
    as careless servers do with a 401 ("Incorrect API key provided: ..."). With `trickle_s`, every
    answer is sent one byte at a time, `trickle_s` seconds apart (a server that never lets a
    read time out). Use it as a context manager (served from a thread while inside).
    """

    daemon_threads = True
    handler: type[BaseHTTPRequestHandler]  # set below: the request handler class

    def __init__(self, reply=None):
        super().__init__(("127.0.0.1", 0), self.handler)
        self.lock = threading.Lock()
        self.bodies: list[dict] = []
        self.reply = reply or (lambda prompt: "ok")
        self.error_message = "scripted failure"  # the body of an error answer
        self.echo_authorization = False
        self.trickle_s = 0.0  # > 0: send each answer one byte at a time, this many seconds apart
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
        self.send_json(*chat_answer(self.server, body, self.headers.get("Authorization", "")))

    def send_json(self, status: int, payload: dict | bytes) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        if self.server.trickle_s:
            return self._trickle(status, data)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _trickle(self, status: int, data: bytes) -> None:
        """The whole answer, status line and headers included, one byte every `trickle_s` seconds."""
        head = f"HTTP/1.1 {status} OK\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
        try:
            for byte in head.encode() + data:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(self.server.trickle_s)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up
            self.close_connection = True


ChatEndpoint.handler = _ChatHandler


@dataclass(frozen=True)
class Message:
    """A scripted answer given as the assistant message itself, whatever its shape (`content` as a
    list of parts, a number, ...); None: a choice without a message."""

    message: Any


@dataclass(frozen=True)
class LineError:
    """A scripted answer that a batch could not give: its line goes into the batch's error file with
    a top-level `error` and no response (as OpenAI writes the lines of an expired batch); a direct
    request gets HTTP 500 with the message."""

    code: str
    message: str


def echoed(server: ChatEndpoint, message: str, authorization: str) -> str:
    """An error message, quoting the Authorization header back when the server is told to."""
    if not server.echo_authorization:
        return message
    key = authorization.removeprefix("Bearer ")
    return message + f"; Incorrect API key provided: {key} (Authorization: {authorization})"


def chat_answer(server: ChatEndpoint, body: dict, authorization: str = "", answer: Any = None) -> tuple[int, dict]:
    """(HTTP status, JSON body) of the scripted answer (`answer`, or else the server's reply) to one
    chat completions request."""
    answer = server.reply(body["messages"][-1]["content"]) if answer is None else answer
    if isinstance(answer, (int, LineError)):
        status, message = (500, answer.message) if isinstance(answer, LineError) else (answer, server.error_message)
        error = {"message": echoed(server, message, authorization), "type": "server_error", "code": None}
        return status, {"error": error}
    choice: dict[str, Any] = {"index": 0, "finish_reason": "stop"}
    if not isinstance(answer, Message):
        choice["message"] = {"role": "assistant", "content": answer}
    elif answer.message is not None:
        choice["message"] = answer.message
    return (
        200,
        {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [choice],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        },
    )


class BatchEndpoint(ChatEndpoint):
    """ChatEndpoint with OpenAI's Batch API: `POST /v1/files` (the multipart upload of a batch
    input file), `GET /v1/files/{id}/content`, `POST /v1/batches`, `GET /v1/batches/{id}`.

    Each line of a batch is answered by `reply(prompt)` as a direct request would be: a text,
    or an int for that HTTP status, which puts the line in the batch's error file (or, with
    `errors_in_output`, in its output file with that status), or a `LineError`, which puts a line
    with a top-level error and no response in the error file. A new batch is `validating`; each
    look at it (GET) moves it on: `in_progress`, then, from the `polls_to_end`-th look, its
    `final_status`, unless `hold` is set (it stays `in_progress` until `release()`). A batch that
    ends `expired` or `cancelled` has answered its first `answered_before_end` lines (all, when
    None); one that ends `failed` none, with `failure_message` as its error; `batch_errors` go
    into the `errors` of a batch that ends in any status. With `echo_authorization`, every error
    message (per line, in the error file, in `errors`) quotes back the Authorization header the
    batch was created with. With
    `upload_status`, every upload is refused with that HTTP status; with `create_status`, a batch is
    created and the client told that HTTP status (a timeout that reached the server). What it saw:
    `uploads` (each uploaded file's purpose and lines), `created` (each created batch's request),
    `polls` (looks at batches), `lists` (lists of the batches).
    """

    def __init__(self, reply=None):
        super().__init__(reply)
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict] = {}
        self.uploads: list[dict] = []
        self.created: list[dict] = []
        self.polls = 0
        self.polls_to_end = 2
        self.final_status = "completed"
        self.answered_before_end: int | None = None
        self.failure_message = "the input file is not valid"
        self.batch_reply = None  # answers the lines of a batch instead of `reply` when set
        self.batch_errors: list[str] = []  # messages in the batch's `errors.data` when it ends, whatever its status
        self.errors_in_output = False
        self.hold = False
        self.upload_status: int | None = None  # answer uploads with this HTTP error status
        self.create_status: int | None = None  # create the batch, then answer with this HTTP error status
        self.lists = 0  # lists of the batches asked for

    def release(self) -> None:
        """Let held batches end (at their next look)."""
        with self.lock:
            self.hold = False

    def look(self, batch_id: str) -> dict | None:
        """The batch after one more look at it (None: no such batch)."""
        with self.lock:
            batch = self.batches.get(batch_id)
            if batch is None:
                return None
            self.polls += 1
            batch["_looks"] += 1
            if batch["status"] in ("validating", "in_progress"):
                if self.hold or batch["_looks"] < self.polls_to_end:
                    batch["status"] = "in_progress"
                else:
                    self._end(batch)
            return {key: value for key, value in batch.items() if not key.startswith("_")}

    def _end(self, batch: dict) -> None:
        lines = [json.loads(line) for line in self.files[batch["input_file_id"]].decode().splitlines() if line.strip()]
        status = self.final_status
        answered = [] if status == "failed" else lines[: self.answered_before_end]
        output, errors = [], []
        authorization = batch["_authorization"]
        for number, line in enumerate(answered):
            answer = (self.batch_reply or self.reply)(line["body"]["messages"][-1]["content"])
            if isinstance(answer, LineError):
                error = {"code": answer.code, "message": echoed(self, answer.message, authorization)}
                errors.append(
                    {"id": f"batch_req_{number}", "custom_id": line["custom_id"], "response": None, "error": error}
                )
                continue
            code, body = chat_answer(self, line["body"], authorization, answer)
            record = {
                "id": f"batch_req_{number}",
                "custom_id": line["custom_id"],
                "response": {"status_code": code, "request_id": f"req_{number}", "body": body},
                "error": None,
            }
            (output if code == 200 or self.errors_in_output else errors).append(record)
        for name, records in (("output_file_id", output), ("error_file_id", errors)):
            if records:
                file_id = f"file-{name.split('_')[0]}-{batch['id']}"
                self.files[file_id] = "".join(json.dumps(record) + "\n" for record in records).encode()
                batch[name] = file_id
        failed = sum(
            record["response"] is None or record["response"]["status_code"] != 200 for record in output + errors
        )
        batch["request_counts"] = {"total": len(lines), "completed": len(answered) - failed, "failed": failed}
        reasons = [self.failure_message] if status == "failed" else []
        if reasons + self.batch_errors:
            data = [
                {"code": "invalid_file", "message": echoed(self, m, authorization)} for m in reasons + self.batch_errors
            ]
            batch["errors"] = {"object": "list", "data": data}
        batch["status"] = status


class _BatchHandler(_ChatHandler):
    server: BatchEndpoint

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        parts = self.path.split("?")[0].strip("/").split("/")
        if parts == ["v1", "batches"]:  # the list, newest first (one page: the fake holds few)
            with self.server.lock:
                self.server.lists += 1
                listed = [
                    {key: value for key, value in batch.items() if not key.startswith("_")}
                    for batch in reversed(self.server.batches.values())
                ]
            first, last = (listed[0]["id"], listed[-1]["id"]) if listed else (None, None)
            return self.send_json(
                200, {"object": "list", "data": listed, "first_id": first, "last_id": last, "has_more": False}
            )
        if parts[:2] == ["v1", "batches"] and len(parts) == 3:
            batch = self.server.look(parts[2])
            if batch is not None:
                return self.send_json(200, batch)
        elif parts[:2] == ["v1", "files"] and len(parts) == 4 and parts[3] == "content":
            with self.server.lock:
                data = self.server.files.get(parts[2])
            if data is not None:
                return self.send_json(200, data)
        self.send_json(404, {"error": {"message": f"no such object: {self.path}", "type": "invalid_request_error"}})

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        if self.path == "/v1/files":
            return self._upload()
        if self.path == "/v1/batches":
            return self._create()
        super().do_POST()

    def _upload(self) -> None:
        raw = self.rfile.read(int(self.headers["Content-Length"]))
        if self.server.upload_status:
            error = {"message": "uploads refused", "type": "invalid_request_error", "code": None}
            return self.send_json(self.server.upload_status, {"error": error})
        message = email.message_from_bytes(
            f"Content-Type: {self.headers['Content-Type']}\r\n\r\n".encode() + raw, policy=email.policy.HTTP
        )
        fields = {part.get_param("name", header="content-disposition"): part for part in message.iter_parts()}
        data = fields["file"].get_payload(decode=True)
        purpose = fields["purpose"].get_payload(decode=True).decode()
        server = self.server
        with server.lock:
            file_id = f"file-{len(server.files) + 1}"
            server.files[file_id] = data
            server.uploads.append(
                {"id": file_id, "purpose": purpose, "filename": fields["file"].get_filename(), "lines": data.decode()}
            )
        self.send_json(
            200,
            {
                "id": file_id,
                "object": "file",
                "bytes": len(data),
                "created_at": 0,
                "filename": fields["file"].get_filename(),
                "purpose": purpose,
                "status": "processed",
            },
        )

    def _create(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        server = self.server
        with server.lock:
            if request["input_file_id"] not in server.files:
                return self.send_json(404, {"error": {"message": "no such file", "type": "invalid_request_error"}})
            batch_id = f"batch_{len(server.batches) + 1}"
            server.created.append(request)
            server.batches[batch_id] = {
                "id": batch_id,
                "object": "batch",
                "endpoint": request["endpoint"],
                "input_file_id": request["input_file_id"],
                "completion_window": request["completion_window"],
                "status": "validating",
                "created_at": int(time.time()),
                "output_file_id": None,
                "error_file_id": None,
                "errors": None,
                "metadata": request.get("metadata"),
                "request_counts": {"total": 0, "completed": 0, "failed": 0},
                "_looks": 0,
                "_authorization": self.headers.get("Authorization", ""),
            }
            batch = {key: value for key, value in server.batches[batch_id].items() if not key.startswith("_")}
            status = server.create_status
        if status:  # the batch exists, but the client hears of a failure (a timeout that reached the server)
            return self.send_json(status, {"error": {"message": "upstream timed out", "type": "server_error"}})
        self.send_json(200, batch)


BatchEndpoint.handler = _BatchHandler
