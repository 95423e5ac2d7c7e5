"""The HTML report's colours (report/html.py): every colour variable a rule uses is
defined by the style sheet's first rule, on `:root` alone, so no colour of the page is
lost to an undefined variable or to a selector that matches nothing."""

from __future__ import annotations

import re

from reconciler.report.digest import Planned
from reconciler.report.html import html_report
from tests.report.plans import drifted, every_diagnostic


def test_every_colour_variable_used_is_defined_on_root() -> None:
    page = html_report([Planned(every_diagnostic(), "prod"), Planned(drifted(), "staging")])
    [css] = re.findall(r"<style>(.*?)</style>", page, flags=re.DOTALL)
    selector, _, rest = css.partition("{")
    assert selector.strip() == ":root"
    defined = set(re.findall(r"(--[\w-]+):", rest.partition("}")[0]))
    used = set(re.findall(r"var\((--[\w-]+)\)", css))
    assert used and used <= defined, used - defined
