"""The translation stage against a naive NLLB loop, on the same tiny NLLB and real multilingual text.

Text: MultiQ questions of several languages (200 each), grouped per language into
"responses" of 5 to 10 questions (seeded sizes; two paragraphs when there are more than 6),
so the stage has real sentence splitting, language ID and layout to do.

Runs (each with its model loaded beforehand; load times are reported apart):

``naive, whole response``
    the baseline the issue names: transformers, one response per ``generate`` call, the
    whole response as one input, no splitting, no dedup, no batching, the prompt language
    as source. A real model writes about as many tokens for a whole response as for its
    sentences one by one, so the cap is ``--cap`` × the questions in the response; the
    random tiny NLLB always runs to its cap, so this keeps the decoding work comparable.
``naive, sentence by sentence``
    the same loop over the stage's own sentences (same source language per sentence, same
    cap of ``--cap`` tokens), one ``generate`` call each: the like-for-like reference.
``stage, transformers`` / ``stage, ctranslate2 float32`` / ``stage, ctranslate2 int8``
    ``translate_responses`` (language ID with lid.176, splitting, dedup, length-sorted
    token-budgeted batches, a fresh sentence cache on disk, reassembly, tables), greedy,
    repair off (the naive loops have none; with the random tiny NLLB nearly every sentence
    would be repaired, which measures sampling, not the stage).
``stage, all from the cache``
    the CTranslate2 job once more on its now complete cache: what the stage costs besides
    the model (language ID, splitting, cache look-ups, reassembly, tables).
``bare ctranslate2 float32``
    the engine alone on the stage's own work: the distinct sentences of each source
    language, tokenized as the stage does (``[src] + pieces + [</s>]``), length-sorted,
    through ``translate_batch`` (greedy, same cap, same loaded model and threads) at several
    ``max_batch_size`` (examples) and the stage's token budget, each once; the best is the
    reference the stage is held to (target: the stage reaches >= 0.9 of its sentences per
    second, on the same sentences).
``stage against the bare engine``
    ``--rounds`` interleaved rounds, each one stage run (CTranslate2 float32, a fresh cache)
    then the bare engine at its best batching, so both see the same share of a busy machine
    and are timed as often; the ratio is best against best (the per-round ratios are
    printed too). The stage's translator is timed within its run (``translate`` calls:
    tokenizing, batching, the engine, detokenizing: what the bare run does), which splits
    the stage's time into the engine's part and the stage's own (language ID, splitting,
    degeneration checks, cache, reassembly, tables).
``QE, embedding``
    the quality estimate of every sentence the stage translated (``translator.qe``, the
    embedding backend over ``--qe-model``, a MiniLM stand-in for LaBSE here), each distinct
    pair once: the time QE adds to the translate stage, and the ratio.

What is compared for "the same English": every sentence translation of the stage
(transformers, and CTranslate2 float32) against the naive sentence-by-sentence loop on the
same sentence and source language, and the reassembled responses of the two stage
backends against each other. The whole-response baseline translates different inputs
(whole responses), so its English is not comparable; it only sets the time to beat.

    python benchmarks/translation.py                 # defaults: 10 languages, cap 12, ~3-5 min on 2 cores
    python benchmarks/translation.py --languages de fr --cap 8
"""

from __future__ import annotations

import argparse
import functools
import logging
import random
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa

from xlcons.datasets.multiq import load
from xlcons.languages import LanguageRegistry
from xlcons.lid import LanguageIdentifier
from xlcons.schemas import RESPONSES
from xlcons.translation.cache import TranslationCache
from xlcons.translation.ctranslate2_conversion import convert
from xlcons.translation.response_translation import translate_responses
from xlcons.translation.sentence_translator import DegenerationSpec, SentenceTranslator
from xlcons.translation.spec import TranslatorSpec
from xlcons.translation.translators import load_translator

if __package__ in (None, ""):  # run as a script: the repository root, for devtools.offline_models
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

LANGUAGES = ["de", "fr", "es", "ru", "ar", "hi", "ja", "zh-CN", "tr", "vi"]


def build_responses(data: Path, languages, seed: int) -> tuple[pa.Table, list[int]]:
    """RESPONSES rows: each language's questions in groups of 5-10; and the questions per response."""
    prompts = load(data, languages, {"ids": None, "limit": None, "domains": None}).to_pylist()
    rng = random.Random(seed)
    rows, sizes = [], []
    for lang in languages:
        questions = [row["prompt"].strip() for row in prompts if row["lang"] == lang]
        start = 0
        while start < len(questions):
            size = rng.randint(5, 10)
            group = questions[start : start + size]
            start += size
            text = " ".join(group) if len(group) <= 6 else " ".join(group[:4]) + "\n\n" + " ".join(group[4:])
            rows.append(
                {
                    "dataset": "multiq",
                    "model": "bench",
                    "item_id": f"r{len(rows)}",
                    "lang": lang,
                    "prompt": "",
                    "response": text,
                    "finish_reason": "stop",
                    "prompt_tokens": None,
                    "completion_tokens": None,
                    "backend": "file",
                    "decoding_hash": "x",
                    "error": None,
                }
            )
            sizes.append(len(group))
    return pa.Table.from_pylist(rows, schema=RESPONSES), sizes


class NaiveNLLB:
    """What a researcher's first script does: tokenizer.src_lang, generate, decode, one text at a time."""

    def __init__(self, model_dir: Path):
        import torch
        from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

        self.torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(model_dir, local_files_only=True)
        self.model = AutoModelForSeq2SeqLM.from_pretrained(model_dir, dtype=torch.float32, local_files_only=True).eval()
        self.english = self.tokenizer.convert_tokens_to_ids("eng_Latn")

    def translate(self, text: str, src: str, max_new_tokens: int) -> str:
        self.tokenizer.src_lang = src
        batch = self.tokenizer(text, return_tensors="pt", verbose=False)  # long responses exceed the tiny model's 256
        with self.torch.inference_mode():
            out = self.model.generate(
                **batch, forced_bos_token_id=self.english, max_new_tokens=max_new_tokens + 1, do_sample=False
            )
        return self.tokenizer.decode(out[0], skip_special_tokens=True).strip()


def timed(function):
    start = time.perf_counter()
    result = function()
    return result, time.perf_counter() - start


def run_stage(spec: TranslatorSpec, translator, responses: pa.Table, identifier, workdir: Path, name: str):
    cache = TranslationCache(workdir / f"{name}.jsonl")  # fresh: everything is translated
    engine = SentenceTranslator(spec, cache, DegenerationSpec(repair=False), lambda _: translator)
    return translate_responses(responses, engine, identifier=identifier)


class TimedTranslator:
    """The stage's translator, with the time spent in its ``translate`` calls summed up."""

    def __init__(self, translator):
        self.translator = translator
        self.seconds = 0.0

    def translate(self, *args, **kwargs):
        start = time.perf_counter()
        try:
            return self.translator.translate(*args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - start

    def close(self) -> None:
        pass  # the loaded model belongs to the benchmark


class BareEngine:
    """The bare engine over the stage's distinct, length-sorted sentences (see the docstring)."""

    SETTINGS = {
        **{f"{size} examples": {"max_batch_size": size, "batch_type": "examples"} for size in (16, 32, 64, 128)},
        "4096 tokens": {"max_batch_size": 4096, "batch_type": "tokens"},
    }

    def __init__(self, translator, sentences, cap: int, registry: LanguageRegistry):
        self.translator, self.cap, self.registry = translator, cap, registry
        self.by_language: dict[str, dict[str, None]] = {}
        for row in sentences:
            self.by_language.setdefault(row["source_lang"], {})[row["source"]] = None

    def run(self, **batching) -> None:
        translator = self.translator
        tokenizer, model = translator.tokenizer, translator.model
        for code, texts in self.by_language.items():
            src = translator.language_id(self.registry.nllb_code(code))
            pieces = tokenizer(list(texts), add_special_tokens=False, verbose=False)["input_ids"]
            tokens = sorted(
                (tokenizer.convert_ids_to_tokens([src, *ids, translator.eos_id]) for ids in pieces),
                key=len,
                reverse=True,
            )
            results = model.translate_batch(
                tokens,
                target_prefix=[["eng_Latn"]] * len(tokens),
                beam_size=1,
                max_decoding_length=self.cap + 1,
                **batching,
            )
            [
                tokenizer.decode(tokenizer.convert_tokens_to_ids(r.hypotheses[0]), skip_special_tokens=True)
                for r in results
            ]

    def best(self) -> tuple[float, str]:
        """(seconds, setting): every batching once after a warm-up, the fastest."""
        self.run(**self.SETTINGS["32 examples"])  # warm-up
        return min(
            (timed(lambda batching=batching: self.run(**batching))[1], name) for name, batching in self.SETTINGS.items()
        )


def build_sized_nllb(
    tiny: Path, target: Path, *, d_model: int, layers: int, ffn: int, heads: int, seed: int = 0
) -> Path:
    """A random NLLB with the tiny one's tokenizer and the given shape (``--engine-size 600M``:
    NLLB-200-distilled-600M's d_model 1024, 12 + 12 layers, FFN 4096, 16 heads): an engine that
    costs per sentence about what a real model costs, without its 256k vocabulary (so the
    output projection is cheaper than the real model's: the stage's share is, if anything,
    overstated). Its special tokens are damped like the tiny model's, so it writes up to the cap."""
    import torch
    from transformers import AutoTokenizer, M2M100Config, M2M100ForConditionalGeneration

    from devtools.offline_models import TINY_INIT_STD, damp_special_tokens

    tokenizer = AutoTokenizer.from_pretrained(tiny, local_files_only=True)
    base = M2M100Config.from_pretrained(tiny)
    config = M2M100Config(
        vocab_size=base.vocab_size,
        d_model=d_model,
        encoder_layers=layers,
        decoder_layers=layers,
        encoder_attention_heads=heads,
        decoder_attention_heads=heads,
        encoder_ffn_dim=ffn,
        decoder_ffn_dim=ffn,
        max_position_embeddings=base.max_position_embeddings,
        pad_token_id=base.pad_token_id,
        bos_token_id=base.bos_token_id,
        eos_token_id=base.eos_token_id,
        decoder_start_token_id=base.decoder_start_token_id,
        scale_embedding=True,
        tie_word_embeddings=True,
        init_std=TINY_INIT_STD / (d_model / base.d_model) ** 0.5,
    )
    torch.manual_seed(seed)
    model = M2M100ForConditionalGeneration(config).eval()
    damp_special_tokens(model, tokenizer.all_special_ids)
    model.save_pretrained(str(target))
    tokenizer.save_pretrained(str(target))
    return target


ENGINE_SIZES = {
    "600M": {"d_model": 1024, "layers": 12, "ffn": 4096, "heads": 16},
    "small": {"d_model": 512, "layers": 6, "ffn": 2048, "heads": 8},
}


def measure_engine_ratio(args: argparse.Namespace) -> dict:
    """Only the stage (CTranslate2 float32) against the bare engine, on an NLLB of ``--engine-size``."""
    logging.basicConfig(level=logging.WARNING)
    registry = LanguageRegistry.load()
    responses, _ = build_responses(args.data, args.languages, args.seed)
    identifier = LanguageIdentifier(args.lid, "lid176")
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        model_dir, build_s = timed(
            lambda: build_sized_nllb(args.model, workdir / "nllb", **ENGINE_SIZES[args.engine_size])
        )
        ct2_dir, convert_s = timed(lambda: convert(model_dir, workdir / "ct2"))
        spec = TranslatorSpec(
            backend="ctranslate2",
            ct2_location=str(ct2_dir),
            compute_type="float32",
            model_id="sized-nllb",
            max_new_tokens=args.cap,
            device="cpu",
            threads=args.threads,
        )
        translator = load_translator(spec)
        run_stage(spec, translator, responses.slice(0, 3), identifier, workdir, "warm")
        _, sentences = run_stage(spec, translator, responses, identifier, workdir, "sentences")
        sentences = sentences.to_pylist()
        bare = BareEngine(translator, sentences, args.cap, registry)
        _, batching = bare.best()
        rounds = alternate(spec, translator, bare, batching, responses, identifier, workdir, args.rounds)
    stage_s, translator_s = min(r[0] for r in rounds), min(r[1] for r in rounds)
    bare_s = min(r[2] for r in rounds)
    n = len(sentences)
    print(
        f"engine: random NLLB of the {args.engine_size} shape ({ENGINE_SIZES[args.engine_size]}), "
        f"built in {build_s:.0f} s, converted in {convert_s:.0f} s; {n} sentences "
        f"({', '.join(args.languages)}), cap {args.cap}, {args.threads} threads"
    )
    print(
        f"bare engine, best batching ({batching}): {bare_s:.2f} s ({n / bare_s:.1f} sentences/s); "
        f"stage {stage_s:.2f} s ({n / stage_s:.1f} sentences/s), of which its translator {translator_s:.2f} s"
    )
    print(
        "per round, stage / translator / bare seconds: "
        + "; ".join(f"{a:.2f} / {b:.2f} / {c:.2f}" for a, b, c in rounds)
    )
    print(
        f"the stage reaches {bare_s / stage_s:.2f} of the bare engine's sentences/s (target >= 0.9; per round: "
        + ", ".join(f"{c / a:.2f}" for a, _, c in rounds)
        + ")"
    )
    return {
        "sentences": n,
        "stage_vs_bare_ct2": round(bare_s / stage_s, 2),
        "stage_translator_vs_bare_ct2": round(bare_s / translator_s, 2),
        "stage_own_work_share": round((stage_s - translator_s) / stage_s, 2),
    }


def alternate(
    spec: TranslatorSpec,
    translator,
    bare: BareEngine,
    batching: str,
    responses: pa.Table,
    identifier,
    workdir: Path,
    rounds: int,
) -> list[tuple[float, float, float]]:
    """`rounds` times: the stage (a fresh cache), then the bare engine at `batching`;
    (stage seconds, its translator's seconds, bare seconds) per round."""
    timings = []
    for number in range(rounds):
        timer = TimedTranslator(translator)
        _, stage_s = timed(functools.partial(run_stage, spec, timer, responses, identifier, workdir, f"round-{number}"))
        _, bare_s = timed(lambda: bare.run(**BareEngine.SETTINGS[batching]))
        timings.append((stage_s, timer.seconds, bare_s))
    return timings


TARGETS = {"ct2_speedup_vs_whole_response": (">=", 5.0), "stage_vs_bare_ct2": (">=", 0.9)}
QUICK = ["--languages", "de", "fr", "--cap", "4"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, default=Path("resources/offline-models/tiny-nllb"))
    parser.add_argument("--lid", type=Path, default=Path("resources/offline-models/lid176/lid.176.ftz"))
    parser.add_argument(
        "--qe-model",
        type=Path,
        default=Path("resources/offline-models/all-minilm-l6-v2"),
        help="sentence-transformers model of the embedding QE (LaBSE in real runs)",
    )
    parser.add_argument("--data", type=Path, default=Path("../shared/data/multiq"))
    parser.add_argument("--languages", nargs="+", default=LANGUAGES)
    parser.add_argument("--cap", type=int, default=12, help="new tokens per sentence (the tiny NLLB always uses all)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="interleaved rounds of the stage and the bare engine for their ratio (best of each)",
    )
    parser.add_argument(
        "--engine-size",
        choices=sorted(ENGINE_SIZES),
        help="only the stage against the bare engine, on a random NLLB of this shape built from --model's "
        "tokenizer (600M: NLLB-200-distilled-600M's layers), whose engine costs per sentence what a real one does",
    )
    return parser


def measure(args: argparse.Namespace) -> dict:
    """Run every variant, print the table, and return its figures."""
    logging.basicConfig(level=logging.WARNING)

    import torch

    torch.set_num_threads(args.threads)
    registry = LanguageRegistry.load()
    responses, sizes = build_responses(args.data, args.languages, args.seed)
    identifier = LanguageIdentifier(args.lid, "lid176")
    common = dict(model_id="tiny-nllb", max_new_tokens=args.cap, device="cpu", threads=args.threads)

    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        ct2_dir, convert_s = timed(lambda: convert(args.model, workdir / "ct2"))
        int8_dir = convert(args.model, workdir / "ct2-int8", quantization="int8")
        specs = {
            "stage, transformers": TranslatorSpec(location=str(args.model), dtype="float32", **common),
            "stage, ctranslate2 float32": TranslatorSpec(
                backend="ctranslate2", ct2_location=str(ct2_dir), compute_type="float32", **common
            ),
            "stage, ctranslate2 int8": TranslatorSpec(
                backend="ctranslate2", ct2_location=str(int8_dir), compute_type="int8", **common
            ),
        }
        loaded, load_s = {}, {}
        for name, spec in specs.items():
            loaded[name], load_s[name] = timed(lambda spec=spec: load_translator(spec))
        naive, load_s["naive"] = timed(lambda: NaiveNLLB(args.model))

        # Warm-up on a few responses: imports of the splitters, first-call allocations.
        for name, spec in specs.items():
            run_stage(spec, loaded[name], responses.slice(0, 3), identifier, workdir, f"warm-{name}")
        for lang in args.languages:
            naive.translate("Warm up.", registry.nllb_code(lang), 2)

        times, stage_out = {}, {}
        for name, spec in specs.items():
            stage_out[name], times[name] = timed(
                lambda spec=spec, name=name: run_stage(spec, loaded[name], responses, identifier, workdir, name)
            )

        # The stage's own work without the model: the same job again, everything from its cache.
        _, times["stage, all from the cache"] = timed(
            lambda: run_stage(
                specs["stage, ctranslate2 float32"],
                loaded["stage, ctranslate2 float32"],
                responses,
                identifier,
                workdir,
                "stage, ctranslate2 float32",
            )
        )

        rows = responses.to_pylist()
        whole, times["naive, whole response"] = timed(
            lambda: [
                naive.translate(row["response"], registry.nllb_code(row["lang"]), args.cap * size)
                for row, size in zip(rows, sizes)
            ]
        )
        sentences = stage_out["stage, transformers"][1].to_pylist()
        ct2_name = "stage, ctranslate2 float32"
        bare = BareEngine(loaded[ct2_name], sentences, args.cap, registry)
        _, bare_batching = bare.best()
        rounds = alternate(
            specs[ct2_name], loaded[ct2_name], bare, bare_batching, responses, identifier, workdir, args.rounds
        )
        times["bare ctranslate2 float32"] = min(bare_s for _, _, bare_s in rounds)
        from xlcons.translation.qe_embedding import embedding_scorer
        from xlcons.translation.quality import estimate

        scorer, load_s["QE model"] = timed(lambda: embedding_scorer(args.qe_model, batch_size=64))
        _, times["QE, embedding"] = timed(
            lambda: estimate(
                stage_out["stage, ctranslate2 float32"][1], scorer, backend="embedding", model_name="bench"
            )
        )
        loop, times["naive, sentence by sentence"] = timed(
            lambda: [
                naive.translate(row["source"], registry.nllb_code(row["source_lang"]), args.cap) for row in sentences
            ]
        )

    n_sentences = len(sentences)
    distinct = len({(row["source_lang"], row["source"]) for row in sentences})
    paths = stage_out["stage, transformers"][0]["translation_path"].to_pylist()
    reference = [row["translation"] for row in sentences]
    same = {"naive, sentence by sentence": n_sentences}
    for name in specs:
        mine = stage_out[name][1]["translation"].to_pylist()
        same[name] = sum(a == b for a, b in zip(mine, reference)) if len(mine) == n_sentences else 0
    responses_same = sum(
        a == b
        for a, b in zip(
            stage_out["stage, transformers"][0]["translation"].to_pylist(),
            stage_out["stage, ctranslate2 float32"][0]["translation"].to_pylist(),
        )
    )

    print(
        f"text: {len(rows)} responses ({', '.join(args.languages)}), {sum(sizes)} MultiQ questions, "
        f"{n_sentences} sentences after splitting ({distinct} distinct)"
    )
    print("language ID paths: " + ", ".join(f"{p} {paths.count(p)}" for p in sorted(set(paths))))
    print(
        f"decoding: greedy, {args.cap} new tokens per sentence ({args.cap} x questions per whole response), "
        f"{args.threads} threads, batch budget {specs['stage, transformers'].max_batch_tokens} tokens"
    )
    print(
        f"one-off: CTranslate2 conversion {convert_s:.1f} s; model loads "
        + ", ".join(f"{k} {v:.1f} s" for k, v in load_s.items())
    )
    print()
    base, loop_s = times["naive, whole response"], times["naive, sentence by sentence"]
    header = f"{'run':30}{'seconds':>9}{'sent/s':>9}{'vs whole':>10}{'vs loop':>9}  same English as the sentence loop"
    print(header)
    print("-" * len(header))
    for name in (
        "naive, whole response",
        "naive, sentence by sentence",
        *specs,
        "stage, all from the cache",
        "bare ctranslate2 float32",
        "QE, embedding",
    ):
        seconds = times[name]
        notes = {
            "naive, whole response": "(different inputs)",
            "stage, all from the cache": "(language ID, splitting, cache, tables)",
            "bare ctranslate2 float32": f"(engine alone, best batching: {bare_batching})",
            "QE, embedding": "(scores, not translations)",
        }
        agreement = notes[name] if name in notes else f"{same[name]}/{n_sentences} sentences"
        print(
            f"{name:30}{seconds:9.1f}{n_sentences / seconds:9.1f}{base / seconds:9.1f}x{loop_s / seconds:8.1f}x  "
            f"{agreement}"
        )
    print()
    print(f"reassembled responses, stage transformers vs ctranslate2 float32: {responses_same}/{len(rows)} identical")
    ct2_speedup = base / times["stage, ctranslate2 float32"]
    print(f"CTranslate2 speed-up over the naive whole-response baseline: {ct2_speedup:.1f}x (target >= 5x)")
    bare_s = times["bare ctranslate2 float32"]
    stage_s = min(stage for stage, _, _ in rounds)
    translator_s = min(translator for _, translator, _ in rounds)
    own_s = min(stage - translator for stage, translator, _ in rounds)  # language ID, splitting, checks, cache, tables
    versus_bare = bare_s / stage_s
    print(
        "stage (ctranslate2 float32) against the bare engine "
        f"({bare_batching}), {args.rounds} interleaved rounds, best of each:"
    )
    print(
        f"  stage {stage_s:.2f} s ({n_sentences / stage_s:.0f} sentences/s), of which its translator "
        f"{translator_s:.2f} s; bare engine {bare_s:.2f} s ({n_sentences / bare_s:.0f} sentences/s)"
    )
    print(
        "  per round, stage / translator / bare seconds: "
        + "; ".join(f"{a:.2f} / {b:.2f} / {c:.2f}" for a, b, c in rounds)
    )
    print(
        f"  the stage reaches {versus_bare:.2f} of the bare engine's sentences/s (target >= 0.9; per round: "
        + ", ".join(f"{c / a:.2f}" for a, _, c in rounds)
        + ")"
    )
    print(
        f"  its translator alone (tokenizing, batching, engine, detokenizing) reaches {bare_s / translator_s:.2f}; "
        f"the stage's own work takes {own_s:.2f} s at best ({own_s / stage_s:.0%} of its best time)"
    )
    qe_share = times["QE, embedding"] / times["stage, ctranslate2 float32"]
    print(
        f"QE (embedding) adds {times['QE, embedding']:.1f} s to the stage's "
        f"{times['stage, ctranslate2 float32']:.1f} s: x{1 + qe_share:.2f}"
    )
    return {
        "sentences": n_sentences,
        "ct2_sentences_per_s": round(n_sentences / times["stage, ctranslate2 float32"]),
        "transformers_sentences_per_s": round(n_sentences / times["stage, transformers"]),
        "ct2_speedup_vs_whole_response": round(ct2_speedup, 1),
        "transformers_speedup_vs_whole_response": round(base / times["stage, transformers"], 1),
        "same_english_ct2_float32": f"{same['stage, ctranslate2 float32']}/{n_sentences}",
        "stage_vs_bare_ct2": round(versus_bare, 2),
        "stage_translator_vs_bare_ct2": round(bare_s / translator_s, 2),
        "stage_own_work_share": round(own_s / stage_s, 2),
        "qe_added_ratio": round(1 + qe_share, 2),
    }


def figures(argv: list[str] | None = None) -> dict:
    args = build_parser().parse_args(argv)
    if args.rounds < 1:
        raise SystemExit("--rounds must be at least 1")
    return measure_engine_ratio(args) if args.engine_size else measure(args)


def main() -> None:
    figures()


if __name__ == "__main__":
    main()
