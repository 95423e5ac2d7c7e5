"""A create whose answer was lost, of the kinds `test_lost_creates.py` does not cover:
apply asks `locate` whether the object exists now, and a wrong answer either creates a
duplicate (None where one exists) or takes another object for it (the wrong id). Assets
are matched by serial number over every asset, disabled ones included (the API has no
serial filter); employees by the manifests' `employee_key`, as the workspace compares it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from reconciler.manifest import load_manifests
from reconciler.plans import Action, Change
from reconciler.resources.assets import AssetsResource
from reconciler.resources.employees import EmployeesResource

ASSETS = [
    {"ItemID": 2, "SerialNumber": None, "ModelName": "no serial"},
    {"ItemID": 3, "SerialNumber": "SN-0001"},
    {"ItemID": 4, "SerialNumber": " sn-0002 "},
    {"ItemID": 5, "SerialNumber": "SN-0002"},  # a later one of the same serial: the first wins
]

EMPLOYEES = [
    {"id": 11, "email": None, "employeeNumber": "E-1"},
    {"id": 12, "email": "Ann@Acme.com", "employeeNumber": "e-2"},
    {"id": 13, "email": "bob@acme.com", "employeeNumber": "E-2"},
]


class Helpdesk:
    def __init__(self) -> None:
        self.asked: list[bool] = []

    async def assets(self, include_disabled: bool) -> list[dict[str, Any]]:
        self.asked.append(include_disabled)
        return ASSETS


class Workspace:
    async def employees(self) -> list[dict[str, Any]]:
        return EMPLOYEES


@pytest.mark.parametrize(
    ("serial", "found"),
    [("SN-0001", 3), ("sn-0001", 3), ("SN-0002", 4), ("SN-0003", None)],
)
def test_a_lost_asset_is_found_by_its_serial_among_every_asset(
    serial: str, found: int | None
) -> None:
    helpdesk = Helpdesk()
    change = Change("assets", serial, Action.create)
    assert asyncio.run(AssetsResource().locate(change, helpdesk, None, None)) == found  # type: ignore[arg-type]
    assert helpdesk.asked == [True]


@pytest.mark.parametrize(
    ("employee_key", "key", "found"),
    [
        ("email", "ann@acme.com", 12),
        ("email", "BOB@ACME.COM", 13),
        ("email", "carl@acme.com", None),
        ("employeeNumber", "E-1", 11),
        ("employeeNumber", "E-2", 13),
        ("employeeNumber", "e-2", 12),
        ("employeeNumber", "E-3", None),
    ],
)
def test_a_lost_employee_is_found_by_the_manifests_key(
    employee_key: str, key: str, found: int | None, tmp_path: Path
) -> None:
    manifest = tmp_path / "settings.yaml"
    manifest.write_text(f"settings: {{employee_key: {employee_key}}}\n")
    desired = load_manifests([manifest], env={})
    change = Change("employees", key, Action.create)
    located = asyncio.run(EmployeesResource().locate(change, None, Workspace(), desired))
    assert located == found
