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
        with pytest.raises(ApiError, match="down"):
            await read_live(_desired(), RESOURCES, helpdesk=client)
        await opener
        # Noted here, before asyncio.run cancels whatever is left at its end.
        return client.users_asked_early, client.users_cancelled

    asked_early, cancelled = asyncio.run(run())
    assert asked_early
    assert cancelled  # and awaited: nothing of the read is left running


def test_both_failing_raise_the_departments_error() -> None:
    client = GatedClient(
        {"Users": USERS, "Departments": {"status": 500, "error": "departments down"}},
        users_fail=True,
    )
    client.gate.set()
    with pytest.raises(ApiError, match="departments down"):
        asyncio.run(read_live(_desired(), RESOURCES, helpdesk=client))


def test_a_failed_users_list_is_the_error_of_the_read() -> None:
    client = GatedClient({"Users": USERS, "Departments": DEPARTMENTS}, users_fail=True)
    client.gate.set()
    with pytest.raises(ApiError, match="the users' list failed"):
        asyncio.run(read_live(_desired(), RESOURCES, helpdesk=client))
