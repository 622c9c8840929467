"""FLORES-200 as a data set: the release read from its tarball or an unpacked copy, one
translation prompt per (sentence, direction), and the config rules of its selection."""

from __future__ import annotations

import pytest

from builders import FLORES_SAMPLE, write_flores_sample
from xlcons.config import DatasetResolver, validate_config
from xlcons.data_sources import DATA_SOURCES
from xlcons.datasets import BUILT_IN, PROMPT_LANGUAGE_ANSWERS, TRANSLATION_REQUESTS
from xlcons.datasets.flores import FloresError, load, parse_item_id, prompt_text, read_split
from xlcons.datasets.item_ids import flores_selection_problems
from xlcons.evaluators.registry import EVALUATORS
from xlcons.fetch.errors import DataVerificationError
from xlcons.fetch.structure import check_structure
from xlcons.languages import LanguageRegistry
from xlcons.plan import Plan

LANGS = ["en", "de", "zh"]


@pytest.fixture(scope="module")
def registry():
    return LanguageRegistry.load()


@pytest.fixture
def sample(tmp_path):
    return write_flores_sample(tmp_path / "flores")


def test_the_sentences_are_read_from_the_tarball_and_from_an_unpacked_copy_alike(tmp_path, sample):
    unpacked = write_flores_sample(tmp_path / "unpacked", archive=False)
    from_tar = read_split(sample, "devtest", ["eng_Latn", "deu_Latn"])
    assert from_tar == {"eng_Latn": FLORES_SAMPLE["eng_Latn"], "deu_Latn": FLORES_SAMPLE["deu_Latn"]}
    assert read_split(unpacked, "devtest", ["eng_Latn", "deu_Latn"]) == from_tar, "a folder holding flores200_dataset/"
    assert read_split(unpacked / "flores200_dataset", "devtest", ["eng_Latn"])["eng_Latn"] == FLORES_SAMPLE["eng_Latn"]
    assert read_split(sample / "flores200_dataset.tar.gz", "dev", ["jpn_Jpan"])["jpn_Jpan"] == FLORES_SAMPLE["jpn_Jpan"]


def test_a_missing_language_names_the_file_it_looked_for(tmp_path, sample):
    with pytest.raises(FloresError, match=r"flores200_dataset/devtest/fra_Latn\.devtest"):
        read_split(sample, "devtest", ["eng_Latn", "fra_Latn"])
    with pytest.raises(FloresError, match="expected flores200_dataset.tar.gz"):
        read_split(tmp_path, "devtest", ["eng_Latn"])


def test_every_source_language_asks_for_every_other_language_of_the_run(sample, registry):
    table = load(sample, ["de"], {"limit": 2}, run_languages=LANGS, registry=registry)
    rows = table.to_pylist()
    assert [(row["item_id"], row["lang"], row["category"]) for row in rows] == [
        ("1:en", "de", "en"),
        ("2:en", "de", "en"),
        ("1:zh", "de", "zh"),
        ("2:zh", "de", "zh"),
    ]
    assert rows[0]["references"] == [FLORES_SAMPLE["eng_Latn"][0]]
    assert rows[2]["references"] == [FLORES_SAMPLE["zho_Hans"][0]]
    assert rows[0]["prompt"] == (
        "Translate this sentence from German into English. Reply with the English translation only.\n\n"
        f"German: {FLORES_SAMPLE['deu_Latn'][0]}\nEnglish:"
    )
    assert parse_item_id("12:zh-TW") == (12, "zh-TW")


def test_the_same_request_from_two_source_languages_shares_its_id(sample, registry):
    """So the answers to one (sentence, target) line up across source languages, as parallel items do."""
    english = {
        row["item_id"]: row for row in load(sample, ["en"], {}, run_languages=LANGS, registry=registry).to_pylist()
    }
    german = {
        row["item_id"]: row for row in load(sample, ["de"], {}, run_languages=LANGS, registry=registry).to_pylist()
    }
    assert set(english) & set(german) == {f"{n}:zh" for n in range(1, 5)}
    assert english["3:zh"]["references"] == german["3:zh"]["references"]


def test_directions_limit_the_pairs_and_ids_pick_lines(sample, registry):
    table = load(
        sample,
        ["en"],
        {"ids": ["4", "2"]},
        run_languages=LANGS,
        directions=[["en", "de"], ["de", "zh"]],
        registry=registry,
    )
    assert [(row["item_id"], row["category"]) for row in table.to_pylist()] == [("4:de", "de"), ("2:de", "de")]
    assert load(sample, ["zh"], {}, run_languages=LANGS, directions=[["en", "de"]], registry=registry).num_rows == 0


def test_few_shot_examples_come_from_dev_on_the_same_lines_for_every_direction(sample, registry):
    prompts = load(
        sample, ["en", "de"], {"limit": 1}, run_languages=LANGS, few_shot=2, seed=3, registry=registry
    ).to_pylist()
    first = prompts[0]["prompt"]
    assert first.count("English: ") == 3 and first.count("German: ") == 2 and first.endswith("\nGerman:"), (
        "two examples, then the sentence"
    )
    codes = {"en": "eng_Latn", "de": "deu_Latn"}

    def example_lines(row):  # the dev lines of its examples: the blocks between instruction and sentence
        sources = [block.split("\n")[0].split(": ", 1)[1] for block in row["prompt"].split("\n\n")[1:-1]]
        return [FLORES_SAMPLE[codes[row["lang"]]].index(sentence) for sentence in sources]

    assert len({tuple(example_lines(row)) for row in prompts}) == 1, "one draw for all directions"
    assert len(example_lines(prompts[0])) == 2
    assert prompt_text("German", "English", "x", [("a", "b")]).endswith("German: a\nEnglish: b\n\nGerman: x\nEnglish:")


def test_bad_selections_are_named(sample, registry, tmp_path):
    with pytest.raises(FloresError, match=r"items.ids\[0\]: '5' is not a line number of the devtest split \(1 to 4\)"):
        load(sample, ["en"], {"ids": ["5"]}, run_languages=LANGS, registry=registry)
    with pytest.raises(FloresError, match="no domains"):
        load(sample, ["en"], {"domains": ["news"]}, run_languages=LANGS, registry=registry)
    with pytest.raises(FloresError, match="few_shot: 9 examples asked for, the dev split has 4"):
        load(sample, ["en"], {}, run_languages=LANGS, few_shot=9, registry=registry)
    ragged = dict(FLORES_SAMPLE, deu_Latn=FLORES_SAMPLE["deu_Latn"][:3])
    with pytest.raises(FloresError, match="not parallel.*deu_Latn 3.*eng_Latn 4"):
        load(
            write_flores_sample(tmp_path / "ragged", ragged), ["en"], {}, run_languages=["en", "de"], registry=registry
        )


def test_the_config_check_names_bad_directions_ids_and_domains(tmp_path):
    spec = {
        "languages": ["en", "de"],
        "split": "dev",
        "items": {"ids": ["0", "998", "12"], "domains": ["x"]},
        "directions": [["en", "en"], ["en", "fr"], ["de", "en"]],
    }
    problems = flores_selection_problems("flores", spec)
    assert problems == [
        "config key 'datasets.flores.items.domains': FLORES sentences have no "
        "domains; choose the language pairs with datasets.flores.directions",
        "config key 'datasets.flores.items.ids[0]': '0' is not a line number of the dev split (1 to 997)",
        "config key 'datasets.flores.items.ids[1]': '998' is not a line number of the dev split (1 to 997)",
        "config key 'datasets.flores.directions[0]': en -> en translates into the same language",
        "config key 'datasets.flores.directions[1]': en -> fr is not between "
        "languages of the run ['en', 'de'] (datasets.flores.languages)",
    ]
    with pytest.raises(ValueError, match=r"directions\[0\]': en -> en") as raised:
        _config(tmp_path, flores={"directions": [["en", "en"]]})
    assert str(raised.value).count("config key") == 1, "the one problem"


def test_flores_is_fetched_from_the_nllb_release_pinned_by_its_sha256():
    source = DATA_SOURCES[BUILT_IN["flores"].source]
    (archive,) = source.files
    assert source.url(archive) == "https://dl.fbaipublicfiles.com/nllb/flores200_dataset.tar.gz"
    assert (
        archive.sha256 == "b8b0b76783024b85797e5cc75064eb83fc5288b41e9654dabc7be6ae944011f6"
        and archive.size == 25_585_843
    )
    assert source.url(archive, "https://mirror.example/nllb") == "https://mirror.example/nllb/flores200_dataset.tar.gz"
    assert source.source_url_key == "datasets.flores.source_url"


def test_the_tarball_check_names_what_the_archive_lacks(tmp_path, sample):
    (archive,) = DATA_SOURCES["flores200"].files
    check_structure(sample / "flores200_dataset.tar.gz", archive)
    only_dev = write_flores_sample(tmp_path / "other", {"fra_Latn": ["Un."]})
    with pytest.raises(DataVerificationError, match="lacks.*devtest/eng_Latn.devtest"):
        check_structure(only_dev / "flores200_dataset.tar.gz", archive)
    (tmp_path / "broken.tar.gz").write_bytes(b"not a tar")
    with pytest.raises(DataVerificationError, match="not a readable tar archive"):
        check_structure(tmp_path / "broken.tar.gz", archive)


def _config(folder, evaluators=None, **datasets):
    (folder / "answers.csv").write_text("item_id,language,response\n1:de,en,Eins.\n")
    config = {
        "models": {"m": {"backend": "file", "path": "answers.csv"}},
        "datasets": datasets,
        "evaluators": evaluators or {},
    }
    return validate_config(config, base_dir=folder)


def test_a_translation_set_is_scored_for_translation_and_kept_out_of_language_fidelity(registry, tmp_path):
    """Its answers are in the target language: language confusion's `all` leaves it out, and naming
    it for language ID is a config error."""
    config = _config(tmp_path, flores={"languages": LANGS}, multiq={})
    resolver = DatasetResolver(config, registry)
    assert TRANSLATION_REQUESTS in resolver.provides("flores") and PROMPT_LANGUAGE_ANSWERS not in resolver.provides(
        "flores"
    )
    assert resolver.scored_by(EVALUATORS["translation_ability"]) == ["flores"]
    assert resolver.scored_by(EVALUATORS["language_confusion"]) == ["multiq"], "`all`: the sets it can score"
    with pytest.raises(
        ValueError,
        match="evaluator 'language_id' cannot score data set 'flores': "
        "it needs answers meant to be in the prompt's language",
    ):
        _config(tmp_path, {"language_id": {"datasets": ["flores"]}}, flores={})


def test_the_plan_fetches_flores_and_hands_its_loader_the_run_languages(registry, tmp_path):
    plan = Plan(_config(tmp_path, flores={"languages": LANGS, "few_shot": 1}), registry)
    assert plan.fetched_sources() == ["flores200"]
    assert plan.dataset_location("flores", "resources") == ["resources/data/flores200/MANIFEST.json"]
    assert plan.loader_options("flores") == {
        "split": "devtest",
        "directions": "all",
        "few_shot": 1,
        "seed": 0,
        "run_languages": LANGS,
    }
    assert plan.evaluation_files("translation_ability") == [
        "results/evaluations/flores/m/translation_directions.parquet"
    ]
    assert Plan(_config(tmp_path, flores={}), registry).languages("flores") == list(BUILT_IN["flores"].languages), (
        "Xing et al. 2024's 12 by default"
    )
