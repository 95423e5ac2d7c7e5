"""A full read (export, unmanaged objects) reads the custom field values of every object
of the kind, and the entries that set values have them read already: each object's values
are read once, not once for the entry and again for the full read."""

from __future__ import annotations

import asyncio

from reconciler.kinds.companies import Company
from reconciler.kinds.register import RESOURCES
from reconciler.kinds.users import User
from reconciler.live import FullRead, read_live
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.document import Manifest
from tests.planning.fakes import SnapshotClient
from tests.planning.test_full_read import HELPDESK


def test_a_full_read_reads_each_objects_values_once() -> None:
    desired = DesiredState.from_manifest(
        Manifest(
            companies=[Company(name="Acme Corp", custom_fields={"Tier": "Gold"})],
            users=[User(username="alice", custom_fields={"Badge": "B-1"})],
        )
    )
    full = FullRead(frozenset({"companies", "users"}))
    client = SnapshotClient(
        {
            **HELPDESK,
            "CustomFields?type=3": [
                {"FieldID": 4, "FieldName": "Badge", "Type": 1, "UsageType": 3}
            ],
            "UserCustomFields?id=10": [{"FieldID": 4, "Value": "B-1"}],
            "UserCustomFields?id=11": [],
        }
    )
    live = asyncio.run(read_live(desired, RESOURCES, helpdesk=client, full=full))
    value_reads = sorted(r for r in client.reads if "CustomFields?id=" in r)
    assert value_reads == [
        "CompanyCustomFields?id=1",
        "CompanyCustomFields?id=2",
        "UserCustomFields?id=10",
        "UserCustomFields?id=11",
    ]
    assert live.keys("companies") == {"acme corp", "globex"}


def test_a_prune_under_ownership_reads_a_renamed_companys_values_once() -> None:
    # Every unlisted company's marker is read for the prune; `Acme Corp`, which the entry
    # `Acme` names by its former name, is not unlisted: its values are read for the entry.
    desired = DesiredState.from_manifest(
        Manifest.model_validate(
            {
                "settings": {
                    "prune": ["companies"],
                    "ownership": {"custom_field": "Tier", "value": "reconciler"},
                },
                "companies": [{"name": "Acme", "previously": ["Acme Corp"]}],
            }
        )
    )
    client = SnapshotClient(HELPDESK)
    live = asyncio.run(
        read_live(desired, RESOURCES, helpdesk=client, prune=frozenset({"companies"}))
    )
    value_reads = sorted(r for r in client.reads if "CustomFields?id=" in r)
    assert value_reads == ["CompanyCustomFields?id=1", "CompanyCustomFields?id=2"]
    companies = live.kinds["companies"].by_key
    assert companies["acme corp"].custom_values == ({"FieldID": 9, "Value": "Gold"},)
