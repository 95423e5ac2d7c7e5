"""Dependency order of changes where it differs from the kinds' natural order: the cases
a plan built from real manifests rarely reaches (a change that needs one of a later
kind, removals, cycles), on hand-made changes."""

from __future__ import annotations

import pytest

from reconciler.planning.order import (
    CycleError,
    dependencies,
    order_changes,
    with_dependencies,
    without_dependents,
)
from reconciler.plans import Action, Change, Operation, Ref


def change(
    kind: str,
    key: str,
    *,
    needs: tuple[str, ...] = (),
    uses: tuple[str, ...] = (),
    removal: bool = False,
) -> Change:
    """`needs`: explicit dependencies; `uses`: ids known after apply in an operation."""
    params = {f"p{i}": Ref(address) for i, address in enumerate(uses)}
    operations = (Operation("helpdesk", "POST", "/api/X", params),) if uses else ()
    action = Action.delete if removal else Action.create
    return Change(kind, key, action, (), operations, depends_on=needs, removal=removal)


def addresses(changes: list[Change]) -> list[str]:
    return [c.address for c in changes]


def test_without_dependencies_the_kinds_natural_order_then_the_key_decides() -> None:
    changes = [
        change("workspace.employees", "a"),
        change("users", "b"),
        change("users", "A"),
        change("companies", "z"),
        change("departments", "f"),
        change("unheard_of", "a"),
    ]
    assert addresses(order_changes(changes)) == [
        'companies["z"]',
        'departments["f"]',
        'users["A"]',
        'users["b"]',
        'workspace.employees["a"]',
        'unheard_of["a"]',
    ]


def test_a_change_comes_after_one_of_a_later_kind_it_depends_on() -> None:
    changes = [
        change("companies", "Acme", needs=('users["zed"]',)),
        change("companies", "Zeta"),
        change("users", "zed"),
        change("users", "amy"),
    ]
    # Only Acme waits: Zeta keeps its place before the users.
    assert addresses(order_changes(changes)) == [
        'companies["Zeta"]',
        'users["amy"]',
        'users["zed"]',
        'companies["Acme"]',
    ]


def test_an_id_known_after_apply_is_a_dependency() -> None:
    changes = [
        change("companies", "Acme", uses=('assets["SN-1"]',)),
        change("assets", "SN-1"),
    ]
    assert addresses(order_changes(changes)) == ['assets["SN-1"]', 'companies["Acme"]']
    assert dependencies(changes[0]) == {'assets["SN-1"]'}


def test_a_chain_against_the_natural_order_is_followed_to_its_end() -> None:
    changes = [
        change("companies", "a", needs=('users["b"]',)),
        change("users", "b", uses=('assets["c"]',)),
        change("assets", "c", needs=('workspace.employees["d"]',)),
        change("workspace.employees", "d"),
    ]
    assert addresses(order_changes(changes)) == [
        'workspace.employees["d"]',
        'assets["c"]',
        'users["b"]',
        'companies["a"]',
    ]


def test_itself_and_changes_outside_the_plan_are_not_waited_for() -> None:
    changes = [
        change("users", "a", needs=('users["a"]', 'companies["gone"]'), uses=('users["a"]',)),
        change("companies", "b"),
    ]
    assert dependencies(changes[0]) == {'companies["gone"]'}
    assert addresses(order_changes(changes)) == ['companies["b"]', 'users["a"]']


def test_removals_come_last_in_reverse_kind_order() -> None:
    changes = [
        change("users", "old-b", removal=True),
        change("tech_permissions", "Hardware", removal=True),
        change("users", "old-a", removal=True),
        change("companies", "Gone", removal=True),
        change("workspace.employees", "x"),
        change("companies", "New"),
    ]
    assert addresses(order_changes(changes)) == [
        'companies["New"]',
        'workspace.employees["x"]',
        'tech_permissions["Hardware"]',
        'users["old-a"]',
        'users["old-b"]',
        'companies["Gone"]',
    ]


def test_a_cycle_raises_with_the_addresses_in_it() -> None:
    changes = [
        change("users", "a", needs=('users["b"]',)),
        change("users", "b", uses=('users["a"]',)),
        change("users", "c"),
    ]
    with pytest.raises(CycleError) as raised:
        order_changes(changes)
    cycle = raised.value.args[1]
    assert cycle[0] == cycle[-1]
    assert set(cycle) == {'users["a"]', 'users["b"]'}


def test_with_dependencies_adds_what_the_selection_needs_transitively_in_plan_order() -> None:
    changes = [
        change("companies", "c"),
        change("companies", "unrelated"),
        change("users", "u", needs=('companies["c"]',)),
        change("assets", "a", uses=('users["u"]', 'companies["elsewhere"]')),
        change("assets", "b", uses=('users["u"]',)),
    ]
    kept = with_dependencies(changes, {'assets["a"]', 'assets["not planned"]'})
    assert addresses(kept) == ['companies["c"]', 'users["u"]', 'assets["a"]']
    assert with_dependencies(changes, set()) == []


def test_without_dependents_names_what_each_left_out_change_needs() -> None:
    changes = [
        change("companies", "c"),
        change("companies", "d"),
        change("users", "u", needs=('companies["d"]', 'companies["c"]')),
        change("assets", "a", uses=('users["u"]',)),
        change("assets", "b"),
    ]
    # Listed before what it needs: the search does not depend on the order.
    changes.insert(0, changes.pop(3))
    assert without_dependents(changes, {'companies["c"]', 'companies["d"]'}) == {
        'users["u"]': 'companies["c"]',
        'assets["a"]': 'users["u"]',
    }
    assert without_dependents(changes, {'assets["b"]'}) == {}
