"""GPU benchmarks: vLLM through the xlcons generation stage vs bare vLLM, and NLLB on CTranslate2 vs transformers.

For a machine with an NVIDIA GPU, in an environment with vLLM (envs/generate-vllm.yaml)
and xlcons; each part skips with a message where what it needs is missing (vLLM, CUDA),
so the script exits 0 on a CPU machine. Without a GPU, the generation part runs on vLLM's
CPU build where it is installed (`.venv-vllm`; float32, eager mode): the figures are then
context, not GPU figures. About 3-6 minutes with the defaults (model loads included).

``generation``
    One ``vllm.LLM`` is loaded once (not timed) and shared, so both sides run the same
    engine on the same GPU memory. *bare*: the chat template applied with vLLM's own
    tokenizer, one ``LLM.generate`` call on every prompt with one ``SamplingParams``
    (greedy, ``--max-new-tokens``). *stage*: ``xlcons.generation.stage.run_generation``
    with a ``ModelSpec`` of backend ``vllm`` whose backend factory hands the stage the
    already-loaded engine (the real ``VLLMBackend.generate``: ``LLM.chat``, per-request
    sampling parameters, result parsing), plus request building, a fresh cache, the
    RESPONSES table. Alternating repeats; the figure is stage / bare time (target <= 1.05),
    with the share of identical greedy answers.
``translation``
    The translate stage (``translate_responses``, pieces of benchmarks/translation.py: the
    same MultiQ "responses" of 5-10 questions, language ID with lid.176, splitting, dedup,
    token-budgeted batches) on ``cuda`` with the transformers backend (``--nllb-dtype``)
    and with CTranslate2 (converted once, ``--ct2-compute-type``), each model loaded
    beforehand; sentences/s of each and the CTranslate2 / transformers ratio.

    python benchmarks/gpu.py --model resources/offline-models/smollm2-135m-instruct \\
        --nllb resources/offline-models/tiny-nllb            # real figures: a real NLLB (600M)
    python benchmarks/gpu.py --only translation
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if __package__ in (None, ""):  # run as a script: make `benchmarks.translation` importable
    sys.path.insert(0, str(REPO))

TARGETS = {"vllm_stage_over_bare": ("<=", 1.05)}
QUICK = ["--prompts", "200", "--repeats", "1", "--nllb-languages", "de", "fr"]
PARTS = ("generation", "translation", "moe")
# The prepared check of a session lent a GPU (`--check`): every part, small enough to finish
# in about 5 minutes on one GPU, figures written as one JSON file.
CHECK = ["--prompts", "500", "--repeats", "1", "--judge", "--nllb-languages", "de", "fr", "hi", "zh-CN"]


def cuda_missing() -> str | None:
    """Why torch sees no usable CUDA device, or None (both parts need torch on CUDA)."""
    try:
        import torch
    except ImportError as error:
        return f"torch is not installed ({error})"
    if not torch.cuda.is_available():
        return f"no CUDA device (torch {torch.__version__}, built for CUDA {torch.version.cuda})"
    return None


def vllm_missing() -> str | None:
    try:
        import vllm  # noqa: F401
    except ImportError as error:
        return f"vLLM is not installed in this environment ({error}); use envs/generate-vllm.yaml"
    return None


def multiq_prompts(data: Path, languages: list[str], count: int):
    import math

    from xlcons.datasets.multiq import load

    table = load(data, languages, {"ids": None, "limit": min(200, math.ceil(count / len(languages))), "domains": None})
    return table.slice(0, count)


def engine_device(args: argparse.Namespace) -> tuple[str, str, bool]:
    """(device, dtype, enforce_eager) of the vLLM engine: on a GPU the given dtype; without one,
    vLLM's CPU build in float32 and eager mode (figures for context, the code path for real)."""
    if cuda_missing() is None:
        return "cuda", args.dtype, False
    return "cpu", "float32", True


def generation(args: argparse.Namespace) -> dict:
    reason = vllm_missing()
    if reason:
        print(f"generation: skipped, {reason}")
        return {"generation": f"skipped: {reason}"}
    import vllm

    from xlcons.generation.base import Decoding, ModelSpec
    from xlcons.generation.stage import run_generation

    table = multiq_prompts(args.data, args.languages, args.prompts)
    prompts = table["prompt"].to_pylist()
    device, dtype, eager = engine_device(args)
    start = time.perf_counter()
    llm = vllm.LLM(
        model=str(args.model),
        dtype=dtype,
        gpu_memory_utilization=args.gpu_memory_utilization,
        max_model_len=args.max_model_len,
        enforce_eager=eager,
        disable_log_stats=False,
        seed=0,
    )
    load_s = time.perf_counter() - start
    spec = ModelSpec(
        name="bench",
        backend="vllm",
        location=str(args.model),
        decoding=Decoding(temperature=0.0, max_new_tokens=args.max_new_tokens),
        options={"dtype": dtype, "gpu_memory_utilization": args.gpu_memory_utilization, "enforce_eager": eager},
    )

    SharedEngine = shared_engine(vllm, llm)
    tokenizer = llm.get_tokenizer()
    templated = [
        tokenizer.apply_chat_template([{"role": "user", "content": p}], add_generation_prompt=True, tokenize=False)
        for p in prompts
    ]
    params = vllm.SamplingParams(temperature=0.0, max_tokens=args.max_new_tokens, seed=0)

    def bare():
        return [output.outputs[0].text for output in llm.generate(templated, params, use_tqdm=False)]

    def stage():
        with tempfile.TemporaryDirectory() as tmp:  # a cold cache: everything is generated
            return run_generation(
                spec, table, args.max_new_tokens, Path(tmp) / "cache.jsonl", backend_factory=SharedEngine
            )["response"].to_pylist()

    bare()  # warm-up: CUDA graphs, first-call allocations
    times, outputs = {"bare": [], "stage": []}, {}
    for _ in range(args.repeats):
        for name, run in (("bare", bare), ("stage", stage)):
            start = time.perf_counter()
            outputs[name] = run()
            times[name].append(time.perf_counter() - start)
    judged = judge_on(llm, SharedEngine, spec, table, outputs["stage"]) if args.judge else {}
    same = sum(a.strip() == b.strip() for a, b in zip(outputs["bare"], outputs["stage"]))
    bare_s, stage_s = statistics.median(times["bare"]), statistics.median(times["stage"])
    n = len(prompts)
    print(
        f"generation: {n} MultiQ prompts ({', '.join(args.languages)}), {args.model.name}, {dtype} on {device}, "
        f"{args.max_new_tokens} new tokens, greedy; vLLM load {load_s:.1f} s; {args.repeats} alternating repeats"
    )
    print(
        f"    bare LLM.generate {bare_s:.2f} s ({n / bare_s:.1f} prompts/s); stage {stage_s:.2f} s ({n / stage_s:.1f} "
        f"prompts/s); stage / bare {stage_s / bare_s:.3f} (target <= 1.05); identical answers {same}/{n}"
    )
    llm = None  # this function's reference to the engine, dropped before returning
    return {
        "vllm_device": device,
        "vllm_bare_prompts_per_s": round(n / bare_s, 1),
        "vllm_stage_prompts_per_s": round(n / stage_s, 1),
        "vllm_stage_over_bare": round(stage_s / bare_s, 3),
        "vllm_identical_answers": f"{same}/{n}",
        **judged,
    }


def shared_engine(vllm, llm):
    """A backend class whose instances are the stage's vLLM backend on ``llm``, the engine the
    benchmark loaded once (VLLMBackend.__init__ would load another); closing leaves it loaded."""
    from xlcons.generation.backends.vllm import VLLMBackend

    class SharedEngine(VLLMBackend):
        def __init__(self, spec):  # noqa: D107 - deliberately not calling VLLMBackend.__init__
            self.spec, self._vllm, self.llm, self.chunk_size = spec, vllm, llm, VLLMBackend.chunk_size

        def close(self):  # the engine is shared; freed at the end of the benchmark
            pass

    return SharedEngine


def judge_on(llm, SharedEngine, spec, prompts, answers: list[str]) -> dict:  # noqa: N803 - a class
    """The MultiQ judge (xlcons.evaluators.judge.run_judge) on the same engine: the stage's
    answers judged against their English questions, judgments/s and the prefix-cache share."""
    import pyarrow as pa

    from xlcons.evaluators.judge import run_judge
    from xlcons.generation.backends.vllm import prefix_cache_stats
    from xlcons.generation.base import ModelSpec
    from xlcons.schemas import RESPONSES

    rows = prompts.to_pylist()
    responses = pa.Table.from_pylist(
        [
            {
                "dataset": "multiq",
                "model": "bench",
                "item_id": row["item_id"],
                "lang": row["lang"],
                "prompt": row["prompt"],
                "response": answer,
                "finish_reason": "stop",
                "prompt_tokens": None,
                "completion_tokens": None,
                "backend": "vllm",
                "decoding_hash": "bench",
                "error": None,
            }
            for row, answer in zip(rows, answers)
        ],
        schema=RESPONSES,
    )
    english = prompts.filter(pa.compute.equal(prompts["lang"], "en"))
    responses = responses.filter(pa.compute.is_in(responses["item_id"], english["item_id"]))
    judge_spec = ModelSpec(name="judge", backend="vllm", location=spec.location, options=spec.options)

    before = prefix_cache_stats(llm.get_metrics())
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        table = run_judge(judge_spec, responses, english, Path(tmp) / "judge.jsonl", SharedEngine)
        seconds = time.perf_counter() - start
    after = prefix_cache_stats(llm.get_metrics())
    cached = after.get("cached_prompt_tokens", 0) - before.get("cached_prompt_tokens", 0)
    total = after.get("prompt_tokens", 0) - before.get("prompt_tokens", 0)
    verdicts = {verdict: table["verdict"].to_pylist().count(verdict) for verdict in ("yes", "no", "unparseable")}
    print(
        f"    judge: {table.num_rows} answers in {seconds:.2f} s ({table.num_rows / seconds:.1f}/s), {verdicts}; "
        f"prefix cache served {cached} of {total} prompt tokens"
    )
    return {
        "vllm_judge_answers_per_s": round(table.num_rows / seconds, 1),
        "vllm_judge_prefix_cache_share": round(cached / total, 3) if total else None,
    }


def moe(args: argparse.Namespace) -> dict:
    """The transformers translator on a tiny random NllbMoe (the 54B MoE's code path): loaded
    with device_map over the visible GPUs when there are several, translated sentences/s."""
    import torch

    from devtools.offline_models import write_tiny_nllb_moe
    from xlcons.translation.spec import TranslatorSpec
    from xlcons.translation.translators import load_translator

    device = args.device if args.device == "cpu" or torch.cuda.is_available() else "cpu"
    gpus = torch.cuda.device_count() if device == "cuda" else 0
    with tempfile.TemporaryDirectory() as tmp:
        path = write_tiny_nllb_moe(args.nllb, Path(tmp) / "moe")
        translator = load_translator(
            TranslatorSpec(
                location=str(path),
                model_id="tiny-nllb-moe",
                max_new_tokens=args.nllb_cap,
                device=device,
                gpus=max(gpus, 1),
                dtype="float32",
            )
        )
        spread = hasattr(translator.model, "hf_device_map")
        sentences = ["Das ist ein Satz.", "Wie spät ist es?", "Der Himmel ist blau."] * 32
        translator.translate(sentences[:3], "deu_Latn", "eng_Latn")  # warm-up
        start = time.perf_counter()
        out = translator.translate(sentences, "deu_Latn", "eng_Latn")
        seconds = time.perf_counter() - start
    print(
        f"moe: tiny random NllbMoe on {device} ({gpus} GPUs, device_map {'used' if spread else 'not used'}): "
        f"{len(out)} sentences in {seconds:.2f} s ({len(out) / seconds:.0f}/s)"
    )
    return {"moe_device": device, "moe_device_map": spread, "moe_sentences_per_s": round(len(out) / seconds)}


def translation(args: argparse.Namespace) -> dict:
    reason = cuda_missing() if args.device == "cuda" else None
    if reason:
        print(f"translation: skipped, {reason}")
        return {"translation": f"skipped: {reason}"}
    from benchmarks.translation import build_responses, run_stage
    from xlcons.lid import LanguageIdentifier
    from xlcons.translation.ctranslate2_conversion import convert, quantization_for
    from xlcons.translation.spec import TranslatorSpec
    from xlcons.translation.translators import load_translator

    responses, _ = build_responses(args.data, args.nllb_languages, 0)
    identifier = LanguageIdentifier(args.lid, "lid176")
    common = dict(
        model_id=args.nllb.name,
        max_new_tokens=args.nllb_cap,
        device=args.device,
        max_batch_tokens=args.max_batch_tokens,
    )
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        ct2_dir = convert(args.nllb, workdir / "ct2", quantization=quantization_for(args.ct2_compute_type))
        specs = {
            "transformers": TranslatorSpec(location=str(args.nllb), dtype=args.nllb_dtype, **common),
            "ctranslate2": TranslatorSpec(
                backend="ctranslate2", ct2_location=str(ct2_dir), compute_type=args.ct2_compute_type, **common
            ),
        }
        for name, spec in specs.items():
            translator = load_translator(spec)
            run_stage(spec, translator, responses.slice(0, 5), identifier, workdir, f"warm-{name}")
            times, sentences = [], 0
            for repeat in range(args.repeats):
                start = time.perf_counter()
                _, table = run_stage(spec, translator, responses, identifier, workdir, f"{name}-{repeat}")
                times.append(time.perf_counter() - start)
                sentences = table.num_rows
            results[name] = (statistics.median(times), sentences)
            del translator
    (hf_s, n), (ct2_s, _) = results["transformers"], results["ctranslate2"]
    print(
        f"translation: {responses.num_rows} responses, {n} sentences ({', '.join(args.nllb_languages)}), "
        f"{args.nllb.name}, {args.device}, cap {args.nllb_cap} tokens, batch budget {args.max_batch_tokens} tokens"
    )
    print(
        f"    transformers ({args.nllb_dtype}) {hf_s:.2f} s ({n / hf_s:.0f} sentences/s); "
        f"CTranslate2 ({args.ct2_compute_type}) {ct2_s:.2f} s ({n / ct2_s:.0f} "
        f"sentences/s); CTranslate2 / transformers {hf_s / ct2_s:.2f}x"
    )
    return {
        "nllb_transformers_sentences_per_s": round(n / hf_s),
        "nllb_ct2_sentences_per_s": round(n / ct2_s),
        "nllb_ct2_over_transformers": round(hf_s / ct2_s, 2),
    }


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=PARTS, action="append", help="run only this part (repeatable)")
    parser.add_argument(
        "--model",
        type=Path,
        default=REPO / "resources" / "offline-models" / "smollm2-135m-instruct",
        help="a small instruct model directory for vLLM",
    )
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data" / "multiq")
    parser.add_argument(
        "--languages", nargs="+", default=["en", "de", "fr", "es", "ru", "zh-CN", "ar", "hi", "sw", "ja"]
    )
    parser.add_argument(
        "--prompts", type=int, default=2000, help="MultiQ prompts for generation (200 per language at most)"
    )
    parser.add_argument("--max-new-tokens", type=int, default=128)
    parser.add_argument("--dtype", default="bfloat16", choices=["auto", "bfloat16", "float16", "float32"])
    parser.add_argument("--gpu-memory-utilization", type=float, default=0.5)
    parser.add_argument("--max-model-len", type=int, default=2048)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--nllb",
        type=Path,
        default=REPO / "resources" / "offline-models" / "tiny-nllb",
        help="an NLLB checkpoint directory (the tiny random one by default; a real 600M gives real figures)",
    )
    parser.add_argument("--lid", type=Path, default=REPO / "resources" / "offline-models" / "lid176" / "lid.176.ftz")
    parser.add_argument(
        "--nllb-languages", nargs="+", default=["de", "fr", "es", "ru", "ar", "hi", "ja", "zh-CN", "tr", "vi"]
    )
    parser.add_argument("--nllb-cap", type=int, default=64, help="new tokens per sentence")
    parser.add_argument("--nllb-dtype", default="float16", choices=["auto", "float32", "float16", "bfloat16"])
    parser.add_argument(
        "--ct2-compute-type", default="float16", choices=["float32", "float16", "int8_float16", "bfloat16"]
    )
    parser.add_argument("--max-batch-tokens", type=int, default=8192)
    parser.add_argument(
        "--device",
        default="cuda",
        choices=["cuda", "cpu"],
        help="translation and moe parts: cpu is a smoke test of the code path, not a GPU figure",
    )
    parser.add_argument(
        "--judge", action="store_true", help="generation part: also judge the answers on the same engine"
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help=f"the prepared GPU check: every part with {' '.join(CHECK)}, figures to --json",
    )
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    return parser


def measure(args: argparse.Namespace) -> dict:
    found = {}
    parts = args.only or list(PARTS)
    for name, part in (("generation", generation), ("translation", translation), ("moe", moe)):
        if name in parts:
            found.update(part(args))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(found, indent=2) + "\n")
    return found


def figures(argv: list[str] | None = None) -> dict:
    argv = list(argv or [])
    if "--check" in argv:
        argv = CHECK + argv  # given options still win: argparse keeps the last value
    return measure(build_parser().parse_args(argv))


def main() -> None:
    figures(sys.argv[1:])


if __name__ == "__main__":
    main()
