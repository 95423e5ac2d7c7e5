"""The HTML report's own style (report/html.py), read from the page as a browser
gets it: what the filters hide stays hidden, a printed page shows every change, and
each class the page uses for a status or an action is styled."""

from __future__ import annotations

import re

from reconciler.report.digest import Planned
from reconciler.report.html import html_report
from tests.report.plans import drifted, every_diagnostic


def style() -> str:
    page = html_report([Planned(every_diagnostic(), "prod"), Planned(drifted(), "staging")])
    [found] = re.findall(r"<style>(.*?)</style>", page, flags=re.DOTALL)
    return str(found)


def test_what_the_filters_hide_stays_hidden() -> None:
    # The script toggles the class `hidden`: the style must win over any other display.
    assert ".hidden { display: none !important; }" in style()


def test_a_printed_page_shows_every_change_and_no_filters() -> None:
    printed = style().split("@media print {", 1)[1]
    assert ".filters { display: none; }" in printed
    assert "details.change > .body { display: block !important; }" in printed


def test_each_status_and_action_the_page_uses_is_styled() -> None:
    page = html_report([Planned(every_diagnostic(), "prod"), Planned(drifted(), "staging")])
    css = style()
    classes = sorted(set(re.findall(r'class="(status \w+|action \w+)"', page)))
    assert "status drift" in classes and "action update" in classes
    for used in classes:
        assert f".{used.replace(' ', '.')}" in css, used
    assert "@media (max-width: 640px)" in css  # a phone's narrow screen
