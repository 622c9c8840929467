"""API keys stay out of what the workflow keeps (xlcons.redaction).

A config names the environment variable that holds a key (`api.api_key_env`); a key pasted
there instead is refused before any job is scheduled, by a message that names the config key
and never repeats the value. Text an endpoint sends back may quote the key: `redact` removes
every key the process read, `Bearer` tokens and `sk-` keys from it before it is logged or stored.
"""

from __future__ import annotations

import pytest

from xlcons.config import ConfigError, validate_config
from xlcons.generation.base import Result, finalize
from xlcons.redaction import REDACTED, RedactingStream, is_variable_name, redact, remember, remember_environment

# Shaped like the keys users paste: OpenAI (project and legacy), a bare `sk` key, Google's, and
# long random tokens (base62 and hex) that are valid variable names.
PASTED_KEYS = [
    "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56",
    "sk-Ab12Cd34Ef56Gh78Ij90Kl12",
    "sk123abc",
    "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUv",
    "Xq7Rt2Lm9Vb4Nc8Zw1Ks5Hd3Fg6Jp0Ty2Ue4Io",
    "3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a",
]


def api_config(where: str, key_env) -> dict:
    """A config whose openai model at `where` (models, a judge, an LLM translator) names `key_env`."""
    llm = {"backend": "openai", "api": {"model": "gpt-4o", "api_key_env": key_env}}
    if where == "models":
        return {"models": {"gpt": llm}}
    if where == "judge":
        return {"evaluators": {"judge": {"llm": llm}}}
    return {"translators": {"gpt": {"backend": "llm", "llm": llm}}}


def config_error(config: dict) -> str:
    with pytest.raises(ConfigError) as caught:
        validate_config(config)
    return str(caught.value)


@pytest.mark.parametrize("key", PASTED_KEYS)
def test_a_key_pasted_into_api_key_env_is_refused_without_being_repeated(key):
    message = config_error(api_config("models", key))
    assert "config key 'models.gpt.api.api_key_env' holds what looks like an API key" in message
    assert "OPENAI_API_KEY" in message and "export" in message
    assert key not in message and key[:6] not in message


@pytest.mark.parametrize(
    ("where", "dotted"),
    [("judge", "evaluators.judge.llm.api.api_key_env"), ("translator", "translators.gpt.llm.api.api_key_env")],
)
def test_every_openai_model_of_the_config_is_checked(where, dotted):
    """The judge, the information evaluator and an LLM translator reach an endpoint the same way."""
    for key in ("sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56", "sk123abc"):
        message = config_error(api_config(where, key))
        assert f"config key '{dotted}' holds what looks like an API key" in message and key not in message


def test_a_value_that_is_no_variable_name_is_refused_without_being_repeated():
    """Not only the pattern check of the schema: a wrong type is not echoed either."""
    for value in ("my api key", 1234567890123456):
        message = config_error(api_config("models", value))
        assert "models.gpt.api.api_key_env" in message and str(value) not in message


@pytest.mark.parametrize(
    "name", ["OPENAI_API_KEY", "GEMINI_API_KEY", "MY_PROJECT_KEY_2", "azure_openai_key", "SK_API_KEY"]
)
def test_variable_names_are_accepted(name):
    assert is_variable_name(name)
    validate_config(api_config("models", name))


def test_redact_removes_keys_read_bearer_tokens_and_sk_keys():
    remember("key-read-from-env-4f2a")
    text = (
        "401 Incorrect API key provided: key-read-from-env-4f2a; Authorization: Bearer abc.DEF-123_x, "
        "also sk-proj-Zz99Yy88Xx77Ww66 and {'api_key': 'qwertyuiop1234'}"
    )
    assert redact(text) == (
        f"401 Incorrect API key provided: {REDACTED}; Authorization: Bearer {REDACTED}, "
        f"also {REDACTED} and {{'api_key': '{REDACTED}'}}"
    )


def test_redact_leaves_ordinary_text_alone():
    text = "model 'gpt': check the key (api.api_key_env), the task-list and a 500 after 3 attempts"
    assert redact(text) == text
    assert redact(None) is None


def test_the_environment_s_secrets_are_redacted_but_not_short_or_ordinary_values():
    remember_environment(
        {
            "XLCONS_TEST_API_KEY": "pZ4xQ8rT2vW6",
            "HF_TOKEN": "hf_abcdefghijklmnop",
            "TOKENIZERS_PARALLELISM": "false",
            "SHORT_KEY": "1234",
        }
    )
    assert redact("pZ4xQ8rT2vW6 hf_abcdefghijklmnop false 1234") == f"{REDACTED} {REDACTED} false 1234"


def test_a_redacting_stream_sees_a_key_written_in_pieces(tmp_path):
    remember("pieces-of-a-key-9c1d")
    with open(tmp_path / "log", "w") as target:
        stream = RedactingStream(target)
        stream.write("error: pieces-of-")
        stream.write("a-key-9c1d\npartial line pieces-of-a-key-9c1d")
        stream.flush()
    assert (tmp_path / "log").read_text() == f"error: {REDACTED}\npartial line {REDACTED}"


@pytest.mark.parametrize("reason", ["error", "refused", "prompt_too_long", "stop"])
def test_an_error_text_is_stored_redacted_whatever_the_backend(reason):
    """`generation.base.finalize`, which every backend's results pass before they are cached or
    stored, redacts the error text (and a refused answer's partial text kept with it)."""
    remember("key-of-another-backend-77aa")
    error = "the server said: Incorrect API key provided: key-of-another-backend-77aa"
    final = finalize(Result("k", "cut short key-of-another-backend-77aa", reason, error=error))
    assert final.error is not None and final.error.startswith(
        f"the server said: Incorrect API key provided: {REDACTED}"
    )
    assert "key-of-another-backend-77aa" not in final.error
