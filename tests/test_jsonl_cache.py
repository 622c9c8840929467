"""The item caches carry their format: a header line with the kind of cache and its version, and
the fields each record must have (xlcons.jsonl_cache.CacheFormat). A cache this code cannot
read fails when it is opened, naming the file and what to do, not later on a table built from
it; the header-less caches written before headers existed still open."""

from __future__ import annotations

import json

import pytest

from xlcons.generation.base import Result
from xlcons.generation.cache import ResponseCache
from xlcons.jsonl_cache import CacheError, CacheFormat, JsonLinesCache
from xlcons.translation.cache import TranslationCache


def lines(*records: dict) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


def test_a_new_cache_starts_with_a_header_naming_its_kind_and_version(tmp_path):
    ResponseCache(tmp_path / "responses.jsonl")
    TranslationCache(tmp_path / "translations.jsonl")
    assert (tmp_path / "responses.jsonl").read_text() == lines({"xlcons_cache": "responses", "version": 1})
    assert (tmp_path / "translations.jsonl").read_text() == lines({"xlcons_cache": "translations", "version": 1})
    cache = ResponseCache(tmp_path / "responses.jsonl", flush_every=1)
    cache.put(Result("k", "Hallo.", "stop", 3, 2))
    assert ResponseCache(tmp_path / "responses.jsonl").get("k") == Result("k", "Hallo.", "stop", 3, 2)


def test_a_cache_without_a_header_written_by_earlier_versions_still_opens_and_is_kept_as_it_is(tmp_path):
    path = tmp_path / "cache.jsonl"
    path.write_text(lines(Result("a", "Sydney.", "stop", 5, 2).to_record()))
    before = path.read_bytes()
    cache = ResponseCache(path, flush_every=1)
    assert cache.get("a") == Result("a", "Sydney.", "stop", 5, 2)
    assert path.read_bytes() == before, "no header added in front of old records"
    cache.put(Result("b", "Canberra.", "stop", 5, 3))
    assert ResponseCache(path).get("b").response == "Canberra."


def test_a_cache_whose_records_lack_a_field_fails_at_open_naming_the_file_the_line_and_the_field(tmp_path):
    """A field renamed in an older format (here `response` as `text`) is reported when the cache
    is opened, not as an empty response column when the answers are written."""
    path = tmp_path / "generate" / "model.jsonl"
    path.parent.mkdir()
    path.write_text(
        lines(
            {"key": "a", "response": "Ja.", "finish_reason": "stop"},
            {"key": "b", "text": "Nein.", "finish_reason": "stop"},
        )
    )
    with pytest.raises(
        CacheError,
        match=r"generate/model\.jsonl: line 2 has no 'response'.*version "
        r"1 of the responses cache format.*Delete the file",
    ):
        ResponseCache(path)
    path.write_text(lines({"xlcons_cache": "translations", "version": 1}, {"key": "a", "text": "Yes."}))
    with pytest.raises(CacheError, match=r"model\.jsonl: line 2 has no 'translation'"):
        TranslationCache(path)


def test_a_cache_of_another_kind_or_of_a_newer_version_is_refused(tmp_path):
    path = tmp_path / "cache.jsonl"
    path.write_text(lines({"xlcons_cache": "translations", "version": 1}, {"key": "a", "translation": "Yes."}))
    with pytest.raises(
        CacheError, match=r"cache\.jsonl: line 1 says it is a 'translations' cache, not a 'responses' cache"
    ):
        ResponseCache(path)
    path.write_text(
        lines({"xlcons_cache": "responses", "version": 2}, {"key": "a", "response": "x", "finish_reason": "stop"})
    )
    with pytest.raises(
        CacheError,
        match=r"cache\.jsonl: version 2 of the responses cache format, "
        r"written by a newer xlcons; this one reads version 1",
    ):
        ResponseCache(path)


class Renamed(JsonLinesCache):
    """A cache whose version 2 renamed `text` to `answer`, with no upgrade declared."""

    FORMAT = CacheFormat("answers", version=2, fields=("answer",))


class Upgraded(JsonLinesCache):
    FORMAT = CacheFormat(
        "answers",
        version=2,
        fields=("answer",),
        upgrades={1: lambda record: {"key": record["key"], "answer": record["text"]}},
    )


def test_an_older_version_is_an_error_unless_its_format_declares_an_upgrade_which_rewrites_the_file(tmp_path):
    path = tmp_path / "cache.jsonl"
    old = lines({"key": "a", "text": "Yes."})  # version 1: no header
    path.write_text(old)
    with pytest.raises(
        CacheError,
        match=r"cache\.jsonl: version 1 of the answers cache format, written "
        r"by an older xlcons; this one reads version 2.*Delete the file",
    ):
        Renamed(path, flush_every=1)
    assert path.read_text() == old, "nothing changed by a failed open"
    assert Upgraded(path, flush_every=1).record("a") == {"key": "a", "answer": "Yes."}
    assert path.read_text() == lines({"xlcons_cache": "answers", "version": 2}, {"key": "a", "answer": "Yes."})
    assert Renamed(path, flush_every=1).record("a")["answer"] == "Yes."
