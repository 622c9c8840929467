"""One writer per item cache: the same job started twice at once (two snakemake invocations
with different targets) takes turns, the second answering from what the first cached."""

from __future__ import annotations

import gc
import logging
import subprocess
import sys
import time
from textwrap import dedent

from xlcons.cache_lock import lock_path
from xlcons.jsonl_cache import JsonLinesCache

WRITER = dedent("""
    import sys, time
    from xlcons.jsonl_cache import JsonLinesCache
    cache = JsonLinesCache(sys.argv[1], flush_every=1)
    cache.add({"key": "first"})
    print("holding", flush=True)
    time.sleep(1.5)
    cache.add({"key": "second"})  # written while the other job waits
""")


def test_a_second_job_on_a_cache_waits_for_the_first_and_then_reads_all_it_wrote(tmp_path, caplog, repo_root):
    cache = tmp_path / "generate" / "m.jsonl"
    cache.parent.mkdir()
    env_path = str(repo_root / "workflow_scripts")
    writer = subprocess.Popen(
        [sys.executable, "-c", f"import sys; sys.path.insert(0, {env_path!r})\n{WRITER}", str(cache)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stdout.readline().strip() == "holding"
        started = time.monotonic()
        with caplog.at_level(logging.WARNING, logger="xlcons.cache_lock"):
            second = JsonLinesCache(cache, flush_every=1)
        waited = time.monotonic() - started
    finally:
        writer.wait(timeout=30)
    assert writer.returncode == 0
    assert "first" in second and "second" in second, "the second job read the cache only once the first was done"
    assert "another job is writing this cache" in caplog.text and waited > 0.5
    assert lock_path(cache).exists()


def test_one_process_opening_a_cache_twice_does_not_wait_on_itself(tmp_path):
    path = tmp_path / "c.jsonl"
    first = JsonLinesCache(path, flush_every=1)
    first.add({"key": "a"})
    again = JsonLinesCache(path, flush_every=1)
    assert "a" in again
    del first, again
    gc.collect()
    # released: another process takes it at once
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            dedent(f"""
        import fcntl, os
        fd = os.open({str(lock_path(path))!r}, os.O_RDWR)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    """),
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert probe.returncode == 0, probe.stderr
