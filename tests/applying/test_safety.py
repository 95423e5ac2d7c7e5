"""The octoDNS-style brake (DESIGN §5): updates, enables, disables and removals of a kind
above `max_change_percent` of its live objects, when it has at least `min_existing`."""

from __future__ import annotations

from typing import Any

import pytest

from reconciler.live import LiveState
from reconciler.manifest.models import Safety
from reconciler.planning.safety import (
    BrakeViolation,
    IrreversibleViolation,
    brake_verdict,
    brake_violations,
)
from reconciler.plans import Action, Change, FieldChange, Plan


class Objects(list[int]):
    """Live data of a kind: only its length matters to the brake."""

    def digest_data(self) -> Any:
        return list(self)


def live(**counts: int) -> LiveState:
    return LiveState({kind.replace("__", "."): Objects(range(n)) for kind, n in counts.items()})


def changes(kind: str, count: int, action: Action = Action.update, **extra: Any) -> list[Change]:
    """`count` changes; an update changes a value the object has live (as planned updates
    of existing objects do), unless `fields` says otherwise."""
    if action is Action.update:
        extra.setdefault("fields", (FieldChange("notes", "old", "new"),))
    return [Change(kind, f"{action.value}-{i}", action, **extra) for i in range(count)]


def plan(*groups: list[Change]) -> Plan:
    return Plan(tuple(c for group in groups for c in group))


def brake(max_change_percent: float = 30, min_existing: int = 10) -> Safety:
    return Safety(max_change_percent=max_change_percent, min_existing=min_existing)


def test_more_than_the_limit_is_a_violation_naming_the_kind() -> None:
    found = brake_violations(plan(changes("assets", 4)), live(assets=10), brake())
    assert found == [BrakeViolation("assets", 4, 10, 40.0, 30)]
    assert found[0].text() == (
        "assets: 4 of 10 live objects would change or go (40%, above the 30% limit)"
    )


@pytest.mark.parametrize(
    ("changed", "existing", "limit", "violated"),
    [
        (3, 10, 30, False),  # exactly the limit is allowed
        (4, 10, 30, True),
        (1, 3, 33, True),  # 33.3...% > 33%
        (1, 3, 34, False),
        (10, 20, 50, False),
        (11, 20, 50, True),
        (7, 20, 35, False),  # 35% exactly, computed in floating point
        (1, 100, 0, True),  # a 0% limit refuses any change
        (0, 100, 0, False),
        (50, 50, 100, False),  # 100% allows everything
    ],
)
def test_the_percent_boundary(changed: int, existing: int, limit: float, violated: bool) -> None:
    result = brake_violations(
        plan(changes("assets", changed)), live(assets=existing), brake(limit, min_existing=1)
    )
    assert bool(result) is violated


def test_creates_are_not_counted() -> None:
    bootstrap = plan(changes("assets", 50, Action.create), changes("assets", 3))
    assert brake_violations(bootstrap, live(assets=10), brake()) == []
    assert [v.changed for v in brake_violations(bootstrap, live(assets=9), brake(10, 5))] == [3]


@pytest.mark.parametrize("action", [Action.update, Action.enable, Action.disable, Action.delete])
def test_updates_enables_disables_and_deletes_count(action: Action) -> None:
    found = brake_violations(plan(changes("users", 4, action)), live(users=10), brake())
    percent = [(v.kind, v.changed) for v in found if isinstance(v, BrakeViolation)]
    assert percent == [("users", 4)]


def test_removals_and_updates_add_up() -> None:
    mixed = plan(
        changes("users", 2),
        changes("users", 2, Action.disable, removal=True),
    )
    assert [v.changed for v in brake_violations(mixed, live(users=10), brake())] == [4]
    assert brake_violations(plan(changes("users", 2)), live(users=10), brake()) == []


@pytest.mark.parametrize(
    ("existing", "min_existing", "applies"),
    [(9, 10, False), (10, 10, True), (11, 10, True), (1, 0, True), (5, 5, True), (4, 5, False)],
)
def test_min_existing(existing: int, min_existing: int, applies: bool) -> None:
    # every live object changes: far above any limit, so only min_existing decides
    result = brake_violations(
        plan(changes("assets", existing)), live(assets=existing), brake(10, min_existing)
    )
    assert bool(result) is applies


def test_a_kind_with_no_live_objects_is_never_braked() -> None:
    # min_existing 0 must not divide by zero; nothing exists, so nothing can be lost
    assert brake_violations(plan(changes("assets", 3)), live(assets=0), brake(0, 0)) == []
    assert brake_violations(plan(changes("assets", 3)), live(), brake(0, 0)) == []


def test_each_kind_is_judged_on_its_own() -> None:
    both = plan(changes("users", 2), changes("assets", 6), changes("workspace.employees", 9))
    state = live(users=10, assets=10, workspace__employees=10)
    found = brake_violations(both, state, brake(50, 10))
    assert [(v.kind, v.changed, v.existing) for v in found] == [
        ("assets", 6, 10),
        ("workspace.employees", 9, 10),
    ]


def test_the_defaults_are_thirty_percent_of_at_least_ten() -> None:
    defaults = Safety()
    assert brake_violations(plan(changes("assets", 3)), live(assets=10), defaults) == []
    assert brake_violations(plan(changes("assets", 4)), live(assets=10), defaults)
    assert brake_violations(plan(changes("assets", 9)), live(assets=9), defaults) == []


def test_updates_that_only_fill_empty_values_do_not_count() -> None:
    """What a bootstrap cut short leaves (users created, custom fields not yet set) is
    additive to finish, like a create: re-running it must not hold the brake."""
    filling = changes(
        "users",
        9,
        fields=(
            FieldChange("custom_fields.Employee ID", None, "E-1"),
            FieldChange("notes", "", "n"),
        ),
    )
    assert brake_violations(plan(filling), live(users=10), brake()) == []
    overwriting = changes(
        "users",
        4,
        fields=(
            FieldChange("custom_fields.Employee ID", None, "E-1"),
            FieldChange("notes", "a", "b"),
        ),
    )
    found = brake_violations(plan(filling, overwriting), live(users=10), brake())
    assert [(v.kind, v.changed) for v in found] == [("users", 4)]


def test_clearing_a_value_counts() -> None:
    clearing = changes("assets", 4, fields=(FieldChange("location", "HQ", None),))
    assert [v.changed for v in brake_violations(plan(clearing), live(assets=10), brake())] == [4]


# -- irreversible deletions ---------------------------------------------------------------


def irreversible(violations: list[Any]) -> list[tuple[str, int, int]]:
    return [
        (v.kind, v.deleted, v.existing) for v in violations if isinstance(v, IrreversibleViolation)
    ]


@pytest.mark.parametrize(
    ("deleted", "existing", "max_irreversible", "held"),
    [
        (5, 6, 1, True),  # issue 10: 5 of 6 employees, under min_existing, went unbraked
        (1, 100, 1, False),  # one is allowed by default
        (2, 100, 1, True),  # beyond max_irreversible
        (1, 2, 1, False),  # exactly half is not more than half
        (1, 1, 1, True),  # the whole kind, however small
        (3, 10, 5, False),
        (6, 10, 10, True),  # more than half, whatever max_irreversible allows
        (1, 100, 0, True),  # 0: every deletion held
    ],
)
def test_irreversible_deletions(
    deleted: int, existing: int, max_irreversible: int, held: bool
) -> None:
    safety = Safety(max_change_percent=100, min_existing=10, max_irreversible=max_irreversible)
    found = brake_violations(
        plan(changes("workspace.employees", deleted, Action.delete, removal=True)),
        live(workspace__employees=existing),
        safety,
    )
    expected = [("workspace.employees", deleted, existing)] if held else []
    assert irreversible(found) == expected
    assert (
        brake_verdict(
            plan(changes("workspace.employees", deleted, Action.delete)),
            live(workspace__employees=existing),
            safety,
        ).holds
        is held
    )


@pytest.mark.parametrize(
    ("deleted", "existing", "max_irreversible", "why"),
    [
        (2, 100, 1, "more than 1 in one run (max_irreversible)"),
        (5, 6, 10, "more than half of them"),  # under max_irreversible
        (6, 10, 6, "more than half of them"),  # at max_irreversible, which allows that many
        (7, 10, 6, "more than 6 in one run (max_irreversible)"),  # both: the limit is named
    ],
)
def test_the_irreversible_reason_names_the_rule_that_holds(
    deleted: int, existing: int, max_irreversible: int, why: str
) -> None:
    safety = Safety(max_change_percent=100, min_existing=10, max_irreversible=max_irreversible)
    verdict = brake_verdict(
        plan(changes("workspace.employees", deleted, Action.delete)),
        live(workspace__employees=existing),
        safety,
    )
    assert verdict.held == (
        f"workspace.employees: {deleted} of {existing} live objects would be deleted, which "
        f"cannot be undone: {why}",
    )


def test_soft_removals_are_not_irreversible() -> None:
    disables = plan(changes("users", 5, Action.disable, removal=True))
    assert irreversible(brake_violations(disables, live(users=6), Safety())) == []


def test_the_verdict_names_each_reason() -> None:
    safety = Safety(max_change_percent=10, min_existing=1)
    both = plan(changes("assets", 4), changes("workspace.employees", 2, Action.delete))
    verdict = brake_verdict(both, live(assets=10, workspace__employees=10), safety)
    assert verdict.held == (
        "assets: 4 of 10 live objects would change or go (40%, above the 10% limit)",
        "workspace.employees: 2 of 10 live objects would change or go (20%, above the 10% limit)",
        "workspace.employees: 2 of 10 live objects would be deleted, which cannot be undone: "
        "more than 1 in one run (max_irreversible)",
    )
    assert verdict.to_dict() == {"holds": True, "reasons": list(verdict.held)}
    assert not brake_verdict(plan(), live(), safety).holds
