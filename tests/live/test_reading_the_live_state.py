"""Reading the live state (live/__init__.py) in-process: an answer a reader cannot read
is one line naming the service, the kind, what was wrong and the variable to check
(server text made printable and cut); kinds whose service is not configured are
skipped, each kind read is reported once; what `keys` gives only for kinds read in full."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import pytest

from reconciler.errors import MalformedAnswer
from reconciler.live import FullRead, LiveState, malformed, read_live
from reconciler.manifest import DesiredState
from reconciler.manifest.models import Company, Department, Manifest
from reconciler.resources import RESOURCES
from tests.planning.fakes import SnapshotClient

ACME = DesiredState.from_manifest(Manifest(companies=[Company(name="Acme")]))


def read(helpdesk: dict[str, Any] | None, desired: DesiredState = ACME, **more: Any) -> LiveState:
    client = None if helpdesk is None else SnapshotClient(helpdesk)
    return asyncio.run(read_live(desired, RESOURCES, helpdesk=client, workspace=None, **more))


@pytest.mark.parametrize(
    ("companies", "what"),
    [
        ([{}], "an item has no 'ID'"),
        ([{"CompanyID": "x", "Name": "A"}], "invalid literal for int() with base 10: 'x'"),
        ("text", "'str' object has no attribute 'get'"),
    ],
)
def test_an_answer_that_cannot_be_read_is_one_line(companies: Any, what: str) -> None:
    with pytest.raises(MalformedAnswer) as refused:
        read({"Companies": companies})
    assert str(refused.value) == (
        f"the helpdesk's answer for companies cannot be read: {what}; check that HELPDESK_URL "
        "is the helpdesk's address"
    )


@dataclass
class Reader:
    kind: str
    service: str


def test_server_text_is_made_printable_and_cut() -> None:
    long = malformed(Reader("employees", "workspace"), ValueError("a\nb" + "x" * 300))  # type: ignore[arg-type]
    shown = "a\\nb" + "x" * 155 + "…"
    assert len(shown) == 160
    assert str(long) == (
        f"the workspace's answer for employees cannot be read: {shown}; check that "
        "WORKSPACE_URL is the workspace's address"
    )
    exact = malformed(Reader("users", "helpdesk"), KeyError("k" * 160))  # type: ignore[arg-type]
    assert f"an item has no '{'k' * 160}';" in str(exact)
    bare = malformed(Reader("users", "helpdesk"), ValueError())  # type: ignore[arg-type]
    assert "cannot be read: ValueError; check" in str(bare)
    assert "an item has no '';" in str(malformed(Reader("u", "helpdesk"), KeyError()))  # type: ignore[arg-type]


def test_unconfigured_kinds_are_skipped_and_read_kinds_reported_once() -> None:
    desired = DesiredState.from_manifest(
        Manifest(companies=[Company(name="Acme")], departments=[Department(name="IT")])
    )
    heard: list[str] = []
    state = read(
        {"Companies": [{"CompanyID": 1, "Name": "Acme"}], "Departments": []},
        desired,
        on_read=heard.append,
    )
    assert sorted(heard) == sorted(state.kinds) and len(heard) == len(set(heard))
    assert {"companies", "departments"} <= set(state.kinds)
    assert state.skipped == () and state.full == frozenset()
    assert state.keys("companies") is None  # not read in full: not every key is known
    none = read(None, desired)
    assert none.kinds == {} and set(none.skipped) >= {"companies", "departments"}


def test_keys_of_a_kind_read_in_full() -> None:
    companies = [{"CompanyID": 1, "Name": "Acme"}, {"CompanyID": 2, "Name": "Beta"}]
    live = {"Companies": companies, "CustomFields?type=4": []}
    state = read(live, full=FullRead(frozenset({"companies"})))
    assert state.full == frozenset({"companies"})
    assert state.keys("companies") == frozenset({"acme", "beta"})
    assert state.keys("users") is None
    assert state.digest() == read(live, full=FullRead(frozenset({"companies"}))).digest()
    renamed = {**live, "Companies": [companies[0], {"CompanyID": 2, "Name": "Beta Ltd"}]}
    assert read(renamed, full=FullRead(frozenset({"companies"}))).digest() != state.digest()
    assert state.digest().startswith("sha256:") and len(state.digest()) == 7 + 64
