"""A config file that is not valid YAML, or that gives a key twice, is reported with its file,
line and column, before Snakemake reads it (Snakemake's own message names neither), on the
command line users type."""

from __future__ import annotations

import pytest
import yaml

from test_workflow import REPO, snakemake
from xlcons.config import ConfigError, load_config
from xlcons.config_files import (
    UniqueKeyLoader,
    check_command_line,
    config_files,
    config_override_problem,
    yaml_problem,
)

UNCLOSED = "models:\n  mine: {backend: hf\n  other: 1\n"


class TestCommandLine:
    def test_every_form_of_the_config_option_is_read_in_order(self):
        argv = [
            "--cores",
            "2",
            "--configfile",
            "a.yaml",
            "b.yaml",
            "-n",
            "--configfiles=c.yaml",
            "--configfile",
            "d.yaml",
        ]
        assert config_files(argv) == ["a.yaml", "b.yaml", "c.yaml", "d.yaml"]

    def test_options_and_targets_after_another_option_are_not_config_files(self):
        assert config_files(["--configfile", "a.yaml", "--cores", "1", "results/x.parquet"]) == ["a.yaml"]
        assert config_files(["results/x.parquet", "--config", "k=v"]) == []


class TestConfigOverrides:
    """--config entries Snakemake would stop on with a traceback are named first, with how to
    set a nested key."""

    def test_a_dotted_key_gets_the_yaml_of_its_nested_key(self):
        problem = config_override_problem(["-n", "--config", "released_model=all", "evaluators.judge.llm.hf_id=org/j"])
        assert problem is not None
        assert problem.startswith(
            "xlcons: --config evaluators.judge.llm.hf_id=org/j: --config sets top-level keys only (KEY=VALUE)"
        )
        assert "evaluators:\n  judge:\n    llm:\n      hf_id: org/j\n" in problem
        with pytest.raises(SystemExit, match="sets top-level keys only"):
            check_command_line(["--config=output.bootstrap_resamples=50"])

    def test_entries_snakemake_reads_pass_and_other_malformed_ones_are_named(self):
        assert config_override_problem(["--config", "released_model=all", "x-note=1", "-n", "a.b=c"]) is None
        assert config_override_problem(["-C", "released_model"]) == (
            "xlcons: --config released_model: each --config entry is KEY=VALUE (a top-level config key)"
        )


class TestYamlProblem:
    def test_an_unclosed_mapping_names_the_line_of_the_problem_and_where_the_mapping_opened(self, tmp_path):
        path = tmp_path / "mine.yaml"
        path.write_text(UNCLOSED)
        assert yaml_problem(path) == (
            f"{path}: line 3, column 8: expected ',' or '}}', but got ':' (parsing a flow mapping at line 2, column 9)"
        )

    def test_a_tab_indent_names_its_line(self, tmp_path):
        path = tmp_path / "tabs.yaml"
        path.write_text("models:\n\tmine: 1\n")
        assert yaml_problem(path) == f"{path}: line 2, column 1: found character '\\t' that cannot start any token"

    def test_bytes_that_are_not_utf8_are_named(self, tmp_path):
        path = tmp_path / "latin1.yaml"
        path.write_bytes("models: {caf\u00e9: 1}\n".encode("latin-1"))
        assert yaml_problem(path) == f"{path}: not UTF-8 text (byte 12: b'\\xe9')"

    def test_a_valid_file_has_no_problem(self, tmp_path):
        path = tmp_path / "fine.yaml"
        path.write_text("models: {}\n")
        assert yaml_problem(path) is None

    def test_without_config_option_the_default_config_is_checked_and_missing_files_are_left_to_snakemake(
        self, tmp_path
    ):
        check_command_line(["--configfile", "absent.yaml"], cwd=tmp_path)
        (tmp_path / "config").mkdir()
        (tmp_path / "config" / "config.yaml").write_text(UNCLOSED)
        with pytest.raises(SystemExit, match="config.yaml: line 3, column 8"):
            check_command_line(["--cores", "1"], cwd=tmp_path)


def test_snakemake_stops_naming_the_file_and_line_of_a_yaml_error(tmp_path):
    (tmp_path / "broken.yaml").write_text(UNCLOSED)
    result = snakemake(
        "--snakefile", str(REPO / "Snakefile"), "--configfile", "broken.yaml", "-n", cwd=tmp_path, timeout=120
    )
    assert result.returncode != 0
    assert "broken.yaml: line 3, column 8: expected ',' or '}', but got ':'" in result.output, result.output[-2000:]


DUPLICATE_MODEL = """\
models:
  smollm2-135m:
    hf_id: HuggingFaceTB/SmolLM2-135M-Instruct
  smollm2-135m:
    path: tiny-llm
"""
DUPLICATE_ITEMS = """\
datasets:
  multiq:
    items: {limit: 3}
    languages: [en, de]
    items: {limit: 30}
"""


class TestDuplicateKeys:
    """A key given twice in one mapping is refused, at any depth: YAML would keep the last one
    silently, so a model's label could run another model. The message names the file, the
    line of the second key, its dotted path and the line of the first."""

    def test_a_model_named_twice_is_refused_with_both_lines(self, tmp_path):
        path = tmp_path / "models.yaml"
        path.write_text(DUPLICATE_MODEL)
        assert yaml_problem(path) == (
            f"{path}: line 4, column 3: the key `models.smollm2-135m` is given twice "
            f"(first on line 2); YAML would silently keep the last one: remove or rename one of them"
        )

    def test_a_nested_duplicate_names_its_whole_path(self, tmp_path):
        path = tmp_path / "items.yaml"
        path.write_text(DUPLICATE_ITEMS)
        assert "line 5, column 5: the key `datasets.multiq.items` is given twice (first on line 3)" in yaml_problem(
            path
        )

    def test_a_duplicate_inside_a_list_item_and_in_a_flow_mapping_is_refused(self, tmp_path):
        path = tmp_path / "list.yaml"
        path.write_text("evaluators:\n  judge:\n    runs:\n      - {name: a, name: b}\n")
        assert (
            "line 4, column 19: the key `evaluators.judge.runs[0].name` is given twice (first on line 4)"
            in yaml_problem(path)
        )

    def test_keys_that_read_as_the_same_value_are_duplicates(self, tmp_path):
        path = tmp_path / "bools.yaml"
        path.write_text("flags:\n  yes: 1\n  true: 2\n")
        assert "the key `flags.True` is given twice (first on line 2)" in yaml_problem(path)

    def test_a_merge_key_may_be_overridden_and_equal_keys_in_different_mappings_are_fine(self, tmp_path):
        path = tmp_path / "merge.yaml"
        path.write_text(
            "base: &base {backend: hf, path: a}\nmodels:\n  one: {<<: *base, path: b}\n  two: {<<: *base, path: c}\n"
        )
        assert yaml_problem(path) is None

    def test_a_duplicate_in_a_second_configfile_stops_the_command_line_check(self, tmp_path):
        (tmp_path / "first.yaml").write_text("models: {}\n")
        (tmp_path / "second.yaml").write_text(DUPLICATE_ITEMS)
        with pytest.raises(
            SystemExit, match=r"second\.yaml: line 5, column 5: the key `datasets\.multiq\.items` is given twice"
        ):
            check_command_line(["--configfile", "first.yaml", "second.yaml", "-n"], cwd=tmp_path)

    def test_load_config_refuses_a_duplicate_key(self, tmp_path):
        path = tmp_path / "config.yaml"
        path.write_text(DUPLICATE_MODEL)
        with pytest.raises(ConfigError, match=r"line 4, column 3: the key `models\.smollm2-135m` is given twice"):
            load_config(path)

    def test_the_strict_loader_reads_a_file_without_duplicates_as_safe_load_does(self, tmp_path):
        text = "a: {b: [1, {c: 2}], d: null}\ne: &x {f: 1}\ng: *x\n"
        assert yaml.load(text, Loader=UniqueKeyLoader) == yaml.safe_load(text)


def test_snakemake_without_the_workflow_profile_still_refuses_a_duplicate_key(tmp_path):
    """The Snakefile checks the config files it read, so `--workflow-profile none` (or a profile
    of one's own) does not let a duplicate key through."""
    (tmp_path / "dup.yaml").write_text(DUPLICATE_MODEL)
    result = snakemake(
        "--snakefile",
        str(REPO / "Snakefile"),
        "--workflow-profile",
        "none",
        "--configfile",
        "dup.yaml",
        "-n",
        cwd=tmp_path,
        timeout=120,
    )
    assert result.returncode != 0
    assert (
        "dup.yaml: line 4, column 3: the key `models.smollm2-135m` is given twice (first on line 2)" in result.output
    ), result.output[-2000:]
    assert "Job stats" not in result.stdout
