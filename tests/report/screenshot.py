"""Makes docs/images/report.png: the acme example planned against the embedded sandbox
(`plan --sandbox --html`), shown in the system's headless Chromium (driven by playwright)
with its first changes open.

    python -m tests.report.screenshot docs/images/report.png
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from tests.report.test_html import CHROMIUM, EXAMPLE, NO_NETWORK


def main(out: Path) -> None:
    if CHROMIUM is None:
        sys.exit("no chromium on this machine (apt-get install chromium)")
    with tempfile.TemporaryDirectory() as work:
        root = Path(work)
        shutil.copytree(EXAMPLE, root / "acme")
        subprocess.run(
            [sys.executable, "-m", "reconciler", "plan", "acme", "--sandbox", "--html",
             "report.html", "--source-url", "https://github.com/acme/helpdesk/blob/main"],
            cwd=root, check=True, stdout=subprocess.DEVNULL, env={"PATH": "/usr/bin:/bin"},
        )  # fmt: skip
        report = (root / "report.html").as_uri()
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=CHROMIUM, args=[NO_NETWORK])
            page = browser.new_page(viewport={"width": 1000, "height": 1400})
            requests: list[str] = []
            page.on("request", lambda request: requests.append(request.url))
            page.goto(report)
            page.evaluate(
                "document.querySelectorAll('details.change').forEach((d, i) => d.open = i < 2)"
            )
            page.screenshot(path=out.resolve())
            browser.close()
        assert requests == [report], requests


if __name__ == "__main__":
    main(Path(sys.argv[1]))
