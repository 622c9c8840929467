"""Overhead of the generation stage over calling transformers directly, on the same prompts.

Both sides load the same model once and answer the same MultiQ prompts greedily with the
same batch size and token cap; the stage adds request building, the cache, result
normalisation and the Parquet table. Runs alternate (direct, stage, direct, stage, ...)
so machine noise hits both; the figure is the ratio of the medians.

    python benchmarks/generation_overhead.py --model resources/offline-models/smollm2-135m-instruct
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from xlcons.datasets.multiq import load
from xlcons.generation.base import Decoding, ModelSpec
from xlcons.generation.stage import run_generation


def direct(model_dir: Path, prompts: list[str], batch_size: int, max_new_tokens: int) -> list[str]:
    """What a researcher's own script does: chat template, left-padded batches, generate, decode."""
    tokenizer = AutoTokenizer.from_pretrained(model_dir, local_files_only=True, padding_side="left")
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32, local_files_only=True).eval()
    answers = []
    for start in range(0, len(prompts), batch_size):
        texts = [
            tokenizer.apply_chat_template([{"role": "user", "content": p}], add_generation_prompt=True, tokenize=False)
            for p in prompts[start : start + batch_size]
        ]
        batch = tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=False)
        with torch.inference_mode():
            out = model.generate(
                **batch, max_new_tokens=max_new_tokens, do_sample=False, pad_token_id=tokenizer.pad_token_id
            )
        answers += tokenizer.batch_decode(out[:, batch["input_ids"].shape[1] :], skip_special_tokens=True)
    return answers


def stage(model_dir: Path, table, batch_size: int, max_new_tokens: int) -> list[str]:
    spec = ModelSpec(
        name="bench",
        backend="hf",
        location=str(model_dir),
        decoding=Decoding(max_new_tokens=max_new_tokens),
        options={"device": "cpu", "dtype": "float32", "batch_size": batch_size},
    )
    with tempfile.TemporaryDirectory() as cache_dir:  # a cold cache: everything is generated
        return run_generation(spec, table, max_new_tokens, Path(cache_dir) / "cache.jsonl")["response"].to_pylist()


TARGETS = {"stage_over_direct": ("<=", 1.05)}
QUICK = ["--languages", "en", "de", "--items", "2", "--max-new-tokens", "8", "--repeats", "1"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, default=Path("resources/offline-models/smollm2-135m-instruct"))
    parser.add_argument("--data", type=Path, default=Path("../shared/data/multiq"))
    parser.add_argument("--languages", nargs="+", default=["en", "de", "fr", "es"])
    parser.add_argument("--items", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--max-new-tokens", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3)
    return parser


def measure(args: argparse.Namespace) -> dict:
    """Run the comparison, print it, and return its figures."""
    torch.set_num_threads(max(1, torch.get_num_threads()))
    table = load(args.data, args.languages, {"ids": None, "limit": args.items, "domains": None})
    prompts = table["prompt"].to_pylist()
    times = {"direct": [], "stage": []}
    outputs = {}
    for _ in range(args.repeats):
        for name, run in (
            ("direct", lambda: direct(args.model, prompts, args.batch_size, args.max_new_tokens)),
            ("stage", lambda: stage(args.model, table, args.batch_size, args.max_new_tokens)),
        ):
            start = time.perf_counter()
            outputs[name] = run()
            times[name].append(time.perf_counter() - start)
    same = sum(a.strip() == b.strip() for a, b in zip(outputs["direct"], outputs["stage"]))
    direct_s, stage_s = statistics.median(times["direct"]), statistics.median(times["stage"])
    print(
        f"prompts: {len(prompts)} ({len(args.languages)} languages), batch {args.batch_size}, "
        f"{args.max_new_tokens} new tokens, {args.repeats} alternating repeats"
    )
    print(f"{'':10}{'median s':>10}{'items/s':>10}")
    for name, seconds in (("direct", direct_s), ("stage", stage_s)):
        print(f"{name:10}{seconds:10.2f}{len(prompts) / seconds:10.2f}")
    print(f"stage / direct time ratio: {stage_s / direct_s:.3f} (target <= 1.05)")
    print(f"identical greedy answers: {same}/{len(prompts)}")
    return {
        "direct_s": round(direct_s, 2),
        "stage_s": round(stage_s, 2),
        "stage_over_direct": round(stage_s / direct_s, 3),
        "identical_answers": f"{same}/{len(prompts)}",
    }


def figures(argv: list[str] | None = None) -> dict:
    return measure(build_parser().parse_args(argv))


def main() -> None:
    figures()


if __name__ == "__main__":
    main()
