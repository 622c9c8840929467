"""Small tables for tests, built the way the stages would write them."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pyarrow as pa

from xlcons.schemas import NO_ANSWER, RESPONSES, TRANSLATED_SENTENCES


def offline_language_confusion(offline_models: dict) -> dict:
    """The `evaluators.language_confusion` files of an offline run: lid.176.ftz and our short word list."""
    return {"model": {"path": str(offline_models["lid176"])}, "words": {"path": str(offline_models["english-words"])}}


def gold_prompts(
    dataset: str, items: int, languages: Sequence[str], references: Callable[[str, str], list[str] | None]
) -> list[dict]:
    """PROMPTS rows of a user knowledge set: items "1".."items" in each language, uncategorised,
    gold answers `references(item_id, lang)` (None: none for that item)."""
    return [
        {
            "dataset": dataset,
            "item_id": str(item),
            "lang": lang,
            "prompt": "?",
            "category": None,
            "references": references(str(item), lang),
            "source_lang": lang,
        }
        for item in range(1, items + 1)
        for lang in languages
    ]


def response_rows(rows: Sequence[tuple[str, ...]], model: str = "m", dataset: str = "multiq") -> pa.Table:
    """RESPONSES rows from (item_id, lang, response[, finish_reason]); a "No answer" row without
    a finish reason is a refusal ("refused"), as the stage writes one; give "error" for a failed request."""
    records = []
    for item, lang, response, *reason in rows:
        finish = reason[0] if reason else ("refused" if response == NO_ANSWER else "stop")
        records.append(
            {
                "dataset": dataset,
                "model": model,
                "item_id": item,
                "lang": lang,
                "prompt": f"({lang}) question {item}",
                "response": response,
                "finish_reason": finish,
                "prompt_tokens": None,
                "completion_tokens": None,
                "backend": "file",
                "decoding_hash": "x",
                "error": "failed" if finish == "error" else None,
            }
        )
    return pa.Table.from_pylist(records, schema=RESPONSES)


def shipped_config(repo, name: str) -> dict:
    """A shipped config (`config/<name>`) with its resources/ paths made absolute, for runs in another directory."""
    import yaml

    config = yaml.safe_load((repo / "config" / name).read_text())

    def absolute(section):
        if isinstance(section, dict):
            for key, value in section.items():
                if key == "path" and isinstance(value, str) and value.startswith("resources/"):
                    section[key] = str(repo / value)
                else:
                    absolute(value)

    absolute(config)
    return config


def offline_config(repo) -> dict:
    """config/offline.yaml with its resources/ paths made absolute, for runs in another directory."""
    return shipped_config(repo, "offline.yaml")


# A FLORES-shaped sample: line N is the same sentence in every language (our own sentences).
FLORES_SAMPLE = {
    "eng_Latn": [
        "The river froze early this winter.",
        "She sold her bicycle to a neighbour.",
        "The museum opens at nine on Sundays.",
        "Two trains were late because of the snow.",
    ],
    "deu_Latn": [
        "Der Fluss ist diesen Winter früh zugefroren.",
        "Sie hat ihr Fahrrad an einen Nachbarn verkauft.",
        "Das Museum öffnet sonntags um neun.",
        "Zwei Züge hatten wegen des Schnees Verspätung.",
    ],
    "zho_Hans": [
        "今年冬天河流很早就结冰了。",
        "她把自行车卖给了一位邻居。",
        "博物馆星期天九点开门。",
        "因为下雪，两列火车晚点了。",
    ],
    "jpn_Jpan": [
        "今年の冬は川が早く凍った。",
        "彼女は自転車を近所の人に売った。",
        "博物館は日曜日の九時に開く。",
        "雪のせいで列車が二本遅れた。",
    ],
}


def write_flores_sample(folder, sentences=FLORES_SAMPLE, *, archive: bool = True):
    """`folder`/flores200_dataset.tar.gz (or, with archive=False, an unpacked flores200_dataset/)
    holding dev and devtest files of `sentences` ({NLLB code: lines}); returns `folder`."""
    import io
    import tarfile
    from pathlib import Path

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    files = {
        f"flores200_dataset/{split}/{code}.{split}": ("\n".join(lines) + "\n").encode()
        for split in ("dev", "devtest")
        for code, lines in sentences.items()
    }
    if not archive:
        for name, data in files.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(data)
        return folder
    with tarfile.open(folder / "flores200_dataset.tar.gz", "w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return folder


def sentences(rows):
    """TRANSLATED_SENTENCES rows from (item_id, lang, index, source, translation)."""
    return pa.Table.from_pylist(
        [
            {
                "dataset": "information",
                "model": "m",
                "item_id": item,
                "lang": lang,
                "sentence_index": index,
                "source_lang": lang,
                "source": source,
                "translation": translation,
                "degenerate_reason": None,
                "repaired": False,
                "attempts": 0,
            }
            for item, lang, index, source, translation in rows
        ],
        schema=TRANSLATED_SENTENCES,
    )


# Answers a page must show as text, never run or render: a script, an image whose error
# handler runs code, and Markdown (shown as written).
HOSTILE_ANSWERS = {
    "script": "</script><script>window.__xlconsInjected = 'script'</script> bye",
    "img": "<img src=x onerror=\"window.__xlconsInjected = 'img'\"> **bold** [link](javascript:alert(1))",
}


def explorer_run(folder) -> dict[str, list[str]]:
    """A tiny hand-made results set, as the stages and the results job write it: MultiQ in en and
    de, two models (m1, m2), three items; judge and language-ID tables, information facts of one
    item, the German answers translated with QE, one failed request and two hostile answers.
    Returns the explorer rule's named inputs (xlcons.plan.explorer)."""
    from pathlib import Path

    import pyarrow.parquet as pq

    from xlcons.evaluators.fidelity import FIDELITY
    from xlcons.evaluators.information.tables import INFORMATION_FACTS
    from xlcons.evaluators.judge_tables import JUDGMENTS
    from xlcons.reports.aggregate import run_results_job
    from xlcons.schemas import PROMPTS, TRANSLATION_QE, TRANSLATIONS

    root = Path(folder)
    inputs: dict[str, list[str]] = {}

    def write(name: str, rows: list[dict], schema: pa.Schema, path: str) -> None:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.Table.from_pylist(rows, schema=schema), target)
        inputs.setdefault(name, []).append(str(target))

    items, langs, models = ["q1", "q2", "q3"], ["en", "de"], ["m1", "m2"]
    write(
        "prompts",
        [
            {
                "dataset": "multiq",
                "item_id": item,
                "lang": lang,
                "prompt": f"({lang}) question {item}?",
                "category": None,
                "references": None,
                "source_lang": lang,
                "question_en": None,
            }
            for item in items
            for lang in langs
        ],
        PROMPTS,
        "results/prompts/multiq.parquet",
    )
    answers = {
        ("m1", "q1", "en"): ("Berlin is the capital.",),
        ("m1", "q1", "de"): ("Berlin ist die Hauptstadt. Es ist groß.",),
        ("m1", "q2", "en"): (HOSTILE_ANSWERS["script"],),
        ("m1", "q2", "de"): (HOSTILE_ANSWERS["img"],),
        ("m1", "q3", "en"): ("Paris.",),
        ("m1", "q3", "de"): (NO_ANSWER, "error"),
        ("m2", "q1", "en"): ("I think Berlin.",),
        ("m2", "q1", "de"): ("Berlin.",),
        ("m2", "q2", "en"): ("Rome.",),
        ("m2", "q2", "de"): ("Rom.",),
        ("m2", "q3", "en"): ("Paris.",),
        ("m2", "q3", "de"): ("Paris.",),
    }
    for model in models:
        rows = [(item, lang, *answers[(model, item, lang)]) for item in items for lang in langs]
        target = root / f"results/responses/multiq/{model}.parquet"
        target.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(response_rows(rows, model=model), target)
        inputs.setdefault("responses", []).append(str(target))
        verdicts = {"q1": "yes", "q2": "no", "q3": "yes"}
        write(
            "judgments",
            [
                {
                    "dataset": "multiq",
                    "model": model,
                    "item_id": item,
                    "lang": lang,
                    "verdict": "no_answer" if answers[(model, item, lang)][0] == NO_ANSWER else verdicts[item],
                    "judge_response": "<b>yes</b>",
                    "judge_finish_reason": "stop",
                    "judge_model": "judge",
                }
                for item in items
                for lang in langs
            ],
            JUDGMENTS,
            f"results/evaluations/multiq/{model}/judgments.parquet",
        )
        write(
            "fidelity",
            [
                {
                    "dataset": "multiq",
                    "model": model,
                    "item_id": item,
                    "lang": lang,
                    "label": f"__label__{lang}",
                    "probability": 0.9,
                    "response_lang": lang,
                    "fidelity": "same" if (model, item) != ("m2", "q1") or lang == "en" else "english",
                    "excluded_reason": None,
                    "response_chars": 10,
                }
                for item in items
                for lang in langs
            ],
            FIDELITY,
            f"results/evaluations/multiq/{model}/fidelity.parquet",
        )
        for lang in langs:
            translated, sentence_rows, qe_rows = [], [], []
            for item in items:
                response = answers[(model, item, lang)][0]
                english = response if lang == "en" else f"EN[{response}]"
                translated.append(
                    {
                        "dataset": "multiq",
                        "model": model,
                        "item_id": item,
                        "lang": lang,
                        "response": response,
                        "translation_path": "passthrough_english" if lang == "en" else "prompt_language",
                        "source_lang_detected": lang,
                        "lid_label": f"__label__{lang}",
                        "response_lang": lang,
                        "translation": english,
                        "n_sentences": 1,
                        "n_degenerate": 0,
                        "n_repaired": 0,
                        "splitter": "pysbd",
                        "translator": "tiny-nllb",
                    }
                )
                if lang != "en":
                    parts = response.split(". ") if item == "q1" else [response]
                    for index, part in enumerate(parts):
                        key = {
                            "dataset": "multiq",
                            "model": model,
                            "item_id": item,
                            "lang": lang,
                            "sentence_index": index,
                            "source_lang": lang,
                        }
                        sentence_rows.append(
                            {
                                **key,
                                "source": part,
                                "translation": f"EN[{part}]",
                                "degenerate_reason": None,
                                "repaired": False,
                                "attempts": 0,
                            }
                        )
                        qe_rows.append(
                            {
                                **key,
                                "qe": 0.5 + 0.125 * index,
                                "qe_backend": "embedding",
                                "qe_model": "minilm",
                                "copy": False,
                                "off_target": False,
                                "lid_label": "__label__en",
                                "lid_probability": 0.8,
                            }
                        )
            base = f"results/translations/multiq/{model}/{lang}"
            write("translations", translated, TRANSLATIONS, f"{base}.parquet")
            if model == "m1" and lang == "de":  # a second translator (`translators`) of m1's German answers
                other = [row | {"translation": f"B[{row['response']}]", "translator": "nllb-b"} for row in translated]
                other_base = f"results/by-translator/nllb-b/translations/multiq/{model}/{lang}"
                write("other_translations", other, TRANSLATIONS, f"{other_base}.parquet")
            write("translation_sentences", sentence_rows, TRANSLATED_SENTENCES, f"{base}.sentences.parquet")
            write("translation_qe", qe_rows, TRANSLATION_QE, f"{base}.qe.parquet")
    write(
        "information_facts",
        [
            {
                "dataset": "multiq",
                "model": "m1",
                "item_id": "q1",
                "lang": "de",
                "comparison": "en-vs-translated",
                "evaluator_model": "llm",
                "side": "english",
                "sentence_index": 0,
                "sentence": "Berlin is the capital.",
                "fact_index": index,
                "fact": fact,
                "verdict": verdict,
                "verifier_response": "Supported",
                "verifier_finish_reason": "stop",
            }
            for index, (fact, verdict) in enumerate(
                [("Berlin is a capital.", "supported"), ("<i>x</i>", "not_supported")]
            )
        ],
        INFORMATION_FACTS,
        "results/evaluations/multiq/m1/information_facts.parquet",
    )
    tables = root / "results/tables"
    run_results_job(
        {name: inputs[name] for name in ("fidelity", "judgments", "responses", "translation_qe")}
        | {"translation_paths": inputs["translations"]},
        tables,
        n_resamples=50,
        seed=0,
        training_languages={"m1": None, "m2": None},
        table_formats=["csv"],
        qe_threshold=0.55,
        translators={path: "tiny-nllb" for path in inputs["translation_qe"] + inputs["translations"]},
    )
    inputs["results"] = [str(tables / "results.parquet")]
    inputs["item_scores"] = [str(tables / "item_scores.parquet")]
    return inputs
