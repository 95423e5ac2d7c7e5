"""What an export covers (export/selection.py), as `reconciler export` takes it from its
options: the kinds chosen and the rule ids read, every refusal's whole message, which
objects are wanted, and which targets named no live object."""

from __future__ import annotations

from typing import Any

import pytest

from reconciler.errors import UsageError
from reconciler.export import Selection, parse_rule_ids
from reconciler.export.selection import split_list

KINDS = (
    "companies, departments, categories, users, tech_permissions, assets, automation_rules, "
    "workspace.employees"
)
NO_RULE_LIST = (
    "the API cannot list automation rules: name the rules to export with --rule-ids 101,102"
)
RULES_LEFT_OUT = (
    "--rule-ids names automation rules, but automation_rules is not among the kinds exported"
)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"kinds": ["widgets"]}, f"unknown kind 'widgets'; kinds: {KINDS}"),
        ({"kinds": ["users, widgets"]}, f"unknown kind 'widgets'; kinds: {KINDS}"),
        ({"targets": ["widgets/x"]}, f"unknown kind 'widgets' in 'widgets/x'; kinds: {KINDS}"),
        ({"kinds": ["automation_rules"]}, NO_RULE_LIST),
        ({"targets": ["automation_rules"]}, NO_RULE_LIST),
        ({"kinds": ["users"], "rule_ids": [1]}, RULES_LEFT_OUT),
        ({"rule_ids": [1], "excludes": ["automation_rules"]}, RULES_LEFT_OUT),
        ({"targets": ["automation_rules/7"], "excludes": ["automation_rules"]}, RULES_LEFT_OUT),
        (
            {"targets": ["automation_rules/x"]},
            "--target automation_rules/x: rules are keyed by id (a number)",
        ),
        (
            {"kinds": ["users"], "excludes": ["users"]},
            "nothing to export: the options leave out every kind",
        ),
        (
            {"targets": ["users/a"], "excludes": ["users"]},
            "nothing to export: the options leave out every kind",
        ),
    ],
)
def test_each_refusal_says_why_in_full(options: dict[str, Any], message: str) -> None:
    with pytest.raises(UsageError) as refused:
        Selection.build(**options)
    assert str(refused.value) == message


@pytest.mark.parametrize(
    ("options", "kinds", "rule_ids"),
    [
        # Rules are exported only when ids are given: by --rule-ids or by a rule target.
        (
            {},
            (
                "companies",
                "departments",
                "categories",
                "users",
                "tech_permissions",
                "assets",
                "workspace.employees",
            ),
            (),
        ),
        ({"kinds": ["assets,users", " ", "users"]}, ("users", "assets"), ()),
        (
            {"targets": ["automation_rules/7", "automation_rules/5"], "rule_ids": [7, 9]},
            ("automation_rules",),
            (7, 9, 5),
        ),
        ({"kinds": ["automation_rules"], "rule_ids": [3]}, ("automation_rules",), (3,)),
        # An exclude with a key leaves the kind in; without one it leaves the kind out.
        ({"kinds": ["users", "companies"], "excludes": ["users/bob"]}, ("companies", "users"), ()),
        ({"targets": ["users/alice", "assets"], "excludes": ["assets"]}, ("users",), ()),
        (
            {"excludes": ["automation_rules/4"], "rule_ids": [4]},
            (
                "companies",
                "departments",
                "categories",
                "users",
                "tech_permissions",
                "assets",
                "automation_rules",
                "workspace.employees",
            ),
            (4,),
        ),
    ],
)
def test_the_kinds_chosen_and_the_rules_read(
    options: dict[str, Any], kinds: tuple[str, ...], rule_ids: tuple[int, ...]
) -> None:
    selection = Selection.build(**options)
    assert (selection.kinds, selection.rule_ids) == (kinds, rule_ids)


SELECTION = Selection.build(
    kinds=["users", "companies", "workspace.employees"],
    targets=[
        "users/Alice",
        "users/nobody",
        "companies",
        "assets/SN-1",
        "workspace.employees/Ann@Acme.com",
        "workspace.employees/gone@acme.com",
    ],
    excludes=["companies/Acme  Corp", "users/alice"],
)


@pytest.mark.parametrize(
    ("kind", "key", "wanted"),
    [
        ("companies", "acme corp", False),  # excluded, compared as manifests compare names
        ("companies", "Globex", True),  # the kind is targeted whole
        ("users", "ALICE", False),  # targeted, and excluded: the exclude wins
        ("users", "nobody", True),
        ("users", "bob", False),  # not targeted
        ("assets", "SN-1", False),  # its kind is not among the kinds
        ("workspace.employees", "ann@acme.com", True),  # e-mail keys without case
        ("workspace.employees", "bob@acme.com", False),
    ],
)
def test_which_objects_are_wanted(kind: str, key: str, wanted: bool) -> None:
    assert SELECTION.wants(kind, key) is wanted


def test_the_targets_that_named_no_live_object_in_the_order_given() -> None:
    exported = {"users": {"alice"}, "workspace.employees": {"ann@acme.com"}}
    # `companies` names a kind, `assets/SN-1` a kind not exported: neither can miss.
    assert SELECTION.unmatched_targets(exported) == [
        "users/nobody",
        "workspace.employees/gone@acme.com",
    ]
    assert SELECTION.unmatched_targets({}) == [
        "users/Alice",
        "users/nobody",
        "workspace.employees/Ann@Acme.com",
        "workspace.employees/gone@acme.com",
    ]


def test_lists_split_on_commas_and_rule_ids_once_each() -> None:
    assert split_list(["a, b,,", " ", "c"]) == ["a", "b", "c"]
    assert parse_rule_ids(["3,1", "3", " 2 ,1"]) == [3, 1, 2]
    with pytest.raises(UsageError) as refused:
        parse_rule_ids(["1,x"])
    assert str(refused.value) == "--rule-ids takes rule ids (numbers), not 'x'"
    with pytest.raises(UsageError) as refused:
        parse_rule_ids(["-2"])
    assert str(refused.value) == "--rule-ids: -2 is not a rule id (ids start at 1)"
