"""Employees planned from manifests built in code (`DesiredState.from_manifest`), which
the loader's checks never saw: an entry without its key (`settings.employee_key`) cannot
be matched or created, and is passed over; the entries after it are still planned."""

from __future__ import annotations

import asyncio

from reconciler.kinds.register import RESOURCES
from reconciler.live import read_live
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.document import Manifest
from reconciler.planning.plan import plan
from tests.planning.fakes import SnapshotClient


def test_an_entry_without_its_key_is_passed_over_and_the_rest_planned() -> None:
    manifest = Manifest.model_validate(
        {
            "workspace": {
                "employees": [
                    {"email": "amy@acme.com", "jobTitle": "Lead"},
                    {"firstName": "Nobody"},
                    {"email": "bob@acme.com", "firstName": "Bob"},
                ]
            }
        }
    )
    desired = DesiredState.from_manifest(manifest)
    workspace = SnapshotClient(
        {"employees": [{"id": 1, "email": "amy@acme.com", "jobTitle": "Intern"}]}
    )
    live = asyncio.run(read_live(desired, RESOURCES, workspace=workspace, prune=frozenset()))
    result = plan(desired, live, resources=RESOURCES)
    assert not result.errors
    got = [
        (c.address, c.action.value, [(f.path, f.before, f.after) for f in c.fields])
        for c in result.changes
    ]
    assert got == [
        ('workspace.employees["amy@acme.com"]', "update", [("jobTitle", "Intern", "Lead")]),
        (
            'workspace.employees["bob@acme.com"]',
            "create",
            [("email", None, "bob@acme.com"), ("firstName", None, "Bob")],
        ),
    ]
