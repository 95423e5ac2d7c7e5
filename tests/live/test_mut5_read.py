"""The read's orchestration (live/__init__.py `LiveReader`), with readers of its own: which
kinds are read (what the manifests need, the kinds read in full and those their reads use,
`also`), a kind waiting for another's result, the kinds of an unconfigured service
skipped, and a reader's failure ending the read with the other reads cancelled."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from reconciler.errors import MalformedAnswer
from reconciler.live import FullRead, LiveReader, read_live
from reconciler.manifest import DesiredState
from reconciler.manifest.models import Manifest

NOTHING = DesiredState.from_manifest(Manifest())


class Data:
    def __init__(self, kind: str, got: Any = None) -> None:
        self.kind, self.got = kind, got

    def digest_data(self) -> Any:
        return self.kind


class Reader:
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


def read(readers: list[Reader], **options: Any) -> Any:
    return asyncio.run(read_live(NOTHING, readers, **options))  # type: ignore[arg-type]


def test_the_kinds_read_are_those_needed_read_in_full_used_by_those_or_also() -> None:
    readers = [
        Reader("needed", needed=True),
        Reader("full", uses=("used",)),
        Reader("used", uses=("used-too",)),
        Reader("used-too"),
        Reader("also"),
        Reader("unwanted"),
        Reader("elsewhere", "workspace", needed=True),
    ]
    heard: list[str] = []
    scope = FullRead(frozenset({"full", "missing"}), also=frozenset({"also"}))
    state = read(readers, helpdesk=object(), workspace=None, full=scope, on_read=heard.append)
    assert sorted(state.kinds) == ["also", "full", "needed", "used", "used-too"]
    assert sorted(heard) == sorted(state.kinds)
    assert state.skipped == ("elsewhere",)
    assert state.full == frozenset({"full"})  # what was read of the kinds asked in full


def test_a_kind_gets_the_result_of_another_and_none_for_a_kind_not_read() -> None:
    readers = [
        Reader("users", needed=True, wait_for="departments"),
        Reader("departments", needed=True),
        Reader("assets", needed=True, wait_for="categories"),
    ]
    state = read(readers, helpdesk=object())
    assert state.kinds["users"].got.kind == "departments"
    assert state.kinds["assets"].got is None


def test_a_failing_reader_ends_the_read_and_cancels_the_others() -> None:
    slow = Reader("slow", needed=True)
    readers = [slow, Reader("broken", "workspace", needed=True, fails=KeyError("ID"))]
    with pytest.raises(MalformedAnswer) as refused:
        read(readers, helpdesk=object(), workspace=object())
    assert str(refused.value) == (
        "the workspace's answer for broken cannot be read: an item has no 'ID'; "
        "check that WORKSPACE_URL is the workspace's address"
    )
    assert slow.cancelled


def test_another_error_of_a_reader_is_passed_on_as_it_is() -> None:
    error = ConnectionResetError("reset")
    with pytest.raises(ConnectionResetError) as raised:
        read([Reader("x", needed=True, fails=error)], helpdesk=object())
    assert raised.value is error
