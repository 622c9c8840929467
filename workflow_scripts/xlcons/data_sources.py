"""What each data set is, where it comes from, and what its released files look like.

The workflow imports this module while it builds the DAG (to know which files a fetch
rule produces), so it uses the standard library only. The sha256 and size of every
file are the released files' own; they pin the data the way a commit pins code, so a
changed upstream file is noticed instead of silently changing the results.

URLs of MultiQ and EPITOME point at a fixed commit of the upstream repository. MAKQA
has no public download location that we know of: its URLs are paths relative to a base
URL that the user gives (config key ``datasets.makqa.source_url``), or the files are
supplied as a local copy.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

FILE_KINDS = ("csv", "json")
JSON_TYPES = ("dict", "list")
_SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class DataFile:
    """One released file: where it lives inside the data set, where to get it, what it must be.

    ``url`` is absolute (``https://...``) or, for sources without a known public location,
    relative to a base URL given at fetch time. ``columns`` (csv) and ``json_type`` (json)
    are the structural checks run after the hash check: they catch a wrong table here,
    not a wrong download.
    """

    relpath: str
    url: str
    sha256: str
    size: int
    kind: str
    columns: tuple[str, ...] = ()
    json_type: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in FILE_KINDS:
            raise ValueError(f"{self.relpath}: kind must be one of {FILE_KINDS}, not {self.kind!r}")
        if not _SHA256.fullmatch(self.sha256):
            raise ValueError(f"{self.relpath}: sha256 must be 64 lowercase hex digits")
        if self.size < 0:
            raise ValueError(f"{self.relpath}: size must not be negative")
        if self.json_type is not None and self.json_type not in JSON_TYPES:
            raise ValueError(f"{self.relpath}: json_type must be one of {JSON_TYPES}")
        if self.relpath.startswith("/") or ".." in self.relpath.split("/"):
            raise ValueError(f"{self.relpath}: relpath must stay inside the data set directory")

    @property
    def url_is_relative(self) -> bool:
        """True when the URL only makes sense against a user-given base URL."""
        return "://" not in self.url


@dataclass(frozen=True)
class DataSource:
    """A data set: its files plus what a reader of the results needs to know about it."""

    name: str
    files: tuple[DataFile, ...]
    license: str
    homepage: str | None
    citation: str

    @property
    def source_url_key(self) -> str:
        """The config key that holds a base URL for this source's relative URLs."""
        return f"datasets.{self.name}.source_url"

    @property
    def needs_base_url(self) -> bool:
        """True when some file can only be downloaded with a base URL (or copied locally)."""
        return any(f.url_is_relative for f in self.files)

    def file(self, relpath: str) -> DataFile:
        for f in self.files:
            if f.relpath == relpath:
                return f
        raise KeyError(f"{self.name} has no file {relpath!r}")


# sha256 and size of the released files, "<source>/<relpath>": (sha256, size).
# Generated from the released copies (shared/data/<source>/<relpath>) with hashlib.
_RELEASED: dict[str, tuple[str, int]] = {
    # multiq
    "multiq/MultiQ.csv": ("296d23a3ea82db0b3f612344c9352056daed849b526450801775529861fa323c", 2311741),
    # epitome
    "epitome/emotional-reactions-reddit.csv": ("225b28ffdc257f8a997d557eb937e78b68235e6203c87c7e2203d00fef8545cc", 1477690),
    "epitome/interpretations-reddit.csv": ("2cedbe4252c919d22a6f46685afa16d3192a91e3306c2d4a386be12a30ad3f29", 1664973),
    "epitome/explorations-reddit.csv": ("9efa1af8e0537c16894379598f2076cb380ae18aacd9a8d26ebd381f5b7f9645", 1411739),
    # makqa
    "makqa/QA_merged_data_dict_geo.json": ("fadf643961da57309aede55b1ef0a80fed76f4cdbba3fba6c09e0f11776fe7f7", 957215),
    "makqa/QA_merged_data_dict_history.json": ("ab961f4c3f6f7ff7893c396f4b7a699621d3e1c6614f4880dc4b44a6fb0963f0", 1125421),
    "makqa/QA_merged_data_dict_literature.json": ("20cdae0db7c15181b3e9846f072a255d4b0c90674775f50ac26c0a0bc07754a1", 418602),
    "makqa/QA_merged_data_dict_movie.json": ("9d0a61b2a0e76ea2920d669f084aac1b8c6a4367fae17188e65428a749d96196", 2327738),
    "makqa/QA_merged_data_dict_science.json": ("37c8f2be70981dbd84a20a654a95abdfe0c6658ad29d2954830e9b0bafd5a7ce", 1807984),
    "makqa/QA_merged_data_dict_sport_club.json": ("c607f0c8b6bd9c840f5254bf1aaad542497fe78c539dea9d508d8284811eb2e5", 716333),
    "makqa/QA_merged_data_dict_timeliness.json": ("009dbacba4aae215782ccc6e97a96d618a1a1fd1670ff1493c6146916c908e56", 1695918),
    "makqa/QA_example_merged_data_dict_geo.json": ("dc8e8c97b34bb31052774b481b61b9dbb2f2c6b61dc45118d7ad4c93f8309e4a", 55394),
    "makqa/QA_example_merged_data_dict_history.json": ("6ae22f08389d68c576bb83fc1aac3f2efffe575d131aa0ca979b347b6aaba8a6", 53594),
    "makqa/QA_example_merged_data_dict_literature.json": ("d0b36eb375fac86f53e8569e1f65256f6482b19d3d26df18ab890c18c9e61fea", 51128),
    "makqa/QA_example_merged_data_dict_movie.json": ("4fc9d707bb6b34f112d927638ac06e08a5da1853db38104b8a238a4b26bb5d8c", 169585),
    "makqa/QA_example_merged_data_dict_science.json": ("cdf1b0300b582e39d551a3768048939f0672f4ae6a4c68c1902fae3565c2bc59", 96495),
    "makqa/QA_example_merged_data_dict_sport_club.json": ("fc07e85f41a0a31cc124e2c8431695b9ba68913742cd71ab6535e5f07a87c0ba", 51906),
    "makqa/QA_example_merged_data_dict_timeliness.json": ("c447088fe6a0a480c6de2e5f4285bbd879cd8b4fea865725d9a01e647a81fda1", 56193),
    "makqa/result_gpt35/result_geo.json": ("3f9735487f6c6172ef689ee61fb528147067ee23df159750247eb2b6d4f9ada8", 644913),
    "makqa/result_gpt35/result_history.json": ("43edabb51d60d484d6bc95621b95f03a2657c121737835225ace0f0f4bd3dac1", 900992),
    "makqa/result_gpt35/result_literature.json": ("55f8c31a50baa8ab5ae14097dba6807e8e610648f340d911dcf8aaafcc74bd48", 359819),
    "makqa/result_gpt35/result_movie.json": ("c8eab4a7cced7d33bd3f8a3985b8a34b8dbb86e72f159781ed9ff8adb1896923", 1455707),
    "makqa/result_gpt35/result_science.json": ("9ad679996b1234bf0c9ef89384dd9eeb9cfe553a4a756ee1c5cea64e6eb04535", 1313312),
    "makqa/result_gpt35/result_sport_club.json": ("2a53b1743d614a3c5cacbe7724eb5a687230f8120df71c27df8b6564f6e536dd", 563181),
    "makqa/result_gpt35/result_timeliness.json": ("6400d7efd632ca8753423ec1f1ddaf22daef2836de585bc6ab57e51a65eb8bfa", 530950),
}


def _released(source: str, relpath: str, url: str, kind: str, **checks) -> DataFile:
    sha256, size = _RELEASED[f"{source}/{relpath}"]
    return DataFile(relpath=relpath, url=url, sha256=sha256, size=size, kind=kind, **checks)


# --- MultiQ -------------------------------------------------------------------------------

MULTIQ_COMMIT = "106840f8d8b6c5adc43c25208f0db9b5be9fc78c"
MULTIQ_COLUMNS = ("id", "language", "prompt", "domain")

MULTIQ = DataSource(
    name="multiq",
    files=(
        _released(
            "multiq",
            "MultiQ.csv",
            f"https://raw.githubusercontent.com/paul-rottger/multiq/{MULTIQ_COMMIT}/data/MultiQ.csv",
            "csv",
            columns=MULTIQ_COLUMNS,
        ),
    ),
    license="CC-BY-4.0",
    homepage="https://github.com/paul-rottger/multiq",
    citation=(
        "Holtermann, Röttger, Dill, Lauscher (2024). Evaluating the Elementary Multilingual "
        "Capabilities of Large Language Models with MultiQ. Findings of ACL 2024."
    ),
)

# --- EPITOME (Reddit subset) --------------------------------------------------------------

EPITOME_COMMIT = "741a8df4d3bc5301f0426e0c72e1d8e354c42fd3"
EPITOME_COLUMNS = ("sp_id", "rp_id", "seeker_post", "response_post", "level", "rationales")
EPITOME_FILES = ("emotional-reactions-reddit.csv", "interpretations-reddit.csv", "explorations-reddit.csv")

EPITOME = DataSource(
    name="epitome",
    files=tuple(
        _released(
            "epitome",
            name,
            f"https://raw.githubusercontent.com/behavioral-data/Empathy-Mental-Health/{EPITOME_COMMIT}/dataset/{name}",
            "csv",
            columns=EPITOME_COLUMNS,
        )
        for name in EPITOME_FILES
    ),
    # The upstream README states no licence for the data; see the homepage before redistributing.
    license="unspecified (see homepage)",
    homepage="https://github.com/behavioral-data/Empathy-Mental-Health",
    citation=(
        "Sharma, Miner, Atkins, Althoff (2020). A Computational Approach to Understanding "
        "Empathy Expressed in Text-Based Mental Health Support. EMNLP 2020."
    ),
)

# --- MAKQA --------------------------------------------------------------------------------

MAKQA_DOMAINS = ("geo", "history", "literature", "movie", "science", "sport_club", "timeliness")


def _makqa_files() -> tuple[DataFile, ...]:
    """Questions, few-shot pools and released GPT-3.5 outputs, per domain; URLs relative."""
    files = []
    for pattern, json_type in (
        ("QA_merged_data_dict_{}.json", "dict"),
        ("QA_example_merged_data_dict_{}.json", "dict"),
        ("result_gpt35/result_{}.json", "list"),
    ):
        for domain in MAKQA_DOMAINS:
            relpath = pattern.format(domain)
            files.append(_released("makqa", relpath, relpath, "json", json_type=json_type))
    return tuple(files)


MAKQA = DataSource(
    name="makqa",
    files=_makqa_files(),
    # Neither a licence nor a public download location is known to us.
    license="unknown",
    homepage=None,
    citation="Evaluating Knowledge-based Cross-lingual Inconsistency in Large Language Models (2024).",
)

DATA_SOURCES: dict[str, DataSource] = {s.name: s for s in (MULTIQ, EPITOME, MAKQA)}
