from __future__ import annotations

from typing import Any

import httpx
import pytest

from reconciler.sandbox import records
from tests.sandbox.conftest import Api, api_with

ASSET_KEYS = {
    "ItemID",
    "Manufacturer",
    "Supplier",
    "ModelName",
    "TypeID",
    "Type",
    "ManufacturerID",
    "SupplierID",
    "SerialNumber",
    "Location",
    "Comments",
    "Quantity",
    "TicketCount",
    "company",
    "CompanyID",
    "Tickets",
    "AssignedUsers",
    "Fields",
    "Attachments",
}


def create(api: Api, model: str = "Latitude 5440", **extra: Any) -> int:
    form = {"modelName": model, "manufacturer": "Dell", "type": "Laptop", "supplier": "CDW"}
    resp = api.post("Asset", **{**form, **extra})
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert set(body) == {"id"} and isinstance(body["id"], int)
    return int(body["id"])


def insert_assets(api: Api, count: int, **fields: Any) -> list[int]:
    """Arrange many assets directly in the store (paging needs more than the API's pace)."""
    store = api.state.store
    maker = store.find_name("manufacturers", "Acme") or store.insert(
        "manufacturers", records.named("Acme")
    )
    kind = store.find_name("asset_types", "Desk") or store.insert(
        "asset_types", records.named("Desk")
    )
    vendor = store.find_name("suppliers", "Shop") or store.insert(
        "suppliers", records.named("Shop")
    )
    ids = []
    for n in range(count):
        rec = records.asset(
            model_name=f"Model {n:03d}",
            manufacturer_id=maker["id"],
            supplier_id=vendor["id"],
            type_id=kind["id"],
            **fields,
        )
        ids.append(store.insert("assets", rec)["id"])
    return ids


def stored(api: Api, table: str, rid: int) -> dict[str, Any]:
    rec = api.state.store.get(table, rid)
    assert rec is not None
    return rec


def item_ids(resp: httpx.Response) -> list[int]:
    assert resp.status_code == 200, resp.text
    return [a["ItemID"] for a in resp.json()]


# -- create and read ---------------------------------------------------------------------


def test_create_and_read_an_asset(api: Api) -> None:
    cid = api.post("Company", name="Acme", emailDomains="acme.com").json()["id"]
    aid = create(
        api,
        serialNumber="SN-1",
        location="Berlin",
        comments="Spare",
        quantity="3",
        companyId=cid,
    )
    store = api.state.store
    maker = store.find_name("manufacturers", "Dell")
    kind = store.find_name("asset_types", "Laptop")
    vendor = store.find_name("suppliers", "CDW")
    assert maker and kind and vendor
    resp = api.get("Asset", id=aid)
    assert resp.status_code == 200
    assert resp.json() == {
        "ItemID": aid,
        "Manufacturer": "Dell",
        "Supplier": "CDW",
        "ModelName": "Latitude 5440",
        "TypeID": kind["id"],
        "Type": "Laptop",
        "ManufacturerID": maker["id"],
        "SupplierID": vendor["id"],
        "SerialNumber": "SN-1",
        "Location": "Berlin",
        "Comments": "Spare",
        "Quantity": 3,
        "TicketCount": 0,
        "company": {"CompanyID": cid, "Name": "Acme", "EmailDomain": "acme.com", "Notes": None},
        "CompanyID": cid,
        "Tickets": None,
        "AssignedUsers": [],
        "Fields": [],
        "Attachments": None,
    }


def test_a_created_asset_takes_the_defaults_of_what_is_not_sent(api: Api) -> None:
    aid = create(api)
    asset = api.get("Asset", id=aid).json()
    assert asset["Quantity"] == 1
    assert asset["SerialNumber"] is None and asset["Location"] is None
    assert asset["Comments"] is None
    assert asset["company"] is None and asset["CompanyID"] is None
    # companyId 0 or empty means no company; a blank text field is null.
    aid = create(api, companyId="0", serialNumber="  ")
    asset = api.get("Asset", id=aid).json()
    assert asset["CompanyID"] is None and asset["SerialNumber"] is None
    assert api.get("Asset", id=create(api, companyId="")).json()["CompanyID"] is None


def test_create_resolves_names_case_insensitively(api: Api) -> None:
    first = api.get("Asset", id=create(api)).json()
    second = api.get(
        "Asset",
        id=create(api, "Latitude 7440", manufacturer="DELL ", type="laptop", supplier="cdw"),
    ).json()
    assert second["ManufacturerID"] == first["ManufacturerID"]
    assert second["TypeID"] == first["TypeID"]
    assert second["SupplierID"] == first["SupplierID"]
    assert second["Manufacturer"] == "Dell"  # the stored spelling wins
    store = api.state.store
    assert len(store.rows("manufacturers")) == 1
    assert len(store.rows("asset_types")) == 1
    assert len(store.rows("suppliers")) == 1
    third = api.get("Asset", id=create(api, manufacturer="Lenovo")).json()
    assert third["Manufacturer"] == "Lenovo"
    assert third["ManufacturerID"] != first["ManufacturerID"]
    assert len(store.rows("manufacturers")) == 2


@pytest.mark.parametrize("missing", ["modelName", "manufacturer", "type", "supplier"])
def test_create_requires_each_name(api: Api, missing: str) -> None:
    form = {"modelName": "X1", "manufacturer": "Dell", "type": "Laptop", "supplier": "CDW"}
    del form[missing]
    resp = api.post("Asset", **form)
    assert resp.status_code == 400
    assert missing in resp.text
    resp = api.post("Asset", **{**form, missing: "  "})
    assert resp.status_code == 400
    assert missing in resp.text
    # A failed create leaves no lookup rows and no asset behind.
    store = api.state.store
    assert store.rows("assets") == []
    assert store.rows("manufacturers") == store.rows("asset_types") == []
    assert store.rows("suppliers") == []


def test_create_rejects_bad_quantity_and_company(api: Api) -> None:
    form = {"modelName": "X1", "manufacturer": "Dell", "type": "Laptop", "supplier": "CDW"}
    assert api.post("Asset", **form, quantity="0").status_code == 400
    assert api.post("Asset", **form, quantity="-2").status_code == 400
    assert api.post("Asset", **form, quantity="many").status_code == 400
    assert api.post("Asset", **form, companyId="abc").status_code == 400
    resp = api.post("Asset", **form, companyId="999")
    assert resp.status_code == 404
    assert api.state.store.rows("assets") == []
    assert api.state.store.rows("manufacturers") == []


def test_reading_an_unknown_or_unnamed_asset_is_an_error(api: Api) -> None:
    assert api.get("Asset", id=999).status_code == 404
    assert api.get("Asset").status_code == 400
    assert api.get("Asset", id="x").status_code == 400


# -- listing -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "pages"),
    [(0, [0]), (50, [50, 0]), (51, [50, 1, 0]), (120, [50, 50, 20, 0])],
)
def test_assets_pages_of_fifty(api: Api, count: int, pages: list[int]) -> None:
    ids = insert_assets(api, count)
    seen: list[int] = []
    for number, size in enumerate(pages, start=1):
        page = item_ids(api.get("Assets", page=number))
        assert len(page) == size
        seen.extend(page)
    assert seen == ids == sorted(ids)
    # The default page is the first.
    assert item_ids(api.get("Assets")) == ids[:50]
    # Far past the end is an empty page too.
    assert item_ids(api.get("Assets", page=99)) == []


def test_assets_ordered_by_item_id(api: Api) -> None:
    store = api.state.store
    ids = insert_assets(api, 3)
    # A record written under a fixed lower id comes first whatever the insertion order.
    late = records.asset(model_name="Early", manufacturer_id=1, supplier_id=1, type_id=1)
    store.insert("assets", late, rid=ids[-1] + 10)
    store.delete("assets", ids[0])
    store.insert("assets", late, rid=ids[0])
    assert item_ids(api.get("Assets")) == [ids[0], ids[1], ids[2], ids[-1] + 10]


def test_an_asset_page_below_one_is_400(api: Api) -> None:
    assert api.get("Assets", page=0).status_code == 400
    assert api.get("Assets", page=-1).status_code == 400
    assert api.get("Assets", page="two").status_code == 400


def test_assets_filter_by_user_company_department(api: Api) -> None:
    store = api.state.store
    sales = store.insert("departments", records.named("Sales"))
    tina, ursula = api.user_id("tina"), api.user_id("ursula")
    store.update("users", tina, department_id=sales["id"])
    cid = api.post("Company", name="Acme").json()["id"]
    a1, a2, a3 = (create(api, f"Model {n}") for n in range(3))
    api.post("AssignAssetToUser", assetId=a1, userId=tina)
    api.post("AssignAssetToUser", assetId=a2, userId=ursula)
    api.post("AssignAssetToUser", assetId=a3, userId=tina)
    api.post("AssignAssetToUser", assetId=a3, userId=ursula)
    api.post("UpdateAsset", id=a2, companyId=cid)

    assert item_ids(api.get("Assets", assignedToUserId=tina)) == [a1, a3]
    assert item_ids(api.get("Assets", assignedToUserId=ursula)) == [a2, a3]
    assert item_ids(api.get("Assets", assignedToCompanyId=cid)) == [a2]
    assert item_ids(api.get("Assets", assignedToDepartmentId=sales["id"])) == [a1, a3]
    # Filters combine.
    assert item_ids(api.get("Assets", assignedToUserId=ursula, assignedToCompanyId=cid)) == [a2]
    # Unknown objects match nothing.
    assert item_ids(api.get("Assets", assignedToUserId=999)) == []
    assert item_ids(api.get("Assets", assignedToCompanyId=999)) == []
    assert item_ids(api.get("Assets", assignedToDepartmentId=999)) == []
    assert api.get("Assets", assignedToUserId="me").status_code == 400


def test_assets_filter_by_name_prefix(api: Api) -> None:
    a1 = create(api, "Latitude 5440")
    a2 = create(api, "latitude 7440")
    create(api, "ThinkPad X1")
    assert item_ids(api.get("Assets", nameprefix="LAT")) == [a1, a2]
    assert item_ids(api.get("Assets", nameprefix="Latitude 7")) == [a2]
    assert item_ids(api.get("Assets", nameprefix="tude")) == []  # a prefix, not a substring
    resp = api.get("Assets", nameprefix="La")
    assert resp.status_code == 400
    assert "nameprefix" in resp.text
    assert api.get("Assets", nameprefix="L").status_code == 400
    # An empty prefix is no filter at all.
    assert len(item_ids(api.get("Assets", nameprefix=""))) == 3


def test_assets_hide_disabled_unless_asked(api: Api) -> None:
    a1, a2 = create(api, "Model A"), create(api, "Model B")
    assert api.post("DisableAsset", assetId=a1).text == "OK"
    assert stored(api, "assets", a1)["disabled"] is True
    assert item_ids(api.get("Assets")) == [a2]
    assert item_ids(api.get("Assets", includeDisabled="false")) == [a2]
    assert item_ids(api.get("Assets", includeDisabled="True")) == [a1, a2]
    assert api.get("Assets", includeDisabled="maybe").status_code == 400
    # Read by id, a disabled asset is still there.
    assert api.get("Asset", id=a1).status_code == 200
    # Disabling twice is harmless; enabling brings it back.
    assert api.post("DisableAsset", assetId=a1).status_code == 200
    assert api.post("EnableAsset", assetId=a1).text == "OK"
    assert stored(api, "assets", a1)["disabled"] is False
    assert item_ids(api.get("Assets")) == [a1, a2]
    assert api.post("EnableAsset", assetId=a1).status_code == 200


def test_disabled_assets_count_only_when_included_in_paging(api: Api) -> None:
    ids = insert_assets(api, 51)
    api.post("DisableAsset", assetId=ids[0])
    assert item_ids(api.get("Assets", page=2)) == []
    assert item_ids(api.get("Assets", page=2, includeDisabled="true")) == [ids[-1]]


def test_enabling_or_disabling_an_unknown_asset_is_an_error(api: Api) -> None:
    for name in ("EnableAsset", "DisableAsset"):
        assert api.post(name, assetId=999).status_code == 404
        assert api.post(name).status_code == 400
        assert api.post(name, assetId="x").status_code == 400


# -- update ------------------------------------------------------------------------------


def test_update_asset_changes_only_what_is_sent(api: Api) -> None:
    cid = api.post("Company", name="Acme").json()["id"]
    aid = create(api, serialNumber="SN-1", location="Berlin", comments="c", quantity=4)
    resp = api.post("UpdateAsset", id=aid, location="Paris", companyId=cid)
    assert resp.status_code == 200
    body = resp.json()
    assert set(body) == ASSET_KEYS
    assert body["ItemID"] == aid
    assert body["Location"] == "Paris"
    assert body["CompanyID"] == cid and body["company"]["Name"] == "Acme"
    # modelName is optional; what was omitted stays, except the quantity (default 1).
    assert body["ModelName"] == "Latitude 5440"
    assert body["SerialNumber"] == "SN-1" and body["Comments"] == "c"
    assert body["Quantity"] == 1
    assert body["Manufacturer"] == "Dell"
    assert api.get("Asset", id=aid).json() == body


def test_update_asset_every_field(api: Api) -> None:
    aid = create(api, serialNumber="SN-1", location="Berlin", comments="c")
    resp = api.post(
        "UpdateAsset",
        id=aid,
        modelName="Latitude 9440",
        manufacturer="dell",
        type="Notebook",
        supplier="Insight",
        serialNumber="SN-2",
        location="",
        comments="Refurbished",
        quantity=2,
    )
    body = resp.json()
    store = api.state.store
    assert body["ModelName"] == "Latitude 9440"
    assert body["Manufacturer"] == "Dell" and len(store.rows("manufacturers")) == 1
    kind = store.find_name("asset_types", "Notebook")
    vendor = store.find_name("suppliers", "insight")
    assert kind is not None and vendor is not None
    assert body["Type"] == "Notebook" and body["TypeID"] == kind["id"]
    assert body["Supplier"] == "Insight" and body["SupplierID"] == vendor["id"]
    assert body["SerialNumber"] == "SN-2"
    assert body["Location"] is None  # blank clears
    assert body["Comments"] == "Refurbished"
    assert body["Quantity"] == 2


def test_update_asset_clears_the_company(api: Api) -> None:
    cid = api.post("Company", name="Acme").json()["id"]
    aid = create(api, companyId=cid)
    body = api.post("UpdateAsset", id=aid, companyId="").json()
    assert body["CompanyID"] is None and body["company"] is None
    api.post("UpdateAsset", id=aid, companyId=cid)
    body = api.post("UpdateAsset", id=aid, companyId="0").json()
    assert body["CompanyID"] is None and body["company"] is None


def test_update_asset_refuses_bad_values_and_unknown_ids(api: Api) -> None:
    aid = create(api, quantity=3)
    assert api.post("UpdateAsset", modelName="X").status_code == 400
    assert api.post("UpdateAsset", id="abc").status_code == 400
    assert api.post("UpdateAsset", id=999, modelName="X").status_code == 404
    assert api.post("UpdateAsset", id=aid, companyId=999).status_code == 404
    assert api.post("UpdateAsset", id=aid, quantity=0).status_code == 400
    assert api.post("UpdateAsset", id=aid, modelName=" ").status_code == 400
    resp = api.post("UpdateAsset", id=aid, manufacturer="")
    assert resp.status_code == 400 and "manufacturer" in resp.text
    # Nothing changed through the failed calls.
    body = api.get("Asset", id=aid).json()
    assert body["ModelName"] == "Latitude 5440" and body["Quantity"] == 3
    assert body["Manufacturer"] == "Dell"


def test_update_asset_without_quantity_resets_it_to_one(api: Api) -> None:
    # The spec gives quantity a default of 1, and the real service is seen to reset it.
    aid = create(api, quantity=5)
    body = api.post("UpdateAsset", id=aid, location="Paris").json()
    assert body["Quantity"] == 1 and body["Location"] == "Paris"
    assert api.post("UpdateAsset", id=aid, quantity=7).json()["Quantity"] == 7


def test_update_asset_keeps_quantity_with_quirk() -> None:
    with api_with("updateasset-keeps-quantity") as api:
        aid = create(api, quantity=5)
        body = api.post("UpdateAsset", id=aid, location="Paris").json()
        assert body["Quantity"] == 5 and body["Location"] == "Paris"
        assert api.post("UpdateAsset", id=aid, quantity=7).json()["Quantity"] == 7


# -- the Disabled flag quirk -------------------------------------------------------------


def test_asset_has_no_disabled_flag_by_default(api: Api) -> None:
    aid = create(api)
    assert set(api.get("Asset", id=aid).json()) == ASSET_KEYS
    assert set(api.get("Assets").json()[0]) == ASSET_KEYS


def test_asset_disabled_flag_quirk() -> None:
    with api_with("asset-disabled-flag") as api:
        aid = create(api)
        asset = api.get("Asset", id=aid).json()
        assert set(asset) == ASSET_KEYS | {"Disabled"}
        assert asset["Disabled"] is False
        api.post("DisableAsset", assetId=aid)
        assert api.get("Asset", id=aid).json()["Disabled"] is True
        listed = api.get("Assets", includeDisabled="true").json()
        assert listed[0]["Disabled"] is True


# -- custom fields -----------------------------------------------------------------------


def test_asset_custom_field_values_are_set_and_listed(api: Api) -> None:
    store = api.state.store
    warranty = store.insert("custom_fields", records.custom_field("Warranty", type=2, usage_type=2))
    leased = store.insert("custom_fields", records.custom_field("Leased", type=4, usage_type=2))
    user_field = store.insert("custom_fields", records.custom_field("Badge", type=1, usage_type=3))
    aid = create(api)
    fields = api.get("Asset", id=aid).json()["Fields"]
    assert fields == [
        {"FieldName": "Warranty", "FieldID": warranty["id"], "Type": 2, "Value": None},
        {"FieldName": "Leased", "FieldID": leased["id"], "Type": 4, "Value": None},
    ]
    resp = api.post("SetCustomFieldForAsset", id=aid, fieldId=warranty["id"], value="12/31/2026")
    assert resp.status_code == 200 and resp.text == "OK"
    api.post("SetCustomFieldForAsset", id=aid, fieldId=leased["id"], value="True")
    values = {f["FieldName"]: f["Value"] for f in api.get("Asset", id=aid).json()["Fields"]}
    assert values == {"Warranty": "2026-12-31", "Leased": "true"}
    listed = api.get("Assets").json()[0]["Fields"]
    assert {f["FieldName"]: f["Value"] for f in listed} == values

    def status(**form: Any) -> int:
        return api.post("SetCustomFieldForAsset", **form).status_code

    assert status(id=aid, fieldId=leased["id"], value="yes") == 400
    assert status(id=aid, fieldId=user_field["id"], value="B1") == 400
    assert status(id=aid, fieldId=999, value="1") == 404
    assert status(id=999, fieldId=leased["id"], value="true") == 404
    assert status(id=aid, value="true") == 400
    assert status(fieldId=leased["id"], value="true") == 400
    # An empty value clears.
    api.post("SetCustomFieldForAsset", id=aid, fieldId=leased["id"], value="")
    values = {f["FieldName"]: f["Value"] for f in api.get("Asset", id=aid).json()["Fields"]}
    assert values == {"Warranty": "2026-12-31", "Leased": None}


# -- assignment to users -----------------------------------------------------------------


def test_assign_and_unassign_users(api: Api) -> None:
    aid = create(api)
    tina, ursula = api.user_id("tina"), api.user_id("ursula")
    before = api.state.store.get("assets", aid)
    assert before is not None
    resp = api.post("AssignAssetToUser", assetId=aid, userId=ursula)
    assert resp.status_code == 200 and resp.text == "OK"
    assert before["assigned_user_ids"] == []  # the stored list was copied, not changed
    api.post("AssignAssetToUser", assetId=aid, userId=tina)
    assert api.post("AssignAssetToUser", assetId=aid, userId=ursula).status_code == 200
    users = api.get("Asset", id=aid).json()["AssignedUsers"]
    assert users == [
        {
            "UserID": ursula,
            "Username": "ursula",
            "FirstName": "Ursula",
            "LastName": "",
            "Email": "ursula@example.com",
        },
        {
            "UserID": tina,
            "Username": "tina",
            "FirstName": "Tina",
            "LastName": "",
            "Email": "tina@example.com",
        },
    ]
    resp = api.post("UnAssignAssetToUser", assetId=aid, userId=ursula)
    assert resp.status_code == 200 and resp.text == "OK"
    assert api.post("UnAssignAssetToUser", assetId=aid, userId=ursula).status_code == 200
    users = api.get("Asset", id=aid).json()["AssignedUsers"]
    assert [u["UserID"] for u in users] == [tina]


def test_assigned_users_skip_deleted_users(api: Api) -> None:
    aid = create(api)
    tina, ursula = api.user_id("tina"), api.user_id("ursula")
    api.post("AssignAssetToUser", assetId=aid, userId=tina)
    api.post("AssignAssetToUser", assetId=aid, userId=ursula)
    api.state.store.delete("users", tina)
    users = api.get("Asset", id=aid).json()["AssignedUsers"]
    assert [u["UserID"] for u in users] == [ursula]


@pytest.mark.parametrize("name", ["AssignAssetToUser", "UnAssignAssetToUser"])
def test_assigning_needs_an_existing_asset_and_user(api: Api, name: str) -> None:
    aid = create(api)
    uid = api.user_id("ursula")
    assert api.post(name, assetId=999, userId=uid).status_code == 404
    assert api.post(name, assetId=aid, userId=999).status_code == 404
    resp = api.post(name, userId=uid)
    assert resp.status_code == 400 and "assetId" in resp.text
    resp = api.post(name, assetId=aid)
    assert resp.status_code == 400 and "userId" in resp.text
    assert api.post(name, assetId=aid, userId="u").status_code == 400
    assert stored(api, "assets", aid)["assigned_user_ids"] == []


# -- permissions -------------------------------------------------------------------------


def test_technicians_may_read_assets(api: Api) -> None:
    aid = create(api)
    tina = api.as_("tina")
    assert item_ids(tina.get("Assets")) == [aid]
    assert tina.get("Asset", id=aid).status_code == 200


def test_plain_users_cannot_read_assets(api: Api) -> None:
    aid = create(api)
    ursula = api.as_("ursula")
    assert ursula.get("Assets").status_code == 403
    assert ursula.get("Asset", id=aid).status_code == 403
    assert api.as_(None).get("Assets").status_code == 401


WRITES: list[tuple[str, dict[str, Any]]] = [
    ("Asset", {"modelName": "X1", "manufacturer": "A", "type": "B", "supplier": "C"}),
    ("UpdateAsset", {"id": "{aid}", "location": "Paris"}),
    ("SetCustomFieldForAsset", {"id": "{aid}", "fieldId": "{fid}", "value": "x"}),
    ("AssignAssetToUser", {"assetId": "{aid}", "userId": "{uid}"}),
    ("UnAssignAssetToUser", {"assetId": "{aid}", "userId": "{uid}"}),
    ("EnableAsset", {"assetId": "{aid}"}),
    ("DisableAsset", {"assetId": "{aid}"}),
]


@pytest.mark.parametrize(("name", "form"), WRITES, ids=[w[0] for w in WRITES])
def test_writes_need_an_administrator(api: Api, name: str, form: dict[str, str]) -> None:
    field = api.state.store.insert(
        "custom_fields", records.custom_field("Tag", type=1, usage_type=2)
    )
    ids = {
        "aid": create(api),
        "fid": field["id"],
        "uid": api.user_id("ursula"),
    }
    filled = {k: v.format(**ids) for k, v in form.items()}
    before = api.state.store.writes
    assert api.as_("tina").post(name, **filled).status_code == 403
    assert api.as_("ursula").post(name, **filled).status_code == 403
    assert api.state.store.writes == before
    assert api.post(name, **filled).status_code == 200
