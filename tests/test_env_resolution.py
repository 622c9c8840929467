"""Every envs/*.yaml pip set installs, for the env's own Python: pip's resolver says so.

Conda cannot run here, so only the `pip:` list of each env file is resolved (`pip install
--dry-run --ignore-installed --report`), for the file's `python=` version; the conda part
(python, pip) is not. The env files are resolved in parallel, by one fixture.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

pytestmark = pytest.mark.envs

REPO = Path(__file__).resolve().parent.parent
ENV_FILES = sorted((REPO / "envs").glob("*.yaml"))
HOST_PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
# One pass of the largest env (vLLM's, 250 packages) takes 40-60 s; a hung pip fails its env.
PIP_TIMEOUT_S = 900
# Rounds of adding requirements pip's marker evaluation missed (see missed_requirements).
MAX_PASSES = 4


def env_spec(env_file: Path) -> tuple[str, list[str]]:
    """The conda `python=X.Y` of an env file and its pip list, each entry checked to be `name==version`.

    (test_envs.env_packages merges the conda and pip sections, and importing test_envs loads
    the whole workflow, so the two sections are read apart here.)
    """
    spec = yaml.safe_load(env_file.read_text(encoding="utf-8"))
    assert isinstance(spec, dict) and spec.get("dependencies"), f"{env_file.name} has no dependencies"
    pythons = [
        match.group(1)
        for entry in spec["dependencies"]
        if isinstance(entry, str) and (match := re.fullmatch(r"python\s*=+\s*(3\.\d+)(\.\*)?", entry.strip()))
    ]
    assert len(pythons) == 1, f"{env_file.name} must pin python=3.X once among its conda dependencies"
    pip_lists = [entry["pip"] for entry in spec["dependencies"] if isinstance(entry, dict) and "pip" in entry]
    assert len(pip_lists) == 1 and pip_lists[0], f"{env_file.name} must have one non-empty pip: list"
    for item in pip_lists[0]:
        requirement = Requirement(item)
        assert (
            requirement.marker is None
            and len(requirement.specifier) == 1
            and next(iter(requirement.specifier)).operator == "=="
        ), f"{env_file.name}: '{item}' is not pinned to one version"
    return pythons[0], [str(item) for item in pip_lists[0]]


def pins_of(requirements: list[str]) -> dict[str, str]:
    return {canonicalize_name(req.name): next(iter(req.specifier)).version for req in map(Requirement, requirements)}


def exact(requirements: list[str]) -> list[str]:
    """`name==X` as `name===X`: X itself, not a local build of it such as this machine's
    torch 2.13.0+cpu (pip's find-links here), which `==` accepts and pip prefers, and whose
    dependencies are not those of the PyPI release a cluster env gets (CUDA libraries)."""
    exact_pins = []
    for req in map(Requirement, requirements):
        extras = f"[{','.join(sorted(req.extras))}]" if req.extras else ""
        exact_pins.append(f"{req.name}{extras}==={next(iter(req.specifier)).version}")
    return exact_pins


def pip_command(requirements: list[str], python: str, report: Path) -> list[str]:
    command = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--report", str(report)]
    command += ["--no-input", "--disable-pip-version-check"]
    # Not --quiet: the "The conflict is caused by:" lines are printed at pip's normal level.
    if python != HOST_PYTHON:
        # Wheel tags and Requires-Python follow --python-version (the platform and ABI follow from
        # it and from this Linux x86_64 machine, the cluster's platform too). pip would build an
        # sdist with this interpreter, and pip refuses sdists with --python-version anyway, so
        # another Python takes wheels only: a package with no wheel for it fails the test, named
        # ("No matching distribution found for ..."), instead of being resolved from metadata the
        # wrong Python built. conda's pip would build it on the cluster, so such a failure is
        # about this test, not the env. Every package the vLLM env resolves to has a wheel.
        # Same-Python envs take sdists as they are.
        command += ["--python-version", python, "--only-binary", ":all:"]
    return command + requirements


def marker_environments(python: str) -> list[dict[str, str]]:
    """Marker values of a CPython `python` on this platform, at both ends of its patch releases."""
    host = default_environment()
    return [
        dict(host, python_version=python, python_full_version=full, implementation_version=full)
        for full in (f"{python}.0", f"{python}.99")
    ]


def missed_requirements(report: dict, python: str) -> list[str]:
    """Requirements of resolved packages that hold on `python` but that pip left out.

    pip evaluates environment markers with the interpreter it runs in, not the --python-version
    it is given (pypa/pip#10050), so for another Python it skips e.g. vllm's
    `setuptools<81; python_version > "3.11"` and may settle on a version that breaks it. Such
    requirements are collected here and resolved again as plain requirements, until none is
    left: each added requirement does apply to the env's Python, so the set can only get more
    constrained, never less (requirements pip applied that do not hold on `python` stay in:
    they can make the test fail where the env is fine, never pass where it is not).
    """
    installed = {canonicalize_name(item["metadata"]["name"]): item for item in report["install"]}
    host = default_environment()
    targets = marker_environments(python)
    missed = []
    for item in report["install"]:
        extras = [""] + list(item.get("requested_extras") or [])
        for text in item["metadata"].get("requires_dist") or []:
            req = Requirement(text)
            if req.marker is None:
                continue
            applies_here = any(req.marker.evaluate(dict(host, extra=extra)) for extra in extras)
            applies_there = any(req.marker.evaluate(dict(env, extra=extra)) for env in targets for extra in extras)
            if applies_here or not applies_there:
                continue
            found = installed.get(canonicalize_name(req.name))
            if (
                found is not None
                and req.specifier.contains(Version(found["metadata"]["version"]), prereleases=True)
                and req.extras <= set(found.get("requested_extras") or [])
            ):
                continue
            extras_part = f"[{','.join(sorted(req.extras))}]" if req.extras else ""
            missed.append(f"{req.name} @ {req.url}" if req.url else f"{req.name}{extras_part}{req.specifier}")
    return sorted(set(missed))


def conflict_text(stdout: str, stderr: str) -> str:
    """pip's ERROR lines and its "The conflict is caused by:" block, without the index noise."""
    errors = [line for line in stderr.splitlines() if line.startswith("ERROR:")]
    lines = stdout.splitlines()
    cause = []
    if "The conflict is caused by:" in lines:
        start = lines.index("The conflict is caused by:")
        end = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
        cause = lines[start:end]
    if not errors and not cause:  # something else went wrong: the end of what pip said
        errors = [line for line in stderr.splitlines() if line.strip() and "is ignored: it is neither" not in line][
            -20:
        ]
    return "\n".join(errors + cause)


@dataclass
class Resolution:
    env: str
    python: str
    pins: dict[str, str]
    added: list[str] = field(default_factory=list)  # requirements pip's markers missed (see above)
    installed: dict[str, str] = field(default_factory=dict)  # canonical name -> version
    error: str = ""
    seconds: float = 0.0
    passes: int = 0

    def failure(self) -> str:
        """What is wrong, for the assertion message; empty when the env resolves at its pins."""
        where = f"{self.env} (pip set for Python {self.python})"
        if self.error:
            return f"{where} does not resolve:\n{self.error}"
        wrong = {
            name: (pinned, self.installed.get(name, "missing"))
            for name, pinned in self.pins.items()
            if name not in self.installed or Version(self.installed[name]) != Version(pinned)
        }
        if wrong:
            return f"{where}: pip's resolution moved pins (pinned, resolved): {wrong}"
        return ""


def resolve(env_file: Path, workdir: Path) -> Resolution:
    python, requirements = env_spec(env_file)
    result = Resolution(env=env_file.name, python=python, pins=pins_of(requirements))
    started = time.monotonic()
    try:
        while True:
            result.passes += 1
            report = workdir / f"{env_file.stem}-{result.passes}.json"
            try:
                run = subprocess.run(
                    pip_command(exact(requirements) + result.added, python, report),
                    capture_output=True,
                    text=True,
                    cwd=workdir,
                    timeout=PIP_TIMEOUT_S,
                )
            except subprocess.TimeoutExpired:
                result.error = f"pip did not finish within {PIP_TIMEOUT_S} s"
                return result
            if run.returncode != 0:
                result.error = conflict_text(run.stdout, run.stderr)
                if result.added:
                    result.error += (
                        f"\n(with the requirements pip's markers missed for Python {python}: {result.added})"
                    )
                return result
            data = json.loads(report.read_text(encoding="utf-8"))
            result.installed = {
                canonicalize_name(item["metadata"]["name"]): item["metadata"]["version"] for item in data["install"]
            }
            if python == HOST_PYTHON:
                return result
            missed = [req for req in missed_requirements(data, python) if req not in result.added]
            if not missed:
                return result
            if result.passes == MAX_PASSES:
                result.error = f"still missing requirements for Python {python} after {MAX_PASSES} passes: {missed}"
                return result
            result.added += missed
    finally:
        result.seconds = time.monotonic() - started


def expected_cost(env_file: Path) -> tuple[bool, int]:
    try:
        python, requirements = env_spec(env_file)
    except AssertionError:
        return (False, 0)
    return (python != HOST_PYTHON, len(requirements))


@pytest.fixture(scope="session")
def resolutions(request, tmp_path_factory) -> dict[str, Resolution]:
    """Every selected env file resolved, in parallel: the wait is about that of the slowest env."""
    selected = {
        item.callspec.params["env_file"]
        for item in request.session.items
        if getattr(item, "originalname", None) == "test_env_pip_set_resolves_at_its_pins"
    } or set(ENV_FILES)
    workdir = tmp_path_factory.mktemp("pip-reports")
    # A resolution mostly reads wheels (CPU), so one pip per CPU, the slowest env first (another
    # Python: two passes; then the most pins): on 2 CPUs this takes 83 s, all six at once 110 s.
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 2
    longest_first = sorted(selected, key=expected_cost, reverse=True)
    with ThreadPoolExecutor(max_workers=min(len(selected), max(2, cpus))) as pool:
        futures = {env_file.name: pool.submit(resolve, env_file, workdir) for env_file in longest_first}
        results = {}
        for name, future in futures.items():
            try:
                results[name] = future.result()
            except Exception as error:  # a malformed env file fails its own test, not the others
                results[name] = Resolution(env=name, python="?", pins={}, error=f"{type(error).__name__}: {error}")
        return results


def test_there_are_env_files():
    assert ENV_FILES, "no envs/*.yaml"


@pytest.mark.parametrize("env_file", ENV_FILES, ids=lambda path: path.name)
def test_env_pip_set_resolves_at_its_pins(env_file, resolutions):
    failure = resolutions[env_file.name].failure()
    assert not failure, failure


def test_a_conflicting_env_is_reported_with_its_name_and_the_conflict(tmp_path):
    """The check can fail: requests 2.34.2 needs idna>=2.5, the env pins idna 2.4."""
    env_file = tmp_path / "broken.yaml"
    env_file.write_text(
        f"dependencies:\n  - python={HOST_PYTHON}\n  - pip\n  - pip:\n      - requests==2.34.2\n      - idna==2.4\n",
        encoding="utf-8",
    )
    failure = resolve(env_file, tmp_path).failure()
    assert failure.startswith(f"broken.yaml (pip set for Python {HOST_PYTHON}) does not resolve:")
    assert "ERROR: Cannot install idna===2.4 and requests" in failure
    assert "ResolutionImpossible" in failure
    assert "requests 2.34.2 depends on idna" in failure
    assert "is ignored" not in failure


def test_requirements_that_only_hold_on_the_env_python_are_added():
    """pip ran on 3.11 for a 3.12 env: `six; python_version > "3.11"` was skipped, setuptools 84 chosen."""

    def package(name, version, *requires):
        return {"metadata": {"name": name, "version": version, "requires_dist": list(requires)}}

    report = {
        "install": [
            package(
                "vllm",
                "0.33.0",
                'six>=1.16.0; python_version > "3.11"',
                'setuptools<81.0.0,>=78.1.1; python_version > "3.11"',
                'tomli; python_version < "3.11"',
                'pytest; extra == "test"',
                'typing-extensions>=4.6; python_version > "3.11"',
            ),
            package("setuptools", "84.2.1"),
            package("typing_extensions", "4.16.0"),
        ]
    }
    assert missed_requirements(report, "3.12") == ["setuptools<81.0.0,>=78.1.1", "six>=1.16.0"]
    assert missed_requirements(report, HOST_PYTHON) == []
