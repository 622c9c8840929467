"""The translation stage: which language a response is translated from, repair, cache, outputs.

Most tests run the stage with a scripted translator (deterministic, counts what it is
asked, can be told to loop or to die) and a scripted language identifier, so each rule of
the stage is tested on its own; the last ones run the whole job on the tiny NLLB (both
backends) and lid.176.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from builders import response_rows
from xlcons.schemas import (
    NO_ANSWER,
    PROMPTS,
    REVIEW_COLUMNS,
    ROUND_TRIPS,
    TRANSLATED_SENTENCES,
    TRANSLATION_PATHS,
    TRANSLATIONS,
)
from xlcons.tables import write_table
from xlcons.translation.cache import TranslationCache
from xlcons.translation.ctranslate2_conversion import convert
from xlcons.translation.prompt_translation import run_prompt_translation_job, translate_prompts
from xlcons.translation.response_translation import run_translation_job, translate_responses, translation_counts
from xlcons.translation.round_trip import round_trip, run_round_trip_job
from xlcons.translation.sentence_translator import DegenerationSpec, SentenceTranslator
from xlcons.translation.spec import TranslatorSpec

SPEC = TranslatorSpec(location="scripted", model_id="scripted", device="cpu")
LOOP = " ".join(["again"] * 12)


class Scripted:
    """A translator that writes `<tgt>(<sentence>)`, records every call, and can loop or die.

    `loops` maps a sentence to the number of sampled attempts that still loop (None: all do);
    greedy decoding always loops for those sentences. `die_after` raises once that many
    sentences were translated, like a job killed mid-run.
    """

    def __init__(self, loops=None, die_after=None):
        self.loops = loops or {}
        self.die_after = die_after
        self.calls: list[tuple[str, str, str, object]] = []  # (sentence, src, tgt, sampling)

    def translate(self, sentences: Sequence[str], src: str, tgt: str, *, sampling=None) -> list[str]:
        if self.die_after is not None and len(self.calls) + len(sentences) > self.die_after:
            raise RuntimeError("killed")
        out = []
        for sentence in sentences:
            self.calls.append((sentence, src, tgt, sampling))
            failing = self.loops.get(sentence, 0) if sentence in self.loops else -1
            looping = failing != -1 and (sampling is None or failing is None or sampling.seed < failing)
            out.append(LOOP if looping else f"{tgt}({sentence})")
        return out

    def close(self) -> None:
        pass

    def sentences(self, sampled: bool | None = None) -> list[str]:
        return [call[0] for call in self.calls if sampled is None or (call[3] is not None) == sampled]


class FakeIdentifier:
    """Language ID by lookup: `labels` maps a response to its lid176-style label (default `de`)."""

    def __init__(self, labels=None, default="de"):
        self.labels, self.default = labels or {}, default

    def predict(self, texts):
        return [(self.labels.get(text, self.default), 0.99) for text in texts]

    def to_registry_code(self, label):
        from xlcons.languages import LanguageRegistry
        from xlcons.lid import registry_code

        return registry_code(label, "lid176", LanguageRegistry.load())

    def is_language(self, label, lang):
        from xlcons.languages import LanguageRegistry
        from xlcons.lid import is_language

        return is_language(label, LanguageRegistry.load()[lang], "lid176")


def engine(translator, cache=None, degeneration=DegenerationSpec(), chunk_size=512):
    return SentenceTranslator(SPEC, cache, degeneration, lambda spec: translator, chunk_size)


def by_item(table: pa.Table) -> dict[str, dict]:
    return {row["item_id"]: row for row in table.to_pylist()}


# --------------------------------------------------------------------------------------
# Which language a response is translated from
# --------------------------------------------------------------------------------------

GERMAN = "Das ist ein Haus. Es ist sehr alt."
ENGLISH = "This is a house. It is very old."
FRENCH = "C'est une maison. Elle est très vieille."
LATIN = "Haec domus est. Vetus est."


def test_each_response_takes_the_path_its_detected_language_calls_for():
    responses = response_rows(
        [
            ("1", "de", GERMAN),
            ("2", "de", ENGLISH),
            ("3", "de", FRENCH),
            ("4", "de", LATIN),
            ("5", "de", NO_ANSWER),
            ("6", "de", "Ein Satz ohne Etikett."),
        ]
    )
    identifier = FakeIdentifier({ENGLISH: "en", FRENCH: "fr", LATIN: "la", "Ein Satz ohne Etikett.": "xyz"})
    scripted = Scripted()
    table, sentences = translate_responses(responses, engine(scripted), identifier=identifier)
    rows = by_item(table)

    assert rows["1"]["translation_path"] == "prompt_language"
    assert rows["1"]["translation"] == "eng_Latn(Das ist ein Haus.) eng_Latn(Es ist sehr alt.)"
    assert rows["1"]["response_lang"] == "de" and rows["1"]["splitter"] == "pysbd:de" and rows["1"]["n_sentences"] == 2

    # English passes through untouched.
    assert (rows["2"]["translation_path"], rows["2"]["translation"], rows["2"]["n_sentences"]) == (
        "passthrough_english",
        ENGLISH,
        0,
    )
    # A third language is translated from what it is, not from the prompt language.
    assert rows["3"]["translation_path"] == "other_language" and rows["3"]["response_lang"] == "fr"
    assert {src for sentence, src, _, _ in scripted.calls if sentence.startswith("C'est")} == {"fra_Latn"}
    assert rows["3"]["splitter"] == "pysbd:fr"
    # No NLLB code (Latin), or a label that is no registry language: kept verbatim, flagged.
    for item, detected, label in (("4", "la", "la"), ("6", None, "xyz")):
        row = rows[item]
        assert row["translation_path"] == "untranslatable" and row["translation"] == row["response"]
        assert (row["source_lang_detected"], row["lid_label"], row["response_lang"], row["n_sentences"]) == (
            detected,
            label,
            None,
            0,
        )
    # "No answer" passes through, without language ID.
    assert (rows["5"]["translation_path"], rows["5"]["translation"], rows["5"]["lid_label"]) == (
        "no_answer",
        NO_ANSWER,
        None,
    )

    assert {src for _, src, _, _ in scripted.calls} == {"deu_Latn", "fra_Latn"}
    assert set(sentences["item_id"].to_pylist()) == {"1", "3"}
    assert table.schema.equals(TRANSLATIONS) and sentences.schema.equals(TRANSLATED_SENTENCES)


def test_a_label_of_the_prompt_language_under_another_code_is_the_prompt_language():
    # Chinese prompted as `zh-CN`: lid.176 says `zh`, the registry counts it as the same language.
    responses = response_rows([("1", "zh-CN", "这是一座房子。它很旧。")])
    table, _ = translate_responses(responses, engine(Scripted()), identifier=FakeIdentifier(default="zh"))
    row = table.to_pylist()[0]
    assert (row["translation_path"], row["response_lang"], row["source_lang_detected"]) == (
        "prompt_language",
        "zh-CN",
        "zh",
    )


def test_without_detection_the_prompt_language_is_assumed():
    responses = response_rows([("1", "de", ENGLISH), ("2", "en", ENGLISH), ("3", "la", LATIN), ("4", "de", NO_ANSWER)])
    scripted = Scripted()
    table, _ = translate_responses(responses, engine(scripted), detect=False)
    rows = by_item(table)
    assert [rows[i]["translation_path"] for i in "1234"] == [
        "prompt_language",
        "passthrough_english",
        "untranslatable",
        "no_answer",
    ]
    assert rows["1"]["source_lang_detected"] is None and {src for _, src, _, _ in scripted.calls} == {"deu_Latn"}


def test_detection_needs_an_identifier():
    with pytest.raises(ValueError, match="language identifier"):
        translate_responses(response_rows([("1", "de", GERMAN)]), engine(Scripted()))


def test_paths_and_degeneration_are_counted_per_model_and_language():
    responses = pa.concat_tables(
        [
            response_rows([("1", "de", GERMAN), ("2", "de", ENGLISH), ("3", "de", NO_ANSWER)], model="a"),
            response_rows([("1", "de", GERMAN)], model="b"),
        ]
    )
    table, _ = translate_responses(
        responses, engine(Scripted({"Es ist sehr alt.": None})), identifier=FakeIdentifier({ENGLISH: "en"})
    )
    counts = {row["model"]: row for row in translation_counts(table).to_pylist()}
    assert {path: counts["a"][path] for path in TRANSLATION_PATHS} == {
        "passthrough_english": 1,
        "prompt_language": 1,
        "other_language": 0,
        "no_answer": 1,
        "untranslatable": 0,
    }
    assert (
        counts["a"]["n_responses"],
        counts["a"]["n_sentences"],
        counts["a"]["n_degenerate"],
        counts["a"]["n_unrepaired"],
    ) == (3, 2, 1, 1)
    assert counts["b"]["prompt_language"] == 1


def test_lid176_sends_each_response_down_the_right_path(offline_models):
    from xlcons.lid import LanguageIdentifier

    identifier = LanguageIdentifier(offline_models["lid176"], "lid176")
    responses = response_rows(
        [
            ("1", "de", "Die Hauptstadt von Deutschland ist Berlin. Sie hat fast vier Millionen Einwohner."),
            ("2", "de", "The capital of Germany is Berlin. It has almost four million inhabitants."),
            ("3", "de", "La capitale de l'Allemagne est Berlin. Elle compte près de quatre millions d'habitants."),
        ]
    )
    scripted = Scripted()
    table, _ = translate_responses(responses, engine(scripted), identifier=identifier)
    assert table["translation_path"].to_pylist() == ["prompt_language", "passthrough_english", "other_language"]
    assert table["source_lang_detected"].to_pylist() == ["de", "en", "fr"]


# --------------------------------------------------------------------------------------
# Sentences: layout, deduplication, repair
# --------------------------------------------------------------------------------------


def test_layout_survives_and_sentences_are_listed_in_order():
    response = "## Antwort\n\n1. **Erster Punkt.** Noch ein Satz.\n2. Zweiter Punkt.\n\nEnde."
    table, sentences = translate_responses(response_rows([("1", "de", response)]), engine(Scripted()), detect=False)
    assert table["translation"][0].as_py() == (
        "## eng_Latn(Antwort)\n\n1. **eng_Latn(Erster Punkt.)** eng_Latn(Noch ein Satz.)\n"
        "2. eng_Latn(Zweiter Punkt.)\n\neng_Latn(Ende.)"
    )
    assert sentences["sentence_index"].to_pylist() == [0, 1, 2, 3, 4]
    assert sentences["source"].to_pylist() == ["Antwort", "Erster Punkt.", "Noch ein Satz.", "Zweiter Punkt.", "Ende."]


def test_identical_sentences_across_responses_are_translated_once():
    responses = response_rows(
        [("1", "de", "Hallo Welt. Wie geht es?"), ("2", "de", "Wie geht es? Hallo Welt."), ("3", "de", "Hallo Welt.")]
    )
    scripted = Scripted()
    table, sentences = translate_responses(responses, engine(scripted), detect=False)
    assert sorted(scripted.sentences()) == ["Hallo Welt.", "Wie geht es?"]
    assert sentences.num_rows == 5 and table["n_sentences"].to_pylist() == [2, 2, 1]


def test_a_degenerate_sentence_is_retranslated_by_sampling_and_flagged():
    looping, hopeless = "Es ist sehr alt.", "Das ist ein Haus."
    # `looping`'s first sampled attempt (seed 0) still loops, the second (seed 1) does not;
    # `hopeless` loops in every attempt.
    scripted = Scripted({looping: 1, hopeless: None})
    degeneration = DegenerationSpec(tries=3, temperature=0.7, top_p=0.95)
    responses = response_rows([("1", "de", GERMAN), ("2", "de", "Guten Tag.")])
    table, sentences = translate_responses(responses, engine(scripted, degeneration=degeneration), detect=False)

    rows = {row["source"]: row for row in sentences.to_pylist()}
    assert (rows[looping]["degenerate_reason"], rows[looping]["repaired"], rows[looping]["attempts"]) == (
        "repeated n-gram",
        True,
        2,
    )
    assert rows[looping]["translation"] == "eng_Latn(Es ist sehr alt.)"
    assert (rows[hopeless]["degenerate_reason"], rows[hopeless]["repaired"], rows[hopeless]["attempts"]) == (
        "repeated n-gram",
        False,
        3,
    )
    assert rows[hopeless]["translation"] == LOOP  # the last attempt, kept (and flagged)
    assert (rows["Guten Tag."]["degenerate_reason"], rows["Guten Tag."]["attempts"]) == (None, 0)

    sampled = [call for call in scripted.calls if call[3] is not None]
    assert [(s, c.seed, c.temperature, c.top_p) for s, _, _, c in sampled] == [
        (hopeless, 0, 0.7, 0.95),
        (looping, 0, 0.7, 0.95),
        (hopeless, 1, 0.7, 0.95),
        (looping, 1, 0.7, 0.95),
        (hopeless, 2, 0.7, 0.95),
    ]
    item = by_item(table)["1"]
    assert (item["n_degenerate"], item["n_repaired"]) == (2, 1)


def test_without_repair_degenerate_sentences_are_only_flagged():
    scripted = Scripted({"Es ist sehr alt.": None})
    _, sentences = translate_responses(
        response_rows([("1", "de", GERMAN)]),
        engine(scripted, degeneration=DegenerationSpec(repair=False)),
        detect=False,
    )
    row = sentences.to_pylist()[1]
    assert (row["degenerate_reason"], row["repaired"], row["attempts"]) == ("repeated n-gram", False, 0)
    assert scripted.sentences(sampled=True) == []


# --------------------------------------------------------------------------------------
# The job's cache: resume after a kill
# --------------------------------------------------------------------------------------


def _twelve_responses():
    return response_rows([(str(i), "de", f"Satz {i} eins. Satz {i} zwei.") for i in range(12)])


def test_a_killed_job_resumes_and_translates_only_the_rest(tmp_path):
    responses_path = tmp_path / "responses.parquet"
    from xlcons.schemas import RESPONSES

    write_table(_twelve_responses(), responses_path, RESPONSES)
    out, sentences_out, cache = tmp_path / "t.parquet", tmp_path / "s.parquet", tmp_path / "cache.jsonl"
    kwargs = dict(detect_response_language=False, chunk_size=5)

    dying = Scripted(die_after=12)  # chunks of 5: two chunks reach the cache, the third dies
    with pytest.raises(RuntimeError, match="killed"):
        run_translation_job(
            SPEC, responses_path, out, sentences_out, cache, translator_factory=lambda spec: dying, **kwargs
        )
    assert not out.exists()
    assert len(TranslationCache(cache)) == 10

    resumed = Scripted()
    run_translation_job(
        SPEC, responses_path, out, sentences_out, cache, translator_factory=lambda spec: resumed, **kwargs
    )
    assert len(resumed.calls) == 24 - 10
    assert not set(resumed.sentences()) & set(dying.sentences()[:10])

    clean = Scripted()
    run_translation_job(
        SPEC,
        responses_path,
        tmp_path / "c.parquet",
        tmp_path / "cs.parquet",
        tmp_path / "clean.jsonl",
        translator_factory=lambda spec: clean,
        **kwargs,
    )
    assert pq.read_table(out).equals(pq.read_table(tmp_path / "c.parquet"))
    assert pq.read_table(sentences_out).equals(pq.read_table(tmp_path / "cs.parquet"))


def test_a_complete_cache_never_loads_the_model_and_a_changed_parameter_misses_it(tmp_path):
    cache_path = tmp_path / "cache.jsonl"
    first = Scripted()
    translate_responses(_twelve_responses(), engine(first, TranslationCache(cache_path)), detect=False)

    def no_model(spec):
        raise AssertionError("the model was loaded although everything is cached")

    again = SentenceTranslator(SPEC, TranslationCache(cache_path), DegenerationSpec(), no_model)
    translate_responses(_twelve_responses(), again, detect=False)

    beam = Scripted()
    wider = SentenceTranslator(
        TranslatorSpec(location="scripted", model_id="scripted", device="cpu", beam_size=4),
        TranslationCache(cache_path),
        DegenerationSpec(),
        lambda spec: beam,
    )
    translate_responses(_twelve_responses(), wider, detect=False)
    assert len(beam.calls) == 24


def test_a_sentence_whose_request_failed_is_not_cached_and_is_asked_again(tmp_path):
    class Failing(Scripted):
        """Like an LLM translator whose endpoint refused one request: "" and `failed_sentences`."""

        def __init__(self, failing):
            super().__init__()
            self.failed_sentences = set()
            self.failing = failing

        def translate(self, sentences, src, tgt, *, sampling=None):
            out = super().translate(sentences, src, tgt, sampling=sampling)
            self.failed_sentences = set()  # those of this call
            for index, sentence in enumerate(sentences):
                if sentence in self.failing:
                    self.failed_sentences.add(sentence)
                    out[index] = ""
            return out

    cache_path = tmp_path / "cache.jsonl"
    down = Failing({"Zwei."})
    first = SentenceTranslator(SPEC, TranslationCache(cache_path), DegenerationSpec(repair=False), lambda spec: down)
    assert [r.translation for r in first.translate(["Eins.", "Zwei."], "deu_Latn", "eng_Latn")] == [
        "eng_Latn(Eins.)",
        "",
    ]
    up = Scripted()
    again = SentenceTranslator(SPEC, TranslationCache(cache_path), DegenerationSpec(repair=False), lambda spec: up)
    assert [r.translation for r in again.translate(["Eins.", "Zwei."], "deu_Latn", "eng_Latn")] == [
        "eng_Latn(Eins.)",
        "eng_Latn(Zwei.)",
    ]
    assert up.sentences() == ["Zwei."], "only the failed sentence is asked again"

    down.failing = set()  # the same translator, its endpoint back: what it now answers is cached
    recovered = SentenceTranslator(
        SPEC, TranslationCache(tmp_path / "other.jsonl"), DegenerationSpec(repair=False), lambda spec: down
    )
    recovered.translate(["Zwei."], "deu_Latn", "eng_Latn")
    cached = SentenceTranslator(
        SPEC,
        TranslationCache(tmp_path / "other.jsonl"),
        DegenerationSpec(repair=False),
        lambda spec: pytest.fail("the recovered translation was not cached"),
    )
    assert [r.translation for r in cached.translate(["Zwei."], "deu_Latn", "eng_Latn")] == ["eng_Latn(Zwei.)"]


def test_a_cut_off_last_cache_line_is_dropped(tmp_path):
    cache_path = tmp_path / "cache.jsonl"
    cache = TranslationCache(cache_path)
    cache.put("a", "one")
    cache.put("b", "two")
    cache.flush()
    with open(cache_path, "a", encoding="utf-8") as handle:
        handle.write('{"key": "c", "transl')
    reopened = TranslationCache(cache_path)
    assert len(reopened) == 2 and reopened.get("b") == "two"


# --------------------------------------------------------------------------------------
# Prompts en → l, round trips en → l → en
# --------------------------------------------------------------------------------------


def _english_prompts(n=3):
    rows = [
        {
            "dataset": "info",
            "item_id": f"q{i}",
            "lang": "en",
            "prompt": f"Explain topic {i}. Keep it short.\n\nUse two paragraphs.",
            "category": "chemistry",
            "references": None,
            "source_lang": "en",
        }
        for i in range(n)
    ]
    return pa.Table.from_pylist(rows, schema=PROMPTS)


def test_english_prompts_become_prompts_in_the_language_with_a_review_file(tmp_path):
    scripted = Scripted()
    table, review = translate_prompts(_english_prompts(), "de", engine(scripted))
    assert table.schema.equals(PROMPTS) and table.num_rows == 3
    row = table.to_pylist()[0]
    assert (row["lang"], row["source_lang"], row["item_id"], row["category"]) == ("de", "en", "q0", "chemistry")
    assert row["prompt"] == "deu_Latn(Explain topic 0.) deu_Latn(Keep it short.)\n\ndeu_Latn(Use two paragraphs.)"
    assert {src for _, src, _, _ in scripted.calls} == {"eng_Latn"}

    path = tmp_path / "review" / "de.tsv"
    from xlcons.translation.prompt_translation import write_review

    write_review(review, path)
    with open(path, encoding="utf-8", newline="") as handle:
        read = list(csv.DictReader(handle, dialect="excel-tab"))
    assert tuple(read[0]) == REVIEW_COLUMNS and len(read) == 3
    assert read[0]["source"] == _english_prompts().to_pylist()[0]["prompt"]  # line breaks survive the TSV
    assert read[0]["translation"] == row["prompt"] and read[0]["n_sentences"] == "3"


def test_prompt_translation_starts_from_english():
    prompts = _english_prompts().to_pylist()
    prompts[0]["lang"] = "de"
    with pytest.raises(ValueError, match="from English"):
        translate_prompts(pa.Table.from_pylist(prompts, schema=PROMPTS), "fr", engine(Scripted()))


def test_a_round_trip_goes_to_the_language_and_back():
    responses = response_rows([("1", "en", "Water is H2O. It boils at 100 degrees."), ("2", "en", NO_ANSWER)])
    scripted = Scripted()
    table = round_trip(responses, "ja", engine(scripted))
    assert table.schema.equals(ROUND_TRIPS)
    rows = by_item(table)
    assert rows["1"]["pivot"] == "jpn_Jpan(Water is H2O.) jpn_Jpan(It boils at 100 degrees.)"
    assert rows["1"]["round_trip"].startswith("eng_Latn(") and rows["1"]["translation_path"] == "round_trip"
    assert {(src, tgt) for _, src, tgt, _ in scripted.calls} == {("eng_Latn", "jpn_Jpan"), ("jpn_Jpan", "eng_Latn")}
    assert (rows["2"]["translation_path"], rows["2"]["pivot"], rows["2"]["round_trip"]) == (
        "no_answer",
        NO_ANSWER,
        NO_ANSWER,
    )


# --------------------------------------------------------------------------------------
# The whole job on the tiny NLLB
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def nllb_specs(offline_models, tmp_path_factory):
    tiny = offline_models["tiny-nllb"]
    ct2_dir = convert(tiny, tmp_path_factory.mktemp("stage-ct2") / "tiny-nllb")
    common = dict(model_id="tiny-nllb", max_new_tokens=5, device="cpu")
    return {
        "transformers": TranslatorSpec(location=str(tiny), dtype="float32", **common),
        "ctranslate2": TranslatorSpec(
            backend="ctranslate2", location=str(tiny), ct2_location=str(ct2_dir), compute_type="float32", **common
        ),
    }


def test_the_job_on_the_tiny_nllb_gives_the_same_english_with_both_backends(nllb_specs, offline_models, tmp_path):
    from xlcons.schemas import RESPONSES

    responses = response_rows(
        [
            ("1", "de", "Die Hauptstadt von Deutschland ist Berlin. Sie hat fast vier Millionen Einwohner."),
            ("2", "de", "The capital of Germany is Berlin. It has almost four million inhabitants."),
            ("3", "de", NO_ANSWER),
            ("4", "de", "- Wasser ist H2O.\n- Es kocht bei 100 Grad."),
        ]
    )
    responses_path = tmp_path / "responses.parquet"
    write_table(responses, responses_path, RESPONSES)
    out = {}
    for name, spec in nllb_specs.items():
        run_translation_job(
            spec,
            [responses_path],
            [tmp_path / f"{name}.parquet"],
            [tmp_path / f"{name}-s.parquet"],
            tmp_path / f"{name}.jsonl",
            language_id_model=offline_models["lid176"],
            label_scheme="lid176",
            degeneration=DegenerationSpec(repair=False),
        )  # sampling differs by engine
        out[name] = pq.read_table(tmp_path / f"{name}.parquet")
        assert out[name].schema.equals(TRANSLATIONS)
        assert pq.read_table(tmp_path / f"{name}-s.parquet").schema.equals(TRANSLATED_SENTENCES)
    assert out["transformers"]["translation"].to_pylist() == out["ctranslate2"]["translation"].to_pylist()
    rows = by_item(out["ctranslate2"])
    assert rows["2"]["translation"] == responses.to_pylist()[1]["response"]
    assert rows["4"]["translation"].startswith("- ") and "\n- " in rows["4"]["translation"]
    assert rows["1"]["translator"] == "tiny-nllb|ctranslate2|float32|beam1"


def test_prompt_and_round_trip_jobs_write_one_file_per_language(nllb_specs, tmp_path):
    from xlcons.schemas import RESPONSES

    spec = nllb_specs["ctranslate2"]
    prompts_path = tmp_path / "en.parquet"
    write_table(_english_prompts(2), prompts_path, PROMPTS)
    langs = ["zh", "de"]
    run_prompt_translation_job(
        spec,
        prompts_path,
        langs,
        [tmp_path / f"{lang}.parquet" for lang in langs],
        [tmp_path / f"{lang}.tsv" for lang in langs],
        tmp_path / "p.jsonl",
        degeneration=DegenerationSpec(tries=1),
    )
    for lang in langs:
        translated = pq.read_table(tmp_path / f"{lang}.parquet")
        assert translated["lang"].to_pylist() == [lang, lang] and translated["source_lang"].to_pylist() == ["en", "en"]
        assert (tmp_path / f"{lang}.tsv").read_text(encoding="utf-8").startswith("\t".join(REVIEW_COLUMNS))

    responses_path = tmp_path / "r.parquet"
    write_table(response_rows([("1", "en", "Water is H2O. It boils at 100 degrees.")]), responses_path, RESPONSES)
    run_round_trip_job(
        spec,
        responses_path,
        ["hi", "fr"],
        [tmp_path / "hi.rt.parquet", tmp_path / "fr.rt.parquet"],
        tmp_path / "rt.jsonl",
        degeneration=DegenerationSpec(tries=1),
    )
    for lang in ("hi", "fr"):
        trip = pq.read_table(tmp_path / f"{lang}.rt.parquet").to_pylist()[0]
        assert trip["lang"] == lang and trip["pivot"] and trip["round_trip"] and trip["n_sentences"] == 2


def test_repair_on_the_real_model_samples_a_new_translation_for_the_looping_sentence(nllb_specs, monkeypatch):
    """Greedy output forced into a loop for one sentence; the repair's sampled attempt is the real model's."""
    from xlcons.translation.translators import load_translator

    translator = load_translator(nllb_specs["transformers"])
    looping = "Sie hat fast vier Millionen Einwohner."
    forced = " ".join(["loop"] * 30)
    real = translator.translate
    sampled = []

    def translate(sentences, src, tgt, *, sampling=None):
        out = real(sentences, src, tgt, sampling=sampling)
        if sampling is None:
            return [forced if sentence == looping else text for sentence, text in zip(sentences, out)]
        sampled.extend(zip(sentences, out))
        return out

    monkeypatch.setattr(translator, "translate", translate)
    # A generous n-gram limit: only the forced loop counts, not the random model's own stutter.
    degeneration = DegenerationSpec(tries=2, max_ngram_repeats=20)
    engine_ = SentenceTranslator(nllb_specs["transformers"], None, degeneration, lambda spec: translator)
    responses = response_rows([("1", "de", "Die Hauptstadt ist Berlin. " + looping)])
    table, sentences = translate_responses(responses, engine_, detect=False)
    rows = sentences.to_pylist()
    assert [row["degenerate_reason"] for row in rows] == [None, "repeated n-gram"]
    assert (rows[1]["repaired"], rows[1]["attempts"]) == (True, 1)
    assert sampled == [(looping, rows[1]["translation"])] and rows[1]["translation"] != forced
    assert table.to_pylist()[0]["translation"].endswith(rows[1]["translation"])
