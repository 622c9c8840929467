"""``python -m devtools.offline_models``: build the offline models (reusing up-to-date ones)."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from .build import MODELS, build_models
from .common import OfflineModelError


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m devtools.offline_models",
        description="Build the offline models of config/offline.yaml (reusing up-to-date ones).",
    )
    parser.add_argument("--out", type=Path, default=Path("resources/offline-models"), help="root folder of the models")
    parser.add_argument(
        "--data", type=Path, default=Path("../shared/data"), help="released data (holds multiq/MultiQ.csv)"
    )
    parser.add_argument("--only", action="append", choices=sorted(MODELS), help="build only this model (repeatable)")
    parser.add_argument("--force", action="store_true", help="rebuild even when the stamp says up to date")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        results = build_models(args.out, args.data, args.only, force=args.force)
    except OfflineModelError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    width = max(len(result.name) for result in results)
    for result in results:
        state = "built" if result.built else "up to date"
        print(f"{result.name:<{width}} -> {result.path}  ({state}, {result.seconds:.2f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
