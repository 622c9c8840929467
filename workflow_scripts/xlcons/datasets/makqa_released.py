"""Released MAKQA model outputs (Xing et al. 2024's ``result_<domain>.json``) as recorded responses.

One of the release formats of :mod:`xlcons.datasets.releases`.

A release folder holds one ``result_<domain>.json`` per domain: a list of
``{head_entity_id, rel_id, <lang>: {groundTruth, question, answer, ...}}``. Each
(question, language) becomes one record ``{item_id, language, response}`` with the item
ids of :func:`xlcons.datasets.makqa.load`'s default variant (``"<domain>/<QID>-<PID>"``),
so the ``file`` backend (:mod:`xlcons.generation.backends.recorded`) serves the release as a
model and every later stage treats it like a generated one.

- An empty answer stays an empty ``response``: the generation stage records it as
  ``finish_reason = empty`` and the knowledge metrics score it as a wrong answer (chrF 0),
  which is what reproduces the published numbers (GPT-3.5 has one, in history).
- A language that a record lacks, or an answer that is not a string, becomes a record with
  an empty response, ``finish_reason = error`` and an ``error`` saying so: the stage keeps
  the error and the metrics leave that (question, language) out, instead of the whole run
  failing on a gap.

Both are counted in the :class:`ReleasedReport`. ``python -m xlcons.datasets.makqa_released FOLDER OUT.jsonl``
writes the JSONL file and prints the counts.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from xlcons.atomic import atomic_path
from xlcons.datasets.makqa import DOMAINS, LANGUAGES, MAKQAError, item_id, read_json_file

if TYPE_CHECKING:
    import pyarrow as pa

RESULT_FILE = "result_{domain}.json"


@dataclass
class ReleasedReport:
    records: int = 0
    questions: Counter = field(default_factory=Counter)  # per domain
    empty: Counter = field(default_factory=Counter)  # (domain, language) -> empty answers
    missing: Counter = field(default_factory=Counter)  # (domain, language) -> absent answers

    def summary(self) -> str:
        lines = [f"{self.records} records, {sum(self.questions.values())} questions ({dict(self.questions)})"]
        lines.append(f"empty answers: {sum(self.empty.values())}" + (f" {dict(self.empty)}" if self.empty else ""))
        lines.append(
            f"missing answers: {sum(self.missing.values())}" + (f" {dict(self.missing)}" if self.missing else "")
        )
        return "\n".join(lines)


def read_released(
    folder: Path | str, domains: Sequence[str] | None = None, languages: Sequence[str] = LANGUAGES
) -> tuple[list[dict], ReleasedReport]:
    """Records for every (question, language) of the release, and what was empty or missing."""
    folder = Path(folder)
    report = ReleasedReport()
    records: list[dict] = []
    for domain in DOMAINS if domains is None else domains:
        if domain not in DOMAINS:
            raise MAKQAError(f"released outputs: unknown MAKQA domain {domain!r}; MAKQA has {', '.join(DOMAINS)}")
        path = folder / RESULT_FILE.format(domain=domain)
        if not path.is_file():
            raise MAKQAError(f"released outputs for {domain}: {path} not found")
        entries = read_json_file(path, MAKQAError)
        if not isinstance(entries, list):
            raise MAKQAError(
                f"{path}: expected a list of {{head_entity_id, rel_id, <lang>: ...}}, found a {type(entries).__name__}"
            )
        seen: set[str] = set()
        for number, entry in enumerate(entries):
            try:
                key = f"{entry['head_entity_id']}-{entry['rel_id']}"
            except (KeyError, TypeError):
                raise MAKQAError(f"{path}: entry {number} has no head_entity_id / rel_id") from None
            if key in seen:
                raise MAKQAError(f"{path}: question {key} appears twice")
            seen.add(key)
            report.questions[domain] += 1
            for lang in languages:
                answer = (entry.get(lang) or {}).get("answer") if isinstance(entry.get(lang), dict) else None
                record = {"item_id": item_id(domain, key), "language": lang}
                if not isinstance(answer, str):
                    report.missing[(domain, lang)] += 1
                    record.update(response="", finish_reason="error", error=f"no answer in the release ({path.name})")
                else:
                    if not answer.strip():
                        report.empty[(domain, lang)] += 1
                    record.update(response=answer, finish_reason=None, error=None)
                records.append(record)
    report.records = len(records)
    return records, report


def released_records(folder: Path | str, domains: Sequence[str] | None = None) -> list[dict]:
    """The release as recorded-response records (item_id, language, response, finish_reason, error)."""
    return read_released(folder, domains)[0]


def recorded_folder(folder: Path) -> pa.Table | None:
    """A folder holding ``result_<domain>.json`` files as a table of recorded responses (None for
    any other folder): the release format entry of :data:`xlcons.datasets.releases.RELEASE_FORMATS`."""
    if not list(folder.glob(RESULT_FILE.format(domain="*"))):
        return None
    import pyarrow as pa

    return pa.Table.from_pylist(released_records(folder))


def write_jsonl(records: Iterable[dict], path: Path | str) -> Path:
    """Write records as JSON lines, atomically (a temporary file, then a rename)."""
    path = Path(path)
    with atomic_path(path) as temporary, open(temporary, "w", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description="Released MAKQA outputs -> recorded responses (JSONL) for the file backend"
    )
    parser.add_argument("folder", type=Path, help="folder with result_<domain>.json")
    parser.add_argument("out", type=Path, help="JSONL file to write")
    parser.add_argument("--domains", nargs="+", default=None, choices=DOMAINS)
    args = parser.parse_args(argv)
    records, report = read_released(args.folder, args.domains)
    write_jsonl(records, args.out)
    print(f"{args.out}: {report.summary()}")


if __name__ == "__main__":
    main()
