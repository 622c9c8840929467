"""A structural check of the booktabs tables the reports write (no TeX installation needed)."""

from __future__ import annotations

import re

_UNESCAPED = re.compile(r"(?<!\\)[&%$#_{}~^]")


def check_tabular(text: str) -> None:
    """One tabular, booktabs rules in order, every row with as many cells as columns, and no
    special character left unescaped inside a cell."""
    lines = text.strip().splitlines()
    spec = re.fullmatch(r"\\begin\{tabular\}\{([lrc]+)\}", lines[0])
    assert spec, f"first line is not a tabular: {lines[0]!r}"
    assert lines[-1] == r"\end{tabular}" and text.count(r"\begin{tabular}") == text.count(r"\end{tabular}") == 1
    assert lines[1] == r"\toprule" and lines[3] == r"\midrule" and lines[-2] == r"\bottomrule"
    columns = len(spec.group(1))
    for line in [lines[2], *lines[4:-2]]:
        assert line.endswith(r" \\"), f"row does not end with \\\\: {line!r}"
        cells = re.split(r"(?<!\\)&", line[: -len(r" \\")])
        assert len(cells) == columns, f"{len(cells)} cells for {columns} columns: {line!r}"
        for cell in cells:
            bare = (
                cell.replace(r"\textbackslash{}", "")
                .replace(r"\textasciitilde{}", "")
                .replace(r"\textasciicircum{}", "")
            )
            assert not _UNESCAPED.search(bare), f"unescaped special character in {cell!r}"
