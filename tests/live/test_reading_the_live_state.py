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
from reconciler.kinds.companies import Company
from reconciler.kinds.departments import Department
from reconciler.kinds.register import RESOURCES
from reconciler.live import FullRead, LiveReader, LiveState, malformed, read_live
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.document import Manifest
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


# The read's orchestration (live/__init__.py `LiveReader`), with readers of its own: which kinds
# are read (what the manifests need, the kinds read in full and those their reads use, `also`), a
# kind waiting for another's result, the kinds of an unconfigured service skipped, and a reader's
# failure ending the read with the other reads cancelled.

NOTHING = DesiredState.from_manifest(Manifest())


class Data:
    def __init__(self, kind: str, got: Any = None) -> None:
        self.kind, self.got = kind, got

    def digest_data(self) -> Any:
        return self.kind


class OwnReader:
    def __init__(
        self, kind: str, service: str = "helpdesk", *, uses: tuple[str, ...] = (),
        needed: bool = False, wait_for: str | None = None, fails: Exception | None = None,
    ) -> None:  # fmt: skip
        self.kind, self.service, self.uses = kind, service, uses
        self.needed, self.wait_for, self.fails = needed, wait_for, fails
        self.cancelled = False

    def needs(self, desired: DesiredState) -> bool:
        return self.needed

    async def read(self, reader: LiveReader) -> Data:
        try:
            if self.fails is not None:
                await asyncio.sleep(0)
                raise self.fails
            got = None if self.wait_for is None else await reader.get(self.wait_for)
            if self.kind == "slow":
                await asyncio.sleep(30)  # cancelled at once; 30 s only if it were not
            return Data(self.kind, got)
        except asyncio.CancelledError:
            self.cancelled = True
            raise


def read_with(readers: list[OwnReader], **options: Any) -> Any:
    return asyncio.run(read_live(NOTHING, readers, **options))  # type: ignore[arg-type]


def test_the_kinds_read_are_those_needed_read_in_full_used_by_those_or_also() -> None:
    readers = [
        OwnReader("needed", needed=True),
        OwnReader("full", uses=("used",)),
        OwnReader("used", uses=("used-too",)),
        OwnReader("used-too"),
        OwnReader("also"),
        OwnReader("unwanted"),
        OwnReader("elsewhere", "workspace", needed=True),
    ]
    heard: list[str] = []
    scope = FullRead(frozenset({"full", "missing"}), also=frozenset({"also"}))
    state = read_with(readers, helpdesk=object(), workspace=None, full=scope, on_read=heard.append)
    assert sorted(state.kinds) == ["also", "full", "needed", "used", "used-too"]
    assert sorted(heard) == sorted(state.kinds)
    assert state.skipped == ("elsewhere",)
    assert state.full == frozenset({"full"})  # what was read of the kinds asked in full


def test_a_kind_gets_the_result_of_another_and_none_for_a_kind_not_read() -> None:
    readers = [
        OwnReader("users", needed=True, wait_for="departments"),
        OwnReader("departments", needed=True),
        OwnReader("assets", needed=True, wait_for="categories"),
    ]
    state = read_with(readers, helpdesk=object())
    assert state.kinds["users"].got.kind == "departments"
    assert state.kinds["assets"].got is None


def test_a_failing_reader_ends_the_read_and_cancels_the_others() -> None:
    slow = OwnReader("slow", needed=True)
    readers = [slow, OwnReader("broken", "workspace", needed=True, fails=KeyError("ID"))]
    with pytest.raises(MalformedAnswer) as refused:
        read_with(readers, helpdesk=object(), workspace=object())
    assert str(refused.value) == (
        "the workspace's answer for broken cannot be read: an item has no 'ID'; "
        "check that WORKSPACE_URL is the workspace's address"
    )
    assert slow.cancelled


def test_another_error_of_a_reader_is_passed_on_as_it_is() -> None:
    error = ConnectionResetError("reset")
    with pytest.raises(ConnectionResetError) as raised:
        read_with([OwnReader("x", needed=True, fails=error)], helpdesk=object())
    assert raised.value is error
