"""Compare the vllm and hf backends on one model: same requests, greedy.

    python tests/gpu/compare_vllm_hf.py --model /path/to/model --prompts 40 --max-new-tokens 64

Run it in the vLLM environment (envs/generate-vllm.yaml on a GPU machine, or .venv-vllm,
vLLM's CPU build: `make env-vllm`), with xlcons installed. Both backends get the same
requests (base.build_requests) and the same dtype; it prints how many answers are
identical, the first pair that differs, and each backend's speed (`--json` writes the
same as one file). Without a GPU it runs on the CPU (float32, vLLM in eager mode): the
figures are then context, the parity is not. Greedy answers of the two engines may still
differ after a few tokens (different kernels, fp rounding): a large share of identical
answers is what to expect, not all of them.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from pathlib import Path

from xlcons.datasets import multiq
from xlcons.generation.base import Decoding, ModelSpec, build_requests, load_backend

REPO = Path(__file__).resolve().parents[2]


def run(spec: ModelSpec, requests) -> tuple[dict[str, str], float]:
    backend = load_backend(spec)  # loading is not timed
    try:
        start = time.perf_counter()
        answers = {result.key: result.response for result in backend.generate(requests)}
        return answers, time.perf_counter() - start
    finally:
        backend.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="local model directory")
    parser.add_argument("--prompts", type=int, default=40)
    parser.add_argument("--max-new-tokens", type=int, default=64)
    parser.add_argument("--data", default=str(REPO.parent / "shared" / "data" / "multiq" / "MultiQ.csv"))
    parser.add_argument("--languages", default="en,de,zh-CN,sw,hi")
    parser.add_argument(
        "--dtype",
        default=None,
        choices=["bfloat16", "float16", "float32"],
        help="default: bfloat16 on a GPU, float32 on the CPU",
    )
    parser.add_argument(
        "--device", default="auto", choices=["auto", "cuda", "cpu"], help="auto: cuda when there is one"
    )
    parser.add_argument("--batch-size", type=int, default=16, help="hf backend batch size")
    parser.add_argument("--gpu-memory-utilization", type=float, default=0.5)
    parser.add_argument(
        "--max-model-len", type=int, default=None, help="vLLM context length (default: the model's; 2048 on the CPU)"
    )
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    if args.device == "auto":
        import torch

        args.device = "cuda" if torch.cuda.is_available() else "cpu"
    cpu = args.device == "cpu"
    args.dtype = args.dtype or ("float32" if cpu else "bfloat16")

    languages = args.languages.split(",")
    table = multiq.load(args.data, languages, {"limit": math.ceil(args.prompts / len(languages))})
    rows = table.select(["item_id", "lang", "prompt"]).to_pylist()[: args.prompts]
    common = dict(name=Path(args.model).name, location=args.model, decoding=Decoding(temperature=0.0))
    # hf first: its memory is freed reliably on close, before vLLM sizes its KV cache.
    specs = {
        "hf": ModelSpec(
            backend="hf", options={"device": args.device, "dtype": args.dtype, "batch_size": args.batch_size}, **common
        ),
        "vllm": ModelSpec(
            backend="vllm",
            options={
                "dtype": args.dtype,
                "gpu_memory_utilization": args.gpu_memory_utilization,
                "enforce_eager": cpu,
                "max_model_len": args.max_model_len or (2048 if cpu else None),
            },
            **common,
        ),
    }
    # The cache key covers the backend, so the requests are built per backend; their
    # messages and token cap are the same, and results are matched by position.
    requests = {name: build_requests(spec, rows, args.max_new_tokens) for name, spec in specs.items()}
    answers, seconds = {}, {}
    for name, spec in specs.items():
        by_key, seconds[name] = run(spec, requests[name])
        answers[name] = [by_key[request.key] for request in requests[name]]

    pairs = list(zip(answers["hf"], answers["vllm"]))
    same = sum(hf == vllm for hf, vllm in pairs)
    print(
        f"{args.model}: {len(rows)} prompts ({args.languages}), greedy, "
        f"{args.max_new_tokens} new tokens, {args.dtype}, {args.device}"
    )
    print(f"identical outputs: {same}/{len(pairs)}")
    differences = []
    for row, (hf, vllm) in zip(rows, pairs):
        if hf != vllm:
            common_prefix = len(os.path.commonprefix([hf, vllm]))
            differences.append(
                {"lang": row["lang"], "item_id": row["item_id"], "hf": hf, "vllm": vllm, "same_chars": common_prefix}
            )
    if differences:
        first = differences[0]
        print(
            f"first difference: {first['lang']} {first['item_id']} (same for {first['same_chars']} characters)\n"
            f"  hf:   {first['hf']!r}\n  vllm: {first['vllm']!r}"
        )
    for name in specs:
        print(f"{name:5s}: {seconds[name]:8.2f} s  {len(rows) / seconds[name]:8.2f} items/s")
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "model": args.model,
                    "device": args.device,
                    "dtype": args.dtype,
                    "prompts": len(rows),
                    "max_new_tokens": args.max_new_tokens,
                    "identical": same,
                    "differences": differences,
                    "items_per_s": {name: len(rows) / seconds[name] for name in specs},
                },
                indent=2,
                ensure_ascii=False,
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
