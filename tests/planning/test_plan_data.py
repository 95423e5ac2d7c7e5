"""The plan's data (reconciler/plans): one plan with every optional part, serialised
whole as the JSON plan and the saved plan carry it; the properties apply relies on (what
it executes, how many operations, the refs it must resolve); diagnostics as text."""

from __future__ import annotations

from reconciler.plans import (
    SYMBOLS,
    Action,
    BrakeVerdict,
    Change,
    Diagnostic,
    FieldChange,
    Operation,
    Plan,
    Ref,
    address,
    error,
    note,
    warning,
)
from reconciler.plans.coverage import Coverage, KindCoverage

ACME = Ref('companies["Acme"]')
NESTED = Ref('users["a"]', "email")
CREATE = Operation(
    "helpdesk", "POST", "/api/Company", {"name": "Acme"}, creates='companies["Acme"]',
    description="create Acme", idempotent=False,
)  # fmt: skip
UPDATE = Operation(
    "workspace",
    "PATCH",
    "/employees/1",
    {"company": ACME, "tags": ("b", "a"), "set": {"z", "y"}, "deep": {1: [NESTED, {"x": ACME}]}},
)
PLAN = Plan(
    changes=(
        Change(
            "companies",
            'A"c\\me',
            Action.create,
            operations=(CREATE,),
            source="m.yaml:3",
            refined_at=("site.yaml:2", "late.yaml:9"),
            renamed_from="Old",
        ),
        Change(
            "users",
            "a",
            Action.update,
            (FieldChange("email", None, ("x",)),),
            (UPDATE,),
            depends_on=('companies["Acme"]',),
            reason="because",
            removal=True,
        ),
        Change("users", "b", Action.disable, source="m.yaml:8"),
    ),
    warnings=(warning("careful", 'users["a"]', "do this", "m.yaml:1:2"),),
    errors=(error("broken"),),
    live_digest="sha256:abc",
    brake=BrakeVerdict(("too many", "and more")),
    scope={"partial": True},
    asserted=(Change("automation_rules", "7", Action.update, operations=(CREATE,), asserted=True),),
    notes=(note("fyi", location="m.yaml:4:5"),),
    coverage=Coverage({"users": KindCoverage(3, 2, ("zed",))}, {"assets": "why"}),
)


def test_a_plan_with_every_part_serialised_whole() -> None:
    create = {
        "service": "helpdesk", "method": "POST", "path": "/api/Company",
        "params": {"name": "Acme"}, "creates": 'companies["Acme"]',
        "description": "create Acme", "idempotent": False,
    }  # fmt: skip
    assert PLAN.to_dict() == {
        "format_version": 1,
        "summary": {"create": 1, "update": 1, "delete": 0, "enable": 0, "disable": 1},
        "changes": [
            {
                "address": 'companies["A\\"c\\\\me"]', "kind": "companies", "key": 'A"c\\me',
                "action": "create", "fields": [], "operations": [create],
                "source": "m.yaml:3", "sources": ["m.yaml:3", "site.yaml:2", "late.yaml:9"],
                "renamed_from": "Old",
            },
            {
                "address": 'users["a"]', "kind": "users", "key": "a", "action": "update",
                "fields": [{"path": "email", "before": None, "after": ["x"]}],
                "operations": [{
                    "service": "workspace", "method": "PATCH", "path": "/employees/1",
                    "params": {
                        "company": {"known_after_apply": 'companies["Acme"].id'},
                        "tags": ["b", "a"],
                        "set": ["y", "z"],
                        "deep": {"1": [{"known_after_apply": 'users["a"].email'},
                                       {"x": {"known_after_apply": 'companies["Acme"].id'}}]},
                    },
                }],
                "depends_on": ['companies["Acme"]'], "reason": "because", "removal": True,
            },
            {
                "address": 'users["b"]', "kind": "users", "key": "b", "action": "disable",
                "fields": [], "operations": [], "source": "m.yaml:8",
            },
        ],
        "warnings": [{"message": "careful", "address": 'users["a"]', "remedy": "do this",
                      "location": "m.yaml:1:2"}],
        "errors": [{"message": "broken"}],
        "asserted": [{
            "address": 'automation_rules["7"]', "kind": "automation_rules", "key": "7",
            "action": "update", "fields": [], "operations": [create], "asserted": True,
        }],
        "notes": [{"message": "fyi", "location": "m.yaml:4:5"}],
        "live_digest": "sha256:abc",
        "brake": {"holds": True, "reasons": ["too many", "and more"]},
        "scope": {"partial": True},
        "unmanaged": {"users": ["zed"]},
        "coverage": {"users": {"live": 3, "managed": 2, "percent": 66.6}},
        "not_read_in_full": {"assets": "why"},
    }  # fmt: skip


def test_a_bare_plan_has_only_its_required_keys() -> None:
    bare = Plan(changes=())
    assert bare.to_dict() == {
        "format_version": 1,
        "summary": {"create": 0, "update": 0, "delete": 0, "enable": 0, "disable": 0},
        "changes": [],
        "warnings": [],
        "errors": [],
        "live_digest": "",
    }
    assert not bare.has_changes and bare.operation_count == 0 and bare.to_apply == ()
    assert BrakeVerdict().to_dict() == {"holds": False, "reasons": []}
    assert not BrakeVerdict().holds


def test_what_apply_executes_and_counts() -> None:
    assert PLAN.has_changes
    assert [c.address for c in PLAN.to_apply] == [
        'companies["A\\"c\\\\me"]', 'users["a"]', 'users["b"]', 'automation_rules["7"]'
    ]  # fmt: skip
    assert PLAN.operation_count == 3
    assert UPDATE.refs == [ACME, NESTED, ACME]
    assert CREATE.refs == []
    first, second, third = PLAN.changes
    assert first.sources == ("m.yaml:3", "site.yaml:2", "late.yaml:9")
    assert first.former_address == 'companies["Old"]'
    assert second.sources == () and second.former_address is None
    assert Change("users", "c", Action.update, refined_at=("o.yaml:1",)).sources == ("o.yaml:1",)
    assert third.sources == ("m.yaml:8",)
    assert address("users", "plain") == 'users["plain"]'


def test_a_diagnostic_as_text() -> None:
    assert error("broken").text() == "broken"
    assert Diagnostic("error", "m", 'users["a"]').text() == 'users["a"]: m'
    assert PLAN.warnings[0].text() == 'm.yaml:1:2: users["a"]: careful (do this)'
    assert (PLAN.warnings[0].severity, PLAN.errors[0].severity) == ("warning", "error")
    assert PLAN.notes[0].severity == "note"
    assert note("n", "a", "r", "l") == Diagnostic("note", "n", "a", "r", "l")


def test_each_action_has_its_symbol() -> None:
    assert {str(action): symbol for action, symbol in SYMBOLS.items()} == {
        "create": "+", "update": "~", "delete": "-", "enable": "~", "disable": "~",
    }  # fmt: skip
