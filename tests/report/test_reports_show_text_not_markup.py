"""The job summary, the HTML page and the links they hold show what the plan says as text:
an error text holding HTML (`<!--` would hide the rest of the summary) is written as
entities, an invisible control or direction override is shown as its escape, and only an
http(s) `--source-url` becomes a link."""

from __future__ import annotations

import re

import pytest

from reconciler.errors import UsageError
from reconciler.plans import Action, Change, FieldChange, Plan, error
from reconciler.render.markdown import format_markdown
from reconciler.render.markdown_blocks import checked_source_url, source_link
from reconciler.report.digest import Planned
from reconciler.report.html import html_report
from reconciler.report.summary import job_summary
from tests.report.plans import clean, drifted

HIDING = "bad <!-- everything after is hidden"


def test_the_summary_writes_an_error_text_as_text() -> None:
    plan = Plan(
        (),
        errors=(
            error(HIDING, address="users['<b>x</b>']"),
            error("<img src=x onerror=alert(1)> & <script>alert(2)</script>"),
        ),
    ).to_dict()
    text = job_summary([Planned(plan)])
    assert "<!--" not in text and "<img" not in text and "<script" not in text
    assert "- `users['<b>x</b>']`: bad &lt;!-- everything after is hidden" in text
    assert (
        "- &lt;img src=x onerror=alert(1)&gt; &amp; &lt;script&gt;alert(2)&lt;/script&gt;" in text
    )


def test_a_backtick_in_a_place_cannot_end_its_code_span() -> None:
    plan = Plan((), errors=(error("m", address="users['a`<!--`b']"),)).to_dict()
    text = job_summary([Planned(plan)])
    assert "- ``users['a`<!--`b']``: m" in text


def test_the_summary_says_no_changes_once() -> None:
    text = job_summary([Planned(clean())])
    assert "### :white_check_mark: no changes: live matches the manifests\n" in text
    assert text.count("no changes") == 1


@pytest.mark.parametrize(
    ("raw", "shown"),
    [("\u202e", "\\u202e"), ("\x1b", "\\x1b"), ("\u2066", "\\u2066"), ("\x85", "\\x85")],
)
def test_the_html_page_shows_invisible_controls_as_escapes(raw: str, shown: str) -> None:
    plan = Plan(
        (
            Change(
                "companies",
                f"Acme{raw}Corp",
                Action.update,
                fields=(FieldChange("notes", f"a{raw}b", "c"),),
            ),
        ),
        errors=(error(f"the server said {raw}[31mred"),),
    ).to_dict()
    page = html_report([Planned(plan)])
    assert raw not in page
    assert f"Acme{shown}Corp" in page and f"the server said {shown}[31mred" in page


@pytest.mark.parametrize(
    "base",
    [
        "javascript:alert(document.cookie)//",
        "JavaScript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "file:///etc/passwd",
        "vbscript:msgbox",
        "https://",
        "//evil.example.com/x",
        "http://[::1",
    ],
)
def test_only_an_http_source_url_becomes_a_link(base: str) -> None:
    with pytest.raises(UsageError) as refused:
        checked_source_url(base)
    assert str(refused.value) == (
        f"--source-url {base!r}: not an http:// or https:// URL "
        "(e.g. https://github.com/ORG/REPO/blob/COMMIT)"
    )
    with pytest.raises(UsageError) as in_html:
        html_report([Planned(drifted())], source_url=base)
    assert str(in_html.value) == str(refused.value)
    change = Change("companies", "Acme", Action.create, source="m.yaml:3")
    with pytest.raises(UsageError) as in_markdown:
        format_markdown(Plan((change,)), source_url=base)
    assert str(in_markdown.value) == str(refused.value)


@pytest.mark.parametrize("base", ["https://github.com/o/r/blob/abc", "HTTP://git.example.com/x/"])
def test_an_http_source_url_still_links_the_lines(base: str) -> None:
    assert checked_source_url(base) == base
    link = source_link(base, "m.yaml:3")
    assert link is not None and re.fullmatch(r"(?i)https?://.+/m\.yaml#L3", link)
    page = html_report([Planned(drifted())], source_url=base)
    assert 'href="' + base.rstrip("/") + '/manifests/companies.yaml#L3"' in page
