"""Screenshots of the item explorer's views for the docs, taken in headless Chromium.

    python -m devtools.explorer_screenshots --site results/quickstart/explorer --out docs/figures

opens the site from file:// (as a user does), and saves the overview, the items of the first
cell that has any, and the first of those items, as explorer_overview.png, explorer_cell.png
and explorer_item.png. Needs Debian's chromium and chromium-driver and Selenium
(requirements/test.txt), as the browser tests do.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

# Headless, and nothing that reaches for the network (a closed network refuses it, noisily).
FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)


def _wait_drawn(driver) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 15).until(
        lambda d: d.execute_script("return document.getElementById('view').getAttribute('data-ready')") == "1"
    )


def _click(driver, element) -> None:
    driver.execute_script("document.getElementById('view').removeAttribute('data-ready')")
    element.click()
    _wait_drawn(driver)


def _save(driver, path: Path, width: int) -> None:
    """The whole page at this width (its height as drawn, at most 1600 px)."""
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(width, min(int(height) + 20, 1600))
    driver.save_screenshot(str(path))
    print(f"wrote {path}")


def take(site: Path, out: Path, chromium: str, chromedriver: str, width: int = 1280) -> list[Path]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    out.mkdir(parents=True, exist_ok=True)
    profile = tempfile.mkdtemp(prefix="xlcons-screens-")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in (*FLAGS, f"--user-data-dir={profile}", f"--window-size={width},900"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(chromedriver))
    paths = [out / f"explorer_{view}.png" for view in ("overview", "cell", "item")]
    try:
        driver.get((site / "index.html").resolve().as_uri())
        _wait_drawn(driver)
        _save(driver, paths[0], width)
        cells = driver.find_elements(By.CSS_SELECTOR, "td[data-metric] a")
        if not cells:
            raise SystemExit(f"{site}: the overview has no cell with items")
        _click(driver, cells[0])
        _save(driver, paths[1], width)
        items = driver.find_elements(By.CSS_SELECTOR, "#items tbody tr a")
        if not items:
            raise SystemExit(f"{site}: the first cell lists no items")
        _click(driver, items[0])
        _save(driver, paths[2], width)
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
    return paths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, required=True, help="a run's results/explorer folder")
    parser.add_argument("--out", type=Path, default=Path("docs/figures"))
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    parser.add_argument("--chromedriver", default=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    args = parser.parse_args(argv)
    if not (args.site / "index.html").is_file():
        parser.error(f"{args.site} has no index.html: name a run's results/explorer folder")
    take(args.site, args.out, args.chromium, args.chromedriver)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
