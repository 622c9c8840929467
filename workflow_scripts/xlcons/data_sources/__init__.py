"""What each data set is, where it comes from, and what its released files look like.

The workflow imports this package while it builds the DAG (to know which files a fetch
rule produces), so it uses the standard library only. The sha256 and size of every
file are the released files' own; they pin the data the way a commit pins code, so a
changed upstream file is noticed instead of silently changing the results.

Every URL points at a fixed commit of the upstream repository (``DataSource.root``), so a
URL always serves the bytes recorded here. A mirror with the upstream layout can stand in
for the root (config key ``datasets.<data set>.source_url``); a local copy of the files
(``datasets.<data set>.path``) or files pre-seeded in ``resources/data/<source>`` need no
network at all.

Xing et al. 2024's repository holds MAKQA and the released outputs of the eleven models of its
Table 6. It states no licence, so the files are downloaded at run time and never shipped.

The package holds:

- this module: the registry, ``DATA_SOURCES`` (source name -> DataSource), and the names
  ``released:`` accepts;
- :mod:`xlcons.data_sources.spec`: ``DataFile`` and ``DataSource``, what a source and its
  files are, with their checks;
- :mod:`xlcons.data_sources.hashes`: the recorded sha256 and size of the released files;
- :mod:`xlcons.data_sources.catalog`: every source (MultiQ, EPITOME, MAKQA and the released
  outputs of Xing et al. 2024, FLORES-200, the Language Confusion Benchmark and its released
  completions), with the upstream facts the loaders and evaluators read;
- :mod:`xlcons.data_sources.names`: the names things are fetched under.
"""

from __future__ import annotations

from xlcons.data_sources.catalog import (
    EPITOME,
    FLORES200,
    LCB,
    LCB_RELEASED,
    LCB_RELEASED_PREFIX,
    MAKQA,
    MULTIQ,
    RELEASED_MODELS,
    lcb_released,
    released_outputs,
)
from xlcons.data_sources.spec import DataSource

# The models whose released answers `released:` names: Xing et al. 2024's MAKQA outputs and the
# Language Confusion Benchmark's completions (`lcb-<model>`).
RELEASED_NAMES = (*RELEASED_MODELS, *(f"{LCB_RELEASED_PREFIX}{model}" for model in LCB_RELEASED))

DATA_SOURCES: dict[str, DataSource] = {
    s.name: s
    for s in (
        MULTIQ,
        EPITOME,
        MAKQA,
        FLORES200,
        LCB,
        *(released_outputs(model) for model in RELEASED_MODELS),
        *(lcb_released(model) for model in LCB_RELEASED),
    )
}
