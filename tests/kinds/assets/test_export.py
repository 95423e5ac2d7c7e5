"""Assets as `reconciler export` writes them (kinds/assets/export.py), converted from a live
snapshot without a service: texts, quantity, company and assigned users as a manifest
names them, what cannot be named left out with a note, empty fields with
`--include-empty`."""

from __future__ import annotations

from typing import Any

import pytest

from reconciler.export.entries import LiveSnapshot
from reconciler.export.result import convert
from reconciler.export.selection import Selection
from reconciler.kinds.assets.reader import AssignedUser, LiveAsset, LiveAssets
from reconciler.kinds.companies.reader import LiveCompanies, LiveCompany
from reconciler.kinds.users.reader import LiveUser, LiveUsers
from reconciler.resources.base import norm_key


def _asset(
    ident: int,
    serial: str | None,
    texts: dict[str, str | None] | None = None,
    quantity: int = 1,
    company: int | None = None,
    assigned: tuple[AssignedUser, ...] = (),
    enabled: bool | None = None,
) -> LiveAsset:
    return LiveAsset(ident, serial, texts or {}, quantity, company, None, assigned, (), enabled)


ASSETS = [
    _asset(
        1,
        "SN-1",
        {
            "model_name": "X1  ",
            "manufacturer": "",
            "type": "Laptop",
            "supplier": None,
            "comments": "c\nd  ",
        },
        2,
        10,
        (
            AssignedUser(5, None),
            AssignedUser(None, "Zoe"),
            AssignedUser(6, "ann"),
            AssignedUser(None, "BOB"),
        ),
        True,
    ),
    _asset(2, "SN-2", quantity=0, company=11, assigned=(AssignedUser(99, None),), enabled=False),
    _asset(3, "SN-3", company=12),
    _asset(4, "SN-4", company=20),
    _asset(5, "sn-4"),
    _asset(6, None),
    _asset(7, "SN-5", {"location": " Rack 2"}, 1, None, (AssignedUser(6, None),)),
]
SNAPSHOT = LiveSnapshot(
    ("assets",),
    {
        "assets": LiveAssets(
            {
                norm_key(a.serial_number): tuple(
                    b
                    for b in ASSETS
                    if b.serial_number and norm_key(b.serial_number) == norm_key(a.serial_number)
                )
                for a in ASSETS
                if a.serial_number
            },
            tuple(a for a in ASSETS if a.serial_number is None),
        ),
        "companies": LiveCompanies(
            {},
            items=(
                LiveCompany(10, "Acme", (), None),
                LiveCompany(11, "Globex", (), None),
                LiveCompany(13, "globex", (), None),
            ),
        ),
        "users": LiveUsers({}, items=(LiveUser(5, "bob", ""), LiveUser(6, "Ann", ""))),
    },
)
NOTES = [
    "assets: 1 asset(s) without a serial number cannot be named by a manifest entry: left out",
    "assets/SN-4: 2 live objects share this key, so no entry can name one of them: none is "
    "written (give each its own key to manage them)",
    "assets/SN-2: quantity 0 is left out (at least 1)",
    "assets/SN-2: company is left out: its company 'Globex' (id 11) shares its name with "
    "another company, so a manifest cannot name it",
    "assets/SN-2: assigned_users is left out: user id 99 is not among the live users",
    "assets/SN-3: company is left out: no company has the id 12",
]


@pytest.mark.parametrize("include_empty", [False, True])
def test_assets_as_written(include_empty: bool) -> None:
    result = convert(SNAPSHOT, Selection.build(kinds=["assets"]), include_empty=include_empty)
    sn1: dict[str, Any] = {
        "serial_number": "SN-1",
        "model_name": "X1",
        "type": "Laptop",
        "comments": "c\nd\n",
        "quantity": 2,
        "company": "Acme",
        "assigned_users": ["ann", "BOB", "Zoe"],
        "enabled": True,
    }
    sn2: dict[str, Any] = {"serial_number": "SN-2", "enabled": False}
    sn3: dict[str, Any] = {"serial_number": "SN-3", "quantity": 1}
    sn5: dict[str, Any] = {
        "serial_number": "SN-5",
        "location": " Rack 2",
        "quantity": 1,
        "assigned_users": ["Ann"],
    }
    if include_empty:
        # The required texts (model, manufacturer, type, supplier) never empty.
        sn1 = {**sn1, "location": "", "custom_fields": None}
        sn2 = {**sn2, "location": "", "comments": "", "custom_fields": None}
        sn3 = {**sn3, "location": "", "comments": "", "assigned_users": [], "custom_fields": None}
        sn5 = {**sn5, "comments": "", "company": None, "custom_fields": None}
    entries = result.entries["assets"]
    assert entries == [sn1, sn2, sn3, sn5]
    order = [
        "serial_number",
        "model_name",
        "manufacturer",
        "type",
        "supplier",
        "location",
        "comments",
        "quantity",
        "company",
        "assigned_users",
        "enabled",
        "custom_fields",
    ]
    for entry in entries:
        assert list(entry) == [name for name in order if name in entry]
    assert result.warnings == NOTES
