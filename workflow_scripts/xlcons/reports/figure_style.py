"""What the reports' heatmaps share: one colour scale per metric, missing cells drawn as missing, fitting titles.

* :data:`METRIC_RANGES` declares, in one place, the fixed colour range of each metric that has
  one from its nature (rates, F and consistency in [0, 1], correlations in [-1, 1], chrF and
  percentages in [0, 100]); every panel and every figure of a metric uses it, so that equal
  colours mean equal values across panels, models and runs. Values outside it (a negative
  cosine QE) take the end colour, and the colour bar shows an arrow.
* :func:`draw_heatmap` draws a matrix on that scale: cells without a value show the missing
  style (grey with hatching, :data:`MISSING_COLOUR`, :data:`MISSING_HATCH`; no colour of the
  viridis scale is grey), a matrix's diagonal (a language with itself, when asked) is white
  without hatching, and the axes and the colour bar are labelled.
* :func:`fit_title` wraps a title to the width it has, so that it stays inside the figure.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

import numpy as np

# The colour range of each metric, from what the metric can be. One place: a figure asks here.
UNIT = (0.0, 1.0)
CORRELATION = (-1.0, 1.0)
PERCENT = (0.0, 100.0)
METRIC_RANGES: dict[str, tuple[float, float]] = {
    # pass rates and consistency scores (Gupta et al. 2025, Xing et al. 2024, language confusion)
    "lcpr": UNIT,
    "line_pass": UNIT,
    "word_pass": UNIT,
    "F": UNIT,
    "f1": UNIT,
    "precision": UNIT,
    "recall": UNIT,
    "consistency": UNIT,
    "xSC": UNIT,
    "xSC_oracle": UNIT,
    "xAC": UNIT,
    "accuracy": UNIT,
    # language fidelity, empathy's per-mechanism agreement, tokenizer class shares
    "fidelity_same": UNIT,
    "fidelity_english": UNIT,
    "ER": UNIT,
    "IP": UNIT,
    "EX": UNIT,
    "ascii_share": UNIT,
    "character_share": UNIT,
    "subword_share": UNIT,
    # quality estimates: COMET-style scores and embedding cosines (a negative cosine takes the end colour)
    "qe": UNIT,
    # correlations
    "pearson": CORRELATION,
    "spearman": CORRELATION,
    "kendall": CORRELATION,
    # chrF and shares in per cent
    "chrF": PERCENT,
    "chrf": PERCENT,
    "chrF++": PERCENT,
    "share_percent": PERCENT,
}
COLOUR_MAP = "viridis"
MISSING_COLOUR = "#bdbdbd"  # grey: not a colour of viridis
MISSING_EDGE = "#7f7f7f"  # the hatching's colour
MISSING_HATCH = "///"
DIAGONAL_COLOUR = "white"
MISSING_NOTE = "grey hatched: no value"


def declared_range(metric: str) -> tuple[float, float] | None:
    """The metric's declared colour range, or None: its own entry, else that of the metric it
    qualifies (``f1@qe_pass``, F over the items that pass QE, is an F: ``f1``'s range)."""
    return METRIC_RANGES.get(metric) or METRIC_RANGES.get(metric.split("@", 1)[0])


def metric_range(metric: str) -> tuple[float, float]:
    """The metric's fixed colour range (:data:`METRIC_RANGES`); a metric without one is an error, not a guess."""
    try:
        return METRIC_RANGES[metric]
    except KeyError:
        raise KeyError(f"no colour range declared for metric {metric!r}; add it to METRIC_RANGES") from None


def _extend(matrix: np.ndarray, low: float, high: float) -> str:
    finite = matrix[np.isfinite(matrix)]
    below, above = bool((finite < low).any()), bool((finite > high).any())
    return "both" if below and above else "min" if below else "max" if above else "neither"


def draw_heatmap(
    axis,
    matrix: np.ndarray,
    metric: str,
    *,
    xticklabels: Sequence[str],
    yticklabels: Sequence[str],
    xlabel: str,
    ylabel: str,
    cbar_label: str,
    diagonal: bool = False,
    annotate: bool = True,
    fmt: str = ".2f",
    annot_size: float = 7,
    cbar_kws: dict | None = None,
    linewidths: float = 0.3,
):
    """`matrix` (NaN: no value) on `metric`'s fixed colour scale, cells without a value grey and
    hatched, the diagonal white where `diagonal` (a matrix of language pairs); the axes and the
    colour bar labelled. Returns the seaborn axis."""
    import seaborn as sns
    from matplotlib.patches import Rectangle

    low, high = metric_range(metric)
    rows, columns = matrix.shape
    missing = ~np.isfinite(matrix)
    # behind the cells: the missing style over the whole matrix, shown where a cell is masked
    axis.add_patch(
        Rectangle(
            (0, 0),
            columns,
            rows,
            facecolor=MISSING_COLOUR,
            edgecolor=MISSING_EDGE,
            hatch=MISSING_HATCH,
            linewidth=0,
            zorder=0.5,
            label="missing",
        )
    )
    if diagonal:
        for index in range(min(rows, columns)):
            if missing[index, index]:
                axis.add_patch(
                    Rectangle(
                        (index, index), 1, 1, facecolor=DIAGONAL_COLOUR, linewidth=0, zorder=0.6, label="diagonal"
                    )
                )
    sns.heatmap(
        matrix,
        ax=axis,
        vmin=low,
        vmax=high,
        cmap=COLOUR_MAP,
        mask=missing,
        annot=annotate and matrix.size > 0,
        fmt=fmt,
        annot_kws={"fontsize": annot_size},
        xticklabels=list(xticklabels) or False,
        yticklabels=list(yticklabels) or False,
        cbar_kws={"label": cbar_label, "extend": _extend(matrix, low, high), **(cbar_kws or {})},
        linewidths=linewidths,
        linecolor="white",
    )
    axis.set_xlabel(xlabel)
    axis.set_ylabel(ylabel)
    return axis


def wrap(text: str, width_inches: float, fontsize: float) -> str:
    """`text` broken into lines that fit `width_inches` at `fontsize` points (about 0.6 em a character)."""
    characters = max(12, int(width_inches * 72 / (0.6 * fontsize)))
    return "\n".join(textwrap.wrap(text, characters)) or text


def fit_title(axis, text: str, *, pad: float = 6, fontsize: float | None = None):
    """The axis's title, wrapped to the axis's width (a figure laid out with constrained layout keeps it inside)."""
    import matplotlib

    size = fontsize or matplotlib.rcParams["axes.titlesize"]
    points = matplotlib.font_manager.FontProperties(size=size).get_size_in_points()
    width = 0.85 * axis.get_position().width * axis.figure.get_figwidth()  # before the colour bar takes its share
    return axis.set_title(wrap(text, width, points), pad=pad, fontsize=size)


def fit_suptitle(figure, text: str, *, fontsize: float = 12):
    """The figure's title, wrapped to the figure's width."""
    return figure.suptitle(wrap(text, figure.get_figwidth() * 0.95, fontsize), fontsize=fontsize)
