"""A create that looks like an unlisted live object renamed (planning/renames.py)
says so under its address in text and Markdown, with the `previously:` line to add, and
carries `rename_hints` in JSON and in a saved plan read back; `apply --plan` does not
compare them (docs/renaming.md)."""

from __future__ import annotations

import json

from reconciler.plans import Action, Change, FieldChange, Operation, Plan, RenameHint
from reconciler.plans.planfile import plan_from_dict
from reconciler.render import format_json, format_markdown, format_text

HINT = RenameHint(
    "Acme Corp",
    4,
    "looks like the unlisted company 'Acme Corp' (id 4) renamed: both have the e-mail "
    "domain acme.com",
    "previously: [Acme Corp]",
)
CREATE = Change(
    "companies",
    "Acme Corporation",
    Action.create,
    (FieldChange("name", None, "Acme Corporation"),),
    (Operation("helpdesk", "POST", "/api/CreateCompany", {"name": "Acme Corporation"}),),
    source="companies.yaml:3",
    rename_hints=(HINT,),
)
PLAN = Plan((CREATE,), (), (), "sha256:0")
LINES = (
    "    # from companies.yaml:3\n"
    "    # looks like the unlisted company 'Acme Corp' (id 4) renamed: both have the e-mail "
    "domain acme.com\n"
    "    # if it is, add `previously: [Acme Corp]` to this entry to rename it in place (its id "
    "kept); apply as planned creates a new one\n"
)


def test_text_shows_the_look_alike_and_the_line_to_add_under_the_create() -> None:
    text = format_text(PLAN)
    assert '+ companies["Acme Corporation"]\n' + LINES + "    name: " in text


def test_markdown_shows_them_in_the_diff_block() -> None:
    markdown = format_markdown(PLAN)
    assert '+ companies["Acme Corporation"]\n' + LINES.replace("    #", "  #") in markdown


def test_a_change_without_hints_shows_none() -> None:
    plain = Plan((Change("companies", "Initech", Action.create, source="c.yaml:1"),), (), ())
    assert "previously" not in format_text(plain) + format_markdown(plain)
    assert "rename_hints" not in format_json(plain)


def test_json_carries_the_hints_and_reads_them_back() -> None:
    data = json.loads(format_json(PLAN))
    assert data["changes"][0]["rename_hints"] == [
        {
            "key": "Acme Corp",
            "id": 4,
            "reason": HINT.reason,
            "previously": "previously: [Acme Corp]",
        }
    ]
    assert plan_from_dict(data).changes[0].rename_hints == (HINT,)
