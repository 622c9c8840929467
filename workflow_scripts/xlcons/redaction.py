"""Keeping API keys out of what the workflow writes: job logs, caches, tables, config errors.

A key belongs in an environment variable, named by the config (`api.api_key_env`); the
config itself is stored by Snakemake in `.snakemake/metadata` (a job's params) and shown in
its logs, so a key pasted there instead of a variable name is refused before any job is
scheduled (`key_env_problem`), in a message that never repeats the value.

An endpoint may still echo the key back (a 401 whose body quotes the Authorization header).
`redact` replaces every key this process has read (`remember`, and the environment's
`*_KEY`, `*_TOKEN`, `*_SECRET` and `*_PASSWORD` variables), `Bearer <token>` and `sk-...` keys with
`[redacted]`. The OpenAI-compatible backend applies it to every error text it returns or
raises (what caches and tables store), and `xlcons.job.start_job` puts a `RedactingStream`
in front of the job log, which catches the rest: log records, warnings, tracebacks.

Standard library only: the generation registry (read while the DAG is built) imports the
variable-name pattern from here.
"""

from __future__ import annotations

import io
import os
import re
import threading
from collections.abc import Mapping
from typing import Any, TextIO

REDACTED = "[redacted]"

# What an environment variable name may be (POSIX shells accept no other).
ENV_NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"
_ENV_NAME = re.compile(ENV_NAME_PATTERN)
# Prefixes that start keys and no variable name: OpenAI (`sk-...`, also `sk` and digits),
# Stripe-style `sk_...`, Google (`AIza...`).
_KEY_PREFIX = re.compile(r"^(sk[-_0-9]|AIza)")
# A stretch of 24+ letters and digits, with digits in it, between underscores: a random
# token, not words (a variable name is words joined by `_`).
_RANDOM_RUN = re.compile(r"(?=[A-Za-z0-9]*[0-9])[A-Za-z0-9]{24,}")
# Variables whose value is a secret by their name's convention.
_SECRET_VARIABLE = re.compile(r"(^|_)(KEY|APIKEY|TOKEN|SECRET|PASSWORD)$", re.IGNORECASE)
# Shorter values are not remembered: redacting a common short word everywhere would garble logs.
MIN_SECRET_LENGTH = 8

# A Bearer token, an OpenAI-style key and the value of an `api_key: ...` pair (skipping what
# is already redacted).
_NOT_REDACTED_TOKEN = rf"(?!{re.escape(REDACTED)})[^\s\"',;)\]}}]+"
_PATTERNS = (
    re.compile(rf"(?i)(\bBearer\s+){_NOT_REDACTED_TOKEN}"),
    re.compile(r"\bsk-[A-Za-z0-9_-]{8,}"),
    re.compile(rf"(?i)(\b(?:x-goog-api-key|x-api-key|api[-_]?key)[\"']?\s*[:=]\s*[\"']?){_NOT_REDACTED_TOKEN}"),
)

_known: set[str] = set()
_lock = threading.Lock()


def remember(secret: str | None) -> None:
    """Redact this value from now on (a key the process read from the environment)."""
    if secret and len(secret) >= MIN_SECRET_LENGTH:
        with _lock:
            _known.add(secret)


def remember_environment(environ: Mapping[str, str] | None = None) -> None:
    """Remember the values of the variables named like secrets (OPENAI_API_KEY, HF_TOKEN, ...)."""
    for name, value in (os.environ if environ is None else environ).items():
        if _SECRET_VARIABLE.search(name):
            remember(value)


def redact(text: Any) -> Any:
    """`text` with every remembered key, `Bearer <token>` and `sk-...` key replaced by
    [redacted]; anything that is not a string is returned as it is."""
    if not isinstance(text, str) or not text:
        return text
    with _lock:
        known = sorted(_known, key=len, reverse=True)  # a key that contains another goes first
    for secret in known:
        text = text.replace(secret, REDACTED)
    for pattern in _PATTERNS:
        text = pattern.sub(lambda match: (match.group(1) if match.groups() else "") + REDACTED, text)
    return text


def _key_shaped(value: str) -> bool:
    """Starts as keys do (`sk-`, `sk_`, `sk` and a digit, `AIza`), or has a run of 24 or more
    letters and digits with digits among them (a random token, not words)."""
    return bool(_KEY_PREFIX.match(value)) or any(
        _RANDOM_RUN.fullmatch(part) for part in re.split(r"[^A-Za-z0-9]", value)
    )


def is_variable_name(value: Any) -> bool:
    """True for the name of a variable that may hold a key (OPENAI_API_KEY, GEMINI_API_KEY,
    MY_PROJECT_KEY_2), False for anything else, a key above all.

    A name is letters, digits and `_`, not starting with a digit (what shells accept), and
    not shaped like a key: not starting with `sk-`, `sk_`, `sk` and a digit or `AIza`, and
    without a run of 24 or more letters and digits, digits among them, between underscores.
    """
    return isinstance(value, str) and bool(_ENV_NAME.match(value)) and not _key_shaped(value)


def key_env_problem(config_key: str, value: Any) -> str | None:
    """The error for a config key that must name an environment variable, or None when it does.

    The message names the key and never the value, which may be the key itself."""
    if is_variable_name(value):
        return None
    if isinstance(value, str) and (_key_shaped(value) or (len(value) >= 20 and not re.search(r"\s", value))):
        what = "holds what looks like an API key, not the name of an environment variable"
    else:
        what = "is not the name of an environment variable"
    return (
        f"config key '{config_key}' {what} such as OPENAI_API_KEY (letters, digits and '_'); the value is not shown. "
        "Remove any key from the config, export it (export OPENAI_API_KEY=...) and put the variable's name here; "
        "if a key was in a config that others saw, revoke it"
    )


class RedactingStream(io.TextIOBase):
    """A text stream that writes whole lines to `target` with `redact` applied.

    Text is held until a line ends (or `flush`), so that a key written in two pieces is
    still seen whole."""

    def __init__(self, target: TextIO):
        super().__init__()
        self.target = target
        self._pending = ""
        self._lock = threading.Lock()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.target, "encoding", "utf-8")

    @property
    def name(self) -> str:
        return getattr(self.target, "name", "")

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self.target, "errors", None)

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self.target.isatty()

    def fileno(self) -> int:
        return self.target.fileno()

    def write(self, text: str) -> int:
        with self._lock:
            self._pending += text
            end = max(self._pending.rfind("\n"), self._pending.rfind("\r"))
            if end >= 0:
                complete, self._pending = self._pending[: end + 1], self._pending[end + 1 :]
                self.target.write(redact(complete))
        return len(text)

    def flush(self) -> None:
        if self.target.closed:
            return
        with self._lock:
            if self._pending:
                self.target.write(redact(self._pending))
                self._pending = ""
        self.target.flush()

    def close(self) -> None:
        if not self.closed:
            self.flush()
            self.target.close()
        super().close()
