"""Honest figures (issue 29): every heatmap kind, drawn on small inputs with the Agg backend and
read back from its matplotlib objects: one colour scale per metric (the range declared in
xlcons.reports.figure_style, equal across panels), labelled axes and colour bars, the models
in the given order, a missing cell drawn in the missing style (not white like a diagonal) and
a title that lies inside the figure."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import polars as pl
import pyarrow as pa
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import QuadMesh
from matplotlib.colors import to_rgb

from xlcons.evaluators.knowledge.tables import KNOWLEDGE_PAIRS
from xlcons.evaluators.registry import EVALUATORS
from xlcons.evaluators.translation_ability import TRANSLATION_DIRECTIONS
from xlcons.reports import (
    evaluator_figures,
    heatmaps,
    knowledge,
    multiq_figures,
    translation_ability_figures,
    translation_quality,
)
from xlcons.reports.figure_style import (
    COLOUR_MAP,
    DIAGONAL_COLOUR,
    METRIC_RANGES,
    MISSING_COLOUR,
    MISSING_HATCH,
    metric_range,
)
from xlcons.reports.qe_scores import EVALUATOR as QE_EVALUATOR
from xlcons.reports.translate_then_evaluate import plot_heatmap as plot_tte_heatmap

MODELS = ["zeta", "alpha", "mid"]  # the config's order: neither sorted nor the results' order


renderers: dict[int, object] = {}


@pytest.fixture
def captured(monkeypatch):
    """The figures the report modules would save, drawn by the Agg renderer instead of written."""
    figures = []

    def capture(figure, base, formats):
        if not isinstance(figure.canvas, FigureCanvasAgg):
            FigureCanvasAgg(figure)
        figure.canvas.draw()
        renderers[id(figure)] = figure.canvas.get_renderer()  # kept: pyplot's close takes the canvas away
        figures.append(figure)
        return []

    for module in (
        evaluator_figures,
        heatmaps,
        knowledge,
        multiq_figures,
        translation_ability_figures,
        translation_quality,
    ):
        monkeypatch.setattr(module, "save_figure", capture)
    return figures


def cells(axis) -> list[QuadMesh]:
    """The axis's heatmap cells: a QuadMesh with a colour bar (not a colour bar's own)."""
    return [item for item in axis.collections if isinstance(item, QuadMesh) and item.colorbar is not None]


def meshes(figure) -> list[QuadMesh]:
    return [mesh for axis in figure.axes for mesh in cells(axis)]


def heatmap_axes(figure):
    return [axis for axis in figure.axes if cells(axis)]


def patches(axis, label: str):
    return [patch for patch in axis.patches if patch.get_label() == label]


def assert_honest(figure, metric: str, panels: int) -> None:
    """One colour scale (the declared one) on every panel, labelled axes and colour bars, the title inside."""
    found = meshes(figure)
    assert len(found) == panels
    assert {mesh.get_clim() for mesh in found} == {metric_range(metric)}
    for mesh in found:
        assert mesh.colorbar.ax.get_ylabel().strip()
    for axis in heatmap_axes(figure):
        assert axis.get_xlabel().strip() and axis.get_ylabel().strip()
    assert_titles_inside(figure)


def assert_titles_inside(figure) -> None:
    """Every title's box, as the renderer lays it out, lies inside the figure's."""
    renderer = renderers[id(figure)]
    box = figure.bbox
    for axis in figure.axes:
        if axis.get_title():
            extent = axis.title.get_window_extent(renderer)
            assert box.x0 <= extent.x0 and extent.x1 <= box.x1 and box.y0 <= extent.y0 and extent.y1 <= box.y1, (
                axis.get_title()
            )


def assert_missing(axis, row: int, column: int) -> None:
    """The cell has no colour of the scale (masked) and the hatched grey patch lies behind it."""
    (mesh,) = cells(axis)
    values = mesh.get_array()
    columns = axis.get_xlim()[1]
    assert np.ma.is_masked(values) and np.ma.getmaskarray(values).reshape(-1, int(round(columns)))[row, column]
    (background,) = patches(axis, "missing")
    assert background.get_hatch() == MISSING_HATCH
    assert to_rgb(background.get_facecolor()) == pytest.approx(to_rgb(MISSING_COLOUR))
    x, y = background.get_xy()
    assert x <= column and column + 1 <= x + background.get_width()
    assert y <= row and row + 1 <= y + background.get_height()


def test_the_missing_colour_is_no_colour_of_the_scale_and_not_the_diagonals():
    colours = matplotlib.colormaps[COLOUR_MAP](np.linspace(0, 1, 256))[:, :3]
    missing = np.array(to_rgb(MISSING_COLOUR))
    assert np.min(np.linalg.norm(colours - missing, axis=1)) > 0.15
    assert to_rgb(DIAGONAL_COLOUR) != to_rgb(MISSING_COLOUR)


def test_metric_ranges_come_from_the_metrics_nature():
    assert METRIC_RANGES["lcpr"] == METRIC_RANGES["F"] == METRIC_RANGES["xSC"] == (0.0, 1.0)
    assert METRIC_RANGES["spearman"] == (-1.0, 1.0)
    assert METRIC_RANGES["chrF"] == (0.0, 100.0)


def test_a_qualified_metric_takes_the_range_of_the_metric_it_qualifies():
    from xlcons.reports.figure_style import declared_range

    assert declared_range("f1@qe_pass") == declared_range("F@qe_pass-all") == declared_range("f1") == (0.0, 1.0)
    assert declared_range("tokens_per_prompt") is None
    with pytest.raises(KeyError, match="METRIC_RANGES"):
        metric_range("no such metric")


def results_rows(
    evaluator: str, metric: str, cells: dict[tuple[str, str, str], float], translator: str = ""
) -> pl.DataFrame:
    return pl.DataFrame(
        [
            {
                "dataset": dataset,
                "evaluator": evaluator,
                "translator": translator,
                "metric": metric,
                "model": model,
                "lang": lang,
                "value": value,
            }
            for (dataset, model, lang), value in cells.items()
        ]
    )


def test_the_model_by_language_heatmap_is_honest(captured):
    # alpha first in the results; the config says zeta, alpha, mid. mid has no Hindi: a missing cell.
    results = results_rows(
        "language_confusion",
        "lcpr",
        {
            ("ds", "alpha", "de"): 0.18,
            ("ds", "alpha", "hi"): 0.19,
            ("ds", "zeta", "de"): 0.185,
            ("ds", "zeta", "hi"): 0.19,
            ("ds", "mid", "de"): 0.18,
        },
    )
    heatmaps.plot_metric_heatmap(
        results, ("ds", "language_confusion", "lcpr"), ("LCPR", "Pass rate"), "unused", ["png"], models=MODELS
    )
    (figure,) = captured
    assert_honest(figure, "lcpr", panels=1)
    (axis,) = heatmap_axes(figure)
    assert [label.get_text() for label in axis.get_yticklabels()] == MODELS
    languages = [label.get_text() for label in axis.get_xticklabels()]
    assert_missing(axis, MODELS.index("mid"), languages.index("hi"))
    assert "grey hatched" in axis.get_title()


def test_the_readme_heatmaps_long_title_fits_its_narrow_figure(captured):
    results = results_rows("information", "F", {("information", "m", "de"): 0.5, ("information", "n", "fr"): 0.7})
    plot_tte_heatmap(results, "information", "unused", ["png"], models=["n", "m"])
    (figure,) = captured
    assert_honest(figure, "F", panels=1)
    (axis,) = heatmap_axes(figure)
    assert "\n" in axis.get_title()  # wrapped, not cut off
    assert [label.get_text() for label in axis.get_yticklabels()] == ["n", "m"]


def test_the_qe_heatmap_has_one_scale_across_its_panels_and_the_given_model_order(captured):
    results = results_rows(
        QE_EVALUATOR,
        "qe",
        {
            ("a", "alpha", "de"): 0.18,
            ("a", "zeta", "de"): 0.19,
            ("a", "mid", "de"): 0.185,
            ("b", "zeta", "de"): 0.9,
            ("b", "alpha", "fr"): 0.1,
            ("b", "mid", "de"): 0.5,
        },
    )
    translation_quality.plot_qe_heatmap(results, "unused", ["png"], models=MODELS)
    (figure,) = captured
    assert_honest(figure, "qe", panels=2)
    first, second = heatmap_axes(figure)
    for axis in (first, second):
        assert [label.get_text() for label in axis.get_yticklabels()] == MODELS
    languages = [label.get_text() for label in second.get_xticklabels()]
    assert_missing(second, MODELS.index("zeta"), languages.index("fr"))


def pair_rows(model: str, metric: str, values: dict[tuple[str, str], float | None]) -> list[dict]:
    return [
        {
            "dataset": "makqa",
            "model": model,
            "variant": "few_shot",
            "metric": metric,
            "domain": "all",
            "lang_i": i,
            "lang_j": j,
            "value": value,
            "n_items": 5,
        }
        for (i, j), value in values.items()
    ]


def test_the_makqa_pair_plot_draws_missing_pairs_unlike_its_diagonal(captured):
    values = {("en", "de"): 0.6, ("de", "en"): 0.6, ("en", "fr"): 0.4, ("fr", "en"): 0.4, ("de", "fr"): None}
    pairs = pa.Table.from_pylist(
        pair_rows("m", "xSC", values) + pair_rows("m", "xAC", {key: 0.3 for key in values}), schema=KNOWLEDGE_PAIRS
    )
    knowledge.plot_pairs(pairs, "m", "unused", ["png"])
    (figure,) = captured
    assert_honest(figure, "xSC", panels=2)
    xsc = heatmap_axes(figure)[0]
    languages = [label.get_text() for label in xsc.get_yticklabels()]
    assert_missing(xsc, languages.index("de"), languages.index("fr"))
    diagonal = patches(xsc, "diagonal")
    assert {patch.get_xy() for patch in diagonal} == {(index, index) for index in range(len(languages))}
    assert all(not patch.get_hatch() and to_rgb(patch.get_facecolor()) == to_rgb("white") for patch in diagonal)


def test_the_flores_heatmaps_put_each_metric_on_its_own_fixed_scale(captured):
    directions = pl.from_arrow(
        pa.Table.from_pylist(
            [
                {
                    "dataset": "flores",
                    "model": "m",
                    "source": source,
                    "target": target,
                    "chrf": chrf,
                    "chrf_pp": chrf,
                    "n_items": 10,
                    "n_empty": 0,
                    "n_failed": 0,
                    "n_too_long": 0,
                    "n_changed": 0,
                }
                for source, target, chrf in (("en", "de", 40.0), ("de", "en", 45.0), ("en", "fr", 50.0))
            ],
            schema=TRANSLATION_DIRECTIONS,
        )
    )
    pairs = pl.from_arrow(
        pa.Table.from_pylist(pair_rows("m", "xSC", {("en", "de"): 0.6, ("de", "en"): 0.6}), schema=KNOWLEDGE_PAIRS)
    )
    translation_ability_figures.plot_heatmaps(directions, pairs, "m", "unused", ["png"])
    (figure,) = captured
    xsc, chrf = heatmap_axes(figure)
    assert [mesh.get_clim() for mesh in meshes(figure)] == [metric_range("xSC"), metric_range("chrF")]
    languages = [label.get_text() for label in chrf.get_yticklabels()]
    assert_missing(chrf, languages.index("fr"), languages.index("en"))  # fr → en was not translated
    for axis in (xsc, chrf):
        assert axis.get_xlabel() and axis.get_ylabel() and patches(axis, "diagonal")


def test_the_multiq_language_matrix_is_on_the_percent_scale(captured):
    matrix = pl.DataFrame({"prompt_lang": ["de", "fr"], "n_scored": [3, 4], "de": [90.0, None], "en": [10.0, 25.0]})
    multiq_figures.plot_language_matrix(matrix, "m", "unused", ["png"])
    (figure,) = captured
    assert_honest(figure, "share_percent", panels=1)
    assert_missing(heatmap_axes(figure)[0], 1, 0)


def test_the_multiq_fidelity_figures_long_title_fits_and_keeps_the_model_order(captured):
    shares = pl.DataFrame(
        {
            "variant": ["main"] * 3,
            "model": MODELS,
            "same": [80.0, 60.0, 90.0],
            "english": [15.0, 30.0, 5.0],
            "other": [5.0, 10.0, 5.0],
        }
    )
    multiq_figures.plot_fidelity(shares, "unused", ["png"])
    (figure,) = captured
    assert_titles_inside(figure)
    (axis,) = figure.axes
    assert axis.get_xlabel() and axis.get_ylabel()
    assert [label.get_text() for label in axis.get_yticklabels()] == MODELS


def test_an_evaluator_report_draws_a_panel_per_declared_metric_each_on_its_own_scale(captured):
    """A user's set scored for language fidelity: both declared metrics, stacked, on [0, 1]."""
    info = EVALUATORS["language_id"]
    same = {("mine", "alpha", "de"): 0.9, ("mine", "zeta", "de"): 0.8, ("mine", "zeta", "hi"): 0.5}
    english = {key: 1 - value for key, value in same.items()}
    rows = pl.concat(
        [results_rows("fidelity", "fidelity_same", same), results_rows("fidelity", "fidelity_english", english)]
    )
    evaluator_figures.plot_language_figure(rows, info, "mine", "unused", ["png"], models=MODELS)
    (figure,) = captured
    assert_honest(figure, "fidelity_same", panels=2)
    axes = heatmap_axes(figure)
    titles = [" ".join(axis.get_title().split()) for axis in axes]  # wrapped to fit: one line again
    assert [title.split(";")[0] for title in titles] == [
        "mine: language_id fidelity_same",
        "mine: language_id fidelity_english",
    ]
    for axis, title in zip(axes, titles):
        assert [label.get_text() for label in axis.get_yticklabels()] == MODELS
        languages = [label.get_text() for label in axis.get_xticklabels()]
        assert_missing(axis, MODELS.index("alpha"), languages.index("hi"))
        assert_missing(axis, MODELS.index("mid"), languages.index("de"))  # a model without a row
        assert "grey hatched" in title


def test_an_evaluator_report_of_chrf_keeps_chrfs_scale_and_of_translations_the_primary_translators_rows(captured):
    rows = pl.concat(
        [
            results_rows("translation_ability", "chrF", {("mine", "m", "de"): 40.0}),
            results_rows("translation_ability", "chrF++", {("mine", "m", "de"): 38.0}),
        ]
    )
    evaluator_figures.plot_language_figure(rows, EVALUATORS["translation_ability"], "mine", "unused", ["png"])
    information = pl.concat(
        [
            results_rows("information", metric, {("mine", "m", "de"): value}, translator=translator)
            for metric in ("F", "precision", "recall")
            for translator, value in (("nllb", 0.25), ("other", 0.75))
        ]
    )
    evaluator_figures.plot_language_figure(
        information, EVALUATORS["information"], "mine", "unused", ["png"], translator="nllb"
    )
    chrf, info = captured
    assert_honest(chrf, "chrF", panels=2)
    assert_honest(info, "F", panels=3)
    for mesh in meshes(info):
        assert mesh.get_array().compressed().tolist() == [0.25]  # the primary's, not the other translator's
    assert all("translated by nllb" in " ".join(axis.get_title().split()) for axis in heatmap_axes(info))


def test_an_evaluator_report_over_language_pairs_has_a_panel_per_model_and_metric(captured):
    cells = pl.DataFrame(
        [
            {"model": model, "metric": metric, "lang_i": i, "lang_j": j, "value": value}
            for model in ("alpha", "zeta")
            for metric in ("xSC", "xAC")
            for (i, j), value in {("en", "de"): 0.6, ("de", "en"): 0.6, ("en", "fr"): 0.4, ("fr", "en"): 0.4}.items()
        ],
        schema_overrides={"value": pl.Float64},
    )
    evaluator_figures.plot_pair_figure(
        cells, EVALUATORS["knowledge"], "mine", "unused", ["png"], models=["zeta", "alpha"]
    )
    (figure,) = captured
    assert_honest(figure, "xSC", panels=4)
    axes = heatmap_axes(figure)
    titles = [" ".join(axis.get_title().split()) for axis in axes]
    assert [title.split(" by ")[0] for title in titles] == [
        "mine, zeta: xSC",
        "mine, zeta: xAC",
        "mine, alpha: xSC",
        "mine, alpha: xAC",
    ]
    languages = [label.get_text() for label in axes[0].get_yticklabels()]
    assert_missing(axes[0], languages.index("de"), languages.index("fr"))  # de-fr was not scored
    assert patches(axes[0], "diagonal") and "grey hatched" in titles[0]
