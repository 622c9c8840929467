"""Every data source the workflow fetches: MultiQ, EPITOME (Reddit subset), MAKQA and the
released outputs of Xing et al. 2024, FLORES-200 and the Language Confusion Benchmark with its
released completions, each pinned to an upstream commit (FLORES-200: to its recorded hash), with
the upstream facts the loaders and evaluators read (columns, domains, file names, URLs)."""

from __future__ import annotations

from xlcons.data_sources.hashes import released_file
from xlcons.data_sources.names import released_source_name
from xlcons.data_sources.spec import DataFile, DataSource

# --- MultiQ -------------------------------------------------------------------------------

MULTIQ_COMMIT = "106840f8d8b6c5adc43c25208f0db9b5be9fc78c"
MULTIQ_COLUMNS = ("id", "language", "prompt", "domain")

MULTIQ = DataSource(
    name="multiq",
    root=f"https://raw.githubusercontent.com/paul-rottger/multiq/{MULTIQ_COMMIT}/",
    files=(released_file("multiq", "MultiQ.csv", "data/MultiQ.csv", "csv", columns=MULTIQ_COLUMNS),),
    license="CC-BY-4.0",
    homepage="https://github.com/paul-rottger/multiq",
    citation=(
        "Holtermann, Röttger, Dill, Lauscher (2024). Evaluating the Elementary Multilingual "
        "Capabilities of Large Language Models with MultiQ. Findings of ACL 2024."
    ),
    dataset="multiq",
)

# --- EPITOME (Reddit subset) --------------------------------------------------------------

EPITOME_COMMIT = "741a8df4d3bc5301f0426e0c72e1d8e354c42fd3"
EPITOME_COLUMNS = ("sp_id", "rp_id", "seeker_post", "response_post", "level", "rationales")
EPITOME_FILES = ("emotional-reactions-reddit.csv", "interpretations-reddit.csv", "explorations-reddit.csv")

EPITOME = DataSource(
    name="epitome",
    root=f"https://raw.githubusercontent.com/behavioral-data/Empathy-Mental-Health/{EPITOME_COMMIT}/",
    files=tuple(
        released_file("epitome", name, f"dataset/{name}", "csv", columns=EPITOME_COLUMNS) for name in EPITOME_FILES
    ),
    # The upstream README states no licence for the data; see the homepage before redistributing.
    license="unspecified (see homepage)",
    homepage="https://github.com/behavioral-data/Empathy-Mental-Health",
    citation=(
        "Sharma, Miner, Atkins, Althoff (2020). A Computational Approach to Understanding "
        "Empathy Expressed in Text-Based Mental Health Support. EMNLP 2020."
    ),
    dataset="empathy",
)

# --- MAKQA and the released outputs of Xing et al. 2024 --------------------------------------------

MAKQA_COMMIT = "fa42b83969cc104d31972ed27fc94dc71ab9821f"
MAKQA_ROOT = f"https://raw.githubusercontent.com/Xingxl2studious/Cross-lingual-Consistency/{MAKQA_COMMIT}/"
MAKQA_HOMEPAGE = "https://github.com/Xingxl2studious/Cross-lingual-Consistency"
MAKQA_CITATION = "Evaluating Knowledge-based Cross-lingual Inconsistency in Large Language Models (2024)."
# The upstream repository states no licence.
MAKQA_LICENSE = "unspecified (no licence in the upstream repository; see homepage)"
MAKQA_DOMAINS = ("geo", "history", "literature", "movie", "science", "sport_club", "timeliness")
# The models of Xing et al. 2024's Table 6 whose outputs the repository holds (result/<model>/).
RELEASED_MODELS = (
    "gpt35",
    "llama2-7b",
    "llama2-13b",
    "baichuan2-7b",
    "baichuan2-13b",
    "bloomz-560m",
    "bloomz-1b",
    "bloomz-3b",
    "bloomz-7b",
    "mistral-7b",
    "mixtral-8x7b",
)

MAKQA = DataSource(
    name="makqa",
    root=MAKQA_ROOT,
    files=tuple(
        released_file("makqa", name.format(domain), f"data/{name.format(domain)}", "json", json_type="dict")
        for name in ("QA_merged_data_dict_{}.json", "QA_example_merged_data_dict_{}.json")
        for domain in MAKQA_DOMAINS
    ),
    license=MAKQA_LICENSE,
    homepage=MAKQA_HOMEPAGE,
    citation=MAKQA_CITATION,
    dataset="makqa",
)


def released_outputs(model: str) -> DataSource:
    name = released_source_name(model)
    return DataSource(
        name=name,
        root=MAKQA_ROOT,
        files=tuple(
            released_file(
                name, f"result_{domain}.json", f"result/{model}/result_{domain}.json", "json", json_type="list"
            )
            for domain in MAKQA_DOMAINS
        ),
        license=MAKQA_LICENSE,
        homepage=MAKQA_HOMEPAGE,
        citation=MAKQA_CITATION,
        dataset="makqa",
    )


# --- FLORES-200 (Xing et al. 2024 §5: the models under test as translators) ----------------------

# The NLLB team's release: one tarball, flores200_dataset/{dev,devtest}/<code>.<split>, one
# sentence per line (997 dev, 1012 devtest), codes as NLLB's (eng_Latn, deu_Latn, ...). The
# loader reads the sentences from the tarball itself, so nothing is unpacked.
FLORES_ARCHIVE = "flores200_dataset.tar.gz"
FLORES_ROOT_FOLDER = "flores200_dataset"

FLORES200 = DataSource(
    name="flores200",
    root="https://dl.fbaipublicfiles.com/nllb/",
    files=(
        DataFile(
            relpath=FLORES_ARCHIVE,
            upstream=FLORES_ARCHIVE,
            sha256="b8b0b76783024b85797e5cc75064eb83fc5288b41e9654dabc7be6ae944011f6",
            size=25_585_843,
            kind="tar",
            members=(f"{FLORES_ROOT_FOLDER}/devtest/eng_Latn.devtest", f"{FLORES_ROOT_FOLDER}/dev/eng_Latn.dev"),
        ),
    ),
    license="CC-BY-SA-4.0",
    homepage="https://github.com/facebookresearch/flores/tree/main/flores200",
    citation=(
        "NLLB Team (2022). No Language Left Behind: Scaling Human-Centered Machine Translation. "
        "Goyal et al. (2022). The FLORES-101 Evaluation Benchmark for Low-Resource and Multilingual "
        "Machine Translation. TACL."
    ),
    dataset="flores",
    unversioned=True,
)

# --- The Language Confusion Benchmark (Marchisio et al. 2024) --------------------------------

# Its prompts (both tasks in one archive) and the released completions of its ten models,
# from github.com/for-ai/language-confusion at one commit (Apache-2.0).
LCB_COMMIT = "0cfdbb4a64502648938c456b2fa9689968f22298"
LCB_ROOT = f"https://raw.githubusercontent.com/for-ai/language-confusion/{LCB_COMMIT}/"
LCB_HOMEPAGE = "https://github.com/for-ai/language-confusion"
# The benchmark's English word list (`words` at that commit), and fastText's language-ID model
# it scores with, which language confusion reads (evaluators.language_confusion.words, .model).
LCB_WORDS_URL = f"{LCB_ROOT}words"
LCB_WORDS_SHA256 = "1ec8230beef2a7c955742b089fc3cea2833866cf5482bf018d7c4124eef104bd"
LID176_URL = "https://dl.fbaipublicfiles.com/fasttext/supervised-models/lid.176.bin"
LID176_SHA256 = "7e69ec5451bc261cc7844e49e4792a85d7f09c06789ec800fc4a44aec362764e"
LCB_CITATION = (
    "Marchisio, Ko, Bérard, Dehaze, Ruder (2024). Understanding and Mitigating Language Confusion in LLMs. EMNLP 2024."
)
LCB_OUTPUT_COLUMNS = ("id", "model", "completion", "task", "source", "language")
# outputs/<model>.csv: (sha256, size)
LCB_RELEASED: dict[str, tuple[str, int]] = {
    "command-r-base": ("f8e7774752f7adb4e0dd98aa7b13d33f91a5d202a10c7c53dfe1c753bdd9b5d5", 2957382),
    "command-r-plus-base": ("7621e68eb9643a67d04504575b81560c369d91a8ea1fdb261e43b5633a519b06", 3001800),
    "command-r-plus": ("1b68197c0f73a0ee824209d26a55be505a35374b8dd67b813ec95e1bc7cd579c", 3460801),
    "command-r": ("22de6ed1904056cb72ea8a8f0fe50738d8251d2bf63aad2fba7fdeb0b6815058", 3417762),
    "gpt-3.5-turbo": ("d8278405652c8b197fda43c9d94bda823084ae62882ac441ecc95ff044ec5424", 2465919),
    "gpt-4-turbo": ("dadadd65ac5bed7003e3de3d7778f5cca30ed7238be9d0acbd2d0f573da35bf4", 2492460),
    "llama-2-instruct": ("14cf6be569ebce1db2ed853b4c745ea7bd1ca345907fbc8a3b743315ddd7ffbd", 2762516),
    "llama-3-instruct": ("79bebb3235b1cd5db4c7ec98735ff7f842bb0e6d8de02647dc72b702acc8e700", 3218324),
    "mistral-8x7b": ("3e78829e8020049360f55134238efa99c0d1919348e1c132bbf2701057ea77ab", 2432002),
    "mistral-large": ("fa4608e2b2c5da374bd638acb81aaba2fb81a6738f96fa95e2cb0f96b1f298f5", 2526774),
}
LCB_RELEASED_PREFIX = "lcb-"

LCB = DataSource(
    name="lcb",
    root=LCB_ROOT,
    files=(
        DataFile(
            relpath="test_sets.zip",
            upstream="test_sets.zip",
            sha256="3425337489fa65ff15d977e981e9748c86ce8e88ef0f4457ecdb4a65d8702712",
            size=821204,
            kind="zip",
            members=("test_sets/monolingual/okapi/de.csv", "test_sets/crosslingual/okapi/de.csv"),
        ),
    ),
    license="Apache-2.0",
    homepage=LCB_HOMEPAGE,
    citation=LCB_CITATION,
    dataset="lcb-monolingual",
)


def lcb_released(model: str) -> DataSource:
    sha256, size = LCB_RELEASED[model]
    return DataSource(
        name=released_source_name(f"{LCB_RELEASED_PREFIX}{model}"),
        root=LCB_ROOT,
        files=(
            DataFile(
                relpath=f"{model}.csv",
                upstream=f"outputs/{model}.csv",
                sha256=sha256,
                size=size,
                kind="csv",
                columns=LCB_OUTPUT_COLUMNS,
            ),
        ),
        license="Apache-2.0",
        homepage=LCB_HOMEPAGE,
        citation=LCB_CITATION,
        dataset="lcb-monolingual",
    )
