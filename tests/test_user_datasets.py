"""User prompt sets declared in the config: any table (or a .txt of English prompts) becomes
PROMPTS rows, and a bad file is reported with config key, file, line and column."""

from __future__ import annotations

import json
import sys
import types

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from xlcons.datasets.user import check_user_dataset, load, read_user_rows
from xlcons.datasets.user.problems import UserDatasetError
from xlcons.datasets.user.source import FILE_SUFFIXES
from xlcons.datasets.user.validation import UserRows
from xlcons.languages import LanguageRegistry
from xlcons.schemas import PROMPTS

ALL = {"ids": None, "limit": None, "domains": None}

# Six items in three languages, grouped by language. q2's answers are a JSON array, q1 has
# one answer, the rest none; q3's prompt spans two lines (lines 4-5, 11-12, 18-19).
CLINIC_CSV = """\
id,lang,prompt,category,answer
q1,en,What is the capital of France?,geography,Paris
q2,en,How many legs does a spider have?,biology,"[""8"", ""eight""]"
q3,en,"Write a haiku
about rain.",poetry,
q4,en,Name a prime number.,math,
q5,en,What is photosynthesis?,biology,
q6,en,Who wrote Hamlet?,literature,
q1,de,Was ist die Hauptstadt von Frankreich?,geography,Paris
q2,de,Wie viele Beine hat eine Spinne?,biology,"[""8"", ""acht""]"
q3,de,"Schreibe ein Haiku
über Regen.",poetry,
q4,de,Nenne eine Primzahl.,math,
q5,de,Was ist Photosynthese?,biology,
q6,de,Wer schrieb Hamlet?,literature,
q1,hi,फ्रांस की राजधानी क्या है?,geography,पेरिस
q2,hi,मकड़ी के कितने पैर होते हैं?,biology,"[""8"", ""आठ""]"
q3,hi,"बारिश पर
एक हाइकु लिखो।",poetry,
q4,hi,एक अभाज्य संख्या बताओ।,math,
q5,hi,प्रकाश संश्लेषण क्या है?,biology,
q6,hi,हैमलेट किसने लिखा?,literature,
"""


def clinic_records() -> list[dict]:
    """CLINIC_CSV as records with typed references, to write the other formats from."""
    import csv
    import io

    records = list(csv.DictReader(io.StringIO(CLINIC_CSV, newline="")))
    for record in records:
        answer = record["answer"]
        record["answer"] = json.loads(answer) if answer.startswith("[") else ([answer] if answer else None)
    return records


def user_set(path, **overrides) -> dict:
    """A datasets.<name> section as the config schema fills it."""
    spec = {
        "type": "parallel",
        "path": None if path is None else str(path),
        "hf_dataset": None,
        "split": "test",
        "languages": "all",
        "columns": {
            "id": "id",
            "lang": "lang",
            "prompt": "prompt",
            "reference": None,
            "category": None,
            "question_en": None,
        },
        "items": dict(ALL),
        "max_new_tokens": None,
        "system_prompt": None,
    }
    for key, value in overrides.items():
        spec[key] = {**spec[key], **value} if isinstance(spec.get(key), dict) else value
    return spec


CLINIC = {"columns": {"reference": "answer", "category": "category"}}


@pytest.fixture(scope="module")
def registry():
    return LanguageRegistry.load()


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """Files are written here and named relative to it, as config paths are to the repo root."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(folder, name: str, content: str | bytes) -> str:
    target = folder / name
    if isinstance(content, bytes):
        target.write_bytes(content)
    else:
        target.write_text(content, encoding="utf-8")
    return name


def load_set(spec: dict, languages, name: str = "clinic_qa", items=None) -> pa.Table:
    return load(
        spec["path"],
        languages,
        spec["items"] if items is None else items,
        name=name,
        type=spec["type"],
        columns=spec["columns"],
        hf_dataset=spec["hf_dataset"],
        split=spec["split"],
    )


def problems_of(spec: dict, registry, name: str = "clinic_qa") -> str:
    with pytest.raises(UserDatasetError) as raised:
        read_user_rows(name, spec, registry)
    return str(raised.value)


def pairs(table: pa.Table) -> list[tuple[str, str]]:
    return list(zip(table["lang"].to_pylist(), table["item_id"].to_pylist()))


# -- good files


def test_a_parallel_csv_gives_prompts_rows_in_language_order_then_file_order(folder):
    spec = user_set(write(folder, "clinic_qa.csv", CLINIC_CSV), **CLINIC)
    table = load_set(spec, ["hi", "en"])
    assert table.schema == PROMPTS
    assert pairs(table) == [("hi", f"q{n}") for n in range(1, 7)] + [("en", f"q{n}") for n in range(1, 7)]
    assert set(table["dataset"].to_pylist()) == {"clinic_qa"}
    assert table["source_lang"].to_pylist() == table["lang"].to_pylist()
    english = table.filter(pa.compute.equal(table["lang"], "en")).to_pylist()
    assert english[0] == {
        "dataset": "clinic_qa",
        "item_id": "q1",
        "lang": "en",
        "prompt": "What is the capital of France?",
        "category": "geography",
        "references": ["Paris"],
        "source_lang": "en",
        "question_en": None,
    }


def test_a_reference_cell_holding_a_json_array_is_a_list_of_answers_and_an_empty_cell_none(folder):
    table = load_set(user_set(write(folder, "clinic_qa.csv", CLINIC_CSV), **CLINIC), ["hi"])
    assert table["references"].to_pylist()[:3] == [["पेरिस"], ["8", "आठ"], None]


def test_a_quoted_prompt_may_span_lines(folder):
    table = load_set(
        user_set(write(folder, "clinic_qa.csv", CLINIC_CSV), **CLINIC), ["en"], items={**ALL, "ids": ["q3"]}
    )
    assert table["prompt"].to_pylist() == ["Write a haiku\nabout rain."]


def test_a_byte_order_mark_is_ignored(folder):
    spec = user_set(write(folder, "clinic_qa.csv", "\ufeff" + CLINIC_CSV), **CLINIC)
    assert load_set(spec, ["en"]).num_rows == 6


@pytest.mark.parametrize("file_name", ["long.csv", "long.tsv"])
def test_a_prompt_larger_than_the_csv_modules_field_limit_is_read_whole(folder, file_name):
    """Python's csv refuses a field over 131072 characters by default; a document-sized prompt
    (here 300,000 characters, quoted, over two lines) is read whole."""
    prompt = "Summarise this report, please.\n" + "word " * 60_000
    delimiter = "\t" if file_name.endswith(".tsv") else ","
    rows = [("id", "lang", "prompt"), ("doc1", "en", f'"{prompt}"'), ("doc2", "en", "Short.")]
    content = "".join(delimiter.join(row) + "\n" for row in rows)
    table = load_set(user_set(write(folder, file_name, content)), ["en"])
    assert table["prompt"].to_pylist() == [prompt, "Short."]


CROSS_CSV = """id,lang,prompt,answer_in
q1,en,What is the capital of France?,
q1,en,Reply in German: what is the capital of France?,de
q2,en,Reply in Hindi: name a colour.,hi
q3,hi,एक रंग का नाम बताइए।,
"""


def test_a_target_lang_column_scores_a_row_in_the_language_its_answer_must_be_in(folder):
    """An English prompt asking for German is a German row (fidelity and language confusion
    check German); the prompt's own language stays its source_lang."""
    spec = user_set(write(folder, "cross.csv", CROSS_CSV), columns={"target_lang": "answer_in"})
    table = load_set(spec, "all", name="cross")
    rows = {(row["lang"], row["item_id"]): row for row in table.to_pylist()}
    assert set(rows) == {("en", "q1"), ("de", "q1"), ("hi", "q2"), ("hi", "q3")}
    assert (rows[("de", "q1")]["source_lang"], rows[("de", "q1")]["prompt"]) == (
        "en",
        "Reply in German: what is the capital of France?",
    )
    assert rows[("en", "q1")]["source_lang"] == "en"


def test_two_rows_answered_in_the_same_language_are_a_duplicate_named_by_line(folder, registry):
    spec = user_set(
        write(folder, "cross.csv", CROSS_CSV + "q2,en,Name a colour in Hindi.,hi\n"),
        columns={"target_lang": "answer_in"},
    )
    message = problems_of(spec, registry, name="cross")
    assert "line 6" in message and "duplicate id 'q2' answered in 'hi' (first at line 4)" in message


def test_a_target_lang_must_be_a_known_language_and_is_for_parallel_sets(folder, registry):
    spec = user_set(
        write(folder, "cross.csv", "id,lang,prompt,answer_in\nq1,en,Hi,xx\n"), columns={"target_lang": "answer_in"}
    )
    assert "unknown language code 'xx'" in problems_of(spec, registry, name="cross")
    spec = user_set(
        write(folder, "t.csv", "id,prompt,answer_in\nq1,Hi,de\n"),
        type="translated",
        columns={"target_lang": "answer_in"},
    )
    assert "target_lang is for parallel sets" in problems_of(spec, registry, name="t")


def write_tsv(folder) -> str:
    lines = ["id\tlang\tprompt\tcategory\tanswer"]
    for record in clinic_records():
        answer = (
            json.dumps(record["answer"], ensure_ascii=False)
            if record["answer"] and len(record["answer"]) > 1
            else (record["answer"] or [""])[0]
        )
        prompt = '"' + record["prompt"] + '"' if "\n" in record["prompt"] else record["prompt"]
        lines.append("\t".join([record["id"], record["lang"], prompt, record["category"], answer]))
    return write(folder, "clinic_qa.tsv", "\n".join(lines) + "\n")


def write_jsonl(folder) -> str:
    lines = [json.dumps(record, ensure_ascii=False) for record in clinic_records()]
    return write(folder, "clinic_qa.jsonl", "\n".join(lines) + "\n")


def write_parquet(folder) -> str:
    pq.write_table(pa.Table.from_pylist(clinic_records()), folder / "clinic_qa.parquet")
    return "clinic_qa.parquet"


@pytest.mark.parametrize("writer", [write_tsv, write_jsonl, write_parquet], ids=["tsv", "jsonl", "parquet"])
def test_tsv_jsonl_and_parquet_give_the_same_rows_as_csv(folder, writer):
    expected = load_set(user_set(write(folder, "clinic_qa.csv", CLINIC_CSV), **CLINIC), ["en", "de", "hi"])
    assert load_set(user_set(writer(folder), **CLINIC), ["en", "de", "hi"]).equals(expected)


def test_a_txt_file_is_a_translated_set_of_one_english_prompt_per_non_blank_line(folder):
    path = write(folder, "prompts_en.txt", "Explain gravity.\n\n  Describe a cat.  \r\nWhy is the sky blue?")
    table = load_set(user_set(path, type="translated"), ["en"], name="my_english_prompts")
    assert table.schema == PROMPTS
    assert table.to_pydict() == {
        "dataset": ["my_english_prompts"] * 3,
        "item_id": ["1", "2", "3"],
        "lang": ["en"] * 3,
        "prompt": ["Explain gravity.", "Describe a cat.", "Why is the sky blue?"],
        "category": [None] * 3,
        "references": [None] * 3,
        "source_lang": ["en"] * 3,
        "question_en": [None] * 3,
    }


def test_a_translated_table_needs_no_lang_column_and_an_integer_id_becomes_text(folder):
    path = write(
        folder, "prompts_en.jsonl", '{"id": 7, "prompt": "Explain gravity."}\n{"id": 8, "prompt": "Describe a cat."}\n'
    )
    table = load_set(user_set(path, type="translated"), ["en"])
    assert pairs(table) == [("en", "7"), ("en", "8")]
    assert table["source_lang"].to_pylist() == ["en", "en"]


def test_a_translated_set_is_loaded_in_english_only(folder):
    spec = user_set(write(folder, "prompts_en.txt", "Explain gravity.\n"), type="translated")
    with pytest.raises(UserDatasetError, match="English prompts only"):
        load_set(spec, ["de"])


def test_the_lang_column_of_a_translated_table_must_say_en(folder, registry):
    path = write(folder, "prompts_en.csv", "id,lang,prompt\n1,en,Explain gravity.\n2,de,Beschreibe eine Katze.\n")
    message = problems_of(user_set(path, type="translated"), registry)
    assert "datasets.clinic_qa: prompts_en.csv, line 3, column 'lang': language 'de'" in message


def test_columns_map_config_keys_to_the_files_own_names(folder):
    path = write(
        folder,
        "survey.csv",
        "qid,language,text,subject,gold,english\n"
        "a,de,Wie alt ist die Erde?,science,4.5 Mrd. Jahre,How old is the Earth?\n"
        "a,sw,Dunia ina umri gani?,science,,How old is the Earth?\n",
    )
    columns = {
        "id": "qid",
        "lang": "language",
        "prompt": "text",
        "category": "subject",
        "reference": "gold",
        "question_en": "english",
    }
    table = load_set(user_set(path, columns=columns), ["sw", "de"])
    assert pairs(table) == [("sw", "a"), ("de", "a")]
    assert table["references"].to_pylist() == [None, ["4.5 Mrd. Jahre"]]
    assert table["category"].to_pylist() == ["science", "science"]
    assert table["question_en"].to_pylist() == ["How old is the Earth?"] * 2


def test_languages_all_means_the_languages_of_the_file_in_first_appearance_order(folder, registry):
    spec = user_set(write(folder, "clinic_qa.csv", CLINIC_CSV), **CLINIC)
    assert read_user_rows("clinic_qa", spec, registry).languages == ["en", "de", "hi"]
    assert [lang for lang, _ in pairs(load_set(spec, "all"))] == ["en"] * 6 + ["de"] * 6 + ["hi"] * 6


# -- selecting items


@pytest.mark.parametrize(
    ("items", "expected"),
    [
        ({"ids": ["q4", "q1"]}, ["q4", "q1"]),  # exactly these, in this order
        ({"limit": 2}, ["q1", "q2"]),  # the first ids in file order
        ({"domains": ["biology"]}, ["q2", "q5"]),
        ({"domains": ["biology", "math"], "limit": 2}, ["q2", "q4"]),  # domains filter before the limit
    ],
)
def test_items_select_ids_limit_and_domains(folder, items, expected):
    spec = user_set(write(folder, "clinic_qa.csv", CLINIC_CSV), **CLINIC)
    assert load_set(spec, ["de"], items={**ALL, **items})["item_id"].to_pylist() == expected


PARTIAL_CSV = """\
id,lang,prompt
q1,en,One?
q2,en,Two?
q3,en,Three?
q1,sw,Moja?
q3,sw,Tatu?
q1,hi,एक?
"""


def test_per_language_calls_select_the_same_items_as_one_call(folder):
    spec = user_set(write(folder, "partial.csv", PARTIAL_CSV))
    items = {**ALL, "limit": 2}
    together = load_set(spec, ["en", "sw"], items=items)
    apart = pa.concat_tables([load_set(spec, ["en"], items=items), load_set(spec, ["sw"], items=items)])
    assert apart.equals(together)
    # The limit counts ids of the whole file: sw lacks q2, so it gets q1 only, not q1 and q3.
    assert pairs(together) == [("en", "q1"), ("en", "q2"), ("sw", "q1")]


def test_ids_missing_in_some_languages_are_allowed_and_noted(folder, registry):
    spec = user_set(write(folder, "partial.csv", PARTIAL_CSV))
    rows = read_user_rows("clinic_qa", spec, registry)
    assert isinstance(rows, UserRows)
    assert rows.partial_ids == {"q2": ["sw", "hi"], "q3": ["hi"]}
    assert check_user_dataset("clinic_qa", spec, registry) == (
        [],
        ["datasets.clinic_qa: 2 ids are missing in some languages (q2: sw, hi; q3: hi)"],
    )


def test_a_good_set_has_no_problems_and_no_notes(folder, registry):
    spec = user_set(
        write(folder, "clinic_qa.csv", CLINIC_CSV),
        **CLINIC,
        languages=["en", "hi"],
        items={"ids": ["q1"], "domains": ["geography"]},
    )
    assert check_user_dataset("clinic_qa", spec, registry) == ([], [])


# -- malformed files: every problem names config key, file, line and column


@pytest.mark.parametrize(
    ("file_name", "content", "expected"),
    [
        pytest.param(
            "clinic_qa.csv",
            "id,lang,prompt\nq1,en,One?\nq2,en,   \n",
            "datasets.clinic_qa: clinic_qa.csv, line 3, column 'prompt': the prompt is blank",
            id="blank-prompt",
        ),
        pytest.param(
            "clinic_qa.csv",
            'id,lang,prompt\nq1,en,"One\nand more"\nq1,en,Again?\n',
            "datasets.clinic_qa: clinic_qa.csv, line 4, column 'id': "
            "duplicate id 'q1' in language 'en' (first at line 2)",
            id="duplicate-after-a-multi-line-record",
        ),
        pytest.param(
            "clinic_qa.csv",
            "id,lang,prompt\nq1,en,One?\nq1,de-DE,Eins?\n",
            "datasets.clinic_qa: clinic_qa.csv, line 3, column 'lang': unknown language code 'de-DE'",
            id="unknown-language",
        ),
        pytest.param(
            "clinic_qa.csv",
            "id,lang,prompt\nq1,en,One?\nq2,en,Two?,extra\n",
            "datasets.clinic_qa: clinic_qa.csv, line 3: expected 3 CSV fields (id, lang, prompt), found 4",
            id="csv-field-count",
        ),
        pytest.param(
            "clinic_qa.tsv",
            "id\tlang\tprompt\nq1\ten\n",
            "datasets.clinic_qa: clinic_qa.tsv, line 2: expected 3 TSV fields (id, lang, prompt), found 2",
            id="tsv-field-count",
        ),
        pytest.param(
            "clinic_qa.csv",
            "id,lang,prompt\nq1,en,One?\nq2,en,Caf\xe9?\n".encode("latin-1"),
            "datasets.clinic_qa: clinic_qa.csv, line 3: not UTF-8: byte "
            "0xe9 at byte 10 of the line (byte offset 35 in the file; 'é' in Windows-1252, the encoding of "
            "a spreadsheet's plain CSV on Windows: choose CSV UTF-8); save the file as UTF-8",
            id="not-utf8",
        ),
        pytest.param(
            "clinic_qa.jsonl",
            '{"id": "q1", "lang": "en", "prompt": "One?"}\n\n["q2", "en", "Two?"]\n',
            "datasets.clinic_qa: clinic_qa.jsonl, line 3: is a list, not a JSON object",
            id="jsonl-not-an-object",
        ),
        pytest.param(
            "clinic_qa.jsonl",
            '{"id": "q1", "lang": "en", "prompt": "One?"}\n{"id": "q2", "lang": "en", "prompt": "Two?"\n',
            "datasets.clinic_qa: clinic_qa.jsonl, line 2: not valid JSON",
            id="jsonl-not-json",
        ),
        pytest.param(
            "clinic_qa.jsonl",
            '{"id": "q1", "lang": "en", "prompt": "One?"}\n{"id": "q2", "lang": "en", "prompt": 42}\n',
            "datasets.clinic_qa: clinic_qa.jsonl, line 2, column 'prompt': the prompt is a number (42), not text",
            id="jsonl-number-prompt",
        ),
        pytest.param(
            "clinic_qa.jsonl",
            '{"id": "q1", "lang": "en", "prompt": "One?"}\n{"id": "q2", "lang": "en"}\n',
            "datasets.clinic_qa: clinic_qa.jsonl, line 2, column 'prompt': no prompt",
            id="jsonl-record-without-prompt",
        ),
    ],
)
def test_a_malformed_file_is_reported_with_file_line_and_column(folder, registry, file_name, content, expected):
    spec = user_set(write(folder, file_name, content))
    assert expected in problems_of(spec, registry)
    with pytest.raises(UserDatasetError, match="datasets.clinic_qa"):
        load_set(spec, ["en"])


def test_an_unknown_language_comes_with_the_registrys_suggestion(folder, registry):
    spec = user_set(write(folder, "clinic_qa.csv", "id,lang,prompt\nq1,DE,Eins?\n"))
    assert "line 2, column 'lang': unknown language code 'DE'" in problems_of(spec, registry)
    assert "did you mean 'de'?" in problems_of(spec, registry)


def test_a_missing_column_names_the_config_key_and_the_files_header(folder, registry):
    spec = user_set(write(folder, "clinic_qa.csv", "id,lang,question\nq1,en,One?\n"), columns={"category": "domain"})
    message = problems_of(spec, registry)
    assert message.splitlines() == [
        "datasets.clinic_qa.columns.prompt: clinic_qa.csv has no column 'prompt'; its header: id, lang, question",
        "datasets.clinic_qa.columns.category: clinic_qa.csv has no column 'domain'; its header: id, lang, question",
    ]


def test_parquet_problems_name_the_row(folder, registry):
    table = pa.table({"id": ["q1", "q2", "q3"], "lang": ["en", "en", "en"], "prompt": [1.5, 2.5, 3.5]})
    pq.write_table(table.set_column(2, "prompt", pa.array(["One?", "", "Three?"])), folder / "clinic_qa.parquet")
    assert "clinic_qa.parquet, row 2, column 'prompt': the prompt is blank" in problems_of(
        user_set("clinic_qa.parquet"), registry
    )
    pq.write_table(table, folder / "numbers.parquet")
    assert "numbers.parquet, row 3, column 'prompt': the prompt is a number (3.5), not text" in problems_of(
        user_set("numbers.parquet"), registry
    )


def test_every_problem_is_reported_one_per_line(folder, registry):
    content = "id,lang,prompt\nq1,en,\nq2,xx,Two?\nq3,en,Three?,extra\n"
    lines = problems_of(user_set(write(folder, "clinic_qa.csv", content)), registry).splitlines()
    assert [line.split(": ", 2)[1] for line in lines] == [
        "clinic_qa.csv, line 2, column 'prompt'",
        "clinic_qa.csv, line 3, column 'lang'",
        "clinic_qa.csv, line 4",
    ]


def test_many_problems_are_capped_with_a_count_of_the_rest(folder, registry):
    content = "id,lang,prompt\n" + "".join(f"q{n},en, \n" for n in range(30))
    lines = problems_of(user_set(write(folder, "clinic_qa.csv", content)), registry).splitlines()
    assert len(lines) == 21
    assert lines[0].endswith("line 2, column 'prompt': the prompt is blank")
    assert lines[-1] == "… and 10 more problems"


# -- quotes in CSV and TSV: a field is quoted only as a whole, and no row is lost to a stray quote

# The issue's file: q3's English prompt opens a quote it never closes. A lenient reader folds
# every later line into that prompt, and q3/de, q4 and q5 vanish without a word.
STRAY_QUOTE_ROWS = [
    ("q1", "en", "What is the capital of France?"),
    ("q1", "de", "Was ist die Hauptstadt von Frankreich?"),
    ("q3", "en", '"How much water should I drink a day?'),
    ("q3", "de", "Wie viel Wasser sollte ich am Tag trinken?"),
    ("q4", "en", "Name a prime number."),
    ("q4", "de", "Nenne eine Primzahl."),
    ("q5", "en", "Who wrote Hamlet?"),
    ("q5", "de", "Wer schrieb Hamlet?"),
]


def delimited(rows, delimiter: str) -> str:
    return "\n".join(delimiter.join(row) for row in [("id", "lang", "prompt"), *rows]) + "\n"


@pytest.mark.parametrize(
    ("file_name", "delimiter"), [("clinic_qa.tsv", "\t"), ("clinic_qa.csv", ",")], ids=["tsv", "csv"]
)
def test_a_quote_that_is_never_closed_is_an_error_naming_the_line_it_opens_on(folder, registry, file_name, delimiter):
    """An unterminated quote is refused at the line where its field opens (line 4: q3 in
    English), with the way to write a quote that is text; the lines after it are still read
    as rows, so it is the only problem and nothing else is reported missing."""
    spec = user_set(write(folder, file_name, delimited(STRAY_QUOTE_ROWS, delimiter)))
    problems, notes = check_user_dataset("clinic_qa", spec, registry)
    assert problems == [
        f"datasets.clinic_qa: {file_name}, line 4, column 'prompt': the quote that opens this field is never closed, "
        "so every line after it would be read into it; if the quote "
        "is text, quote the whole field and double the quote: "
        '"""How much water should I drink a day?"'
    ]
    assert notes == []


@pytest.mark.parametrize(
    ("file_name", "delimiter"), [("clinic_qa.tsv", "\t"), ("clinic_qa.csv", ",")], ids=["tsv", "csv"]
)
def test_a_field_that_starts_with_a_quote_but_goes_on_after_the_closing_quote_is_refused(
    folder, registry, file_name, delimiter
):
    """`"Quoted" word` is not read as `Quoted word` (the quotes silently lost): a field that
    starts with a quote must be quoted as a whole, and the message shows how."""
    content = delimited([("q1", "en", '"Hamlet" is a play by whom?'), ("q2", "en", "Two?")], delimiter)
    spec = user_set(write(folder, file_name, content))
    problems, _ = check_user_dataset("clinic_qa", spec, registry)
    assert problems == [
        f"datasets.clinic_qa: {file_name}, line 2, column 'prompt': the field starts with a quote, so it must end with "
        "its closing quote, but text follows it: '\"Hamlet\" is a play by whom?'; to keep the quotes as text, "
        'quote the whole field and double the quotes inside: """Hamlet"" is a play by whom?"'
    ]


@pytest.mark.parametrize(
    ("file_name", "delimiter"), [("clinic_qa.tsv", "\t"), ("clinic_qa.csv", ",")], ids=["tsv", "csv"]
)
def test_quotes_inside_a_field_are_text_and_a_whole_quoted_field_may_hold_doubled_quotes(folder, file_name, delimiter):
    """The rules a spreadsheet export follows: quotes that do not start a field are kept as
    they are; a field in quotes may hold the delimiter, line breaks and "" for a quote."""
    content = delimited(
        [
            ("q1", "en", 'He said "hi" and left.'),
            ("q2", "en", "A man of 5'10\" is tall."),
            ("q3", "en", '"""Hamlet"" is a play by whom?"'),
            ("q4", "en", f'"Two parts{delimiter} and\na second line."'),
        ],
        delimiter,
    )
    table = load_set(user_set(write(folder, file_name, content)), ["en"])
    assert table["prompt"].to_pylist() == [
        'He said "hi" and left.',
        "A man of 5'10\" is tall.",
        '"Hamlet" is a play by whom?',
        f"Two parts{delimiter} and\na second line.",
    ]


def test_a_quoted_multi_line_csv_field_with_commas_on_every_line_is_read_as_one_prompt(folder, registry):
    """Prose in a multi-line CSV cell often has as many commas as the file has fields; as
    long as no line inside the quotes reads as a row (a language code in the lang column),
    it is one prompt."""
    content = (
        'id,lang,prompt\nq1,en,"Write a poem, in three lines,\nabout '
        'rain, wind, and sun,\nfor children, aged six."\nq2,en,Two?\n'
    )
    spec = user_set(write(folder, "clinic_qa.csv", content))
    assert check_user_dataset("clinic_qa", spec, registry) == ([], [])
    assert load_set(spec, ["en"])["prompt"].to_pylist() == [
        "Write a poem, in three lines,\nabout rain, wind, and sun,\nfor children, aged six.",
        "Two?",
    ]


@pytest.mark.parametrize(
    ("file_name", "delimiter"), [("clinic_qa.tsv", "\t"), ("clinic_qa.csv", ",")], ids=["tsv", "csv"]
)
def test_rows_read_match_the_rows_of_the_file_even_when_a_stray_quote_closes_further_down(
    folder, registry, file_name, delimiter
):
    """A stray quote that meets a later quote at the end of a field makes a well-formed record
    that holds the lines between: lines inside a quoted field that read as rows of their own
    (the file's number of fields, a language code in the lang column) are an error, so the
    rows read always equal the rows the file shows."""
    rows = [
        ("q1", "en", "One?"),
        ("q3", "en", '"How much water'),
        ("q3", "de", "Wie viel Wasser?"),
        ("q4", "en", "Convert to cm: 5'10\""),
        ("q5", "en", "Five?"),
    ]
    spec = user_set(write(folder, file_name, delimited(rows, delimiter)))
    problems, notes = check_user_dataset("clinic_qa", spec, registry)
    assert problems == [
        f"datasets.clinic_qa: {file_name}, line 3, column 'prompt': the quoted field that opens "
        "here runs to line 5 and holds lines that read as rows of their own (line 4: q3 de; line "
        "5: q4 en); if the quote on line 3 is text, quote the whole field and double the quote; "
        "if the field really holds these lines, save the set as JSONL, which needs no quoting"
    ]
    assert notes == []


# -- config checks before scheduling


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        (
            {"languages": ["en", "sw", "ta"]},
            "datasets.clinic_qa.languages: the file has no prompts in sw, ta; it has en, de, hi",
        ),
        ({"items": {"ids": ["q1", "q9", "q10"]}}, "datasets.clinic_qa.items.ids: not ids of the file: q9, q10"),
        (
            {"items": {"domains": ["biology", "chemistry"]}},
            "datasets.clinic_qa.items.domains: no items in chemistry; the "
            "file's categories are biology, geography, literature, math, poetry",
        ),
        ({"hf_dataset": "org/clinic"}, "datasets.clinic_qa: give path or hf_dataset, not both"),
        ({"path": None}, "datasets.clinic_qa: give path (a .csv, .tsv, .jsonl, .parquet or .txt file) or hf_dataset"),
        ({"path": "clinic_qa.xlsx"}, "datasets.clinic_qa.path: clinic_qa.xlsx: unsupported file type '.xlsx'"),
        ({"path": "nowhere.csv"}, "datasets.clinic_qa.path: file nowhere.csv does not exist"),
        (
            {"path": "prompts.txt"},
            "datasets.clinic_qa.path: prompts.txt: a .txt file holds English prompts only, so it needs type translated",
        ),
    ],
)
def test_check_user_dataset_returns_problems_of_the_config_against_the_file(folder, registry, overrides, expected):
    write(folder, "clinic_qa.csv", CLINIC_CSV)
    write(folder, "prompts.txt", "Explain gravity.\n")
    overrides = dict(overrides)
    path = overrides.pop("path", "clinic_qa.csv")
    problems, notes = check_user_dataset("clinic_qa", user_set(path, **{**CLINIC, **overrides}), registry)
    assert any(problem.startswith(expected) for problem in problems), problems
    assert notes == []


def test_check_user_dataset_returns_the_files_problems_instead_of_raising(folder, registry):
    spec = user_set(write(folder, "clinic_qa.jsonl", '{"id": "q1", "lang": "en", "prompt": 7}\n'))
    problems, _ = check_user_dataset("clinic_qa", spec, registry)
    assert problems == [
        "datasets.clinic_qa: clinic_qa.jsonl, line 1, column 'prompt': the prompt is a number (7), not text"
    ]


def test_domains_need_a_category_column(folder, registry):
    spec = user_set(write(folder, "clinic_qa.csv", CLINIC_CSV), items={"domains": ["biology"]})
    assert check_user_dataset("clinic_qa", spec, registry)[0] == [
        "datasets.clinic_qa.items.domains: needs a category column (set datasets.clinic_qa.columns.category)"
    ]


def test_paths_are_relative_to_base_dir(tmp_path, registry):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "clinic_qa.csv").write_text(CLINIC_CSV, encoding="utf-8")
    spec = user_set("data/clinic_qa.csv", **CLINIC)
    assert check_user_dataset("clinic_qa", spec, registry, base_dir=tmp_path) == ([], [])
    table = load(
        "data/clinic_qa.csv", ["de"], ALL, name="clinic_qa", type="parallel", columns=spec["columns"], base_dir=tmp_path
    )
    assert table.num_rows == 6


def test_txt_is_among_the_supported_suffixes():
    assert FILE_SUFFIXES == (".csv", ".tsv", ".jsonl", ".parquet", ".txt")


# -- Hugging Face data sets (a fake loader: nothing is downloaded)


class FakeHubDataset:
    """What `datasets.load_dataset` returns, as far as the loader uses it."""

    def __init__(self, records: list[dict]):
        self.records = records
        self.column_names = list(records[0])

    def __iter__(self):
        return iter(self.records)


@pytest.fixture
def fake_hub(monkeypatch):
    calls = []
    published = {}

    def load_dataset(name, split):
        calls.append((name, split))
        return FakeHubDataset(published[name])

    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=load_dataset))
    return published, calls


def test_a_hub_data_set_is_loaded_with_its_split_and_checked_like_parquet(fake_hub, registry):
    published, calls = fake_hub
    published["org/clinic"] = [
        {"id": 1, "lang": "en", "prompt": "One?", "answers": ["1", "one"]},
        {"id": 1, "lang": "sw", "prompt": "Moja?", "answers": "moja"},
    ]
    spec = user_set(None, hf_dataset="org/clinic", split="validation", columns={"reference": "answers"})
    table = load_set(spec, ["sw", "en"])
    assert calls == [("org/clinic", "validation")]
    assert pairs(table) == [("sw", "1"), ("en", "1")]
    assert table["references"].to_pylist() == [["moja"], ["1", "one"]]

    published["org/broken"] = [{"id": "a", "lang": "en", "prompt": "One?"}, {"id": "b", "lang": "en", "prompt": None}]
    message = problems_of(user_set(None, hf_dataset="org/broken"), registry)
    assert message == "datasets.clinic_qa: hf_dataset 'org/broken' (split 'test'), row 2, column 'prompt': no prompt"


def test_a_hub_data_set_goes_through_the_real_datasets_library(tmp_path, monkeypatch, registry):
    """`datasets.load_dataset` on a local copy laid out like a Hub repository (data/<split>-*.parquet),
    offline: the same call a user's `hf_dataset: org/name` makes against the Hub."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    repo = tmp_path / "clinic-repo"
    (repo / "data").mkdir(parents=True)
    rows = {
        "id": ["a", "a", "b", "b"],
        "lang": ["en", "de", "en", "de"],
        "prompt": ["Hi?", "Hallo?", "Bye?", "Tschüss?"],
    }
    pq.write_table(pa.table(rows), repo / "data" / "test-00000-of-00001.parquet")
    table = load_set(user_set(None, hf_dataset=str(repo), split="test"), ["de", "en"])
    assert pairs(table) == [("de", "a"), ("de", "b"), ("en", "a"), ("en", "b")]
    assert table["prompt"].to_pylist() == ["Hallo?", "Tschüss?", "Hi?", "Bye?"]


def test_a_hub_data_set_without_the_datasets_package_says_what_to_install(monkeypatch, registry):
    monkeypatch.setitem(sys.modules, "datasets", None)
    problems, _ = check_user_dataset("clinic_qa", user_set(None, hf_dataset="org/clinic"), registry)
    assert len(problems) == 1 and "pip install datasets" in problems[0]
