"""The real vLLM engine (its CPU build) under xlcons's vLLM paths, on SmolLM2-135M-Instruct.

These tests run in `.venv-vllm` (`make test-vllm`, part of `make test`), where vLLM's CPU
build is installed; elsewhere they are skipped, and with XLCONS_REQUIRE_VLLM=1 a missing
vLLM fails them. One engine is loaded for the module and shared by the evaluator tests (a
load takes about 40 s on two cores); the workflow tests start Snakemake, whose jobs load
their own. The figures (prefix-cache share, parity) go to the terminal summary.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

pytestmark = pytest.mark.vllm

try:
    import vllm  # noqa: F401
except ImportError as error:
    if os.environ.get("XLCONS_REQUIRE_VLLM") == "1":
        raise RuntimeError(
            f"XLCONS_REQUIRE_VLLM=1 but vLLM cannot be imported ({error}); build .venv-vllm with `make env-vllm`"
        ) from error
    pytest.skip(f"vLLM is not installed here ({error}); run `make test-vllm`", allow_module_level=True)

from builders import response_rows  # noqa: E402
from conftest import OFFLINE_MODELS  # noqa: E402
from test_information_stage import english_responses, translations  # noqa: E402
from test_judge import QUESTIONS, RESPONSES_TO_JUDGE, english_prompts  # noqa: E402
from xlcons.evaluators.information.stage import run_information_job  # noqa: E402
from xlcons.evaluators.information.tables import INFORMATION_ITEMS  # noqa: E402
from xlcons.evaluators.judge import run_judge_job  # noqa: E402
from xlcons.evaluators.judge_tables import JUDGMENTS  # noqa: E402
from xlcons.generation.base import Backend, Decoding, ModelSpec, load_backend  # noqa: E402
from xlcons.schemas import PROMPTS, RESPONSES, TRANSLATIONS  # noqa: E402
from xlcons.tables import read_table, write_table  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
SMOLLM2 = OFFLINE_MODELS / "smollm2-135m-instruct"
# vLLM's CPU build: float32 (what greedy parity with transformers needs), no CUDA graphs, a
# short context, and a KV cache of 2 GiB (VLLM_CPU_KVCACHE_SPACE) instead of its 4 GiB default.
ENGINE = {"dtype": "float32", "max_model_len": 2048, "enforce_eager": True}
ENV = {"VLLM_CPU_KVCACHE_SPACE": "2", "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}


@pytest.fixture(scope="module")
def smollm2() -> Path:
    if not (SMOLLM2 / "config.json").is_file():
        pytest.fail(f"{SMOLLM2} is missing: build the offline models first (make offline-models)")
    return SMOLLM2


def vllm_spec(name: str, location: Path, **options) -> ModelSpec:
    return ModelSpec(
        name=name, backend="vllm", location=str(location), decoding=Decoding(), options={**ENGINE, **options}
    )


class Shared(Backend):
    """One loaded engine handed to several jobs; each job's spec is kept, the engine is not closed."""

    name = "shared-vllm"

    def __init__(self, spec: ModelSpec, engine: Backend):
        super().__init__(spec)
        self.engine = engine
        self.chunk_size = engine.chunk_size

    def generate(self, requests):
        return self.engine.generate(requests)


@pytest.fixture(scope="module")
def engine(smollm2):
    os.environ.update(ENV)
    backend = load_backend(vllm_spec("smollm2", smollm2))
    yield backend
    backend.close()


def counted(engine: Backend, job):
    """Run ``job`` and return what it added to the engine's prefix-cache counters."""
    before = engine.engine_stats()
    job()
    after = engine.engine_stats()
    return {key: after[key] - before.get(key, 0) for key in after}


def test_a_prompt_over_max_model_len_is_refused_alone_and_one_near_it_ends_with_the_context(engine):
    """vLLM raises for a whole call when one prompt leaves no room for a new token: the backend
    counts first, so that prompt alone gets `prompt_too_long`; a prompt that leaves fewer tokens
    than max_new_tokens is answered up to max_model_len (2048 here) and ends with `length`."""
    from xlcons.generation.base import build_requests

    def of_length(tokens: int) -> str:
        def length(prompt: str) -> int:
            return engine.prompt_tokens(
                build_requests(engine.spec, [{"item_id": "x", "lang": "en", "prompt": prompt}], 16)[0]
            )

        prompt = " ".join(["a"] * (tokens - (length("a") - 1)))
        assert length(prompt) == tokens
        return prompt

    rows = [
        {"item_id": str(n), "lang": "en", "prompt": prompt}
        for n, prompt in enumerate(
            ["What is the capital of France?", of_length(9007), of_length(2048), of_length(2040)]
        )
    ]
    requests = build_requests(engine.spec, rows, 16)
    results = {result.key: result for result in engine.generate(requests)}
    got = [(results[r.key].finish_reason, results[r.key].prompt_tokens) for r in requests]
    assert got[1:3] == [("prompt_too_long", 9007), ("prompt_too_long", 2048)]
    assert got[0][0] in ("stop", "length") and got[3] == ("length", 2040)
    assert results[requests[3].key].completion_tokens == 8
    assert "the model's context 2048 (vllm.max_model_len)" in results[requests[1].key].error


def test_the_judge_runs_on_vllm_and_every_answer_gets_a_verdict(engine, smollm2, tmp_path, figures):
    write_table(response_rows(RESPONSES_TO_JUDGE), tmp_path / "responses.parquet", RESPONSES)
    write_table(english_prompts(QUESTIONS), tmp_path / "en.parquet", PROMPTS)
    spec = vllm_spec("judge", smollm2)

    stats = counted(
        engine,
        lambda: run_judge_job(
            spec,
            [tmp_path / "responses.parquet"],
            tmp_path / "en.parquet",
            tmp_path / "judgments.parquet",
            tmp_path / "judge.jsonl",
            lambda s: Shared(s, engine),
        ),
    )

    judgments = read_table(tmp_path / "judgments.parquet", JUDGMENTS)
    assert judgments.num_rows == len(RESPONSES_TO_JUDGE)
    verdicts = judgments["verdict"].to_pylist()
    # every answer judged yes/no/unparseable; the refusal is no_answer, the failed request error (not asked)
    assert set(verdicts[:-2]) <= {"yes", "no", "unparseable"} and verdicts[-2:] == ["no_answer", "error"]
    assert all(reason in ("stop", "length") for reason in judgments["judge_finish_reason"].to_pylist() if reason)
    assert stats["prompt_tokens"] > 0
    figures["vLLM judge: prompt tokens served from the prefix cache"] = share(stats)


def test_information_extraction_and_verification_share_prefixes_in_vllms_cache(engine, smollm2, tmp_path, figures):
    """Every sentence of a response is verified behind one shared context: the prefix cache
    serves most of those prompt tokens instead of recomputing them."""
    write_table(english_responses(), tmp_path / "en.parquet", RESPONSES)
    write_table(translations("de"), tmp_path / "de.parquet", TRANSLATIONS)
    spec = vllm_spec("information", smollm2)

    stats = counted(
        engine,
        lambda: run_information_job(
            spec,
            tmp_path / "en.parquet",
            tmp_path / "de.parquet",
            tmp_path / "items.parquet",
            tmp_path / "facts.parquet",
            tmp_path / "information.jsonl",
            lambda s: Shared(s, engine),
        ),
    )

    items = read_table(tmp_path / "items.parquet", INFORMATION_ITEMS)
    assert items.num_rows == english_responses().num_rows
    assert stats["prompt_tokens"] > 0 and stats["cached_prompt_tokens"] > 0, stats
    figures["vLLM information evaluator: prompt tokens served from the prefix cache"] = share(stats)


def share(stats: dict[str, int]) -> str:
    cached, total = stats["cached_prompt_tokens"], stats["prompt_tokens"]
    return f"{cached} of {total} ({100 * cached / total:.1f}%), {stats['computed_prompt_tokens']} computed"


def test_greedy_float32_answers_of_vllm_and_transformers_are_the_same(smollm2, tmp_path, figures, shared_data):
    """tests/gpu/compare_vllm_hf.py as a user runs it, here on the CPU: in float32 both engines
    pick the same greedy tokens on these prompts."""
    out = tmp_path / "parity.json"
    run = subprocess.run(
        [
            sys.executable,
            str(REPO / "tests" / "gpu" / "compare_vllm_hf.py"),
            "--model",
            str(smollm2),
            "--prompts",
            "6",
            "--max-new-tokens",
            "16",
            "--data",
            str(shared_data / "multiq" / "MultiQ.csv"),
            "--json",
            str(out),
        ],
        env={**os.environ, **ENV, "PYTHONPATH": str(REPO / "workflow_scripts")},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    import json

    result = json.loads(out.read_text())
    figures["greedy parity, hf vs vllm (float32, CPU)"] = f"{result['identical']}/{result['prompts']} identical"
    assert result["device"] == "cpu" and result["prompts"] == 6
    assert result["identical"] == result["prompts"], result["differences"]


# -- the generation rule through Snakemake ------------------------------------------------------


def workflow_config(smollm2: Path, shared_data: Path, chunk_size: int) -> dict:
    return {
        "models": {
            "smol": {
                "path": str(smollm2),
                "backend": "vllm",
                "vllm": {**ENGINE, "chunk_size": chunk_size},
                "decoding": {"max_new_tokens": 16},
            }
        },
        "datasets": {
            "multiq": {"path": str(shared_data / "multiq"), "languages": ["en", "de"], "items": {"limit": PER_LANGUAGE}}
        },
    }


PER_LANGUAGE, CHUNK = 4, 3  # 8 prompts, in calls of 3
PROMPTS_IN_ALL = 2 * PER_LANGUAGE
TABLE = "results/responses/multiq/smol.parquet"
CACHE = "results/cache/generate/multiq/smol.jsonl"
JOB_LOG = "logs/generate/multiq/smol.log"


def snakemake(workdir: Path, *, wait: bool = True):
    (workdir / "config.yaml").exists() or pytest.fail("write the config first")
    cmd = [
        sys.executable,
        "-m",
        "snakemake",
        "--snakefile",
        str(REPO / "Snakefile"),
        "--directory",
        str(workdir),
        "--configfile",
        str(workdir / "config.yaml"),
        "--cores",
        "2",
        TABLE,
    ]
    log = open(workdir / f"snakemake-{time.monotonic_ns()}.log", "w")
    proc = subprocess.Popen(
        cmd, env={**os.environ, **ENV}, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    if wait:
        proc.wait(timeout=600)
        log.close()
        assert proc.returncode == 0, Path(log.name).read_text()[-4000:]
    return proc, Path(log.name)


def uninterrupted_table(engine, smollm2, prompts: Path, out: Path):
    """The same prompts answered in this process, in one go, by the same engine settings as the
    job's (the spec the rule script builds from its params): what an uninterrupted run writes."""
    from xlcons.generation.stage import run_generation_job

    model = workflow_config(smollm2, Path("."), CHUNK)["models"]["smol"]
    spec = ModelSpec(
        name="smol", backend="vllm", location=model["path"], decoding=Decoding(max_new_tokens=16), options=model["vllm"]
    )
    run_generation_job(
        spec,
        [prompts],
        [out.with_suffix(".en.parquet"), out.with_suffix(".de.parquet")],
        ["en", "de"],
        256,
        out.with_suffix(".jsonl"),
        lambda s: Shared(s, engine),
        table_path=out,
    )
    return pq.read_table(out)


def test_the_generate_rule_runs_vllm_and_a_job_killed_mid_run_resumes_from_its_cache(
    engine, tmp_path, smollm2, shared_data
):
    """`generate_multiq` with backend vllm through Snakemake (its script under vLLM's spawned
    engine), killed with SIGKILL after its first call's answers are cached, then run again:
    only the rest is generated, and the table equals an uninterrupted run's."""
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(workflow_config(smollm2, shared_data, CHUNK)))
    proc, log = snakemake(tmp_path, wait=False)
    cache = tmp_path / CACHE
    deadline = time.monotonic() + 300
    while not (
        cache.is_file() and len(cache.read_text().splitlines()) - 1 >= CHUNK
    ):  # the header line, then one per answer
        assert proc.poll() is None, f"the job ended before it could be killed:\n{log.read_text()[-3000:]}"
        assert time.monotonic() < deadline, f"no answers cached after 300 s:\n{log.read_text()[-3000:]}"
        time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGKILL)  # Snakemake, the job and vLLM's engine processes
    proc.wait(timeout=30)
    cached = len(cache.read_text().splitlines()) - 1  # without the header line
    assert CHUNK <= cached < PROMPTS_IN_ALL and not (tmp_path / TABLE).exists()

    shutil.rmtree(tmp_path / ".snakemake" / "locks", ignore_errors=True)
    snakemake(tmp_path)

    assert (
        f"{PROMPTS_IN_ALL - cached} of {PROMPTS_IN_ALL} requests to generate ({cached} cached)"
        in (tmp_path / JOB_LOG).read_text()
    )
    table = pq.read_table(tmp_path / TABLE)
    rows = table.to_pylist()
    assert len(rows) == PROMPTS_IN_ALL and {row["backend"] for row in rows} == {"vllm"}
    assert {row["finish_reason"] for row in rows} <= {"stop", "length"} and all(row["response"].strip() for row in rows)
    reference = uninterrupted_table(
        engine, smollm2, tmp_path / "results/prompts/multiq.parquet", tmp_path / "reference" / "table.parquet"
    )
    assert table.equals(reference)
