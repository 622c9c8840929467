"""The fetch library: data sets and models land on disk verified, once, or fail clearly.

No test touches the internet: data sets are served by a local HTTP server on 127.0.0.1,
and the Hugging Face Hub is replaced by fakes of ``snapshot_download``/``hf_hub_download``,
or by a server on 127.0.0.1 that refuses as the Hub does (the real ``huggingface_hub`` asks it).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import shutil
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import huggingface_hub
import huggingface_hub.constants
import pytest
import yaml

from local_server import SHARED_COPIES, LocalServer, shared_copy
from xlcons import REPO_ROOT
from xlcons.data_sources import DATA_SOURCES, RELEASED_NAMES
from xlcons.data_sources.catalog import MAKQA_DOMAINS, RELEASED_MODELS
from xlcons.data_sources.names import released_source_name
from xlcons.data_sources.spec import DataFile, DataSource
from xlcons.fetch.dataset import MANIFEST_NAME, fetch_dataset, verify_dataset
from xlcons.fetch.errors import DataVerificationError, FetchError
from xlcons.fetch.model import MODEL_INCOMPLETE_NAME, MODEL_MARKER_NAME, fetch_model, hf_offline_env
from xlcons.fetch.structure import check_structure

ALL_FILES = [(s.name, f) for s in DATA_SOURCES.values() for f in s.files]
SHARED_FILES = [(name, f) for name, f in ALL_FILES if name in SHARED_COPIES]
FAST = {"backoff_s": 0.01, "timeout_s": 10.0}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def server(tmp_path: Path):
    with LocalServer(tmp_path / "served") as srv:
        yield srv


def seed(dest: Path, source: DataSource, shared_data: Path) -> None:
    for f in source.files:
        (dest / f.relpath).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shared_copy(shared_data, source) / f.relpath, dest / f.relpath)


# --- what the data sources record ------------------------------------------------------------


@pytest.mark.parametrize(("source_name", "f"), SHARED_FILES, ids=[f"{s}/{f.relpath}" for s, f in SHARED_FILES])
def test_recorded_size_and_sha256_are_those_of_the_released_file(shared_data, source_name, f: DataFile):
    released = shared_copy(shared_data, DATA_SOURCES[source_name]) / f.relpath
    assert released.stat().st_size == f.size
    assert sha256(released) == f.sha256
    check_structure(released, f)  # the recorded columns / JSON type fit the released file


@pytest.mark.parametrize(("source_name", "f"), ALL_FILES, ids=[f"{s}/{f.relpath}" for s, f in ALL_FILES])
def test_every_data_file_has_an_absolute_https_url_pinned_to_a_commit_or_by_its_hash_alone(source_name, f: DataFile):
    """A repository's files at a commit; a release at a fixed URL (FLORES-200's tarball) is
    pinned by its recorded sha256 alone, which the fetch checks."""
    source = DATA_SOURCES[source_name]
    url = source.url(f)
    if source.unversioned:
        assert url == "https://dl.fbaipublicfiles.com/nllb/flores200_dataset.tar.gz"
    else:
        assert url.startswith("https://raw.githubusercontent.com/")
        assert re.search(r"/[0-9a-f]{40}/", url), f"{url} must pin a commit"
    assert url.endswith("/" + f.upstream) and url.endswith("/" + f.relpath.split("/")[-1])


def test_a_source_without_a_commit_in_its_root_must_say_it_is_pinned_by_hash_alone():
    with pytest.raises(ValueError, match="pinned to a commit"):
        DataSource(
            name="x", root="https://example.org/data/", files=(), license="", homepage=None, citation="", dataset="x"
        )
    DataSource(
        name="x",
        root="https://example.org/data/",
        files=(),
        license="",
        homepage=None,
        citation="",
        dataset="x",
        unversioned=True,
    )


def test_makqa_and_the_released_outputs_of_xing2024_come_from_its_repository_at_one_commit():
    makqa = DATA_SOURCES["makqa"]
    assert makqa.root == (
        "https://raw.githubusercontent.com/Xingxl2studious/Cross-lingual-Consistency/"
        "fa42b83969cc104d31972ed27fc94dc71ab9821f/"
    )
    assert makqa.source_url_key == "datasets.makqa.source_url"
    assert len(makqa.files) == 14 and {f.json_type for f in makqa.files} == {"dict"}
    assert {f.upstream.split("/")[0] for f in makqa.files} == {"data"}
    assert len(RELEASED_MODELS) == 11
    for model in RELEASED_MODELS:
        released = DATA_SOURCES[released_source_name(model)]
        assert released.root == makqa.root and released.dataset == "makqa"
        assert [f.upstream for f in released.files] == [f"result/{model}/result_{d}.json" for d in MAKQA_DOMAINS]
        assert {f.json_type for f in released.files} == {"list"}
    # Recorded from the repository: no two models share a file.
    assert len({f.sha256 for model in RELEASED_MODELS for f in DATA_SOURCES[released_source_name(model)].files}) == 77


def test_the_schema_offers_exactly_the_released_models():
    """Xing et al. 2024's models, then the Language Confusion Benchmark's as lcb-<model>, each with its data source."""
    schema = yaml.safe_load((REPO_ROOT / "config" / "schema" / "config.schema.yaml").read_text())
    (choices, _) = schema["$defs"]["llm"]["properties"]["released"]["anyOf"]
    assert tuple(choices["enum"]) == RELEASED_NAMES
    assert RELEASED_NAMES[: len(RELEASED_MODELS)] == RELEASED_MODELS
    assert all(released_source_name(name) in DATA_SOURCES for name in RELEASED_NAMES)
    assert released_source_name("lcb-command-r") == "lcb-released-command-r"


def test_a_csv_without_the_required_columns_fails_the_structural_check(tmp_path):
    path = tmp_path / "MultiQ.csv"
    path.write_text("id,language,prompt\n1,en,hi\n")
    f = DATA_SOURCES["multiq"].files[0]
    with pytest.raises(DataVerificationError, match="domain"):
        check_structure(path, f)


def test_json_of_the_wrong_top_level_type_fails_the_structural_check(tmp_path):
    path = tmp_path / "result_geo.json"
    path.write_text("{}")
    f = DATA_SOURCES["makqa-released-gpt35"].file("result_geo.json")
    with pytest.raises(DataVerificationError, match="expected list"):
        check_structure(path, f)


# --- fetching data sets ----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["multiq", "epitome", "makqa", "makqa-released-gpt35"])
def test_fetch_downloads_verifies_and_writes_the_manifest(server, shared_data, tmp_path, name):
    source = DATA_SOURCES[name]
    mirror = server.mirror(source, shared_data)
    dest = tmp_path / "data" / name

    manifest_path = fetch_dataset(source, dest, mirror=mirror, **FAST)

    assert manifest_path == dest / MANIFEST_NAME
    manifest = json.loads(manifest_path.read_text())
    assert manifest["source"] == name and manifest["license"] == source.license
    assert [e["relpath"] for e in manifest["files"]] == [f.relpath for f in source.files]
    for entry, f in zip(manifest["files"], source.files):
        assert entry["sha256"] == f.sha256 == sha256(dest / f.relpath)
        assert entry["size"] == f.size
        assert entry["origin"] == "download" and entry["url"] == source.url(f, mirror)
        assert "fetched_at" in entry
    assert sorted(server.requests) == sorted(server.path_of(source, f) for f in source.files)
    assert not list(dest.rglob("*.part")) and not list(dest.glob(".*.tmp"))
    verify_dataset(dest, source)


def test_a_second_fetch_downloads_nothing_and_leaves_the_manifest_alone(server, shared_data, tmp_path):
    source = DATA_SOURCES["epitome"]
    mirror = server.mirror(source, shared_data)
    dest = tmp_path / "epitome"
    manifest = fetch_dataset(source, dest, mirror=mirror, **FAST)
    served, before = len(server.requests), manifest.read_bytes()

    assert fetch_dataset(source, dest, mirror=mirror, **FAST) == manifest

    assert len(server.requests) == served == len(source.files)
    assert manifest.read_bytes() == before


def test_a_tampered_download_raises_names_the_file_and_leaves_nothing(server, shared_data, tmp_path):
    source = DATA_SOURCES["epitome"]
    mirror = server.mirror(source, shared_data)
    bad = source.files[1]
    served = server.root / "mirror" / bad.upstream
    data = bytearray(served.read_bytes())
    data[100] ^= 0x20  # same size, different content
    served.write_bytes(bytes(data))
    dest = tmp_path / "epitome"

    with pytest.raises(DataVerificationError) as info:
        fetch_dataset(source, dest, mirror=mirror, **FAST)

    message = str(info.value)
    assert bad.relpath in message and source.url(bad, mirror) in message
    assert bad.sha256 in message and sha256(served) in message
    assert (info.value.relpath, info.value.actual_sha256) == (bad.relpath, sha256(served))
    assert not (dest / bad.relpath).exists()
    assert not list(dest.rglob("*.part"))
    assert not (dest / MANIFEST_NAME).exists()


def test_a_pre_seeded_destination_is_used_as_is_without_any_request(server, shared_data, tmp_path):
    source = DATA_SOURCES["epitome"]
    mirror = server.mirror(source, shared_data)
    dest = tmp_path / "epitome"
    seed(dest, source, shared_data)

    manifest = json.loads(fetch_dataset(source, dest, mirror=mirror, **FAST).read_text())

    assert server.requests == []
    assert {e["origin"] for e in manifest["files"]} == {"pre-seeded"}
    verify_dataset(dest, source)


def test_a_wrong_file_in_the_destination_is_replaced_by_the_released_one(server, shared_data, tmp_path):
    source = DATA_SOURCES["multiq"]
    mirror = server.mirror(source, shared_data)
    dest = tmp_path / "multiq"
    dest.mkdir()
    (dest / "MultiQ.csv").write_text("id,language,prompt,domain\n1,en,stale,x\n")

    fetch_dataset(source, dest, mirror=mirror, **FAST)

    assert sha256(dest / "MultiQ.csv") == source.files[0].sha256
    assert server.requests == ["/mirror/data/MultiQ.csv"]


def test_makqa_is_copied_from_a_local_copy(shared_data, tmp_path):
    source = DATA_SOURCES["makqa"]
    dest = tmp_path / "makqa"

    manifest = json.loads(fetch_dataset(source, dest, local_copy=shared_data / "makqa").read_text())

    assert {e["origin"] for e in manifest["files"]} == {"local_copy"}
    assert (dest / "QA_merged_data_dict_geo.json").is_file()
    verify_dataset(dest, source)


def test_without_a_mirror_the_pinned_upstream_url_is_the_one_requested(shared_data, tmp_path, monkeypatch):
    requested = []

    def refuse(request, timeout):
        requested.append(request.full_url)
        raise urllib.error.URLError(ConnectionRefusedError("no network in the tests"))

    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    source = DATA_SOURCES["makqa-released-llama2-7b"]

    with pytest.raises(FetchError) as info:
        fetch_dataset(source, tmp_path / "out", **FAST)

    assert requested == [source.url(source.files[0])] * 5, "a refused connection is retried, then reported"
    assert source.url(source.files[0]) in str(info.value) and "login node" in str(info.value)
    assert not list((tmp_path / "out").iterdir())


def test_transient_server_errors_are_retried(server, shared_data, tmp_path):
    source = DATA_SOURCES["multiq"]
    mirror = server.mirror(source, shared_data)
    server.fail("/mirror/data/MultiQ.csv", times=2)

    fetch_dataset(source, tmp_path / "multiq", mirror=mirror, **FAST)

    assert server.requests == ["/mirror/data/MultiQ.csv"] * 3
    verify_dataset(tmp_path / "multiq", source)


def test_a_missing_file_on_the_server_is_not_retried_and_names_the_url(server, shared_data, tmp_path):
    source = DATA_SOURCES["multiq"]
    mirror = server.mirror(source, shared_data)
    (server.root / "mirror" / "data" / "MultiQ.csv").unlink()

    with pytest.raises(FetchError, match="MultiQ.csv") as info:
        fetch_dataset(source, tmp_path / "multiq", mirror=mirror, **FAST)

    assert source.url(source.files[0], mirror) in str(info.value)
    assert server.requests == ["/mirror/data/MultiQ.csv"]
    assert not (tmp_path / "multiq" / "MultiQ.csv").exists()


def test_verify_dataset_notices_a_file_changed_after_the_fetch(shared_data, tmp_path):
    source = DATA_SOURCES["makqa"]
    dest = tmp_path / "makqa"
    fetch_dataset(source, dest, local_copy=shared_data / "makqa")
    (dest / "QA_merged_data_dict_geo.json").write_text("{}")

    with pytest.raises(DataVerificationError, match="QA_merged_data_dict_geo.json"):
        verify_dataset(dest, source)


def test_verify_dataset_requires_the_manifest(shared_data, tmp_path):
    source = DATA_SOURCES["multiq"]
    seed(tmp_path, source, shared_data)

    with pytest.raises(DataVerificationError, match=MANIFEST_NAME):
        verify_dataset(tmp_path, source)


# --- fetching models -------------------------------------------------------------------------

COMMIT = "0123456789abcdef0123456789abcdef01234567"


class FakeHub:
    """Stands in for huggingface_hub's download functions; records the calls it gets."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict]] = []
        self.dry_runs = 0
        self.error: Exception | None = None
        self.partial = False  # write config.json, then fail (a download cut short)

    def _write(self, local_dir: Path, name: str, data: bytes) -> None:
        (local_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (local_dir / name).write_bytes(data)
        meta = local_dir / ".cache" / "huggingface" / "download" / f"{name}.metadata"
        meta.parent.mkdir(parents=True, exist_ok=True)
        meta.write_text(f"{COMMIT}\netag\n1712656091.0\n")

    def snapshot_download(self, repo_id, dry_run=False, **kwargs):
        if dry_run:  # the listing: it fails as the download would, unless the download is cut short later
            self.dry_runs += 1
            if self.error and not self.partial:
                raise self.error
            return []
        self.calls.append((repo_id, kwargs))
        local_dir = Path(kwargs["local_dir"])
        if self.partial:
            self._write(local_dir, "config.json", b"{}")
        if self.error:
            raise self.error
        self._write(local_dir, "config.json", b'{"model_type": "fake"}')
        self._write(local_dir, "model.safetensors", b"\0" * 1000)
        return str(local_dir)

    def hf_hub_download(self, repo_id, **kwargs):
        self.calls.append((repo_id, kwargs))
        if self.error:
            raise self.error
        self._write(Path(kwargs["local_dir"]), kwargs["filename"], b"\1" * 500)
        return str(Path(kwargs["local_dir"]) / kwargs["filename"])


@pytest.fixture
def hub(monkeypatch) -> FakeHub:
    fake = FakeHub()
    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake.snapshot_download)
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", fake.hf_hub_download)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    return fake


def test_fetch_model_downloads_a_snapshot_and_writes_the_marker(hub, tmp_path):
    dest = tmp_path / "models" / "smol"

    marker = fetch_model(dest, hf_id="org/smol", revision="main", allow_patterns=["*.json", "*.safetensors"])

    assert marker == dest / MODEL_MARKER_NAME
    assert hub.calls == [
        ("org/smol", {"revision": "main", "local_dir": dest, "allow_patterns": ["*.json", "*.safetensors"]})
    ]
    info = json.loads(marker.read_text())
    assert info["hf_id"] == "org/smol" and info["commit"] == COMMIT and info["pre_seeded"] is False
    assert info["files"] == [{"path": "config.json", "size": 22}, {"path": "model.safetensors", "size": 1000}]
    assert not (dest / MODEL_INCOMPLETE_NAME).exists()


def test_a_fetched_model_is_not_fetched_again(hub, tmp_path):
    fetch_model(tmp_path / "smol", hf_id="org/smol")
    fetch_model(tmp_path / "smol", hf_id="org/smol")

    assert len(hub.calls) == 1


def test_fetch_model_downloads_a_single_file(hub, tmp_path):
    dest = tmp_path / "glotlid"

    info = json.loads(fetch_model(dest, hf_id="cis-lmu/glotlid", hf_file="model.bin").read_text())

    assert hub.calls == [("cis-lmu/glotlid", {"filename": "model.bin", "revision": None, "local_dir": dest})]
    assert info["files"] == [{"path": "model.bin", "size": 500}] and info["hf_file"] == "model.bin"


@pytest.mark.parametrize(("hf_file", "present"), [(None, "config.json"), ("model.bin", "model.bin")])
def test_a_pre_seeded_model_is_used_without_calling_the_hub(hub, tmp_path, hf_file, present):
    dest = tmp_path / "model"
    dest.mkdir()
    (dest / present).write_bytes(b"{}")

    info = json.loads(fetch_model(dest, hf_id="org/model", hf_file=hf_file).read_text())

    assert hub.calls == []
    assert info["pre_seeded"] is True and info["files"] == [{"path": present, "size": 2}]


def test_a_hub_error_becomes_a_fetch_error_naming_the_model(hub, tmp_path):
    hub.error = huggingface_hub.errors.LocalEntryNotFoundError("cannot reach the Hub")
    dest = tmp_path / "gated"

    with pytest.raises(FetchError) as info:
        fetch_model(dest, hf_id="org/gated-model", revision="v1")

    message = str(info.value)
    assert "org/gated-model" in message and "internet" in message and "path:" in message
    assert isinstance(info.value.__cause__, huggingface_hub.errors.LocalEntryNotFoundError)
    assert not (dest / MODEL_MARKER_NAME).exists()


class RefusingHub(BaseHTTPRequestHandler):
    """The Hub's API as it answers a model it will not give: `answer` is (status, headers)."""

    answer: tuple[int, dict[str, str]] = (404, {})

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        status, headers = self.server.answer  # type: ignore[attr-defined]
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    do_HEAD = do_GET

    def log_message(self, *args) -> None:
        pass


def point_hub_at(monkeypatch, url: str) -> None:
    """The real huggingface_hub's API and file URLs on `url` instead of huggingface.co."""
    monkeypatch.setattr(huggingface_hub.constants, "ENDPOINT", url)
    monkeypatch.setattr(
        huggingface_hub.constants, "HUGGINGFACE_CO_URL_TEMPLATE", url + "/{repo_id}/resolve/{revision}/{filename}"
    )


@pytest.fixture
def refusing_hub(monkeypatch):
    """The real huggingface_hub pointed at a server on 127.0.0.1; set `.answer` on what it returns."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), RefusingHub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    point_hub_at(monkeypatch, f"http://127.0.0.1:{server.server_address[1]}")
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_TOKEN", "hf_test_token")
    yield server
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


@pytest.mark.parametrize(
    ("answer", "why", "what_to_do"),
    [
        ((404, {"X-Error-Code": "RepoNotFound"}), "not found", "check `hf_id` in the config"),
        ((403, {"X-Error-Code": "GatedRepo"}), "gated", "accept its terms at https://huggingface.co/org/model"),
        (
            (401, {"X-Error-Message": "Invalid credentials in Authorization header"}),
            "unauthorised",
            "the Hub refused the token (HTTP 401)",
        ),
        ((404, {"X-Error-Code": "RevisionNotFound"}), "not found", "org/model has no revision 'v9'"),
        (None, "no network", "Run the fetch on a machine with internet access"),
    ],
    ids=["not-found", "gated", "unauthorised", "no-revision", "no-network"],
)
def test_why_a_model_cannot_be_fetched_comes_first(refusing_hub, monkeypatch, tmp_path, answer, why, what_to_do):
    """The Hub answers a fresh fetch's folder (which already holds the fetch's own marker) by
    handing the folder back with a warning in the log; the error the job stops with says the
    reason first (no network, not found, gated, unauthorised), never "check allow_patterns"."""
    if answer is None:
        point_hub_at(monkeypatch, "http://127.0.0.1:9")  # nothing listens there
    else:
        refusing_hub.answer = answer
    with pytest.raises(FetchError) as info:
        fetch_model(tmp_path / "model", hf_id="org/model", revision="v9")
    message = str(info.value)
    assert message.startswith(f"{why}: could not fetch model org/model (revision v9) from the Hugging Face Hub (")
    assert what_to_do in message and "allow_patterns" not in message
    assert not (tmp_path / "model" / MODEL_MARKER_NAME).exists()


def test_a_single_file_that_cannot_be_fetched_says_why_first(refusing_hub, tmp_path):
    refusing_hub.answer = (404, {"X-Error-Code": "EntryNotFound"})
    with pytest.raises(FetchError) as info:
        fetch_model(tmp_path / "lid", hf_id="org/lid", hf_file="model.bin")
    message = str(info.value)
    assert message.startswith("not found: could not fetch model org/lid, file model.bin from the Hugging Face Hub (")
    assert message.endswith("org/lid has no file 'model.bin'; check `hf_file` in the config.")


def test_a_download_cut_short_is_resumed_not_taken_for_a_pre_seeded_copy(hub, tmp_path):
    dest = tmp_path / "smol"
    hub.partial, hub.error = True, ConnectionError("reset by peer")
    with pytest.raises(FetchError):
        fetch_model(dest, hf_id="org/smol")
    assert (dest / "config.json").is_file()  # looks usable, but is not complete

    hub.partial, hub.error = False, None
    info = json.loads(fetch_model(dest, hf_id="org/smol").read_text())

    assert len(hub.calls) == 2 and info["pre_seeded"] is False
    assert {f["path"] for f in info["files"]} == {"config.json", "model.safetensors"}


def test_a_directory_fetched_for_another_model_is_refused(hub, tmp_path):
    fetch_model(tmp_path / "m", hf_id="org/one")

    with pytest.raises(FetchError, match="org/one"):
        fetch_model(tmp_path / "m", hf_id="org/two")
    assert len(hub.calls) == 1


def test_compute_jobs_run_with_the_hugging_face_libraries_offline():
    assert hf_offline_env() == {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}


def test_a_flores_tarball_that_is_not_the_release_is_refused_and_the_release_shape_is_checked(tmp_path):
    """A copy with other bytes fails on its sha256 (and is not kept); a tarball with the recorded
    hash but without the devtest files fails the structure check."""
    from builders import write_flores_sample

    source = DATA_SOURCES["flores200"]
    sample = write_flores_sample(tmp_path / "sample")
    with pytest.raises(
        DataVerificationError,
        match="flores200_dataset.tar.gz from .* is not the released file: sha256 expected b8b0b767",
    ):
        fetch_dataset(source, tmp_path / "dest", local_copy=sample)
    assert not (tmp_path / "dest" / "flores200_dataset.tar.gz").exists()

    def pinned_to(folder):
        archive = folder / "flores200_dataset.tar.gz"
        (f,) = source.files
        return dataclasses.replace(
            source, files=(dataclasses.replace(f, sha256=sha256(archive), size=archive.stat().st_size),)
        )

    manifest = json.loads(fetch_dataset(pinned_to(sample), tmp_path / "dest", local_copy=sample).read_text())
    assert [e["relpath"] for e in manifest["files"]] == ["flores200_dataset.tar.gz"]
    other = write_flores_sample(tmp_path / "other", {"fra_Latn": ["Une phrase."]})
    with pytest.raises(DataVerificationError, match="the archive lacks"):
        fetch_dataset(pinned_to(other), tmp_path / "dest2", local_copy=other)
