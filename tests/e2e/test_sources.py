"""Every change says where it comes from: `source` (`file:line` of its manifest entry)
in the JSON, a `# from file:line` line in text and Markdown, and with `--source-url` a
Markdown link to that line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from reconciler.plans import Action, Change, FieldChange, Plan
from reconciler.render import markdown_parts
from tests.e2e.test_plan_cli import run, workdir  # noqa: F401 (a fixture)

pytestmark = pytest.mark.e2e
BASE = "https://github.com/acme/helpdesk-config/blob/0123abc"


def test_every_change_from_a_manifest_entry_carries_its_source(workdir: Path) -> None:  # noqa: F811
    done = run(workdir, "plan", "acme", "--sandbox", "--format", "json")
    changes = json.loads(done.stdout)["changes"]
    assert changes
    for change in changes:
        file, line = change["source"].rsplit(":", 1)
        text = (workdir / file).read_text(encoding="utf-8").splitlines()[int(line) - 1]
        key = change["key"]
        assert key in text or key.casefold() in text.casefold(), (change["address"], text)

    text = run(workdir, "plan", "acme", "--sandbox")
    assert f"    # from {changes[0]['source']}" in text.stdout
    markdown = run(workdir, "plan", "acme", "--sandbox", "--format", "markdown",
                   "--source-url", BASE)  # fmt: skip
    file, line = changes[0]["source"].rsplit(":", 1)
    assert f"]({BASE}/{file}#L{line})" in markdown.stdout


def test_linked_parts_name_every_change_and_stay_within_the_limit() -> None:
    big = Change(
        "users", "big", Action.create,
        tuple(FieldChange(f"f{n:03d}", None, "x" * 80) for n in range(300)),
    )  # fmt: skip
    changes = (
        *(
            Change(
                "companies",
                f"Company {i:04d}",
                Action.create,
                tuple(FieldChange(f"field {n}", None, "v" * 40) for n in range(i % 7 + 1)),
                source=f"manifests/my companies.yaml:{i * 3 + 2}",
            )
            for i in range(400)
        ),
        big,
    )
    parts = markdown_parts(Plan(changes), limit=8_000, source_url=BASE + "/")
    assert len(parts) > 5 and all(len(p) <= 8_000 for p in parts)
    together = "".join(parts)
    for i in range(400):
        link = f"{BASE}/manifests/my%20companies.yaml#L{i * 3 + 2}"
        assert f'[`companies["Company {i:04d}"]`]({link})' in together
    assert together.count('`users["big"]` (continued)') >= 2  # cut between its lines
    parser = MarkdownIt("commonmark", {"html": True})
    for part in parts:
        tokens = parser.parse(part)
        links = [t for t in tokens if t.type == "inline" and "link_open" in
                 [c.type for c in t.children or ()]]  # fmt: skip
        fences = [t for t in tokens if t.type == "fence"]
        assert all(f.info == "diff" for f in fences)
        assert links or 'users["big"]' in part  # the one change without a source
