"""A rename (`previously:`) reads `(was ...)` in text and Markdown and carries
`renamed_from` in JSON and in a saved plan read back (docs/renaming.md)."""

from __future__ import annotations

import json

from reconciler.plans import Action, Change, FieldChange, Operation, Plan
from reconciler.plans.planfile import plan_from_dict
from reconciler.render import format_json, format_markdown, format_text

RENAME = Change(
    "users",
    "tina.nguyen",
    Action.update,
    (FieldChange("username", "tina", "tina.nguyen"),),
    (Operation("helpdesk", "POST", "/api/UpdateUser", {"userId": 3, "username": "tina.nguyen"}),),
    renamed_from="tina",
)
PLAN = Plan((RENAME,), (), (), "sha256:0")


def test_text_and_markdown_say_what_it_was() -> None:
    assert '~ users["tina.nguyen"] (was users["tina"])' in format_text(PLAN)
    assert 'users["tina.nguyen"] (was users["tina"])' in format_markdown(PLAN)


def test_json_carries_renamed_from_and_reads_back() -> None:
    data = json.loads(format_json(PLAN))
    assert data["changes"][0]["renamed_from"] == "tina"
    assert plan_from_dict(data).changes[0].renamed_from == "tina"
