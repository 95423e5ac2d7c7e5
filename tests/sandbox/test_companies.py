from __future__ import annotations

from tests.sandbox.conftest import Api


def test_company_create_is_idempotent_by_name(api: Api) -> None:
    first = api.post("Company", name="Acme Corp", emailDomains="acme.com; acme.co.uk")
    assert first.status_code == 200
    again = api.post("Company", name="acme corp")
    assert again.json() == first.json()
    listed = api.get("Companies").json()
    assert listed == [
        {
            "CompanyID": first.json()["id"],
            "Name": "Acme Corp",
            "EmailDomain": "acme.com;acme.co.uk",
            "Notes": None,
        }
    ]


def test_company_needs_a_name(api: Api) -> None:
    assert api.post("Company").status_code == 400
    assert api.post("Company", name="  ").status_code == 400


def test_update_company_changes_what_is_sent(api: Api) -> None:
    cid = api.post("Company", name="Acme").json()["id"]
    resp = api.post("UpdateCompany", id=cid, notes="Key account", emailDomains="acme.com")
    assert resp.json() == {
        "CompanyID": cid,
        "Name": "Acme",
        "EmailDomain": "acme.com",
        "Notes": "Key account",
    }
    # Omitted fields stay as they are.
    resp = api.post("UpdateCompany", id=cid, name="Acme Corp")
    assert resp.json()["Notes"] == "Key account"
    assert api.post("UpdateCompany", id=999, name="X").status_code == 404
    other = api.post("Company", name="Other").json()["id"]
    assert api.post("UpdateCompany", id=other, name="ACME CORP").status_code == 400


def test_companies_need_an_administrator(api: Api) -> None:
    assert api.as_("tina").get("Companies").status_code == 403
    assert api.as_("ursula").post("Company", name="X").status_code == 403
    assert api.as_("ursula").get("Departments").status_code == 403


def test_company_custom_field_values_are_set_and_listed(api: Api) -> None:
    from reconciler.sandbox import records

    store = api.state.store
    tier = store.insert(
        "custom_fields",
        records.custom_field(
            "Contract tier",
            type=3,
            usage_type=4,
            options=[{"id": 7, "name": "Gold"}, {"id": 8, "name": "Silver"}],
        ),
    )
    vip = store.insert("custom_fields", records.custom_field("VIP", type=4, usage_type=4))
    renew = store.insert("custom_fields", records.custom_field("Renewal", type=2, usage_type=4))
    emp = store.insert("custom_fields", records.custom_field("Employee ID", type=1, usage_type=3))
    cid = api.post("Company", name="Acme").json()["id"]

    assert api.post("SetCustomFieldForCompany", id=cid, fieldId=tier["id"], value="7").text == "OK"
    assert (
        api.post("SetCustomFieldForCompany", id=cid, fieldId=vip["id"], value="True").status_code
        == 200
    )
    assert (
        api.post(
            "SetCustomFieldForCompany", id=cid, fieldId=renew["id"], value="01/31/2027"
        ).status_code
        == 200
    )
    values = {i["FieldName"]: i["Value"] for i in api.get("CompanyCustomFields", id=cid).json()}
    assert values == {"Contract tier": "7", "VIP": "true", "Renewal": "2027-01-31"}

    # Validation by type and usage.
    assert (
        api.post("SetCustomFieldForCompany", id=cid, fieldId=tier["id"], value="9").status_code
        == 400
    )
    assert (
        api.post("SetCustomFieldForCompany", id=cid, fieldId=tier["id"], value="Gold").status_code
        == 400
    )
    assert (
        api.post("SetCustomFieldForCompany", id=cid, fieldId=vip["id"], value="yes").status_code
        == 400
    )
    assert (
        api.post("SetCustomFieldForCompany", id=cid, fieldId=renew["id"], value="soon").status_code
        == 400
    )
    assert (
        api.post("SetCustomFieldForCompany", id=cid, fieldId=emp["id"], value="E1").status_code
        == 400
    )
    assert api.post("SetCustomFieldForCompany", id=cid, fieldId=999, value="1").status_code == 404
    assert (
        api.post("SetCustomFieldForCompany", id=999, fieldId=vip["id"], value="true").status_code
        == 404
    )

    # An empty value clears.
    api.post("SetCustomFieldForCompany", id=cid, fieldId=vip["id"], value="")
    values = {i["FieldName"]: i["Value"] for i in api.get("CompanyCustomFields", id=cid).json()}
    assert values["VIP"] is None
    assert api.as_("ursula").get("CompanyCustomFields", id=cid).status_code == 403
    assert api.as_("tina").get("CompanyCustomFields", id=cid).status_code == 200
