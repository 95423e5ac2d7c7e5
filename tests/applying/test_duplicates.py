"""A live natural key that matches two objects (two applies that raced, an edit by hand)
is one clear error for that object, naming both ids and the remedy (issue 10), and
nothing is applied while it stands."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from reconciler.manifest.desired import DesiredState
from reconciler.manifest.loader import load_manifests
from reconciler.sandbox import records
from reconciler.sandbox.seed import Credentials
from reconciler.sandbox.state import SandboxState
from reconciler.session.workflow import read_and_plan
from tests.applying.inprocess import EXAMPLE, asgi, connection, seeded, workspace_client


@pytest.fixture(scope="module")
def desired() -> DesiredState:
    return load_manifests([EXAMPLE], env={})


def errors_of(state: SandboxState, credentials: Credentials, desired: DesiredState) -> list[Any]:
    outcome = asyncio.run(read_and_plan(desired, connection(credentials), transport=asgi(state)))
    return list(outcome.plan.errors)


def test_two_live_categories_of_one_name_and_section(desired: DesiredState) -> None:
    state, credentials = seeded("acme")
    first = next(c for c in state.store.rows("categories") if c["name"] == "Hardware")
    # The API refuses to make this twin; two applies that raced on the real service did.
    twin = state.store.insert(
        "categories", records.category("Hardware", section_id=first["section_id"])
    )
    found = [e for e in errors_of(state, credentials, desired) if "Hardware" in e.address]
    assert [e.address for e in found] == [
        'categories["Hardware"]',
        'tech_permissions["Hardware"]',
    ]
    for problem in found:
        assert f"2 live categories (ids {first['id']}, {twin['id']})" in problem.message
        assert "in section 'IT Support'" in problem.message
        assert "delete or rename all but one of them" in (problem.remedy or "")


def test_two_live_employees_of_one_email(desired: DesiredState) -> None:
    state, credentials = seeded("acme")
    first = next(
        r
        for r in state.store.rows("ws_employees")
        if r["fields"]["email"] == "alice.smith@acme.com"
    )
    # The service refuses this twin (409); an import done by hand elsewhere made one.
    twin = dict(first, public_id="0badc0ffee01")
    del twin["id"]
    state.store.insert("ws_employees", twin)
    with workspace_client(state, credentials) as workspace:
        ids = [
            e["id"]
            for e in workspace.get("employees").json()
            if e["email"] == first["fields"]["email"]
        ]
    assert len(ids) == 2
    address = 'workspace.employees["alice.smith@acme.com"]'
    found = [e for e in errors_of(state, credentials, desired) if e.address == address]
    assert len(found) == 1
    assert f"2 live employees (ids {ids[0]}, {ids[1]})" in found[0].message
    assert "delete all but one of them" in (found[0].remedy or "")
