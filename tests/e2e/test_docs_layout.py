"""The docs book in a real browser: every page of the book `toolspec docs` writes for the
example specs, opened in headless Chromium (Debian's `chromium` and `chromium-driver`) at
1280 and 800 CSS pixels wide, has no horizontal scrolling of its main content: parameters,
output fields and errors fit the page (code blocks may scroll inside themselves).
Screenshots of one tool page at both widths are written next to the built site, for
people to look at: `target/docs-book/screenshots/`.

Needs `TOOLSPEC_BIN` (the `toolspec` binary) and `TOOLSPEC_MDBOOK`; skipped without them,
and failing instead when `TOOLSPEC_REQUIRE_BROWSER` is set (as scripts/test sets it) and
Chromium is missing.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOLSPEC = os.environ.get("TOOLSPEC_BIN", "")
MDBOOK = os.environ.get("TOOLSPEC_MDBOOK", "")
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
WIDTHS = (1280, 800)
SHOWN = "tickets/tickets_update_status.html"

pytestmark = pytest.mark.skipif(
    not (TOOLSPEC and MDBOOK), reason="set TOOLSPEC_BIN and TOOLSPEC_MDBOOK"
)

# What scrolls sideways: the main column and the whole document, each against its own
# width; the elements that stick out of the main column; and those that scroll sideways
# inside it (mdBook puts each table in a wrapper that scrolls), code blocks aside.
MEASURE = """
const main = document.querySelector('main');
const right = main.getBoundingClientRect().right;
const describe = e => e.tagName + ': ' + e.textContent.slice(0, 80);
const inner = [...main.querySelectorAll('*')].filter(e => !e.closest('pre'));
return {
  main: [main.scrollWidth, main.clientWidth],
  page: [document.documentElement.scrollWidth, document.documentElement.clientWidth],
  out: inner.filter(e => e.getBoundingClientRect().right > right + 1).slice(0, 5).map(describe),
  scrolling: inner.filter(e => e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0
    && getComputedStyle(e).overflowX !== 'visible').slice(0, 5).map(describe),
};
"""


def build_book() -> Path:
    base = ROOT / "target" / "docs-book"
    shutil.rmtree(base, ignore_errors=True)
    specs = sorted(glob.glob(str(ROOT / "specs" / "*.yaml")))
    subprocess.run([TOOLSPEC, "docs", *specs, "--out", str(base / "src")], check=True)
    subprocess.run([MDBOOK, "build", str(base / "src"), "--dest-dir", str(base / "site")], check=True)
    return base


def browser():
    if not (Path(CHROMIUM).is_file() and Path(CHROMEDRIVER).is_file()):
        if os.environ.get("TOOLSPEC_REQUIRE_BROWSER"):
            pytest.fail("chromium and chromedriver are required: apt-get install chromium chromium-driver")
        pytest.skip("no chromium: apt-get install chromium chromium-driver")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]:
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


def test_no_page_of_the_book_scrolls_sideways_at_1280_or_800_px() -> None:
    base = build_book()
    site = base / "site"
    pages = sorted(
        p.relative_to(site).as_posix()
        for p in site.rglob("*.html")
        if p.name not in ("404.html", "print.html", "toc.html")
    )
    assert SHOWN in pages and len(pages) >= 20, pages
    shots = base / "screenshots"
    shots.mkdir()
    driver = browser()
    problems = []
    try:
        for width in WIDTHS:
            driver.execute_cdp_cmd(
                "Emulation.setDeviceMetricsOverride",
                {"width": width, "height": 1000, "deviceScaleFactor": 1, "mobile": False},
            )
            for page in pages:
                driver.get((site / page).as_uri())
                seen = driver.execute_script(MEASURE)
                main_scroll, main_width = seen["main"]
                page_scroll, page_width = seen["page"]
                if (
                    main_scroll > main_width + 1
                    or page_scroll > page_width + 1
                    or seen["out"]
                    or seen["scrolling"]
                ):
                    problems.append(
                        f"{page} at {width}px: main {main_scroll}/{main_width}, page"
                        f" {page_scroll}/{page_width}, sticking out: {seen['out']},"
                        f" scrolling: {seen['scrolling']}"
                    )
                if page == SHOWN:
                    driver.save_screenshot(str(shots / f"{Path(page).stem}-{width}.png"))
    finally:
        driver.quit()
    assert not problems, "\n".join(problems)
    for width in WIDTHS:
        assert (shots / f"tickets_update_status-{width}.png").stat().st_size > 10_000
