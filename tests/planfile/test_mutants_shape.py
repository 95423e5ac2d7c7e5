"""A plan read back from its JSON (plans/planfile/shape.py) is the plan that was written, every
optional part of a change and of the plan included: overlays' lines, a rename, the
dependencies, the reason, a removal, asserted values, notes, the brake and the scope."""

from __future__ import annotations

from reconciler.plans import (
    Action,
    BrakeVerdict,
    Change,
    FieldChange,
    Operation,
    Plan,
    Ref,
    error,
    note,
    warning,
)
from reconciler.plans.planfile import plan_from_json
from reconciler.render import format_json

CHANGE = Change(
    "users",
    "ann",
    Action.update,
    fields=(FieldChange("phone", "1", "2"), FieldChange("tags", ["a"], None)),
    operations=(
        Operation(
            "helpdesk",
            "POST",
            "/api/UpdateUser",
            {"id": Ref('companies["Acme"]'), "phone": "2"},
            description="set phone",
        ),
    ),
    depends_on=('companies["Acme"]',),
    reason="the manifest says so",
    source="users.yaml:3",
    refined_at=("overlays/a.yaml:7", "overlays/b.yaml:9"),
    renamed_from="annie",
)
PLAN = Plan(
    (
        CHANGE,
        Change("companies", "Old", Action.delete, removal=True, source="c.yaml:1"),
    ),
    warnings=(warning("w", 'users["ann"]', "do this", "users.yaml:3:1"),),
    errors=(error("e"),),
    live_digest="sha256:" + "0" * 64,
    brake=BrakeVerdict(("too many",)),
    scope={"changed_since": "main", "kinds": ["users"]},
    asserted=(Change("automation_rules", "7", Action.enable, asserted=True),),
    notes=(note("n", remedy="nothing"),),
)


def test_every_part_of_a_plan_reads_back_as_written() -> None:
    read = plan_from_json(format_json(PLAN))
    assert read == PLAN
    assert read.changes[0].refined_at == ("overlays/a.yaml:7", "overlays/b.yaml:9")
    assert read.changes[0].renamed_from == "annie"
    assert format_json(read) == format_json(PLAN)


def test_a_change_with_one_overlay_line_keeps_it() -> None:
    plan = Plan(
        (Change("users", "bo", Action.create, source="u.yaml:1", refined_at=("o.yaml:2",)),)
    )
    assert plan_from_json(format_json(plan)).changes[0].refined_at == ("o.yaml:2",)
