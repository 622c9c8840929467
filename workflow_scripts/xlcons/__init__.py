"""xlcons: measure how consistently language models behave across languages.

The package is the library behind the Snakemake workflow: every rule script under
``workflow_scripts/`` only adapts ``snakemake.input``/``output``/``params`` to a
function here. Import cost matters (rules start often), so this module imports
nothing heavy; submodules pull in torch, transformers or polars only when needed.
"""

from pathlib import Path

__version__ = "0.1.0"

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_ROOT = PACKAGE_DIR.parent.parent
