"""The workspace service: X-API-Key, employees CRUD, lists, and its two quirks."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from reconciler.sandbox.app import create_app
from reconciler.sandbox.config import SandboxConfig
from reconciler.sandbox.process import InProcessTransport
from tests.sandbox.conftest import WORKSPACE_KEY, make_state

ALICE = {"email": "alice@acme.com", "firstName": "Alice", "lastName": "Smith", "department": "IT"}


def ws_client(*quirks: str) -> httpx.Client:
    state = make_state(SandboxConfig(quirks=set(quirks)))
    return httpx.Client(
        transport=InProcessTransport(create_app(state)),
        base_url="http://t/workspace",
        headers={"X-API-Key": WORKSPACE_KEY},
    )


@pytest.fixture
def wsc() -> httpx.Client:
    return ws_client()


def test_missing_or_unknown_key_is_401_with_a_json_error(wsc: httpx.Client) -> None:
    resp = wsc.get("/api/employees", headers={"X-API-Key": ""})
    assert resp.status_code == 401 and resp.json()["error"] == "Missing X-API-Key header"
    resp = wsc.get("/api/employees", headers={"X-API-Key": "nope"})
    assert resp.status_code == 401 and resp.json()["error"] == "Invalid API key"


def test_an_employee_is_created_read_replaced_and_deleted(wsc: httpx.Client) -> None:
    assert wsc.get("/api/employees").json() == []
    created = wsc.post("/api/employees", json=ALICE)
    assert created.status_code == 201
    emp: dict[str, Any] = created.json()
    assert isinstance(emp["id"], str)
    assert emp["department"] == "IT" and emp["active"] is True and emp["jobTitle"] is None
    assert {"createdAt", "updatedAt"} <= set(emp)
    assert wsc.get(f"/api/employees/{emp['id']}").json() == emp
    assert wsc.get("/api/employees").json() == [emp]

    # PUT replaces the whole record: what is omitted goes back to its default.
    replaced = wsc.put(
        f"/api/employees/{emp['id']}",
        json={
            "email": "alice@acme.com",
            "firstName": "Alice",
            "lastName": "Jones",
            "jobTitle": "CTO",
        },
    )
    assert replaced.status_code == 200
    assert replaced.json()["lastName"] == "Jones" and replaced.json()["department"] is None
    # Echoing the server's own fields back is accepted.
    assert wsc.put(f"/api/employees/{emp['id']}", json=replaced.json()).status_code == 200

    assert wsc.delete(f"/api/employees/{emp['id']}").status_code == 204
    assert wsc.get(f"/api/employees/{emp['id']}").status_code == 404
    assert wsc.delete(f"/api/employees/{emp['id']}").status_code == 404


def test_duplicate_email_is_409(wsc: httpx.Client) -> None:
    first = wsc.post("/api/employees", json=ALICE).json()
    resp = wsc.post("/api/employees", json={**ALICE, "email": "ALICE@acme.com"})
    assert resp.status_code == 409
    bob = wsc.post("/api/employees", json={**ALICE, "email": "bob@acme.com"}).json()
    assert wsc.put(f"/api/employees/{bob['id']}", json=ALICE).status_code == 409
    assert wsc.put(f"/api/employees/{first['id']}", json=ALICE).status_code == 200


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"firstName": "A", "lastName": "B"}, "email is required"),
        ({**ALICE, "email": "not-an-address"}, "not a valid address"),
        ({**ALICE, "shoeSize": 42}, "unknown field(s): shoeSize"),
        ({**ALICE, "active": "yes"}, "active must be true or false"),
        ({**ALICE, "startDate": "31/01/2027"}, "startDate must be a date"),
        ({**ALICE, "department": 5}, "department must be a string"),
    ],
)
def test_validation_errors_are_422(wsc: httpx.Client, body: dict[str, Any], message: str) -> None:
    resp = wsc.post("/api/employees", json=body)
    assert resp.status_code == 422
    assert message in resp.json()["error"]


def test_bad_json_is_400(wsc: httpx.Client) -> None:
    assert wsc.post("/api/employees", content=b"{nope").status_code == 400
    assert wsc.post("/api/employees", json=[ALICE]).status_code == 400


def test_only_employees_are_served_and_other_routes_are_404(wsc: httpx.Client) -> None:
    for path in ("/api/desks", "/api/assets", "/api/bookings", "/api/nothing", "/employees"):
        assert wsc.get(path).status_code == 404, path
    assert wsc.get("/api/employees/x/y").status_code == 404
    assert wsc.patch("/api/employees").status_code == 405


def test_the_envelope_quirk_wraps_lists() -> None:
    client = ws_client("workspace-envelope")
    client.post("/api/employees", json=ALICE)
    body = client.get("/api/employees").json()
    assert body["total"] == 1 and body["data"][0]["email"] == "alice@acme.com"


def test_the_integer_id_quirk_gives_integer_ids() -> None:
    client = ws_client("workspace-int-ids")
    emp = client.post("/api/employees", json=ALICE).json()
    assert isinstance(emp["id"], int)
    assert client.get(f"/api/employees/{emp['id']}").json()["email"] == "alice@acme.com"
