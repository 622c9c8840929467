"""The table writers: Markdown and booktabs LaTeX that hold any text a cell may contain."""

from __future__ import annotations

import polars as pl

from latex_check import check_tabular
from xlcons.reports.formats import to_latex, to_markdown

TRICKY = ["a_b", "50%", "R&D", "#1", "x^2", "{set}", "~home", "C:\\path", "$5", "plain"]


def test_latex_escapes_every_special_character_once():
    frame = pl.DataFrame({"model_name": TRICKY, "value": [float(i) for i in range(len(TRICKY))]})
    latex = to_latex(frame, decimals=2)
    check_tabular(latex)
    assert r"model\_name & value \\" in latex
    assert r"C:\textbackslash{}path" in latex and r"\{set\}" in latex and r"R\&D" in latex
    assert r"\textasciicircum{}2" in latex and r"\textasciitilde{}home" in latex


def test_the_checker_catches_a_broken_table():
    import pytest

    broken = "\\begin{tabular}{lr}\n\\toprule\na & b \\\\\n\\midrule\nx_y & 1 \\\\\n\\bottomrule\n\\end{tabular}\n"
    with pytest.raises(AssertionError, match="unescaped"):
        check_tabular(broken)
    with pytest.raises(AssertionError, match="cells"):
        check_tabular(broken.replace("x_y & 1", "x & 1 & 2"))


def test_markdown_escapes_pipes_and_keeps_the_columns():
    frame = pl.DataFrame({"model": ["a|b"], "Avg": [0.5]})
    lines = to_markdown(frame, decimals=2).splitlines()
    assert lines[0] == "| model | Avg |" and lines[2] == "| a\\|b | 0.50 |"


def test_the_same_figure_gives_the_same_bytes_on_every_run(tmp_path):
    """No creation date in PDF or SVG: identical runs give identical files."""
    import time

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from xlcons.reports.formats import save_figure

    written = []
    for run in ("first", "second"):
        figure, axes = plt.subplots()
        axes.plot([0, 1, 2], [2, 0, 1])
        written.append(save_figure(figure, tmp_path / run / "figure", ["pdf", "svg", "png"]))
        plt.close(figure)
        time.sleep(1.1)  # a date, if written, would differ
    for first, second in zip(*written):
        assert first.read_bytes() == second.read_bytes(), first.suffix
