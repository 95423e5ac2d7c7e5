"""`--prune` from the entry points to the far end, against the sandbox in-process: `plan`
(`read_and_plan`) and an apply's plan (`ApplySession.plan`) with prune read the unlisted
and disabled objects too and plan to disable what the manifests do not list, the brake
holding on the share; without it, nothing is read beyond what is listed and nothing is
planned. A key-only `--exclude` does not excuse a kind whose service is not configured."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

import pytest

from reconciler.applying.session import ApplyOptions, ApplySession
from reconciler.clients.connection import Connection
from reconciler.errors import UsageError
from reconciler.manifest import DesiredState
from reconciler.manifest.models import Asset, Manifest, User
from reconciler.plans import Plan
from reconciler.plans.addresses import Selector
from reconciler.run.workflow import check_services, read_and_plan
from reconciler.sandbox import SandboxState
from reconciler.sandbox.seed import Credentials
from tests.applying.inprocess import asgi, connection, seeded

DESIRED = DesiredState.from_manifest(
    Manifest(users=[User(username="admin")], assets=[Asset(serial_number="PF4KX2A2")])
)
USERS = ["alice", "bob", "carla", "dmitri", "felix", "helen", "ivan", "omar", "priya", "tina"]
ASSETS = [
    "24A43F9C1D7E", "5CG4210JQ7", "5CG4210JQ8", "9XK2L93", "9XK2L94", "C02FK3ZQMD6R",
    "CN0J2N3K01", "CN0J2N3K02", "CN0J2N3K03", "CN0J2N3K04", "F4GZK1A1", "F4GZK1A2",
    "F4GZK1A3", "F4GZK1A4", "PF3HT7C9", "PF4KX2A1", "PF4KX2A3", "PF4KX2A4",
    "Q2KN-5WLD-7HTX", "VNB3K12345",
]  # fmt: skip


def by_plan(state: SandboxState, credentials: Credentials, prune: bool) -> Plan:
    outcome = asyncio.run(
        read_and_plan(DESIRED, connection(credentials), prune=prune, transport=asgi(state))
    )
    assert outcome.calls == len(state.requests)  # every request counted
    return outcome.plan


def by_apply(state: SandboxState, credentials: Credentials, prune: bool) -> Plan:
    async def make() -> Plan:
        where = Path(tempfile.mkdtemp(prefix="reconciler-mut6-"))
        async with ApplySession(
            DESIRED,
            connection(credentials),
            options=ApplyOptions(prune=prune),
            transport=asgi(state),
            lock_directory=where,
        ) as session:
            return await session.plan()

    return asyncio.run(make())


@pytest.mark.parametrize("entry", [by_plan, by_apply], ids=["plan", "apply"])
def test_prune_reaches_the_reads_and_the_planner(entry: object) -> None:
    assert callable(entry)
    state, credentials = seeded("acme")
    unpruned = entry(state, credentials, False)
    assert (unpruned.changes, unpruned.errors, unpruned.warnings) == ((), (), ())
    assert unpruned.brake is not None and unpruned.brake.held == ()

    more, credentials = seeded("acme")
    pruned = entry(more, credentials, True)
    assert len(more.requests) > len(state.requests)  # the unlisted read as well
    assert pruned.errors == ()
    assert [(c.address, c.action.value) for c in pruned.changes] == [
        *((f'assets["{serial}"]', "disable") for serial in ASSETS),
        *((f'users["{name}"]', "disable") for name in USERS),
    ]
    assert pruned.brake is not None and pruned.brake.held == (
        "assets: 20 of 22 live objects would change or go (91%, above the 30% limit)",
        "users: 10 of 11 live objects would change or go (91%, above the 30% limit)",
    )


def test_an_exclude_of_one_object_does_not_excuse_an_unconfigured_service() -> None:
    only_users = DesiredState.from_manifest(Manifest(users=[User(username="admin")]))
    with pytest.raises(UsageError) as refused:
        check_services(only_users, Connection(None, None), [Selector("users", "admin")])
    assert str(refused.value) == (
        "the manifests manage users, but the helpdesk service is not configured: set "
        "HELPDESK_URL and HELPDESK_TOKEN (or HELPDESK_USERNAME and HELPDESK_PASSWORD), "
        "or leave it out with --exclude users"
    )
    check_services(only_users, Connection(None, None), [Selector("users")])  # the whole kind
