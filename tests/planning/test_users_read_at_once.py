"""The users' list is read beside the departments, not after them (one round trip less
on every plan that reads users), and a failure of either leaves no request
running behind the read."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from reconciler.errors import ApiError
from reconciler.kinds.departments import Department
from reconciler.kinds.register import RESOURCES
from reconciler.kinds.users import User
from reconciler.kinds.users.reader import read_users
from reconciler.live import read_live
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.document import Manifest
from tests.planning.fakes import SnapshotClient

USERS = [
    {"UserID": 5, "Username": "alice", "Email": "alice@acme.com", "DepartmentID": 2},
]
DEPARTMENTS = [{"DepartmentID": 2, "Name": "Support"}]
DETAIL = {"User?userId=5": {**USERS[0], "Signature": ""}}


def _desired() -> DesiredState:
    return DesiredState.from_manifest(
        Manifest(
            departments=[Department(name="Support")],
            users=[User(username="alice", email="alice@acme.com", department="Support")],
        )
    )


class GatedClient(SnapshotClient):
    """The departments' answer waits until the test opens the gate; the users' list
    notes whether it was asked for while the departments were still being read."""

    def __init__(self, snapshot: dict[str, Any], *, users_fail: bool = False) -> None:
        super().__init__(snapshot)
        self.gate = asyncio.Event()
        self.departments_done = False
        self.users_asked_early = False
        self.users_fail = users_fail
        self.users_cancelled = False

    async def departments(self) -> Any:
        await self.gate.wait()
        self.departments_done = True
        return await super().departments()

    async def users(self) -> Any:
        self.users_asked_early = not self.departments_done
        if self.users_fail:
            raise ApiError(500, "GET", "/api/Users", "the users' list failed")
        try:
            await asyncio.sleep(3600)  # answered only once the gate opens, below
        except asyncio.CancelledError:
            self.users_cancelled = True
            raise
        return await super().users()  # pragma: no cover (the sleep is cancelled or cut)


def test_the_users_list_is_asked_for_before_the_departments_answer() -> None:
    order: list[str] = []

    class Noting(SnapshotClient):
        async def departments(self) -> Any:
            order.append("departments asked")
            await asyncio.sleep(0.01)  # the users' list is asked for meanwhile
            order.append("departments answered")
            return await super().departments()

        async def users(self) -> Any:
            order.append("users asked")
            return await super().users()

    client = Noting({"Users": USERS, "Departments": DEPARTMENTS, **DETAIL})
    live = asyncio.run(read_live(_desired(), RESOURCES, helpdesk=client))
    assert order.index("users asked") < order.index("departments answered")
    user = live.kinds["users"].by_key["alice"]
    assert user.department == "Support"  # parsed with the departments' names all the same


def test_a_failed_departments_read_cancels_the_users_list_before_the_read_ends() -> None:
    async def run() -> tuple[bool, bool]:
        client = GatedClient({"Users": USERS, "Departments": {"status": 500, "error": "down"}})

        async def open_gate() -> None:
            await asyncio.sleep(0.01)
            client.gate.set()

        opener = asyncio.ensure_future(open_gate())
        with pytest.raises(ApiError) as failed:
            await read_live(_desired(), RESOURCES, helpdesk=client)
        assert str(failed.value) == "GET /api/Departments failed: 500 down"
        await opener
        # Noted here, before asyncio.run cancels whatever is left at its end.
        return client.users_asked_early, client.users_cancelled

    asked_early, cancelled = asyncio.run(run())
    assert asked_early
    assert cancelled  # and awaited: nothing of the read is left running


class DepartmentsFailing:
    """The users' reader's view of a read whose departments fail: only the users' read
    runs, so nothing around it cancels what it started."""

    def __init__(self, helpdesk: GatedClient) -> None:
        self.desired = _desired()
        self.helpdesk = helpdesk

    async def get(self, kind: str) -> Any:
        await asyncio.sleep(0.01)  # the users' list is asked for meanwhile
        raise ApiError(500, "GET", "/api/Departments", "down")


def test_the_users_read_itself_cancels_its_list_when_the_departments_fail() -> None:
    async def run() -> tuple[str, bool, bool]:
        client = GatedClient({"Users": USERS, "Departments": DEPARTMENTS})
        # Bounded: a list left running would keep the read waiting for the hour.
        async with asyncio.timeout(5):
            with pytest.raises(ApiError) as failed:
                await read_users(DepartmentsFailing(client))  # type: ignore[arg-type]
        return str(failed.value), client.users_asked_early, client.users_cancelled

    message, asked_early, cancelled = asyncio.run(run())
    assert message == "GET /api/Departments failed: 500 down"  # the departments' own error
    assert asked_early
    assert cancelled


def test_both_failing_raise_the_departments_error() -> None:
    client = GatedClient(
        {"Users": USERS, "Departments": {"status": 500, "error": "departments down"}},
        users_fail=True,
    )
    client.gate.set()
    with pytest.raises(ApiError) as failed:
        asyncio.run(read_live(_desired(), RESOURCES, helpdesk=client))
    assert str(failed.value) == "GET /api/Departments failed: 500 departments down"


def test_a_failed_users_list_is_the_error_of_the_read() -> None:
    client = GatedClient({"Users": USERS, "Departments": DEPARTMENTS}, users_fail=True)
    client.gate.set()
    with pytest.raises(ApiError) as failed:
        asyncio.run(read_live(_desired(), RESOURCES, helpdesk=client))
    assert str(failed.value) == "GET /api/Users failed: 500 the users' list failed"
