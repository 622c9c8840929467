"""Writing report tables (CSV, Markdown, LaTeX booktabs) and figures (PNG, PDF), for every report."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np
import polars as pl

TABLE_SUFFIXES = {"csv": ".csv", "markdown": ".md", "latex": ".tex"}


def _cell(value, decimals: int) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "–"
    if isinstance(value, float):
        return f"{value:.{decimals}f}"
    return str(value)


def to_markdown(frame: pl.DataFrame, decimals: int = 1) -> str:
    header = "| " + " | ".join(frame.columns) + " |"
    rule = "|" + "|".join("---:" if frame[column].dtype.is_numeric() else "---" for column in frame.columns) + "|"
    body = [
        "| " + " | ".join(_cell(value, decimals).replace("|", "\\|") for value in row) + " |"
        for row in frame.iter_rows()
    ]
    return "\n".join([header, rule, *body]) + "\n"


# LaTeX's special characters, replaced in one pass (a replacement's own braces stay as they are).
_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def _latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIALS.get(char, char) for char in text)


def to_latex(frame: pl.DataFrame, decimals: int = 1) -> str:
    """A booktabs tabular (needs \\usepackage{booktabs})."""
    align = "".join("r" if frame[column].dtype.is_numeric() else "l" for column in frame.columns)
    lines = [
        f"\\begin{{tabular}}{{{align}}}",
        "\\toprule",
        " & ".join(_latex_escape(column) for column in frame.columns) + r" \\",
        "\\midrule",
    ]
    lines += [" & ".join(_latex_escape(_cell(value, decimals)) for value in row) + r" \\" for row in frame.iter_rows()]
    return "\n".join([*lines, "\\bottomrule", "\\end{tabular}"]) + "\n"


def write_table_files(
    frame: pl.DataFrame, base: Path | str, formats: Iterable[str] = ("csv", "markdown"), decimals: int = 1
) -> list[Path]:
    """`base` + .csv (full precision) / .md / .tex (`decimals` places), as asked, each written
    atomically (xlcons.atomic: a killed job leaves the old file or none, never half a table)."""
    from xlcons.atomic import atomic_path

    base = Path(base)
    base.parent.mkdir(parents=True, exist_ok=True)
    written = []
    for name in formats:
        path = base.with_name(base.name + TABLE_SUFFIXES[name])
        with atomic_path(path) as temporary:
            if name == "csv":
                frame.write_csv(temporary)
            elif name == "markdown":
                temporary.write_text(to_markdown(frame, decimals), encoding="utf-8")
            else:
                temporary.write_text(to_latex(frame, decimals), encoding="utf-8")
        written.append(path)
    return written


# Without a creation date, and with SVG's element ids drawn from a fixed salt, the same figure
# gives the same bytes on every run (the backends stamp the time, and SVG ids are random, otherwise).
_NO_DATE = {"pdf": {"CreationDate": None}, "svg": {"Date": None}}
_FIXED_IDS = {"svg.hashsalt": "xlcons"}


def save_figure(figure, base: Path, formats: Iterable[str]) -> list[Path]:
    import matplotlib  # here, not at the top: the workflow imports this module while it builds the DAG

    base.parent.mkdir(parents=True, exist_ok=True)
    written = []
    for name in formats:
        path = base.with_name(f"{base.name}.{name}")
        with matplotlib.rc_context(_FIXED_IDS):
            figure.savefig(path, dpi=200, bbox_inches="tight", metadata=_NO_DATE.get(name))
        written.append(path)
    return written
