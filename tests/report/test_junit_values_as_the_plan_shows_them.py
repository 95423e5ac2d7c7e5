"""`plan --junit`: a failure's text writes each field's values as the text plan writes them
on one line (`null`, `false`, `"a\\nb"`, `(known after apply)`), never as Python values
(`None`, `False`, `'a\\nb'`); a create shows only the new value, a delete only the old."""

from __future__ import annotations

from xml.etree import ElementTree as ET

import pytest

from reconciler.plans import Action, Change, FieldChange, Plan, Ref
from reconciler.report.digest import Planned
from reconciler.report.junit import junit_xml


def failure_lines(*changes: Change) -> list[str]:
    root = ET.fromstring(junit_xml([Planned(Plan(changes).to_dict())]))
    return [line for failure in root.iter("failure") for line in (failure.text or "").splitlines()]


@pytest.mark.parametrize(
    ("before", "after", "shown"),
    [
        (None, "x", 'null -> "x"'),
        (False, True, "false -> true"),
        ("line one\nline two", "one line", '"line one\\nline two" -> "one line"'),
        ("it's", 'say "hi"', '"it\'s" -> "say \\"hi\\""'),
        (3, 4.5, "3 -> 4.5"),
        (["a", "b"], {"k": None}, '["a", "b"] -> {k: null}'),
        ("\x1b[31m", "ok", '"\\x1b[31m" -> "ok"'),
    ],
)
def test_an_update_writes_both_values_as_the_text_plan(
    before: object, after: object, shown: str
) -> None:
    change = Change("users", "alice", Action.update, fields=(FieldChange("f", before, after),))
    assert failure_lines(change)[1] == f"    f: {shown}"


def test_a_create_shows_what_will_be_and_a_reference_as_known_after_apply() -> None:
    change = Change(
        "users",
        "alice",
        Action.create,
        fields=(
            FieldChange("disabled", None, False),
            FieldChange("company_id", None, Ref('companies["Acme"]', "id")),
        ),
    )
    assert failure_lines(change)[1:] == [
        "    disabled: false",
        "    company_id: (known after apply)",
    ]


def test_a_delete_shows_what_was() -> None:
    change = Change("assets", "S1", Action.delete, fields=(FieldChange("name", "Laptop", None),))
    assert failure_lines(change)[1:] == ['    name: "Laptop"']
