"""MultiQ's language-fidelity pass over a paper-scale response set, against a per-row fastText loop.

Responses: every MultiQ prompt of the release (200 questions x 137 languages = 27,400)
is its own "answer", so the text is real multilingual text in 137 languages and scripts.
Language ID with lid.176 (``resources/offline-models/lid176/lid.176.ftz``).

``stage``
    ``xlcons.evaluators.fidelity.score_fidelity`` with ``xlcons.lid.LanguageIdentifier``
    (label scheme lid176): clean each text, predict in batches of 2,048 (one fastText
    call per batch), then the per-row exclusion rules, fidelity class and registry code,
    and the FIDELITY Arrow table: what the ``language_id`` job does between
    reading the responses and writing the table.
``per-row loop``
    the obvious script: the same fastText model, ``model.predict(text)`` once per
    response (newlines replaced), the ``__label__`` prefix stripped, and the class
    (same / english / other) from the same registry labels.

Both use the same model, loaded beforehand (load time reported apart). Runs alternate
(loop, stage, then fastText alone: batched and one call per text; repeated) and medians are
reported; the labels of the two are compared row by row, and the classes of the scored rows.

    python benchmarks/multiq_fidelity.py [--repeats 3] [--questions 200] [--languages all]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from xlcons.datasets.multiq import load, read_release
from xlcons.evaluators.fidelity import classify, score_fidelity
from xlcons.lid import LanguageIdentifier, strip_prefix
from xlcons.schemas import RESPONSES

REPO = Path(__file__).resolve().parent.parent
TARGETS = {"identical_labels": ("==", True)}  # no speed target was set: the figure is reported


def build_responses(data: Path, questions: int | None, languages: list[str] | None) -> pa.Table:
    """RESPONSES rows whose answer is the prompt itself, for the chosen questions and languages."""
    release = read_release(data)
    release_langs = list(dict.fromkeys(release["language"].to_pylist()))
    langs = release_langs if not languages or languages == ["all"] else languages
    prompts = load(data, langs, {"ids": None, "limit": questions, "domains": None})
    n = prompts.num_rows
    return pa.table(
        {
            "dataset": prompts["dataset"],
            "model": pa.array(["prompts-as-answers"] * n),
            "item_id": prompts["item_id"],
            "lang": prompts["lang"],
            "prompt": prompts["prompt"],
            "response": prompts["prompt"],
            "finish_reason": pa.array(["stop"] * n),
            "prompt_tokens": pa.nulls(n, pa.int32()),
            "completion_tokens": pa.nulls(n, pa.int32()),
            "backend": pa.array(["file"] * n),
            "decoding_hash": pa.array(["x"] * n),
            "error": pa.nulls(n, pa.string()),
        },
        schema=RESPONSES,
    )


def per_row_loop(model, identifier: LanguageIdentifier, responses: pa.Table) -> list[tuple[str | None, str]]:
    """(label, class) per response, one fastText call each."""
    out = []
    for lang, text in zip(responses["lang"].to_pylist(), responses["response"].to_pylist()):
        text = text.replace("\n", " ").strip()
        if not text:
            out.append((None, "other"))
            continue
        labels, _ = model.predict(text)
        label = strip_prefix(labels[0]) if len(labels) else None
        out.append((label, classify(label, lang, identifier)))
    return out


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lid", type=Path, default=REPO / "resources" / "offline-models" / "lid176" / "lid.176.ftz")
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data" / "multiq")
    parser.add_argument("--questions", type=int, default=None, help="first N questions (all 200 when omitted)")
    parser.add_argument("--languages", nargs="+", default=["all"], help="release language codes, or all (137)")
    parser.add_argument("--repeats", type=int, default=3)
    return parser


def measure(args: argparse.Namespace) -> dict:
    responses = build_responses(args.data, args.questions, args.languages)
    n = responses.num_rows
    start = time.perf_counter()
    identifier = LanguageIdentifier(args.lid, "lid176")
    load_s = time.perf_counter() - start
    model = identifier._model  # the same loaded fastText model for the loop: only the calling pattern differs

    # Warm-up (first-call allocations, registry caches) on a slice, for both.
    score_fidelity(responses.slice(0, 200), identifier)
    per_row_loop(model, identifier, responses.slice(0, 200))

    # Language ID alone as well, batched vs one call per text (no classification, no table).
    texts = [t.replace("\n", " ").strip() for t in responses["response"].to_pylist()]

    def single_calls():
        for text in texts:
            model.predict(text)

    times = {"loop": [], "stage": [], "batched": [], "single": []}
    outputs = {}
    runs = (
        ("loop", lambda: per_row_loop(model, identifier, responses)),
        ("stage", lambda: score_fidelity(responses, identifier)),
        ("batched", lambda: identifier.predict(texts)),
        ("single", single_calls),
    )
    for _ in range(args.repeats):
        for name, run in runs:
            start = time.perf_counter()
            outputs[name] = run()
            times[name].append(time.perf_counter() - start)
    loop_out, table = outputs["loop"], outputs["stage"]
    batched_predict_s, single_predict_s = statistics.median(times["batched"]), statistics.median(times["single"])

    stage_labels = table["label"].to_pylist()
    same_labels = sum(a == b for a, (b, _) in zip(stage_labels, loop_out))
    scored = pc.not_equal(table["fidelity"], "excluded").to_pylist()
    stage_classes = table["fidelity"].to_pylist()
    compared = [(a, b) for a, (_, b), keep in zip(stage_classes, loop_out, scored) if keep]
    same_classes = sum(a == b for a, b in compared)
    classes = {name: stage_classes.count(name) for name in ("same", "english", "other", "excluded")}
    loop_s, stage_s = statistics.median(times["loop"]), statistics.median(times["stage"])
    langs = len(set(responses["lang"].to_pylist()))

    print(
        f"responses: {n:,} (MultiQ prompts as their own answers, {langs} languages); lid.176 load {load_s:.2f} s; "
        f"{args.repeats} alternating repeats"
    )
    print(f"{'':30}{'median s':>10}{'responses/s':>14}")
    print(f"{'per-row loop (predict each)':30}{loop_s:10.2f}{n / loop_s:14,.0f}")
    print(f"{'stage (score_fidelity)':30}{stage_s:10.2f}{n / stage_s:14,.0f}")
    print(
        f"stage speed-up over the loop: {loop_s / stage_s:.2f}x (runs: loop "
        f"{', '.join(f'{t:.2f}' for t in times['loop'])}; stage {', '.join(f'{t:.2f}' for t in times['stage'])})"
    )
    print(
        f"language ID alone (medians): batched predict {batched_predict_s:.2f} s, one fastText call per text "
        f"{single_predict_s:.2f} s ({single_predict_s / batched_predict_s:.2f}x)"
    )
    print(
        f"identical labels: {same_labels}/{n}; identical classes on the "
        f"{len(compared):,} scored rows: {same_classes}/{len(compared)}"
    )
    print("stage classes: " + ", ".join(f"{k} {v:,}" for k, v in classes.items()))
    return {
        "responses": n,
        "stage_responses_per_s": round(n / stage_s),
        "loop_responses_per_s": round(n / loop_s),
        "speedup_vs_loop": round(loop_s / stage_s, 2),
        "lid_batched_vs_single": round(single_predict_s / batched_predict_s, 2),
        "identical_labels": same_labels == n and same_classes == len(compared),
    }


QUICK = ["--questions", "20", "--languages", "en", "de", "ru", "zh-CN", "ar", "hi", "sw", "ja", "--repeats", "1"]


def figures(argv: list[str] | None = None) -> dict:
    return measure(build_parser().parse_args(argv))


def main() -> None:
    figures()


if __name__ == "__main__":
    main()
