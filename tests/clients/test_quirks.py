"""Every quirk of the real service the sandbox can reproduce (sandbox/config.py QUIRKS) is
tolerated by the clients: one test per quirk, against a sandbox with that quirk on."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from reconciler.clients import RetryPolicy, created_id
from reconciler.errors import OutcomeUnknown
from reconciler.sandbox import records
from reconciler.sandbox.config import QUIRKS, SandboxConfig
from reconciler.sandbox.state import SandboxState
from tests.clients.conftest import (
    FakeClock,
    Sleeper,
    api_requests,
    endpoint_calls,
    helpdesk_client,
    make_state,
    workspace_client,
)

pytestmark = pytest.mark.anyio

QuirkTest = Callable[..., Awaitable[None]]
TESTED: set[str] = set()


def quirk(name: str) -> Callable[[QuirkTest], QuirkTest]:
    assert name in QUIRKS, name
    TESTED.add(name)
    return lambda test: test


def with_quirk(name: str, clock: Callable[[], float] | None = None, **config: Any) -> SandboxState:
    settings: dict[str, Any] = {"rate_limit": 0, "search_rate_limit": 0, **config}
    return make_state(SandboxConfig(quirks={name}, **settings), clock or FakeClock())


BOUND = 20.0  # seconds a step that should take milliseconds may take before it fails

ASSET = {"modelName": "X1", "manufacturer": "Lenovo", "type": "Laptop", "supplier": "CDW"}


@quirk("createuser-bare-int")
async def test_createuser_bare_int() -> None:
    state = with_quirk("createuser-bare-int")
    async with helpdesk_client(state) as client:
        body = await client.request(
            "POST", "CreateUser", {"email": "new@example.com"}, write=True, idempotent=False
        )
        assert isinstance(body, int)
        new_id = created_id(body)
        assert (await client.user(new_id))["Email"] == "new@example.com"


@quirk("createuser-duplicate-500")
async def test_createuser_duplicate_500() -> None:
    state = with_quirk("createuser-duplicate-500")
    sleeper = Sleeper()
    async with helpdesk_client(state, sleeper=sleeper) as client:
        with pytest.raises(OutcomeUnknown) as caught:
            await client.request(
                "POST", "CreateUser", {"email": "tina@example.com"}, write=True, idempotent=False
            )
        assert caught.value.status == 500
        assert str(caught.value).startswith("POST /api/CreateUser failed: 500 ")
        assert "500 500" not in str(caught.value)  # the status once
        # Never repeated; a re-read tells apply the user is there.
        assert "tina@example.com" in [u["Email"] for u in await client.users()]
    assert len(endpoint_calls(state, "CreateUser")) == 1
    assert sleeper.waits == []


@quirk("updateasset-keeps-quantity")
async def test_updateasset_keeps_quantity() -> None:
    state = with_quirk("updateasset-keeps-quantity")
    async with helpdesk_client(state) as client:
        asset_id = created_id(
            await client.request(
                "POST", "Asset", {**ASSET, "quantity": 3}, write=True, idempotent=False
            )
        )
        # The full record, quantity included, keeps the quantity.
        await client.request(
            "POST",
            "UpdateAsset",
            {"id": asset_id, **ASSET, "quantity": 3, "location": "HQ"},
            write=True,
        )
        [asset] = await client.assets(include_disabled=True)
    assert asset["Quantity"] == 3 and asset["Location"] == "HQ"


@quirk("techs-list-implicit")
async def test_techs_list_implicit() -> None:
    state = with_quirk("techs-list-implicit")
    category_id = state.store.insert("categories", records.category("General"))["id"]
    async with helpdesk_client(state) as client:
        listed = await client.techs_for_category(category_id)
    # The administrator and tina (a technician without rows: every category) are listed.
    assert [t["Username"] for t in listed] == ["admin", "tina"]


@quirk("updateuser-blanks-omitted")
async def test_updateuser_blanks_omitted() -> None:
    state = with_quirk("updateuser-blanks-omitted")
    async with helpdesk_client(state) as client:
        tina = next(u for u in await client.users() if u["Username"] == "tina")
        live = await client.user(tina["UserID"])
        full_record = {
            "userId": live["UserID"],
            "username": live["Username"],
            "email": live["Email"],
            "firstName": live["FirstName"],
            "lastName": live["LastName"],
            "phone": live["Phone"],
            "location": "Berlin",
            "disabled": live["Disabled"],
            "isAdmin": live["IsAdmin"],
        }
        await client.request("POST", "UpdateUser", full_record, write=True)
        after = await client.user(tina["UserID"])
    assert after["Location"] == "Berlin"
    assert (after["Username"], after["Email"], after["FirstName"]) == (
        "tina",
        "tina@example.com",
        "Tina",
    )


@quirk("rule-xml-minimal")
async def test_rule_xml_minimal() -> None:
    state = with_quirk("rule-xml-minimal")
    rule = state.store.insert("rules", records.rule("Escalate", enabled=False))
    async with helpdesk_client(state) as client:
        xml = await client.rule_xml(rule["id"])
        info = await client.rule(rule["id"])
    assert "<conditions" in xml and "Escalate" not in xml
    assert (info.id, info.name, info.enabled) == (None, None, None)


@quirk("user-department-id")
async def test_user_department_id() -> None:
    state = with_quirk("user-department-id")
    async with helpdesk_client(state) as client:
        new_id = created_id(
            await client.request(
                "POST",
                "CreateUser",
                {"email": "d@example.com", "department": "IT"},
                write=True,
                idempotent=False,
            )
        )
        user = await client.user(new_id)
        listed = next(u for u in await client.users() if u["UserID"] == new_id)
        departments = await client.departments()
    assert "Departman" not in user and user["DepartmentName"] == "IT"
    assert user["DepartmentID"] == listed["DepartmentID"] == departments[0]["DepartmentID"]


@quirk("customfield-extra-keys")
async def test_customfield_extra_keys() -> None:
    state = with_quirk("customfield-extra-keys")
    field = state.store.insert(
        "custom_fields",
        records.custom_field(
            "Tier",
            type=3,
            usage_type=3,
            options=[{"id": 7, "name": "Gold"}, {"id": 8, "name": "Silver"}],
        ),
    )
    async with helpdesk_client(state) as client:
        tina = next(u for u in await client.users() if u["Username"] == "tina")
        await client.request(
            "POST",
            "SetCustomFieldForUser",
            {"id": tina["UserID"], "fieldId": field["id"], "value": 7},
            write=True,
        )
        [definition] = await client.custom_fields(3)
        [value] = await client.user_custom_fields(tina["UserID"])
    assert definition["SelectionComboOptions"] == [
        {"OptionID": 7, "Name": "Gold"},
        {"OptionID": 8, "Name": "Silver"},
    ]
    assert (value["Value"], value["OptionID"], value["ValueWithOption"]) == ("7", 7, "Gold")


@quirk("asset-disabled-flag")
async def test_asset_disabled_flag() -> None:
    state = with_quirk("asset-disabled-flag")
    async with helpdesk_client(state) as client:
        asset_id = created_id(
            await client.request("POST", "Asset", ASSET, write=True, idempotent=False)
        )
        await client.request("POST", "DisableAsset", {"assetId": asset_id}, write=True)
        assert await client.assets(include_disabled=False) == []
        [asset] = await client.assets(include_disabled=True)
    assert asset["Disabled"] is True


@quirk("no-retry-after")
async def test_no_retry_after() -> None:
    clock = FakeClock()
    state = with_quirk("no-retry-after", clock, rate_limit=2)
    sleeper = Sleeper(clock)
    retry = RetryPolicy(sleep=sleeper, clock=clock)
    # Bounded: a throttle gate that never opens again after the 429 must fail the test,
    # not hang it (clients/ratelimit.py's count of closers starting at 1).
    async with asyncio.timeout(BOUND), helpdesk_client(state, retry=retry) as client:
        for _ in range(2):
            assert await client.companies() == []
    assert [r["status"] for r in api_requests(state)] == [200, 200, 429, 200]
    # Until the minute from the client's first call can have passed (plus the margin).
    assert sleeper.waits == [pytest.approx(61.2)]


@quirk("throttle-slow")
async def test_throttle_slow() -> None:
    window = 0.2
    state = with_quirk("throttle-slow", time.monotonic, rate_limit=2, rate_window=window)
    sleeper = Sleeper()
    started = time.monotonic()
    async with helpdesk_client(state, sleeper=sleeper) as client:  # client limiter off
        for _ in range(4):
            assert await client.departments() == []
    assert {r["status"] for r in api_requests(state)} == {200}
    assert sleeper.waits == []  # slow answers, not errors: nothing was retried
    assert time.monotonic() - started >= 2 * window * 0.9


EMPLOYEE = {"email": "ann@example.com", "firstName": "Ann", "lastName": "Lee"}


@quirk("workspace-envelope")
async def test_workspace_envelope() -> None:
    state = with_quirk("workspace-envelope")
    async with workspace_client(state) as ws:
        assert await ws.employees() == []
        created = await ws.create_employee(EMPLOYEE)
        [listed] = await ws.employees()
    assert listed == created and isinstance(created["id"], str)


@quirk("workspace-int-ids")
async def test_workspace_int_ids() -> None:
    state = with_quirk("workspace-int-ids")
    async with workspace_client(state) as ws:
        created = await ws.create_employee(EMPLOYEE)
        assert isinstance(created["id"], int)
        await ws.update_employee(created["id"], {**EMPLOYEE, "department": "IT"})
        [listed] = await ws.employees()
        assert listed["id"] == created["id"] and listed["department"] == "IT"
        assert (await ws.employee(created["id"]))["department"] == "IT"
        await ws.delete_employee(created["id"])
        assert await ws.employees() == []


def test_every_quirk_has_a_test() -> None:
    assert set(QUIRKS) == TESTED
