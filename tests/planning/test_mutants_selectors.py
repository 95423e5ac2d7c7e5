"""`--target`/`--exclude` in-process (plans/addresses.py): every form
an address is written in, what a selector matches (a key however spelt, the key a rename
gives up), and contradicting selectors refused in full."""

from __future__ import annotations

import pytest

from reconciler.errors import UsageError
from reconciler.plans import Action, Change
from reconciler.plans.addresses import Selector, selections, split_address


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
def test_every_form_of_an_address(text: str, parts: tuple[str, str | None]) -> None:
    assert split_address(text) == parts


def test_what_a_selector_matches() -> None:
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


@pytest.mark.parametrize(
    ("targets", "excludes", "message"),
    [
        (["users"], ["users"], "--target users and --exclude users"),
        (["users/Bob"], ["users"], "--target users/Bob and --exclude users"),
        (['users["bob"]'], ["users/ BOB"], '--target users["bob"] and --exclude users/ BOB'),
    ],
)
def test_contradicting_selectors_are_refused(
    targets: list[str], excludes: list[str], message: str
) -> None:
    with pytest.raises(UsageError) as refused:
        selections(targets, excludes)
    assert str(refused.value) == (
        f"{message} contradict each other: the target would select nothing; drop one of them"
    )


@pytest.mark.parametrize(
    ("targets", "excludes"),
    [(["users"], ["users/bob"]), (["users/ann"], ["users/bob"]), (["users"], ["companies"])],
)
def test_selectors_that_leave_something_are_kept(targets: list[str], excludes: list[str]) -> None:
    selected, left_out = selections(targets, excludes)
    assert [s.text for s in selected] == targets
    assert [s.text for s in left_out] == excludes
