"""What the safety brake counts: the number of live objects of each kind, as read. A
count off by one way lets a mass change through; off the other, it holds a small one."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from reconciler.kinds.register import RESOURCES
from reconciler.live import read_live
from reconciler.manifest.loader import load_manifests
from reconciler.manifest.models import Safety
from reconciler.planning.plan import plan
from reconciler.planning.safety import brake_violations
from tests.planning.fakes import SnapshotClient

RULE = "<AutomationRule><RuleID>{id}</RuleID><Name>Rule {id}</Name><Enabled>true</Enabled>\
<conditions/><actions/></AutomationRule>"
USER = {"IsAdmin": False, "Disabled": False}


def read(
    tmp_path: Path,
    desired: dict[str, Any],
    helpdesk: dict[str, Any],
    workspace: dict[str, Any] | None = None,
) -> tuple[Any, Any]:
    manifest = tmp_path / "manifest.yaml"
    with manifest.open("w") as fh:
        YAML().dump(desired, fh)
    state = load_manifests([manifest], env={})
    live = asyncio.run(
        read_live(
            state,
            RESOURCES,
            helpdesk=SnapshotClient(helpdesk),
            workspace=SnapshotClient(workspace or {}),
            prune=frozenset(),
        )
    )
    return state, live


CASES: list[tuple[str, dict[str, Any], dict[str, Any], dict[str, Any], int]] = [
    (
        "users",
        {"users": [{"username": "amy"}]},
        {
            "Departments": [],
            "Users": [
                {"UserID": 1, "Username": "amy", **USER},
                {"UserID": 2, "Username": "bob", **USER},
                {"UserID": 3, "Username": "cid", **USER},
            ],
        },
        {},
        3,
    ),
    (
        "companies",
        {"companies": [{"name": "Globex"}]},
        {"Companies": [{"CompanyID": 1, "Name": "Globex"}, {"CompanyID": 2, "Name": "Hooli"}]},
        {},
        2,
    ),
    (
        "departments",
        {"departments": [{"name": "IT"}]},
        {"Departments": [{"DepartmentID": 1, "Name": "IT"}, {"DepartmentID": 2, "Name": "HR"}]},
        {},
        2,
    ),
    (
        "automation_rules",  # a rule the service does not have (404) is not counted
        {
            "automation_rules": [
                {"id": 1, "enabled": True},
                {"id": 2, "enabled": True},
                {"id": 3, "enabled": True},
            ]
        },
        {
            "Rule/1": RULE.format(id=1),
            "Rule/2": RULE.format(id=2),
            "Rule/3": {"status": 404, "error": "no such rule"},
        },
        {},
        2,
    ),
    (
        "workspace.employees",  # one without the key field is counted too
        {"workspace": {"employees": [{"email": "a@acme.com"}]}},
        {},
        {
            "employees": [
                {"id": 1, "email": "a@acme.com"},
                {"id": 2, "email": "b@acme.com"},
                {"id": 3, "email": None},
            ]
        },
        3,
    ),
]


@pytest.mark.parametrize(
    ("kind", "desired", "helpdesk", "workspace", "count"), CASES, ids=[c[0] for c in CASES]
)
def test_the_live_objects_of_a_kind_are_counted_once_each(
    tmp_path: Path,
    kind: str,
    desired: dict[str, Any],
    helpdesk: dict[str, Any],
    workspace: dict[str, Any],
    count: int,
) -> None:
    _, live = read(tmp_path, desired, helpdesk, workspace)
    assert len(live.kinds[kind]) == count


def test_the_brake_holds_by_the_rules_that_exist(tmp_path: Path) -> None:
    """Disabling one of two rules is half of them: above a 40 % limit. (Counting a rule
    twice, or the one the service lacks, would make it a quarter or a third.)"""
    desired = {
        "automation_rules": [
            {"id": 1, "enabled": False},
            {"id": 2, "enabled": True},
            {"id": 3, "enabled": True},
        ]
    }
    helpdesk = {
        "Rule/1": RULE.format(id=1),
        "Rule/2": RULE.format(id=2),
        "Rule/3": {"status": 404, "error": "no such rule"},
    }
    state, live = read(tmp_path, desired, helpdesk)
    result = plan(state, live, resources=RESOURCES)
    safety = Safety(max_change_percent=40, min_existing=1)
    (violation,) = brake_violations(result, live, safety)
    assert violation.text() == (
        "automation_rules: 1 of 2 live objects would change or go (50%, above the 40% limit)"
    )
