"""A config file that is not valid YAML is reported with its file, line and column, before
Snakemake reads it (Snakemake's own message names neither), on the command line users type."""

from __future__ import annotations

import pytest

from test_workflow import REPO, snakemake
from xlcons.config_files import check_command_line, config_files, yaml_problem

UNCLOSED = "models:\n  mine: {backend: hf\n  other: 1\n"


class TestCommandLine:
    def test_every_form_of_the_config_option_is_read_in_order(self):
        argv = ["--cores", "2", "--configfile", "a.yaml", "b.yaml", "-n", "--configfiles=c.yaml", "--configfile", "d.yaml"]
        assert config_files(argv) == ["a.yaml", "b.yaml", "c.yaml", "d.yaml"]

    def test_options_and_targets_after_another_option_are_not_config_files(self):
        assert config_files(["--configfile", "a.yaml", "--cores", "1", "results/x.parquet"]) == ["a.yaml"]
        assert config_files(["results/x.parquet", "--config", "k=v"]) == []


class TestYamlProblem:
    def test_an_unclosed_mapping_names_the_line_of_the_problem_and_where_the_mapping_opened(self, tmp_path):
        path = tmp_path / "mine.yaml"
        path.write_text(UNCLOSED)
        assert yaml_problem(path) == (f"{path}: line 3, column 8: expected ',' or '}}', but got ':' "
                                      f"(parsing a flow mapping at line 2, column 9)")

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

    def test_without_config_option_the_default_config_is_checked_and_missing_files_are_left_to_snakemake(self, tmp_path):
        check_command_line(["--configfile", "absent.yaml"], cwd=tmp_path)
        (tmp_path / "config").mkdir()
        (tmp_path / "config" / "config.yaml").write_text(UNCLOSED)
        with pytest.raises(SystemExit, match="config.yaml: line 3, column 8"):
            check_command_line(["--cores", "1"], cwd=tmp_path)


def test_snakemake_stops_naming_the_file_and_line_of_a_yaml_error(tmp_path):
    (tmp_path / "broken.yaml").write_text(UNCLOSED)
    result = snakemake("--snakefile", str(REPO / "Snakefile"), "--configfile", "broken.yaml", "-n", cwd=tmp_path, timeout=120)
    assert result.returncode != 0
    assert "broken.yaml: line 3, column 8: expected ',' or '}', but got ':'" in result.output, result.output[-2000:]
