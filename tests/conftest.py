"""Shared fixtures: where the released data lives, and the offline models the suite builds."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
# The released data sets sit beside the checkout (../shared/data) on the project's
# machines and in CI; XLCONS_SHARED_DATA points elsewhere when they do not.
SHARED_DATA = Path(os.environ.get("XLCONS_SHARED_DATA", REPO_ROOT.parent / "shared" / "data"))
# Offline models are built once and reused across sessions; config/offline.yaml reads them here.
OFFLINE_MODELS = Path(os.environ.get("XLCONS_OFFLINE_MODELS", REPO_ROOT / "resources" / "offline-models"))


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not (SHARED_DATA / "multiq" / "MultiQ.csv").is_file():
        pytest.fail(f"released data not found under {SHARED_DATA}; set XLCONS_SHARED_DATA")
    return SHARED_DATA


@pytest.fixture(scope="session")
def offline_models(shared_data: Path) -> dict[str, Path]:
    """Every offline model of config/offline.yaml, built (or reused) under resources/offline-models."""
    from devtools.offline_models import build_all

    return build_all(OFFLINE_MODELS, data_dir=shared_data)


_FIGURES: dict[str, str] = {}


@pytest.fixture(scope="session")
def figures() -> dict[str, str]:
    """Measured figures a test reports (name -> value): printed in the terminal summary,
    never asserted on for speed."""
    return _FIGURES


def pytest_terminal_summary(terminalreporter):
    if _FIGURES:
        terminalreporter.section("figures")
        for name, value in _FIGURES.items():
            terminalreporter.write_line(f"{name}: {value}")


def pytest_sessionfinish(session, exitstatus):
    """A run in which no test passed is a failure, whatever pytest thinks of it."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if exitstatus == 0 and reporter is not None and not reporter.stats.get("passed"):
        session.exitstatus = 1
