"""The item explorer in a real browser (headless Chromium through Selenium), opened from file://.

Skipped where Chromium, chromedriver or Selenium is missing, unless XLCONS_REQUIRE_BROWSER=1
(CI sets it, .ci/run installs them): then a missing piece fails. Two sites: the hand-made
results set of tests/builders.py (hostile answers, QE, facts) and one built from a real tiny
workflow run (MultiQ in two languages, the tiny offline model).
"""

from __future__ import annotations

import csv
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from builders import HOSTILE_ANSWERS, explorer_run
from xlcons.reports.explorer import build_explorer

pytestmark = pytest.mark.browser

REQUIRED = os.environ.get("XLCONS_REQUIRE_BROWSER") == "1"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
CHROMEDRIVER = shutil.which("chromedriver")
# Headless, and nothing that reaches out of the machine.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)


def missing() -> str | None:
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed"
    if not CHROMIUM:
        return "no chromium"
    if not CHROMEDRIVER:
        return "no chromedriver"
    return None


@pytest.fixture(scope="module")
def browser():
    if problem := missing():
        if REQUIRED:
            pytest.fail(f"XLCONS_REQUIRE_BROWSER=1 but {problem}")
        pytest.skip(problem)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="xlcons-chromium-")
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


def open_view(driver, site: Path, fragment: str = "") -> None:
    """Open index.html (with a view's #fragment) and wait until that view is drawn."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get("about:blank")  # a new page: a change of #fragment alone would not reload it
    driver.get((site / "index.html").as_uri() + fragment)
    WebDriverWait(driver, 15).until(
        lambda d: d.execute_script("return document.getElementById('view').getAttribute('data-ready')") == "1"
    )


def click_and_wait(driver, element) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    driver.execute_script("document.getElementById('view').removeAttribute('data-ready')")
    element.click()
    WebDriverWait(driver, 15).until(
        lambda d: d.execute_script("return document.getElementById('view').getAttribute('data-ready')") == "1"
    )


def severe_console_errors(driver) -> list[str]:
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def results_rows(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


# Every heatmap cell on the page: [data set, metric key, model, language, data-value].
READ_CELLS = """
return Array.from(document.querySelectorAll('[data-heatmap] td[data-metric]')).map((td) => [
  td.closest('[data-heatmap]').getAttribute('data-dataset'), td.dataset.metric, td.dataset.model,
  td.dataset.lang, td.dataset.value]);
"""


def overview_cells(driver) -> dict[tuple[str, str, str, str], str]:
    """Every heatmap cell of the data set the overview shows:
    (data set, metric key, model, language) -> its data-value."""
    return {tuple(cell[:4]): cell[4] for cell in driver.execute_script(READ_CELLS)}


def check_overview_matches_results(driver, site: Path, results_csv: Path) -> None:
    """Each data set's overview (#overview/<data set>) shows every row of results.csv with its value."""
    from urllib.parse import quote

    rows = results_rows(results_csv)
    assert rows
    cells: dict[tuple[str, str, str, str], str] = {}
    for dataset in sorted({row["dataset"] for row in rows}):
        open_view(driver, site, f"#overview/{quote(dataset, safe='')}")
        shown = overview_cells(driver)
        assert shown and {key[0] for key in shown} == {dataset}, "the overview shows one data set at a time"
        cells |= shown
    for row in rows:
        key = (row["dataset"], f"{row['evaluator']}|{row['translator']}|{row['metric']}", row["model"], row["lang"])
        assert key in cells, f"no heatmap cell for {key}"
        shown = cells[key]
        if row["value"] == "":
            assert shown == ""
        else:
            assert float(shown) == pytest.approx(float(row["value"]), rel=1e-12, abs=1e-12), key
    assert len(cells) == len(rows)


@pytest.fixture(scope="module")
def hand_made_site(tmp_path_factory):
    root = tmp_path_factory.mktemp("explorer")
    inputs = explorer_run(root)
    build_explorer(inputs, root / "results" / "explorer", models=["m1", "m2"])
    return root


def test_the_overview_shows_every_metric_of_the_results_table_with_its_values(browser, hand_made_site):
    check_overview_matches_results(
        browser, hand_made_site / "results/explorer", hand_made_site / "results/tables/results.csv"
    )
    from selenium.webdriver.common.action_chains import ActionChains

    cell = browser.find_element("css selector", "td[data-metric='judge||accuracy'][data-model='m1'][data-lang='de']")
    ActionChains(browser).move_to_element(cell).perform()  # the tooltip is made on the first hover
    assert "95% CI" in cell.get_attribute("title") and "excluded: error:1" in cell.get_attribute("title")
    assert severe_console_errors(browser) == []


def test_heatmap_colours_follow_the_metrics_declared_range_not_the_values_shown(browser, hand_made_site):
    """Accuracy is coloured on [0, 1] (viridis, as the report's figures): 1.0 takes the top colour
    and 0.5 the middle one, whatever the other cells of the heatmap hold."""
    open_view(browser, hand_made_site / "results/explorer")
    colours = browser.execute_script(
        "return Array.from(document.querySelectorAll(\"td[data-metric='judge||accuracy']\"))"
        ".map((td) => [td.dataset.value, td.style.backgroundColor]);"
    )
    by_value = {float(value): colour for value, colour in colours if value}
    assert by_value.get(1.0) in (None, "rgb(253, 231, 37)") and by_value.get(0.5) in (None, "rgb(33, 145, 140)")
    assert {1.0, 0.5} & set(by_value), by_value
    scales = browser.find_elements("css selector", "[data-heatmap='judge||accuracy'] p.meta")
    assert scales and "0 – 1 (the metric's range)" in scales[0].text


def test_a_cell_lists_its_items_filters_them_and_an_item_shows_its_sentences_with_qe(browser, hand_made_site):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    site = hand_made_site / "results/explorer"
    open_view(browser, site)
    link = browser.find_element(By.CSS_SELECTOR, "td[data-metric='judge||accuracy'][data-model='m1'][data-lang='de'] a")
    click_and_wait(browser, link)
    rows = browser.find_elements(By.CSS_SELECTOR, "#items tbody tr")
    assert sorted(row.get_attribute("data-item") for row in rows) == ["q1", "q2", "q3"]
    statuses = {row.get_attribute("data-item"): row.get_attribute("data-status") for row in rows}
    assert statuses == {"q1": "answered", "q2": "answered", "q3": "error"}
    Select(browser.find_element(By.ID, "status")).select_by_value("error")
    assert [r.get_attribute("data-item") for r in browser.find_elements(By.CSS_SELECTOR, "#items tbody tr")] == ["q3"]
    Select(browser.find_element(By.ID, "status")).select_by_value("")
    # the answers' translation quality: a column, and a range to keep (q1's QE is 0.5625, shown 0.563; q2's lower)
    rows = browser.find_elements(By.CSS_SELECTOR, "#items tbody tr")
    qe = {r.get_attribute("data-item"): r.find_element(By.CSS_SELECTOR, "td.qe").text for r in rows}
    assert qe["q1"] == "0.563"
    browser.find_element(By.ID, "min-qe").send_keys("0.56")
    assert [r.get_attribute("data-item") for r in browser.find_elements(By.CSS_SELECTOR, "#items tbody tr")] == ["q1"]
    browser.find_element(By.ID, "min-qe").clear()
    browser.find_element(By.ID, "search").send_keys("hauptstadt")
    assert [r.get_attribute("data-item") for r in browser.find_elements(By.CSS_SELECTOR, "#items tbody tr")] == ["q1"]
    click_and_wait(browser, browser.find_element(By.LINK_TEXT, "q1"))
    sentences = browser.find_elements(By.CSS_SELECTOR, "#sentences tbody tr")
    assert [s.find_element(By.CSS_SELECTOR, "td.qe").text for s in sentences] == ["0.500", "0.625"]
    assert "Berlin ist die Hauptstadt" in sentences[0].text
    assert "Berlin is a capital." in browser.find_element(By.CSS_SELECTOR, "[data-output='information_facts']").text
    assert "yes" in browser.find_element(By.CSS_SELECTOR, "[data-output='judgments']").text
    others = browser.find_element(By.ID, "other-translations").text
    assert "nllb-b" in others and "B[Berlin ist die Hauptstadt. Es ist groß.]" in others
    verdicts = browser.find_element(By.ID, "verdicts").text
    assert "judge verdict: yes" in verdicts and "language_id label: __label__de" in verdicts
    # the same item in the other language, one click away
    click_and_wait(browser, browser.find_element(By.CSS_SELECTOR, "#other-languages a"))
    assert browser.current_url.endswith("#item/multiq/m1/en/q1")
    assert "Berlin is the capital." in browser.find_element(By.ID, "answers").text
    assert severe_console_errors(browser) == []


def test_hostile_answers_are_shown_as_text_and_never_run(browser, hand_made_site):
    from selenium.webdriver.common.by import By

    site = hand_made_site / "results/explorer"
    for lang, answer in (("en", HOSTILE_ANSWERS["script"]), ("de", HOSTILE_ANSWERS["img"])):
        open_view(browser, site, f"#item/multiq/m1/{lang}/q2")
        assert answer.strip() in browser.find_element(By.ID, "answers").text
        open_view(browser, site, f"#cell/multiq/m1/{lang}/judge%7C%7Caccuracy")
        assert browser.execute_script("return window.__xlconsInjected === undefined")
        assert not browser.find_elements(By.CSS_SELECTOR, "#view img, #view script, #view b, #view i")
    open_view(browser, site, "#compare/multiq/de/judge%7C%7Caccuracy/m1/m2")
    rows = browser.find_elements(By.CSS_SELECTOR, "#compare tbody tr")
    # m1's q3 is a failed request, m2's is answered: the items the models differ on come first
    assert [row.get_attribute("data-item") for row in rows] == ["q3", "q1", "q2"]
    assert [row.get_attribute("class") for row in rows] == ["changed", "", ""]
    assert browser.execute_script("return window.__xlconsInjected === undefined")
    assert severe_console_errors(browser) == []


def test_the_compare_views_pickers_change_the_models_and_the_language(browser, hand_made_site):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    def pick(select_id: str, value: str, fragment: str) -> None:
        browser.execute_script("document.getElementById('view').removeAttribute('data-ready')")
        Select(browser.find_element(By.ID, select_id)).select_by_value(value)
        WebDriverWait(browser, 15).until(lambda d: d.current_url.endswith(fragment))
        WebDriverWait(browser, 15).until(
            lambda d: d.execute_script("return document.getElementById('view').getAttribute('data-ready')") == "1"
        )

    open_view(browser, hand_made_site / "results/explorer", "#compare")
    assert [Select(browser.find_element(By.ID, i)).first_selected_option.text for i in ("c-a", "c-b")] == ["m1", "m2"]
    pick("c-metric", "judge||accuracy", "#compare/multiq/de/judge%7C%7Caccuracy/m1/m2")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#compare tr.changed")) == 1
    pick("c-b", "m1", "#compare/multiq/de/judge%7C%7Caccuracy/m1/m1")
    rows = browser.find_elements(By.CSS_SELECTOR, "#compare tbody tr")
    assert rows and all(row.get_attribute("class") == "" for row in rows), "a model against itself differs nowhere"
    pick("c-lang", "en", "#compare/multiq/en/judge%7C%7Caccuracy/m1/m1")
    assert "Berlin is the capital." in browser.find_element(By.ID, "compare").text
    assert severe_console_errors(browser) == []


# The explorer of a real run (the quickstart's, shared with its other checks) is opened in
# tests/test_workflow_own_prompts.py.
