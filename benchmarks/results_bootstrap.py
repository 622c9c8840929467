"""Time to build the results table with bootstrap CIs from a synthetic paper-scale ITEM_SCORES table.

Gupta et al. 2025's scale: 12 models × 30 languages × 150 items, with information consistency
(precision, recall, f1 per item, and the derived F, jointly resampled) and empathy
consistency (consistency, ER, IP as 0/1), about 5% of the information items excluded
(no facts). Phases timed: building the synthetic table (not part of the pipeline), the
results table with CIs (``--resamples``, default 1000), and the group table; optionally
a model comparison of two models over every metric and language.

    python benchmarks/results_bootstrap.py [--models 12] [--languages 30] [--items 150] [--resamples 1000] [--compare]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import polars as pl

from xlcons.evaluators.information.derived import INFORMATION_F
from xlcons.languages import GUPTA2025_LANGUAGES
from xlcons.reports.comparison import compare_models
from xlcons.reports.groups import group_averages
from xlcons.reports.results import results_table

INFORMATION = ("precision", "recall", "f1")
EMPATHY = ("consistency", "ER", "IP")


def synthetic_item_scores(models: int, languages: int, items: int, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    langs = ["en", *GUPTA2025_LANGUAGES][: languages + 1]
    frames = []
    for evaluator, metrics, dataset in (("information", INFORMATION, "info_prompts"), ("empathy", EMPATHY, "epitome")):
        shape = (models, len(langs), items, len(metrics))
        if evaluator == "information":
            values = rng.beta(4, 3, size=shape)
            excluded = rng.random(shape[:3]) < 0.05
            excluded = np.broadcast_to(excluded[..., None], shape)
        else:
            values = (rng.random(shape) < 0.6).astype(float)
            excluded = np.zeros(shape, dtype=bool)
        grid = np.indices(shape).reshape(4, -1)
        frames.append(
            pl.DataFrame(
                {
                    "dataset": dataset,
                    "evaluator": evaluator,
                    "model": np.array([f"model-{m:02d}" for m in range(models)])[grid[0]],
                    "item_id": np.array([f"item-{i:03d}" for i in range(items)])[grid[2]],
                    "lang": np.array(langs)[grid[1]],
                    "metric": np.array(metrics)[grid[3]],
                    "value": np.where(excluded.ravel(), np.nan, values.ravel()),
                    "status": np.where(excluded.ravel(), "no_facts", "ok"),
                }
            ).with_columns(value=pl.when(pl.col("status") == "ok").then(pl.col("value")))
        )
    return pl.concat(frames)


TARGETS: dict = {}
QUICK = ["--models", "2", "--languages", "3", "--items", "20", "--resamples", "50"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", type=int, default=12)
    parser.add_argument("--languages", type=int, default=30, help="besides English (the reference)")
    parser.add_argument("--items", type=int, default=150)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument(
        "--compare", action="store_true", help="also time a two-model comparison (1000 resamples, 10000 permutations)"
    )
    return parser


def measure(args: argparse.Namespace) -> dict:
    """Run the phases, print them, and return their figures."""
    found = {}

    start = time.perf_counter()
    scores = synthetic_item_scores(args.models, args.languages, args.items)
    print(f"synthetic ITEM_SCORES: {time.perf_counter() - start:6.2f} s  ({scores.height:,} rows)")
    found["item_score_rows"] = scores.height

    times = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        results = results_table(scores, derived=[INFORMATION_F], n_resamples=args.resamples, seed=0)
        times.append(time.perf_counter() - start)
    print(
        f"results table with {args.resamples} resamples: {np.median(times):6.2f} s median of {args.repeats}  "
        f"({results.height:,} rows, {args.models} models × {args.languages + 1} languages × "
        f"{results['metric'].n_unique()} metrics × {args.items} items)"
    )
    found["results_table_s"] = round(float(np.median(times)), 2)

    start = time.perf_counter()
    groups = group_averages(results)
    found["group_table_s"] = round(time.perf_counter() - start, 2)
    print(f"group table: {found['group_table_s']:6.2f} s  ({groups.height:,} rows)")

    if args.compare:
        start = time.perf_counter()
        comparison = compare_models(
            scores, "model-00", "model-01", derived=[INFORMATION_F], n_resamples=1000, n_permutations=10000
        )
        found["comparison_s"] = round(time.perf_counter() - start, 2)
        print(
            f"comparison of two models (1000 resamples, 10000 permutations): {found['comparison_s']:6.2f} s  "
            f"({comparison.height} rows)"
        )
    return found


def figures(argv: list[str] | None = None) -> dict:
    return measure(build_parser().parse_args(argv))


def main() -> None:
    figures()


if __name__ == "__main__":
    main()
