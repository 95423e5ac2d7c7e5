"""`Diagnostic.text()`: `location: address: message (remedy)`, each part only when known."""

from __future__ import annotations

import pytest

from reconciler.plans import Diagnostic, error, warning


@pytest.mark.parametrize(
    ("diagnostic", "line"),
    [
        (error("bad"), "bad"),
        (error("bad", 'users["a"]'), 'users["a"]: bad'),
        (error("bad", remedy="fix it"), "bad (fix it)"),
        (error("bad", location="m.yaml:3:5"), "m.yaml:3:5: bad"),
        (
            warning("odd", 'users["a"]', "fix it", "m.yaml:3:5"),
            'm.yaml:3:5: users["a"]: odd (fix it)',
        ),
        (Diagnostic("warning", "odd", "", "", ""), "odd"),
    ],
)
def test_text_joins_the_parts_that_are_known(diagnostic: Diagnostic, line: str) -> None:
    assert diagnostic.text() == line


def test_error_and_warning_set_the_severity_and_keep_every_part() -> None:
    made = error("m", "a", "r", "l"), warning("m", "a", "r", "l")
    assert [d.severity for d in made] == ["error", "warning"]
    assert {(d.message, d.address, d.remedy, d.location) for d in made} == {("m", "a", "r", "l")}
    assert made[0].to_dict() == {"message": "m", "address": "a", "remedy": "r", "location": "l"}
    assert error("m").to_dict() == {"message": "m"}
