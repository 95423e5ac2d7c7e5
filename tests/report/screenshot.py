"""Makes docs/images/report.png: the acme example planned against the embedded sandbox
(`plan --sandbox --html`), shown in headless Chromium with its first changes open.

    python -m tests.report.screenshot docs/images/report.png
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.report.browser import chromium

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme"


def main(out: Path) -> None:
    with tempfile.TemporaryDirectory() as work:
        root = Path(work)
        shutil.copytree(EXAMPLE, root / "acme")
        subprocess.run(
            [sys.executable, "-m", "reconciler", "plan", "acme", "--sandbox", "--html",
             "report.html", "--source-url", "https://github.com/acme/helpdesk/blob/main"],
            cwd=root, check=True, stdout=subprocess.DEVNULL, env={"PATH": "/usr/bin:/bin"},
        )  # fmt: skip
        with chromium() as page:
            page.open((root / "report.html").as_uri())
            page.evaluate(
                "document.querySelectorAll('details.change').forEach((d, i) => d.open = i < 2)"
            )
            page.screenshot(out.resolve(), width=1000, height=1400)
            assert page.requests == [(root / "report.html").as_uri()]


if __name__ == "__main__":
    main(Path(sys.argv[1]))
