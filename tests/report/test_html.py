"""The HTML report in a real browser (the system's Chromium, headless, driven by
playwright): it requests nothing but itself, its filters and search work, it fits a
phone's width, prints, and a screenshot is written. Skipped where no Chromium is installed
(`.ci/run` installs it, so CI always runs these); playwright's own browser download is
never used."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from reconciler import masking
from reconciler.report.digest import Planned
from reconciler.report.html import html_report
from tests.report.plans import every_diagnostic, several_kinds

CHROMIUM = next(
    (
        found
        for name in ("chromium", "chromium-browser", "google-chrome")
        if (found := shutil.which(name))
    ),
    None,
)
# Every host name resolves to nothing: no test reaches the network, and a request the page
# makes is still seen (and fails) rather than loading anything.
NO_NETWORK = "--host-resolver-rules=MAP * ~NOTFOUND"
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no chromium on this machine (apt-get install chromium; .ci/run installs it)",
)
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme"
SHOWN = (
    "Array.from(document.querySelectorAll('details.change:not(.hidden) .address'))"
    ".map(e => e.textContent)"
)


@pytest.fixture
def browser() -> Iterator[Browser]:
    """The system's Chromium, closed (with playwright's driver) when the test ends."""
    assert CHROMIUM is not None
    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=CHROMIUM, args=[NO_NETWORK])
        try:
            yield launched
        finally:
            launched.close()


def open_page(
    browser: Browser, url: str, width: int = 1200, mobile: bool = False
) -> tuple[Page, list[str]]:
    """A new tab of `width` (a phone's, with its viewport rules, when `mobile`) showing
    `url`, and the list of every request it makes, kept up to date."""
    page = browser.new_page(viewport={"width": width, "height": 900}, is_mobile=mobile)
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(url)
    return page, requests


def choose(page: Page, ident: str, value: str) -> list[str]:
    """Sets a filter as a person would (the value, then the event), and returns the
    addresses of the changes still shown."""
    event = "input" if ident == "filter-text" else "change"
    page.evaluate(
        "([ident, value, event]) => { const el = document.getElementById(ident);"
        " el.value = value; el.dispatchEvent(new Event(event)); }",
        [ident, value, event],
    )
    shown: list[str] = page.evaluate(SHOWN)
    return shown


def two_environments(tmp_path: Path) -> Path:
    plans = [Planned(several_kinds("prod"), "prod"), Planned(several_kinds("staging"), "staging")]
    page = tmp_path / "report.html"
    page.write_text(
        html_report(plans, source_url="https://git.example.com/acme/blob/main"), encoding="utf-8"
    )
    return page


def test_the_page_is_self_contained_masked_and_links_the_lines(tmp_path: Path) -> None:
    masking.install({"HELPDESK_TOKEN": "secret-by-hand"})
    try:
        text = html_report([Planned(several_kinds("secret-by-hand"))], source_url="https://g/x")
    finally:
        masking.install({})
    assert "secret-by-hand" not in text and "Acme in ***" in text
    assert 'href="https://g/x/manifests/companies.yaml#L3"' in text
    assert "<link" not in text and " src=" not in text  # nothing loaded from anywhere
    assert "Content-Security-Policy" in text and "default-src 'none'" in text
    problems = text.index('id="problems"')
    assert problems < text.index('id="summary"') < text.index('id="changes"')
    assert text.index('id="changes"') < text.index('id="coverage"') < text.index("Initech")


def test_errors_and_the_brake_come_first() -> None:
    text = html_report([Planned(every_diagnostic())])
    assert text.index("company &#x27;Globex, Inc: 100%&#x27; does not exist") < text.index(
        "Safety brake holds"
    )
    assert "would disable 1 of 2 users (50%) &gt; 25%" in text


@needs_chromium
def test_filters_and_search_work_in_a_real_browser(tmp_path: Path, browser: Browser) -> None:
    report = two_environments(tmp_path)
    page, requests = open_page(browser, report.as_uri())
    every = page.evaluate(SHOWN)
    assert len(every) == 8
    assert page.evaluate("document.getElementById('shown-count').textContent") == (
        "8 of 8 changes shown"
    )
    assert (
        choose(page, "filter-kind", "users")
        == ['users["george"]', 'users["ivan"]', 'users["zoe"]'] * 2
    )
    assert choose(page, "filter-action", "disable") == ['users["ivan"]'] * 2
    assert choose(page, "filter-env", "staging") == ['users["ivan"]']
    assert page.evaluate("document.getElementById('shown-count').textContent") == (
        "1 of 8 changes shown"
    )
    for ident in ("filter-kind", "filter-action"):
        choose(page, ident, "")
    assert choose(page, "filter-text", "ACME in staging") == ['companies["Acme Corp"]']
    assert choose(page, "filter-text", "") == ['companies["Acme Corp"]', *every[1:4]]
    assert choose(page, "filter-env", "") == every
    assert choose(page, "filter-text", "zoe last_name") == ['users["zoe"]'] * 2
    # The coverage rows follow the kind filter too; the errors never hide.
    choose(page, "filter-text", "")
    choose(page, "filter-kind", "users")
    assert not page.evaluate(
        "Array.from(document.querySelectorAll('#coverage tr[data-kind=companies]'))"
        ".some(r => !r.classList.contains('hidden'))"
    )
    assert page.evaluate("document.querySelector('#problems').offsetHeight") > 0
    assert requests == [report.as_uri()]


@needs_chromium
def test_it_requests_nothing_fits_a_phone_prints_and_is_screenshot(
    tmp_path: Path, browser: Browser
) -> None:
    report = two_environments(tmp_path)
    wide, wide_requests = open_page(browser, report.as_uri(), width=1200)
    wide.screenshot(path=tmp_path / "wide.png")
    assert wide.pdf().startswith(b"%PDF")
    # A phone lays a page out 980 pixels wide unless the page asks for the device's width.
    phone, phone_requests = open_page(browser, report.as_uri(), width=390, mobile=True)
    phone.screenshot(path=tmp_path / "phone.png")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    assert wide_requests == phone_requests == [report.as_uri()]
    for name in ("wide.png", "phone.png"):
        data = (tmp_path / name).read_bytes()
        assert data.startswith(b"\x89PNG") and len(data) > 10_000


@needs_chromium
def test_the_request_recorder_sees_a_page_that_does_request(
    tmp_path: Path, browser: Browser
) -> None:
    # The control for the assertions above: a page that loads an image is caught.
    leaky = tmp_path / "leaky.html"
    leaky.write_text('<img src="http://cdn.example.com/logo.png">', encoding="utf-8")
    _, requests = open_page(browser, leaky.as_uri())
    assert "http://cdn.example.com/logo.png" in requests


@pytest.mark.e2e
@needs_chromium
def test_the_acme_plan_as_html_against_the_sandbox(tmp_path: Path, browser: Browser) -> None:
    shutil.copytree(EXAMPLE, tmp_path / "acme")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HELPDESK_", "WORKSPACE_"))}
    env.update(GITHUB_ACTIONS="", GITLAB_CI="", GITHUB_STEP_SUMMARY="")
    done = subprocess.run(
        [sys.executable, "-m", "reconciler", "plan", "acme", "--sandbox", "--html", "r.html",
         "--junit", "junit.xml", "--source-url", "https://git.example.com/acme/blob/main"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    page, requests = open_page(browser, (tmp_path / "r.html").as_uri())
    assert len(page.evaluate(SHOWN)) == 20
    assert choose(page, "filter-action", "disable") == [
        'users["ivan"]',
        'automation_rules["102"]',
    ]
    link = page.evaluate("document.querySelector('details.change a').href")
    assert link.startswith("https://git.example.com/acme/blob/main/acme/companies.yaml#L")
    page.screenshot(path=tmp_path / "acme.png")
    assert requests == [(tmp_path / "r.html").as_uri()]
    assert (tmp_path / "acme.png").read_bytes().startswith(b"\x89PNG")
