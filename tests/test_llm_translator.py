"""An LLM as the translator (xlcons.translation.llm_translator, `translator.backend: llm`).

Where the test must know the answer (what the prompt says, how an answer is cleaned, what a
failed request gives), the translator talks through the real `openai` backend to a small
chat completions server on 127.0.0.1 whose answers the test scripts and whose requests it
records. The tiny random-weight Llama of the offline models then runs the same code on the
`hf` backend on CPU: its answers are meaningless, but they are real generations, cut at the
token cap, and deterministic.
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from builders import response_rows
from local_server import ChatEndpoint
from xlcons.schemas import NO_ANSWER, RESPONSES, TRANSLATED_SENTENCES, TRANSLATIONS
from xlcons.tables import write_table
from xlcons.translation.llm_translator import LLMTranslator, clean_answer, language_name
from xlcons.translation.response_translation import run_translation_job
from xlcons.translation.sentence_translator import DegenerationSpec, SentenceTranslator
from xlcons.translation.spec import DEFAULT_PROMPT, SamplingSpec, TranslationError, TranslatorSpec
from xlcons.translation.translators import load_translator
from xlcons.usage import recording

KEY_ENV = "XLCONS_TEST_TRANSLATOR_KEY"
SERVED_MODEL = "served-translator"


# --------------------------------------------------------------------------------------
# A chat completions endpoint with scripted answers
# --------------------------------------------------------------------------------------


def sentence_of(prompt: str) -> str:
    """The sentence in a prompt built from DEFAULT_PROMPT (its last line)."""
    return prompt.rsplit("\n", 1)[-1]


@pytest.fixture(scope="module")
def running_endpoint():
    with ChatEndpoint() as server:
        yield server


@pytest.fixture
def endpoint(running_endpoint, monkeypatch):
    """The endpoint with nothing recorded and the default answers; the API key in the environment."""
    monkeypatch.setenv(KEY_ENV, "sk-test")
    running_endpoint.bodies.clear()
    running_endpoint.reply = lambda prompt: f"EN[{sentence_of(prompt)}]"
    return running_endpoint


def served(endpoint: ChatEndpoint, *, prompt: str | None = None, max_new_tokens: int = 64, **llm) -> TranslatorSpec:
    """A translator spec for the scripted endpoint (params shaped like an evaluator's `llm`)."""
    params = {
        "backend": "openai",
        "hf_id": None,
        "revision": None,
        "system_prompt": None,
        "decoding": {"temperature": 0.0, "top_p": 1.0, "max_new_tokens": None, "repetition_penalty": 1.0, "seed": 0},
        "api": {
            "base_url": endpoint.base_url,
            "model": SERVED_MODEL,
            "api_key_env": KEY_ENV,
            "max_concurrency": 2,
            "timeout_s": 10,
            "max_retries": 0,
        },
        "location": None,
        "content": None,
    } | llm
    return TranslatorSpec(backend="llm", llm=params, prompt=prompt, max_new_tokens=max_new_tokens)


# --------------------------------------------------------------------------------------
# The tiny offline LLM
# --------------------------------------------------------------------------------------


def local(path: Path, *, prompt: str | None = None, max_new_tokens: int = 6, **decoding) -> TranslatorSpec:
    params = {
        "backend": "hf",
        "path": str(path),
        "hf_id": None,
        "revision": None,
        "system_prompt": None,
        "decoding": {"temperature": 0.0, "top_p": 1.0, "max_new_tokens": None, "repetition_penalty": 1.0, "seed": 0}
        | decoding,
        "hf": {"device": "cpu", "dtype": "float32", "batch_size": 4},
        "location": str(path),
        "content": None,
    }
    return TranslatorSpec(backend="llm", llm=params, prompt=prompt, max_new_tokens=max_new_tokens)


@pytest.fixture(scope="module")
def tiny_llm(offline_models) -> Path:
    return offline_models["tiny-llm"]


@pytest.fixture(scope="module")
def tiny(tiny_llm):
    translator = load_translator(local(tiny_llm))
    yield translator
    translator.close()


GERMAN = ["Das ist ein Haus.", "Es ist sehr alt.", "Wir wohnen hier."]


# --------------------------------------------------------------------------------------
# The prompt
# --------------------------------------------------------------------------------------


def test_backend_llm_loads_an_llm_translator(endpoint):
    translator = load_translator(served(endpoint))
    assert isinstance(translator, LLMTranslator) and translator.name == "llm"
    translator.close()


def test_the_default_prompt_names_both_languages_and_carries_the_sentence(endpoint):
    translator = load_translator(served(endpoint))
    assert translator.translate(["Das ist ein Haus."], "deu_Latn", "eng_Latn") == ["EN[Das ist ein Haus.]"]
    translator.close()
    (body,) = endpoint.bodies
    assert body["model"] == SERVED_MODEL
    assert body["messages"] == [
        {
            "role": "user",
            "content": DEFAULT_PROMPT.format(
                source_language="German", target_language="English", text="Das ist ein Haus."
            ),
        }
    ]
    prompt = endpoint.prompts[0]
    assert "German" in prompt and "English" in prompt and prompt.endswith("\nDas ist ein Haus.")


def test_language_names_come_from_the_registry_through_the_nllb_code(endpoint):
    assert language_name("deu_Latn") == "German"
    assert language_name("heb_Hebr") == "Hebrew"  # he and iw share the code
    assert language_name("zho_Hans") == "Chinese (Simplified)"
    with pytest.raises(TranslationError, match="xxx_Latn"):
        language_name("xxx_Latn")
    translator = load_translator(served(endpoint))
    translator.translate(["Le ciel est bleu."], "fra_Latn", "deu_Latn")
    translator.close()
    assert "French text" in endpoint.prompts[0] and "into German" in endpoint.prompts[0]


def test_the_models_system_prompt_goes_first(endpoint):
    translator = load_translator(served(endpoint, system_prompt="You are a careful translator."))
    translator.translate(["Das ist ein Haus."], "deu_Latn", "eng_Latn")
    translator.close()
    assert [message["role"] for message in endpoint.bodies[0]["messages"]] == ["system", "user"]
    assert endpoint.bodies[0]["messages"][0]["content"] == "You are a careful translator."


def test_a_custom_prompt_is_filled_in_and_used_instead(endpoint):
    template = "{source_language} → {target_language}, word for word ({{literal braces}}):\n{text}"
    translator = load_translator(served(endpoint, prompt=template))
    translator.translate(["Es ist sehr alt."], "deu_Latn", "eng_Latn")
    translator.close()
    assert endpoint.prompts == ["German → English, word for word ({literal braces}):\nEs ist sehr alt."]


@pytest.mark.parametrize(
    ("template", "message"),
    [
        (
            "Translate {source} into {target_language}: {text}",
            r"unknown placeholder \{source\}.*\{source_language\}, \{target_language\}, \{text\}",
        ),
        ("Translate into {target_language}: {}", r"unknown placeholder \{\}"),
        ("Translate into {target_language}.", r"no \{text\}"),
        ("Translate {text} into {target_language!r}", "plainly"),
        ('Translate {text} as JSON {"text": ...}', "literal brace twice"),
        ("Translate {text} with a stray } brace", "literal brace is written twice"),
        ("   ", "empty"),
    ],
)
def test_a_custom_prompt_with_an_unknown_placeholder_is_a_clear_error(endpoint, template, message):
    spec = served(endpoint, prompt=template)
    with pytest.raises(TranslationError, match=message):
        spec.identity()  # the translation job fails when it starts, before any model is loaded
    with pytest.raises(TranslationError, match=message):
        SentenceTranslator(spec)
    with pytest.raises(TranslationError, match=message):
        load_translator(spec)
    assert endpoint.bodies == []


# --------------------------------------------------------------------------------------
# Requests and answers
# --------------------------------------------------------------------------------------


def test_identical_sentences_are_asked_once_and_blank_ones_not_at_all(endpoint):
    translator = load_translator(served(endpoint))
    out = translator.translate(
        ["Es ist sehr alt.", "", "Das ist ein Haus.", "Es ist sehr alt.", "  "], "deu_Latn", "eng_Latn"
    )
    translator.close()
    assert out == ["EN[Es ist sehr alt.]", "", "EN[Das ist ein Haus.]", "EN[Es ist sehr alt.]", ""]
    assert sorted(map(sentence_of, endpoint.prompts)) == ["Das ist ein Haus.", "Es ist sehr alt."]
    assert translator.calls == 2


def test_each_sentence_is_a_request_of_its_own(endpoint):
    translator = load_translator(served(endpoint))
    translator.translate(GERMAN, "deu_Latn", "eng_Latn")
    translator.close()
    assert sorted(map(sentence_of, endpoint.prompts)) == sorted(GERMAN)
    assert all(len(body["messages"]) == 1 for body in endpoint.bodies)


@pytest.mark.parametrize(("failure", "reason"), [(400, "error"), ("", "empty")])
def test_a_failed_request_gives_an_empty_translation_and_is_counted(endpoint, caplog, failure, reason):
    endpoint.reply = lambda prompt: (
        failure if sentence_of(prompt) == "Es ist sehr alt." else f"EN[{sentence_of(prompt)}]"
    )
    translator = load_translator(served(endpoint))
    with caplog.at_level(logging.WARNING, logger="xlcons.translation.llm_translator"):
        out = translator.translate(GERMAN, "deu_Latn", "eng_Latn")
    assert out == ["EN[Das ist ein Haus.]", "", "EN[Wir wohnen hier.]"]
    assert NO_ANSWER not in out  # the generation stage's placeholder is not a translation
    assert translator.failed == 1 and translator.calls == 3
    assert translator.failed_sentences == {"Es ist sehr alt."}, (
        "listed, so the stage does not cache its empty translation"
    )
    assert "1 of 3 requests without a translation" in caplog.text and f"{reason}:" in caplog.text
    endpoint.reply = lambda prompt: f"EN[{sentence_of(prompt)}]"  # the endpoint recovers
    assert translator.translate(["Es ist sehr alt."], "deu_Latn", "eng_Latn") == ["EN[Es ist sehr alt.]"]
    assert translator.failed_sentences == set(), "only the last call's failures are listed"
    translator.close()


def test_the_token_cap_is_the_translators_unless_the_model_sets_its_own(endpoint):
    translator = load_translator(served(endpoint, max_new_tokens=48))
    translator.translate(["Das ist ein Haus."], "deu_Latn", "eng_Latn")
    translator.close()
    own = served(endpoint, max_new_tokens=48)
    own = TranslatorSpec(
        backend="llm", llm={**own.llm, "decoding": {**own.llm["decoding"], "max_new_tokens": 20}}, max_new_tokens=48
    )
    translator = load_translator(own)
    translator.translate(["Es ist sehr alt."], "deu_Latn", "eng_Latn")
    translator.close()
    assert [body["max_tokens"] for body in endpoint.bodies] == [48, 20]
    assert served(endpoint, max_new_tokens=48).identity()["max_new_tokens"] == 48
    assert own.identity()["max_new_tokens"] == 20


def test_greedy_by_default_and_a_repair_attempt_samples_with_its_own_seed(endpoint):
    translator = load_translator(served(endpoint))
    translator.translate(["Das ist ein Haus."], "deu_Latn", "eng_Latn")
    translator.translate(
        ["Das ist ein Haus.", "Es ist sehr alt."],
        "deu_Latn",
        "eng_Latn",
        sampling=SamplingSpec(temperature=0.7, top_p=0.9, seed=2),
    )
    translator.translate(["Wir wohnen hier."], "deu_Latn", "eng_Latn")
    translator.close()
    decoding = [(body["temperature"], body["top_p"], body["seed"]) for body in endpoint.bodies]
    assert decoding == [(0.0, 1.0, 0), (0.7, 0.9, 2), (0.7, 0.9, 2), (0.0, 1.0, 0)]


@pytest.mark.parametrize(
    ("answer", "source", "expected"),
    [
        ("  It is old.\n", "Es ist alt.", "It is old."),
        ("Translation: It is old.", "Es ist alt.", "It is old."),
        ("English translation:\nIt is old.", "Es ist alt.", "It is old."),
        ("**Translation:** It is old.", "Es ist alt.", "It is old."),
        ("Translation into English: It is old.", "Es ist alt.", "It is old."),
        ("English: It is old.", "Es ist alt.", "It is old."),
        ('"It is old."', "Es ist alt.", "It is old."),
        ("Translation: «It is old.»", "Es ist alt.", "It is old."),
        ("“It is old.”", "Es ist alt.", "It is old."),
        # Kept: the label is part of the text when the source has one of its own.
        ("Translation: difficult.", "Übersetzung: schwierig.", "Translation: difficult."),
        ("Note: it is old.", "Hinweis: Es ist alt.", "Note: it is old."),
        # Kept: a label with nothing after it, a word that only starts like one.
        ("Translation:", "Übersetzung", "Translation:"),
        ("Translations differ.", "Übersetzungen unterscheiden sich.", "Translations differ."),
        # Kept: quotation marks of the source, or marks that do not wrap the whole answer.
        ('"Yes."', "„Ja.“", '"Yes."'),
        ('"Yes," he said, "it is."', "„Ja“, sagte er, „ist es.“", '"Yes," he said, "it is."'),
        ('"A" and "B" are letters.', "A und B sind Buchstaben.", '"A" and "B" are letters.'),
        ('"Old" is a word', "Alt ist ein Wort", '"Old" is a word'),
    ],
)
def test_answers_lose_a_label_and_wrapping_quotes_only_when_that_is_safe(answer, source, expected):
    assert clean_answer(answer, source, "English") == expected


def test_the_translator_cleans_what_the_model_answers(endpoint):
    endpoint.reply = lambda prompt: f'Translation: "EN[{sentence_of(prompt)}]"'
    translator = load_translator(served(endpoint))
    assert translator.translate(["Das ist ein Haus."], "deu_Latn", "eng_Latn") == ["EN[Das ist ein Haus.]"]
    translator.close()


# --------------------------------------------------------------------------------------
# Identity: what the stage's sentence cache is keyed by
# --------------------------------------------------------------------------------------


def test_the_identity_names_the_model_its_decoding_the_cap_and_the_prompt(endpoint):
    spec = served(endpoint, max_new_tokens=48)
    identity = spec.identity()
    assert identity == {
        "backend": "llm",
        "llm": {"backend": "openai", "model": SERVED_MODEL, "revision": None, "system_prompt": None},
        "decoding": {"temperature": 0.0, "top_p": 1.0, "repetition_penalty": 1.0, "seed": 0},
        "max_new_tokens": 48,
        "prompt": DEFAULT_PROMPT,
    }
    assert spec.label() == f"{SERVED_MODEL}|llm"
    hub = TranslatorSpec(backend="llm", llm={"backend": "vllm", "hf_id": "Qwen/Qwen2.5-7B-Instruct", "location": None})
    assert hub.label() == "Qwen/Qwen2.5-7B-Instruct|llm"  # nothing loaded, nothing on disk needed
    assert hub.identity()["llm"]["model"] == "Qwen/Qwen2.5-7B-Instruct"


def test_the_identity_changes_with_the_prompt(endpoint):
    default = served(endpoint).identity()
    custom = served(endpoint, prompt="Into {target_language}, please:\n{text}").identity()
    assert custom["prompt"] == "Into {target_language}, please:\n{text}"
    assert custom != default
    assert served(endpoint, prompt=DEFAULT_PROMPT).identity() == default  # the default, written out, is the default
    assert served(endpoint, system_prompt="Be brief.").identity() != default


def test_the_identity_changes_with_the_models_content_not_with_its_folder(tiny_llm, tmp_path):
    import torch
    from safetensors.torch import load_file, save_file

    here, there = tmp_path / "a" / "tiny-llm", tmp_path / "b" / "tiny-llm"
    shutil.copytree(tiny_llm, here)
    shutil.copytree(tiny_llm, there)
    assert local(here).identity() == local(there).identity()  # a copy elsewhere is the same model
    assert local(here).identity()["llm"]["content"]
    assert local(here).label() == "tiny-llm|llm"

    weights = load_file(there / "model.safetensors")
    name = min(weights)
    weights[name] = weights[name] + torch.ones_like(weights[name])  # "retrained" in place
    save_file(weights, there / "model.safetensors", metadata={"format": "pt"})
    assert local(here).identity() != local(there).identity()
    assert local(there).label() == "tiny-llm|llm"


def test_recorded_responses_cannot_be_a_translator(tmp_path):
    spec = TranslatorSpec(backend="llm", llm={"backend": "file", "path": str(tmp_path / "answers.csv")})
    with pytest.raises(TranslationError, match="cannot translate"):
        load_translator(spec)
    with pytest.raises(TranslationError, match="unknown generation backend"):
        TranslatorSpec(backend="llm", llm={"backend": "nope"}).identity()


# --------------------------------------------------------------------------------------
# The tiny LLM on the hf backend (CPU)
# --------------------------------------------------------------------------------------


def test_the_tiny_llm_translates_each_sentence_within_the_token_cap(tiny, monkeypatch):
    seen = []  # (cap of the request, tokens the model generated)
    generate = tiny.backend.generate

    def recording(requests):
        cap = {request.key: request.max_new_tokens for request in requests}
        for result in generate(requests):
            seen.append((cap[result.key], result.completion_tokens))
            yield result

    monkeypatch.setattr(tiny.backend, "generate", recording)
    calls, truncated = tiny.calls, tiny.truncated
    out = tiny.translate([*GERMAN, "", GERMAN[0]], "deu_Latn", "eng_Latn")
    assert len(out) == 5 and out[3] == "" and out[4] == out[0]
    assert all(isinstance(text, str) and text for text in out[:3])
    assert tiny.calls - calls == 3  # the repeated sentence was asked once
    assert seen == [(6, 6)] * 3  # translator.max_new_tokens; the random model never stops on its own
    assert tiny.truncated - truncated == 3


def test_the_tiny_llms_greedy_translation_does_not_depend_on_the_other_sentences(tiny):
    alone = tiny.translate([GERMAN[1]], "deu_Latn", "eng_Latn")
    together = tiny.translate(GERMAN, "deu_Latn", "eng_Latn")
    assert alone == [together[1]]


def test_the_tiny_llms_sampled_translation_depends_only_on_the_sentence_and_the_seed(tiny):
    first = tiny.translate(GERMAN, "deu_Latn", "eng_Latn", sampling=SamplingSpec(seed=1))
    again = tiny.translate([GERMAN[2], GERMAN[0]], "deu_Latn", "eng_Latn", sampling=SamplingSpec(seed=1))
    assert again == [first[2], first[0]]
    other = [
        tiny.translate([sentence], "deu_Latn", "eng_Latn", sampling=SamplingSpec(seed=7))[0] for sentence in GERMAN
    ]
    assert other != first
    assert tiny.backend.spec.decoding.temperature == 0.0  # the loaded decoding is back after a repair


# --------------------------------------------------------------------------------------
# The translation job, end to end
# --------------------------------------------------------------------------------------

ENGLISH = {
    "Das ist ein Haus.": "This is a house.",
    "Es ist sehr alt.": "It is very old.",
    "Le ciel est bleu.": "The sky is blue.",
    "Il fait beau.": "The weather is fine.",
}


def _job_responses(tmp_path: Path) -> Path:
    responses = response_rows(
        [
            ("1", "de", "Das ist ein Haus. Es ist sehr alt."),
            ("2", "fr", "Le ciel est bleu.\n\n- Il fait beau."),
            ("3", "de", NO_ANSWER),
            ("4", "de", "Es ist sehr alt."),
        ]
    )
    path = tmp_path / "responses.parquet"
    write_table(responses, path, RESPONSES)
    return path


def test_the_translation_job_runs_end_to_end_with_an_llm_translator(endpoint, tmp_path):
    endpoint.reply = lambda prompt: f'Translation: "{ENGLISH[sentence_of(prompt)]}"'
    spec = served(endpoint)
    responses = _job_responses(tmp_path)
    out, sentences, cache = tmp_path / "t.parquet", tmp_path / "s.parquet", tmp_path / "cache.jsonl"
    with recording() as ledger:
        run_translation_job(spec, responses, out, sentences, cache, detect_response_language=False)
    table = pq.read_table(out)
    assert table.schema.equals(TRANSLATIONS) and pq.read_table(sentences).schema.equals(TRANSLATED_SENTENCES)
    rows = {row["item_id"]: row for row in table.to_pylist()}
    assert rows["1"]["translation"] == "This is a house. It is very old."
    assert rows["2"]["translation"] == "The sky is blue.\n\n- The weather is fine."
    assert rows["3"]["translation"] == NO_ANSWER and rows["4"]["translation"] == "It is very old."
    assert {row["translator"] for row in table.to_pylist()} == {f"{SERVED_MODEL}|llm"}
    assert any("German text" in prompt for prompt in endpoint.prompts)
    assert any("French text" in prompt for prompt in endpoint.prompts)
    assert len(endpoint.prompts) == 4  # "Es ist sehr alt." twice in the job, asked once
    # The usage ledger: 4 requests of the endpoint's 10 + 5 tokens each, under the served model's name.
    (call,) = ledger.calls()
    assert (call["model"], call["part"], call["requests"], call["cached_requests"]) == (SERVED_MODEL, "translate", 4, 0)
    assert (call["prompt_tokens"], call["completion_tokens"], call["failures"]) == (40, 20, 0)

    # A rerun is served by the job's cache; another prompt is another translator.
    with recording() as ledger:
        run_translation_job(
            spec, responses, tmp_path / "t2.parquet", tmp_path / "s2.parquet", cache, detect_response_language=False
        )
    assert len(endpoint.prompts) == 4
    (call,) = ledger.calls()
    assert (call["requests"], call["cached_requests"], call["prompt_tokens"]) == (0, 4, 0)
    assert pq.read_table(tmp_path / "t2.parquet").equals(table)
    other = served(endpoint, prompt="Please translate from {source_language} into {target_language}:\n{text}")
    run_translation_job(
        other, responses, tmp_path / "t3.parquet", tmp_path / "s3.parquet", cache, detect_response_language=False
    )
    assert len(endpoint.prompts) == 8


def test_the_translation_job_runs_on_the_tiny_llm(tiny_llm, tmp_path):
    responses = _job_responses(tmp_path)
    out, sentences = tmp_path / "t.parquet", tmp_path / "s.parquet"
    run_translation_job(
        local(tiny_llm),
        responses,
        out,
        sentences,
        tmp_path / "cache.jsonl",
        detect_response_language=False,
        degeneration=DegenerationSpec(repair=False),
    )
    rows = {row["item_id"]: row for row in pq.read_table(out).to_pylist()}
    assert {row["translator"] for row in rows.values()} == {"tiny-llm|llm"}
    assert rows["3"]["translation"] == NO_ANSWER
    assert [rows[item]["n_sentences"] for item in "124"] == [2, 2, 1]
    translated = pq.read_table(sentences).to_pylist()
    assert len(translated) == 5 and all(row["translation"] for row in translated)
