"""`--target`/`--exclude` selectors as parsed in-process (the CLI's use of them is in
tests/e2e/test_addresses.py): an unknown kind is a usage error that lists the kinds."""

from __future__ import annotations

import pytest

from reconciler.errors import UsageError
from reconciler.plans.addresses import Selector

KINDS = (
    "companies, departments, categories, users, tech_permissions, assets, automation_rules, "
    "workspace.employees"
)


@pytest.mark.parametrize(("text", "kind"), [("widgets/x", "widgets"), ('user["bob"]', "user")])
def test_an_unknown_kind_is_named_with_the_kinds(text: str, kind: str) -> None:
    with pytest.raises(UsageError) as raised:
        Selector.parse(text)
    assert str(raised.value) == f"unknown kind {kind!r} in {text!r}; kinds: {KINDS}"


def test_a_selector_keeps_the_text_as_given_for_messages() -> None:
    selector = Selector.parse("users/ Bob ")
    assert (selector.kind, selector.text) == ("users", "users/ Bob ")
