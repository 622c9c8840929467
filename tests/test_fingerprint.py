"""A local model is identified by what is in its files, not by its folder's name.

Pointing `models.mine.path` from `…/a/model` to `…/b/model`, or retraining a checkpoint in
place, must not serve the old model's cached answers or translations; a copy of the same
files elsewhere must (the answers are the same)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from xlcons import fingerprint
from xlcons.fingerprint import BOOKKEEPING_FILES, content_digest
from xlcons.generation.base import Backend, ModelSpec, Result, build_requests
from xlcons.generation.stage import run_generation


@pytest.fixture(autouse=True)
def memo(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("XLCONS_CACHE_DIR", str(tmp_path / "memo"))
    fingerprint._folder_digest.cache_clear()
    return tmp_path / "memo"


def checkpoint(folder: Path, weights: bytes) -> Path:
    folder.mkdir(parents=True)
    (folder / "config.json").write_text('{"model_type": "llama"}')
    (folder / "model.safetensors").write_bytes(weights)
    return folder


def test_the_digest_follows_the_content_not_the_folder(tmp_path):
    a = checkpoint(tmp_path / "a" / "model", b"weights of A")
    b = checkpoint(tmp_path / "b" / "model", b"weights of B")
    copy_of_a = checkpoint(tmp_path / "elsewhere" / "renamed", b"weights of A")

    assert content_digest(a) != content_digest(b)
    assert content_digest(a) == content_digest(copy_of_a)


def test_a_checkpoint_retrained_in_place_gets_a_new_digest(tmp_path):
    model = checkpoint(tmp_path / "model", b"epoch 1 weights")
    before = content_digest(model)
    (model / "model.safetensors").write_bytes(b"epoch 2 weights")  # same size, other content
    os.utime(model / "model.safetensors", ns=(1, 1))  # and a new modification time

    assert content_digest(model) != before


def test_the_random_weight_offline_models_are_the_builders_own():
    from devtools.offline_models.build import MODELS

    assert fingerprint.RANDOM_WEIGHT_OFFLINE_MODELS == {name for name, spec in MODELS.items() if spec.random_weights}
    assert "smollm2-135m-instruct" in MODELS and "smollm2-135m-instruct" not in fingerprint.RANDOM_WEIGHT_OFFLINE_MODELS


def test_bookkeeping_files_are_not_the_model(tmp_path):
    from devtools.offline_models import STAMP_NAME
    from xlcons.fetch.dataset import MANIFEST_NAME
    from xlcons.fetch.model import MODEL_INCOMPLETE_NAME, MODEL_MARKER_NAME
    from xlcons.translation.spec import CT2_MARKER

    assert {MANIFEST_NAME, MODEL_MARKER_NAME, MODEL_INCOMPLETE_NAME, STAMP_NAME, CT2_MARKER} == BOOKKEEPING_FILES
    model = checkpoint(tmp_path / "model", b"weights")
    before = content_digest(model)
    (model / MODEL_MARKER_NAME).write_text('{"fetched_at": "now"}')
    (model / ".cache" / "huggingface").mkdir(parents=True)
    (model / ".cache" / "huggingface" / "x.metadata").write_text("commit")

    assert content_digest(model) == before


def test_an_unchanged_file_is_hashed_once_and_remembered_on_disk(tmp_path, memo, monkeypatch):
    model = checkpoint(tmp_path / "model", b"weights")
    read = []
    real = fingerprint._file_sha256
    monkeypatch.setattr(fingerprint, "_file_sha256", lambda path: read.append(path.name) or real(path))

    first = content_digest(model)
    fingerprint._folder_digest.cache_clear()  # a new job: only the memo on disk is left
    second = content_digest(model)

    assert first == second and sorted(read) == ["config.json", "model.safetensors"]
    assert len(list(memo.rglob("*.json"))) == 2


class Counting(Backend):
    """Answers every request with the model's location; counts what it was asked."""

    name = "counting"
    asked: list[str] = []

    def generate(self, requests):
        for request in requests:
            Counting.asked.append(self.spec.location)
            yield Result(request.key, f"answer of {Path(self.spec.location).parent.name}", "stop", 1, 1)


def path_model(location: Path) -> ModelSpec:
    return ModelSpec(name="mine", backend="hf", location=str(location))


def test_another_checkpoint_under_the_same_folder_name_is_not_served_the_cached_answers(tmp_path):
    import pyarrow as pa

    from xlcons.schemas import PROMPTS

    prompts = pa.Table.from_pylist(
        [
            {
                "dataset": "d",
                "item_id": "1",
                "lang": "en",
                "prompt": "Hi?",
                "category": None,
                "references": None,
                "source_lang": "en",
            }
        ],
        schema=PROMPTS,
    )
    a = checkpoint(tmp_path / "a" / "model", b"weights of A")
    b = checkpoint(tmp_path / "b" / "model", b"weights of B")
    cache = tmp_path / "cache.jsonl"
    Counting.asked = []

    first = run_generation(path_model(a), prompts, 8, cache, Counting)
    second = run_generation(path_model(b), prompts, 8, cache, Counting)
    again = run_generation(
        path_model(checkpoint(tmp_path / "c" / "model", b"weights of B")), prompts, 8, cache, Counting
    )

    assert Counting.asked == [str(a), str(b)], "B is asked although A's answer is cached; B's copy is not"
    assert first["response"].to_pylist() == ["answer of a"]
    assert second["response"].to_pylist() == again["response"].to_pylist() == ["answer of b"]
    assert first["decoding_hash"][0] != second["decoding_hash"][0]


def test_hub_and_served_models_keep_their_names_as_identity(tmp_path):
    hub = ModelSpec(name="q", backend="hf", location=str(tmp_path / "not-hashed"), hf_id="Qwen/Qwen2.5-0.5B-Instruct")
    served = ModelSpec(name="g", backend="openai", location=None, options={"model": "gpt-4o"})
    assert hub.identity()["model"] == "Qwen/Qwen2.5-0.5B-Instruct" and "content" not in hub.identity()
    assert served.identity()["model"] == "gpt-4o" and "content" not in served.identity()
    local = path_model(checkpoint(tmp_path / "model", b"w"))
    assert local.identity()["model"] == "model" and local.identity()["content"] == content_digest(tmp_path / "model")
    assert build_requests(local, [{"item_id": "1", "lang": "en", "prompt": "p"}], 8)[0].key


def test_a_local_translator_is_identified_by_its_files_a_hub_one_by_its_id(tmp_path):
    from xlcons.translation.spec import TranslatorSpec

    a = checkpoint(tmp_path / "a" / "nllb", b"A")
    b = checkpoint(tmp_path / "b" / "nllb", b"B")
    local = {"model": {"path": "x/nllb"}}
    spec_a = TranslatorSpec.from_config(local, str(a))
    spec_b = TranslatorSpec.from_config(local, str(b))
    assert spec_a.identity()["model"] == spec_b.identity()["model"] == "nllb"
    assert spec_a.identity() != spec_b.identity() and spec_a.label() == spec_b.label()
    hub = TranslatorSpec.from_config({"model": {"hf_id": "facebook/nllb-200-distilled-600M"}}, str(a))
    assert "content" not in hub.identity()


def test_a_large_weights_file_is_sampled_and_a_change_anywhere_in_training_shows(tmp_path, monkeypatch):
    monkeypatch.setattr(fingerprint, "WHOLE_FILE_LIMIT", 4 << 20)
    weights = bytearray(os.urandom(32 << 20))
    model = checkpoint(tmp_path / "model", bytes(weights))
    copy = checkpoint(tmp_path / "copy", bytes(weights))
    assert content_digest(model) == content_digest(copy)

    weights[:] = bytes(b ^ 1 for b in weights)  # retrained: every weight moved
    (model / "model.safetensors").write_bytes(bytes(weights))
    os.utime(model / "model.safetensors", ns=(2, 2))
    assert content_digest(model) != content_digest(copy)


def test_the_models_without_an_item_cache_are_identified_by_their_files_in_the_job_params(tmp_path):
    """The LID model, the knowledge embedder and the empathy encoder: their rules carry
    `Plan.content` of their config key, so a replaced file reruns the job and a moved copy does not."""
    from xlcons.config import validate_config
    from xlcons.plan import Plan

    lid = tmp_path / "lid" / "model.bin"
    lid.parent.mkdir()
    lid.write_bytes(b"fastText weights, first training")
    embedder = checkpoint(tmp_path / "embedder", b"E")

    def plan():
        config = {
            "evaluators": {
                "language_id": {"model": {"path": str(lid)}, "label_scheme": "lid176"},
                "knowledge": {"embedder": {"path": str(embedder)}},
            }
        }
        return Plan(validate_config(config, base_dir=tmp_path))

    first = plan()
    before = (first.content("evaluators.language_id.model"), first.content("evaluators.knowledge.embedder"))
    assert all(before)
    lid.write_bytes(b"fastText weights, retrained")
    after = plan()
    assert after.content("evaluators.language_id.model") != before[0]
    assert after.content("evaluators.knowledge.embedder") == before[1]
    assert after.content("evaluators.empathy.encoder") is None, "a Hub model (or none): its id and revision identify it"
