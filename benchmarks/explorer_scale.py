"""The item explorer at MultiQ scale: build time, size on disk, the largest file a page loads, and
the time to open the overview and a cell in headless Chromium.

A synthetic results set of the shape a MultiQ run writes (``--models`` x ``--languages`` x
``--items``; default 30 x 137 x 200 = 822,000 answers), made with the real table schemas: the
prompts are MultiQ's own questions in their 137 languages (``--data``; synthetic text where the
release is not there), every answer is its language's text of 100 to 1,000 characters (256
tokens), 1% failed requests, 5% cut by the length limit; per answer a language-ID row and a
judge's verdict with its reasoning (the paper's evaluators), and, beyond the paper, an NLLB
translation in 5 sentences with a quality estimate each (so the item files are as large as a
translate-then-evaluate run makes them); item scores for fidelity (2), accuracy and QE; and a
results table of 10 metrics per (model, language) (the paper's 3, tokenization's 5, QE's 2).
The tables are written one file per model, as the stages write them.

Phases: the synthetic tables (not part of the pipeline); ``build_explorer`` in a child process
(its wall time and peak memory); sizes (the whole site, the overview's index, the largest
heatmap file, the largest item file, the largest file of all); Chromium (``--repeats`` fresh
page loads, medians): the overview of the data set (from navigation to the first paint after
every heatmap is drawn), a cell clicked on the overview (click to paint, its item file loaded),
a cell and an item opened from a link (page load to paint). The page marks
``data-painted-ms`` (performance.now() at the first frame after a view is drawn) on its view,
and the overview ``data-first-painted-ms`` when its first heatmap is on screen (it draws one
heatmap at a time, yielding to the browser in between).

    python benchmarks/explorer_scale.py [--models 30] [--languages 137] [--items 200] [--out DIR] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from xlcons.evaluators.fidelity import FIDELITY
from xlcons.evaluators.judge_tables import JUDGMENTS
from xlcons.schemas import (
    ITEM_SCORES,
    PROMPTS,
    RESPONSES,
    RESULTS,
    TRANSLATED_SENTENCES,
    TRANSLATION_QE,
    TRANSLATIONS,
)

REPO = Path(__file__).resolve().parent.parent
DATASET = "multiq"
SENTENCES = 5
ANSWER_CHARS = (100, 1000)
TRANSLATOR = "nllb-200-distilled-600M"
RESULT_METRICS = (
    ("language_id", "", "fidelity_same"),
    ("language_id", "", "fidelity_english"),
    ("judge", "", "accuracy"),
    ("tokenization", "", "tokens_per_prompt"),
    ("tokenization", "", "unique_tokens"),
    ("tokenization", "", "ascii_share"),
    ("tokenization", "", "character_share"),
    ("tokenization", "", "subword_share"),
    ("translation_qe", TRANSLATOR, "qe"),
    ("translation_qe", TRANSLATOR, "copy_rate"),
)
ENGLISH = (
    "The answer depends on the context of the question, and several factors play a part here. "
    "First, the historical background matters. Second, the scientific evidence points the same way. "
)

TARGETS = {
    "overview_first_ms": ("<", 1000),
    "overview_ms": ("<", 2000),
    "cell_click_ms": ("<", 2000),
    "largest_file_mb": ("<", 5),
}
QUICK = ["--models", "2", "--languages", "4", "--items", "20", "--repeats", "1"]


def questions(data: Path, languages: int, items: int) -> tuple[list[str], list[str], dict[tuple[str, str], str]]:
    """(languages, item ids, text by (item, language)): MultiQ's release where `data` has it."""
    csv = data / "MultiQ.csv"
    if csv.is_file():
        release = pl.read_csv(csv)
        langs = ["en", *sorted(set(release["language"].to_list()) - {"en"})][:languages]
        ids = release["id"].unique(maintain_order=True).to_list()[:items]
        rows = release.filter(pl.col("language").is_in(langs) & pl.col("id").is_in(ids))
        text = {(row["id"], row["language"]): row["prompt"] for row in rows.iter_rows(named=True)}
    else:
        langs = ["en", *(f"l{n:03d}" for n in range(1, languages))][:languages]
        ids = [f"gpt-{n + 1}" for n in range(items)]
        text = {}
    ids += [f"item-{n}" for n in range(len(ids), items)]
    for item in ids:
        for lang in langs:
            text.setdefault((item, lang), f"Question {item} in {lang}: what is the answer to this?")
    return langs, ids, text


def _table(frame: pl.DataFrame, schema: pa.Schema) -> pa.Table:
    return frame.select(schema.names).to_arrow().cast(schema)


def _write(frame: pl.DataFrame, schema: pa.Schema, path: Path) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(_table(frame, schema), path)
    return str(path)


def synthetic_run(root: Path, models: int, languages: int, items: int, data: Path, seed: int = 0) -> dict:
    """The explorer rule's named inputs (xlcons.plan.explorer) over a synthetic MultiQ-scale run."""
    rng = np.random.default_rng(seed)
    langs, ids, text = questions(data, languages, items)
    names = [f"model-{m:02d}" for m in range(models)]
    inputs: dict[str, list[str]] = {}

    def add(name: str, frame: pl.DataFrame, schema: pa.Schema, path: str) -> None:
        inputs.setdefault(name, []).append(_write(frame, schema, root / path))

    base = pl.DataFrame(
        [{"item_id": item, "lang": lang, "prompt": text[(item, lang)]} for item in ids for lang in langs]
    )
    add(
        "prompts",
        base.with_columns(
            dataset=pl.lit(DATASET),
            category=pl.lit(None, pl.String),
            references=pl.lit(None, pl.List(pl.String)),
            source_lang=pl.col("lang"),
            question_en=pl.lit(None, pl.String),
        ),
        PROMPTS,
        f"results/prompts/{DATASET}.parquet",
    )
    # Each answer is its language's own text, long enough for the longest answer, cut to its length.
    long = base.with_columns(long=(pl.col("prompt") + " ").repeat_by(60).list.join("").str.slice(0, ANSWER_CHARS[1]))
    english = (ENGLISH * (ANSWER_CHARS[1] // len(ENGLISH) + 2))[: ANSWER_CHARS[1]]
    for model in names:
        n = long.height
        length = rng.integers(ANSWER_CHARS[0], ANSWER_CHARS[1] + 1, n)
        outcome = rng.random(n)
        finish = np.where(outcome < 0.01, "error", np.where(outcome < 0.06, "length", "stop"))
        answers = long.with_columns(
            dataset=pl.lit(DATASET),
            model=pl.lit(model),
            length=pl.Series(length),
            finish_reason=pl.Series(finish),
        ).with_columns(
            response=pl.when(pl.col("finish_reason") == "error")
            .then(pl.lit(""))
            .otherwise(pl.col("long").str.slice(0, pl.col("length"))),
            translation=pl.lit(english).str.slice(0, pl.col("length")),
        )
        answered = answers.filter(pl.col("finish_reason") != "error")
        add(
            "responses",
            answers.with_columns(
                prompt_tokens=pl.lit(30, pl.Int32),
                completion_tokens=(pl.col("length") // 4).cast(pl.Int32),
                backend=pl.lit("vllm"),
                decoding_hash=pl.lit("0" * 16),
                error=pl.when(pl.col("finish_reason") == "error").then(pl.lit("HTTP 500 after 3 tries")),
            ),
            RESPONSES,
            f"results/responses/{DATASET}/{model}.parquet",
        )
        add(
            "translations",
            answered.with_columns(
                translation_path=pl.lit("response_language"),
                source_lang_detected=pl.col("lang"),
                lid_label=pl.format("__label__{}", pl.col("lang")),
                response_lang=pl.col("lang"),
                n_sentences=pl.lit(SENTENCES, pl.Int32),
                n_degenerate=pl.lit(0, pl.Int32),
                n_repaired=pl.lit(0, pl.Int32),
                splitter=pl.lit("pysbd"),
                translator=pl.lit(TRANSLATOR),
            ),
            TRANSLATIONS,
            f"results/translations/{DATASET}/{model}/translations.parquet",
        )
        sentences = (
            answered.select("dataset", "model", "item_id", "lang", "response", "translation")
            .with_columns(sentence_index=pl.lit(list(range(SENTENCES)), pl.List(pl.Int32)))
            .explode("sentence_index")
            .with_columns(
                source=pl.col("response").str.slice(
                    pl.col("sentence_index") * (pl.col("response").str.len_chars() // SENTENCES),
                    pl.col("response").str.len_chars() // SENTENCES,
                ),
                translation=pl.col("translation").str.slice(
                    pl.col("sentence_index") * (pl.col("translation").str.len_chars() // SENTENCES),
                    pl.col("translation").str.len_chars() // SENTENCES,
                ),
                source_lang=pl.col("lang"),
            )
        )
        add(
            "translation_sentences",
            sentences.with_columns(
                degenerate_reason=pl.lit(None, pl.String), repaired=pl.lit(False), attempts=pl.lit(1, pl.Int32)
            ),
            TRANSLATED_SENTENCES,
            f"results/translations/{DATASET}/{model}/sentences.parquet",
        )
        qe = pl.Series(rng.random(sentences.height))
        add(
            "translation_qe",
            sentences.with_columns(
                qe=qe,
                qe_backend=pl.lit("comet"),
                qe_model=pl.lit("wmt22-cometkiwi-da"),
                copy=pl.lit(False),
                off_target=qe < 0.05,
                lid_label=pl.lit("__label__en"),
                lid_probability=pl.lit(0.98),
            ),
            TRANSLATION_QE,
            f"results/translations/{DATASET}/{model}/qe.parquet",
        )
        fidelity = rng.choice(["same", "english", "other"], size=n, p=[0.7, 0.2, 0.1])
        add(
            "fidelity",
            answers.with_columns(
                label=pl.format("__label__{}", pl.col("lang")),
                probability=pl.Series(rng.random(n)),
                response_lang=pl.col("lang"),
                fidelity=pl.Series(fidelity),
                excluded_reason=pl.lit(None, pl.String),
                response_chars=pl.col("length").cast(pl.Int32),
            ),
            FIDELITY,
            f"results/evaluations/{DATASET}/{model}/fidelity.parquet",
        )
        verdict = rng.choice(["correct", "incorrect"], size=n, p=[0.6, 0.4])
        add(
            "judgments",
            answers.with_columns(
                verdict=pl.Series(verdict),
                judge_response=pl.format(
                    "The answer addresses the question and states the key fact, so it is {}. "
                    "It repeats itself once but says nothing false about the subject asked about.",
                    pl.Series(verdict),
                ),
                judge_finish_reason=pl.lit("stop"),
                judge_model=pl.lit("gpt-4-0125-preview"),
            ),
            JUDGMENTS,
            f"results/evaluations/{DATASET}/{model}/judgments.parquet",
        )
        keys = answers.select("dataset", "model", "item_id", "lang")
        scores = [
            keys.with_columns(evaluator=pl.lit("language_id"), metric=pl.lit(metric), value=pl.Series(values))
            for metric, values in (
                ("fidelity_same", (fidelity == "same").astype(float)),
                ("fidelity_english", (fidelity == "english").astype(float)),
            )
        ]
        scores.append(
            keys.with_columns(
                evaluator=pl.lit("judge"), metric=pl.lit("accuracy"), value=pl.Series((verdict == "correct") * 1.0)
            )
        )
        scores = [frame.with_columns(translator=pl.lit("")) for frame in scores]
        scores.append(
            sentences.group_by("dataset", "model", "item_id", "lang")
            .agg(value=pl.lit(0.5))
            .with_columns(evaluator=pl.lit("translation_qe"), metric=pl.lit("qe"), translator=pl.lit(TRANSLATOR))
        )
        frame = pl.concat(
            [
                f.select("dataset", "evaluator", "translator", "model", "item_id", "lang", "metric", "value")
                for f in scores
            ]
        )
        add(
            "item_scores",
            frame.with_columns(status=pl.lit("ok")),
            ITEM_SCORES,
            f"results/evaluations/{DATASET}/{model}/item_scores.parquet",
        )
    grid = pl.DataFrame(
        [
            {"model": model, "lang": lang, "evaluator": e, "translator": t, "metric": m}
            for model in names
            for lang in langs
            for e, t, m in RESULT_METRICS
        ]
    )
    value = rng.random(grid.height)
    results = grid.with_columns(
        dataset=pl.lit(DATASET),
        kind=pl.lit("mean"),
        value=pl.Series(value),
        ci_low=pl.Series(value * 0.9),
        ci_high=pl.Series(np.minimum(value * 1.1, 1.0)),
        n_items=pl.lit(items, pl.Int32),
        n_excluded=pl.lit(2, pl.Int32),
        excluded_reasons=pl.lit("error:2"),
        note=pl.lit(None, pl.String),
        n_resamples=pl.lit(1000, pl.Int32),
        ci_level=pl.lit(0.95),
    )
    add("results", results, RESULTS, "results/tables/results.parquet")
    return inputs


BUILD = """
import json, sys, time, resource
from xlcons.reports.explorer import build_explorer
inputs, out, models = json.loads(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
start = time.perf_counter()
build_explorer(inputs, out, models=models)
print(json.dumps({"seconds": time.perf_counter() - start,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def build(inputs: dict, out: Path, models: list[str]) -> dict:
    """build_explorer in a child process: its wall time and peak memory alone."""
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(REPO / "workflow_scripts"), str(REPO)])}
    done = subprocess.run(
        [sys.executable, "-c", BUILD, json.dumps(inputs), str(out), json.dumps(models)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def sizes(site: Path) -> dict:
    files = [path for path in site.rglob("*") if path.is_file()]
    by_size = {path: path.stat().st_size for path in files}
    largest = max(by_size, key=by_size.__getitem__)

    def biggest(folder: str) -> int:
        return max((size for path, size in by_size.items() if folder in path.relative_to(site).parts), default=0)

    return {
        "files": len(files),
        "site_mb": sum(by_size.values()) / 1e6,
        "overview_index_kb": (site / "data" / "overview.js").stat().st_size / 1e3,
        "largest_heatmap_kb": biggest("heatmaps") / 1e3,
        "largest_item_file_kb": biggest("items") / 1e3,
        "largest_file_mb": by_size[largest] / 1e6,
        "largest_file": largest.relative_to(site).as_posix(),
    }


PAINTED = "return document.getElementById('view').getAttribute('data-painted-ms')"
FIRST_PAINTED = "return document.getElementById('view').getAttribute('data-first-painted-ms')"


def browser_times(site: Path, model: str, lang: str, repeats: int) -> dict:
    """Medians over fresh page loads in headless Chromium (tests/test_explorer_browser.py's set-up)."""
    sys.path.insert(0, str(REPO / "tests"))
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from test_explorer_browser import CHROMEDRIVER, CHROMIUM, CHROMIUM_FLAGS

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="xlcons-bench-chromium-")
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--enable-precise-memory-info"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.set_page_load_timeout(120)
    names = ("overview_first_ms", "overview_ms", "cell_click_ms", "cell_link_ms", "item_link_ms")
    times: dict[str, list[float]] = {name: [] for name in names}
    heap: list[float] = []

    def wait_painted() -> float:
        WebDriverWait(driver, 120, poll_frequency=0.02).until(lambda d: d.execute_script(PAINTED))
        return float(driver.execute_script(PAINTED))

    def fresh(fragment: str) -> float:
        driver.get("about:blank")
        driver.get(site.joinpath("index.html").as_uri() + fragment)
        return wait_painted()

    try:
        for _ in range(repeats):
            times["overview_ms"].append(fresh(""))
            times["overview_first_ms"].append(float(driver.execute_script(FIRST_PAINTED)))
            heap.append(
                driver.execute_script("return performance.memory ? performance.memory.usedJSHeapSize : 0") / 1e6
            )
            cells = driver.find_elements(By.CSS_SELECTOR, "[data-heatmap] td[data-metric] a")
            link = cells[len(cells) // 2]
            # scrolled to first, as a user does: the click is timed, not the scrolling
            driver.execute_async_script(
                "arguments[0].scrollIntoView(); requestAnimationFrame(() => setTimeout(arguments[1], 0));", link
            )
            # clicked from the page's own script: WebDriver's click adds its checks of the element
            # (hundreds of ms on a page of 80,000 elements) that a user's click does not have
            start = driver.execute_script(
                "document.getElementById('view').removeAttribute('data-painted-ms');"
                "const start = performance.now(); arguments[0].click(); return start;",
                link,
            )
            times["cell_click_ms"].append(wait_painted() - float(start))
            times["cell_link_ms"].append(fresh(f"#cell/{DATASET}/{model}/{lang}/judge%7C%7Caccuracy"))
            times["item_link_ms"].append(fresh(f"#item/{DATASET}/{model}/{lang}/gpt-1"))
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
    found = {name: statistics.median(values) for name, values in times.items()}
    found["overview_js_heap_mb"] = statistics.median(heap)
    return found


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", type=int, default=30)
    parser.add_argument("--languages", type=int, default=137, help="English and the first N-1 others of MultiQ")
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data" / "multiq")
    parser.add_argument("--out", type=Path, default=None, help="work folder (a temporary one when omitted)")
    parser.add_argument("--keep", action="store_true", help="keep the synthetic run and the site")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-browser", action="store_true", help="build and sizes only")
    return parser


def measure(args: argparse.Namespace) -> dict:
    root = args.out or Path(tempfile.mkdtemp(prefix="xlcons-explorer-scale-"))
    found: dict = {}
    try:
        start = time.perf_counter()
        inputs = synthetic_run(root, args.models, args.languages, args.items, args.data)
        answers = sum(pq.read_metadata(path).num_rows for path in inputs["responses"])
        inputs_mb = sum(Path(p).stat().st_size for paths in inputs.values() for p in paths) / 1e6
        print(
            f"synthetic run: {time.perf_counter() - start:7.1f} s  ({answers:,} answers, "
            f"{args.models} models x {args.languages} languages x {args.items} items; {inputs_mb:,.0f} MB of parquet)"
        )
        found["answers"] = answers
        site = root / "results" / "explorer"
        built = build(inputs, site, [f"model-{m:02d}" for m in range(args.models)])
        found["build_s"] = round(built["seconds"], 1)
        found["build_peak_mb"] = round(built["peak_mb"])
        print(f"build_explorer: {built['seconds']:7.1f} s, peak memory {built['peak_mb']:,.0f} MB")
        measured = sizes(site)
        print(
            f"site: {measured['files']:,} files, {measured['site_mb']:,.0f} MB; overview index "
            f"{measured['overview_index_kb']:,.0f} kB, largest heatmap {measured['largest_heatmap_kb']:,.0f} kB, "
            f"largest item file {measured['largest_item_file_kb']:,.0f} kB; largest file "
            f"{measured['largest_file_mb']:.2f} MB ({measured['largest_file']})"
        )
        found |= {k: (round(v, 2) if isinstance(v, float) else v) for k, v in measured.items()}
        if not args.no_browser:
            lang = "de" if args.languages > 20 else "en"
            timed = browser_times(site, f"model-{args.models // 2:02d}", lang, args.repeats)
            print(
                f"Chromium, medians of {args.repeats} fresh loads: overview's first heatmap "
                f"{timed['overview_first_ms']:,.0f} ms, all {timed['overview_ms']:,.0f} ms "
                f"(JS heap {timed['overview_js_heap_mb']:,.0f} MB), "
                f"cell clicked on it {timed['cell_click_ms']:,.0f} ms, "
                f"cell from a link {timed['cell_link_ms']:,.0f} ms, item from a link {timed['item_link_ms']:,.0f} ms"
            )
            found |= {k: round(v) for k, v in timed.items()}
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    return found


def figures(argv: list[str] | None = None) -> dict:
    return measure(build_parser().parse_args(argv))


def main() -> None:
    figures()


if __name__ == "__main__":
    main()
