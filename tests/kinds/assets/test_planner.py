"""Parsing of live assets in the shapes the service's versions send (the cases under
`cases/assets_*.yaml` cover the planning)."""

from __future__ import annotations

from typing import Any

import pytest

from reconciler.kinds.assets.reader import AssignedUser, parse_asset, parse_assigned

BASE: dict[str, Any] = {
    "ItemID": 5,
    "SerialNumber": " SN-1 ",
    "ModelName": "X1",
    "Manufacturer": "Lenovo",
    "Type": "Laptop",
    "Supplier": "CDW",
    "Location": "",
    "Comments": None,
    "Quantity": 3,
    "CompanyID": None,
    "company": None,
    "AssignedUsers": [],
    "Fields": [],
}


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        ({"UserID": 7, "Username": "alice", "FirstName": "A"}, AssignedUser(7, "alice")),
        ({"UserId": "7", "UserName": "alice"}, AssignedUser(7, "alice")),
        ({"ID": 7, "Login": "alice", "Name": "Alice Smith"}, AssignedUser(7, "alice")),
        (7, AssignedUser(7, None)),
        ("7", AssignedUser(7, None)),
        (" alice ", AssignedUser(None, "alice")),
        ({"Email": "a@x.com"}, AssignedUser(None, None)),
    ],
)
def test_assigned_users_in_any_shape(item: Any, expected: AssignedUser) -> None:
    assert parse_assigned(item) == expected


def test_texts_are_stripped_and_empty_is_none() -> None:
    asset = parse_asset(BASE)
    assert asset.serial_number == "SN-1"
    assert asset.texts["location"] is None
    assert asset.texts["model_name"] == "X1"
    assert asset.enabled is None  # no Disabled flag: unknown


@pytest.mark.parametrize(
    ("flag", "enabled"), [(True, False), (False, True), ("True", False), ("false", True)]
)
def test_disabled_flag_gives_the_enabled_state(flag: Any, enabled: bool) -> None:
    assert parse_asset({**BASE, "Disabled": flag}).enabled is enabled


def test_keys_in_another_case_and_company_from_its_object() -> None:
    raw = {k.lower(): v for k, v in BASE.items()}
    raw["company"] = {"CompanyID": 4, "Name": "Acme"}
    asset = parse_asset(raw)
    assert (asset.id, asset.serial_number, asset.quantity) == (5, "SN-1", 3)
    assert (asset.company_id, asset.company_name) == (4, "Acme")


def test_missing_quantity_is_the_service_default() -> None:
    assert parse_asset({**BASE, "Quantity": None}).quantity == 1


def test_the_update_record_is_complete() -> None:
    record = parse_asset({**BASE, "CompanyID": 4}).record()
    assert record == {
        "id": 5,
        "serialNumber": "SN-1",
        "modelName": "X1",
        "manufacturer": "Lenovo",
        "type": "Laptop",
        "supplier": "CDW",
        "location": "",
        "comments": "",
        "quantity": 3,
        "companyId": 4,
    }


def test_digest_ignores_the_order_of_assigned_users() -> None:
    users = [{"UserID": 7, "Username": "a"}, {"UserID": 8, "Username": "b"}]
    one = parse_asset({**BASE, "AssignedUsers": users})
    other = parse_asset({**BASE, "AssignedUsers": users[::-1]})
    assert one.digest_data() == other.digest_data()
