"""A ref anywhere inside an operation's params is a dependency: apply resolves refs
inside dicts and lists (`apply._resolve`), so ordering must see them there too, or an
operation would be sent before the id it carries is known."""

from __future__ import annotations

from reconciler.planning.order import dependencies, order_changes
from reconciler.plans import Action, Change, Operation, Ref


def _change(kind: str, key: str, params: dict[str, object]) -> Change:
    operation = Operation("workspace", "POST", "/api/x", params)
    return Change(kind, key, Action.create, (), (operation,))


def test_a_ref_inside_a_dict_or_a_list_in_a_dict_is_a_dependency() -> None:
    change = _change(
        "workspace.employees",
        "amy",
        {
            "manager": {"id": Ref('users["zed"]')},
            "groups": {"ids": [Ref('companies["Acme"]'), 3]},
            "plain": {"name": "Amy"},
        },
    )
    assert dependencies(change) == {'users["zed"]', 'companies["Acme"]'}


def test_a_change_waits_for_the_create_its_nested_ref_names() -> None:
    later = _change("companies", "Acme", {"owner": {"user": Ref('workspace.employees["a"]')}})
    earlier = _change("workspace.employees", "a", {"name": "A"})
    ordered = order_changes([later, earlier])
    assert [c.address for c in ordered] == ['workspace.employees["a"]', 'companies["Acme"]']
