"""What `reconciler export` tells the user about a kind it reads (run/export.py): a
user whose department the listing names only by an id that no listed department has is
exported without `department`, and the export says so, first among its notes."""

from __future__ import annotations

import pytest

from reconciler.errors import UsageError
from reconciler.export.selection import Selection
from tests.export.sandbox import export, seeded


def test_a_department_no_listing_names_is_left_out_with_a_note() -> None:
    state, credentials = seeded()
    helen = state.store.find("users", username="helen")
    assert helen is not None
    state.store.update("users", helen["id"], department_id=999)
    result = export(state, credentials, Selection.build(kinds=["users"]))
    assert result.warnings == [
        "users/helen: department is left out: its id 999 is not among the departments listed"
    ]
    [entry] = [e for e in result.entries["users"] if e["username"] == "helen"]
    assert "department" not in entry
    helen_yaml = result.files()["users.yaml"].split("username: helen")[1].split("- username:")[0]
    assert "department" not in helen_yaml


def test_rule_ids_the_helpdesk_does_not_know_are_named_with_where_to_look() -> None:
    state, credentials = seeded()
    with pytest.raises(UsageError) as refused:
        export(state, credentials, Selection.build(rule_ids=[998, 101, 999]))
    assert str(refused.value) == (
        "no automation rule with id 998, 999: check the ids given with --rule-ids "
        "(the helpdesk's automation rules page shows them)"
    )
