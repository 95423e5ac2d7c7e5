"""`--target`/`--exclude` selectors as parsed in-process (the CLI's use of them is in
tests/e2e/test_addresses.py): an unknown kind is a usage error that lists the kinds."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.errors import UsageError
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.loader import load_manifests
from reconciler.plans import Action, Change, Diagnostic, error
from reconciler.plans.addresses import Selector, split_address, unmatched

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


# Every form an address is written in (planning/addresses.py), and what a selector matches (a key
# however spelt, the key a rename gives up).


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ('users["dmitri"]', ("users", "dmitri")),
        ('  users["dmitri"] ', ("users", "dmitri")),
        ('companies["Say \\"hi\\" \\\\ co"]', ("companies", 'Say "hi" \\ co')),
        ('workspace.employees["a@x.com"]', ("workspace.employees", "a@x.com")),
        ('companies["a/b"]', ("companies", "a/b")),
        ('companies[""]', ("companies", "")),
        ("users/dmitri", ("users", "dmitri")),
        ("users/a/b", ("users", "a/b")),
        ("users/", ("users", None)),
        ("users", ("users", None)),
        ('users["unclosed', ('users["unclosed', None)),
    ],
)
def test_every_form_of_an_address_splits_into_its_kind_and_key(
    text: str, parts: tuple[str, str | None]
) -> None:
    assert split_address(text) == parts


def test_a_selector_matches_its_key_however_spelt_and_the_key_a_rename_gives_up() -> None:
    renamed = Change("users", "tina.nguyen", Action.update, renamed_from="Tina")
    plain = Change("users", "Bob", Action.update)
    other = Change("companies", "Bob", Action.create)
    assert Selector.parse("users").matches(plain) and not Selector.parse("users").matches(other)
    assert Selector.parse("users/ bob ").matches(plain)
    assert not Selector.parse("users/bobby").matches(plain)
    assert Selector.parse('users["TINA"]').matches(renamed)
    assert Selector.parse("users/tina.nguyen").matches(renamed)
    assert not Selector.parse("users/tina").matches(plain)
    assert Selector.parse('users["Bob"]') == Selector("users", "Bob")


def test_a_selector_naming_a_manifest_entry_of_a_kind_not_read_names_something(
    tmp_path: Path,
) -> None:
    # The workspace service not configured: its employees are neither read nor planned,
    # and a selector names an entry by its key as written (`employeeNumber`), case and all.
    selectors = [
        Selector.parse('workspace.employees["E-1"]'),
        Selector.parse("workspace.employees/e-1"),
    ]
    assert unmatched(selectors, _employees(tmp_path), {}, [], "--target") == [
        _matches_nothing("--target workspace.employees/e-1")
    ]


def test_a_selector_built_in_code_is_named_by_its_kind_and_key(tmp_path: Path) -> None:
    selectors = [Selector("workspace.employees", "E-9")]
    assert unmatched(selectors, _employees(tmp_path), {}, [], "--exclude") == [
        _matches_nothing("--exclude workspace.employees/E-9")
    ]


def _employees(tmp_path: Path) -> DesiredState:
    manifest = tmp_path / "employees.yaml"
    manifest.write_text(
        "settings: {employee_key: employeeNumber}\n"
        "workspace:\n  employees:\n    - {employeeNumber: E-1, email: a@acme.com}\n",
        encoding="utf-8",
    )
    return load_manifests([manifest], env={})


def _matches_nothing(selector: str) -> Diagnostic:
    return error(
        f"{selector} matches no manifest entry and no live object",
        remedy='use an address as the plan prints it, e.g. workspace.employees["KEY"], '
        "or KIND or KIND/KEY",
    )
