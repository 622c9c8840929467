"""Time to score GPT-3.5's full released MAKQA outputs: xAC, xTC, and xSC with an offline embedder.

Phases are timed separately: reading the release and building the prompts, then the
scoring without an embedder (chrF for every (question, language), and for every
timeliness candidate; Spearman matrices; xAC and xTC), then xSC: embedding every distinct
answer and gold text once (the model) and the cosine matrices (numpy). The xSC part runs
when the offline all-MiniLM-L6-v2 exists (``python -m devtools.offline_models`` builds it
under resources/offline-models) and is skipped with a message otherwise; MiniLM is
English-only, so its xSC values are plumbing, not the paper's LaBSE numbers.

    python benchmarks/knowledge_metrics.py [--data ../shared/data/makqa] [--embedder DIR] [--xsc-limit N]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from xlcons.datasets.makqa import LANGUAGES, load
from xlcons.datasets.makqa_released import read_released
from xlcons.embeddings import sentence_transformer_embedder
from xlcons.evaluators.knowledge.measures import semantic_matrix
from xlcons.evaluators.knowledge.metrics import score_knowledge

REPO = Path(__file__).resolve().parent.parent


TARGETS: dict = {}
QUICK = ["--repeats", "1", "--xsc-limit", "3"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data" / "makqa")
    parser.add_argument("--embedder", type=Path, default=REPO / "resources" / "offline-models" / "all-minilm-l6-v2")
    parser.add_argument("--xsc-limit", type=int, default=None, help="questions per domain for xSC (all when omitted)")
    parser.add_argument("--repeats", type=int, default=3, help="runs of the chrF/Spearman scoring (median reported)")
    return parser


def measure(args: argparse.Namespace) -> dict:
    """Time the phases, print them, and return their figures."""
    found = {}

    start = time.perf_counter()
    prompts = load(args.data, list(LANGUAGES), None)
    records, report = read_released(args.data / "result_gpt35")
    found["load_s"] = round(time.perf_counter() - start, 2)
    print(
        f"load prompts + release: {found['load_s']:6.2f} s  ({prompts.num_rows} prompts, {report.records} answers, "
        f"{sum(report.empty.values())} empty, {sum(report.missing.values())} missing)"
    )

    for ranking in ("list_position", "recency"):
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            result = score_knowledge(records, prompts, model="gpt-3.5", ranking=ranking)
            times.append(time.perf_counter() - start)
        print(
            f"xAC + xTC ({ranking:13s}): {np.median(times):6.2f} s median of {args.repeats}  "
            f"xAC {result.value('xAC'):.4f}  xTC {result.value('xTC'):.4f}"
        )
        found[f"xac_xtc_{ranking}_s"] = round(float(np.median(times)), 2)
        if ranking == "list_position":
            found["xAC"], found["xTC"] = round(result.value("xAC"), 4), round(result.value("xTC"), 4)
    for domain in ("geo", "history", "literature", "sport_club", "science", "movie"):
        print(f"    xAC {domain:10s} {result.value('xAC', domain):.4f}")

    rng = np.random.default_rng(0)
    vectors, present = rng.normal(size=(1897, 12, 768)), np.ones((1897, 12), dtype=bool)
    vectors /= np.linalg.norm(vectors, axis=2, keepdims=True)
    start = time.perf_counter()
    semantic_matrix(vectors, present)
    found["xsc_cosine_matrix_s"] = round(time.perf_counter() - start, 3)
    print(f"xSC cosine matrix alone (1,897 questions x 12 languages x 768 dims): {found['xsc_cosine_matrix_s']:6.3f} s")

    if not (args.embedder / "modules.json").is_file():
        print(
            f"xSC with an embedder: skipped, no sentence-transformers model at {args.embedder} "
            "(build it: python -m devtools.offline_models --out resources/offline-models)"
        )
        return found
    xsc_prompts, xsc_records = prompts, records
    if args.xsc_limit:
        xsc_prompts = load(args.data, list(LANGUAGES), {"limit": args.xsc_limit})
        wanted = set(xsc_prompts["item_id"].to_pylist())
        xsc_records = [r for r in records if r["item_id"] in wanted]
    start = time.perf_counter()
    embedder = sentence_transformer_embedder(args.embedder, device="cpu")
    print(f"load embedder {args.embedder.name}: {time.perf_counter() - start:6.2f} s")
    calls: list[int] = []

    def embed(texts):
        calls.append(len(texts))
        return embedder(texts)

    start = time.perf_counter()
    result = score_knowledge(xsc_records, xsc_prompts, model="gpt-3.5", embed=embed, ranking="list_position")
    found["xsc_with_embedder_s"] = round(time.perf_counter() - start, 2)
    print(
        f"xSC + oracle + xAC + xTC with {args.embedder.name}: {found['xsc_with_embedder_s']:6.2f} s "
        f"({sum(calls)} distinct texts embedded in {len(calls)} call; {len(xsc_records)} answers)"
    )
    print(
        f"    xSC {result.value('xSC'):.4f}  oracle {result.value('xSC_oracle'):.4f}  xC {result.value('xC'):.4f} "
        "(MiniLM is English-only: not comparable with the paper's LaBSE 0.706 / 0.849)"
    )
    return found


def figures(argv: list[str] | None = None) -> dict:
    return measure(build_parser().parse_args(argv))


def main() -> None:
    figures()


if __name__ == "__main__":
    main()
