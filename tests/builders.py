"""Small tables for tests, built the way the stages would write them."""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa

from xlcons.schemas import NO_ANSWER, RESPONSES, TRANSLATED_SENTENCES


def offline_language_confusion(offline_models: dict) -> dict:
    """The `evaluators.language_confusion` files of an offline run: lid.176.ftz and our short word list."""
    return {"model": {"path": str(offline_models["lid176"])}, "words": {"path": str(offline_models["english-words"])}}


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
