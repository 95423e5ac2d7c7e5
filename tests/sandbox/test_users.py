"""The helpdesk Users endpoints of the sandbox."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from reconciler.sandbox import records
from reconciler.sandbox.app import create_app
from reconciler.sandbox.config import SandboxConfig
from reconciler.sandbox.process import InProcessTransport
from reconciler.sandbox.store import Record
from tests.sandbox.conftest import Api, make_state

USER_FIELDS: dict[str, type | tuple[type, ...]] = {
    "UserID": int,
    "Username": str,
    "Password": type(None),
    "Email": str,
    "FirstName": str,
    "LastName": str,
    "Notes": str,
    "Location": str,
    "Phone": str,
    "Departman": (str, type(None)),
    "CompanyName": (str, type(None)),
    "CompanyId": (int, type(None)),
    "CompanyNotes": (str, type(None)),
    "IPAddress": str,
    "HostName": str,
    "Lang": str,
    "UserAgent": str,
    "AvatarURL": (str, type(None)),
    "Signature": str,
    "Greeting": str,
    "IsAdmin": bool,
    "IsTech": bool,
    "IsManager": bool,
    "Disabled": bool,
    "SendEmail": bool,
    "LastSeen": (str, type(None)),
    "PushToken": (str, type(None)),
    "FullNameAndLogin": str,
    "FullName": str,
}

LIST_ITEM_FIELDS: dict[str, type | tuple[type, ...]] = {
    "UserID": int,
    "FirstName": str,
    "LastName": str,
    "Notes": str,
    "Location": str,
    "Phone": str,
    "CompanyName": (str, type(None)),
    "CompanyId": (int, type(None)),
    "DepartmentID": (int, type(None)),
    "LastSeen": (str, type(None)),
    "Username": str,
    "Email": str,
    "IsAdmin": bool,
    "Disabled": bool,
}


def assert_shape(obj: dict[str, Any], fields: dict[str, type | tuple[type, ...]]) -> None:
    assert set(obj) == set(fields)
    for name, kind in fields.items():
        assert isinstance(obj[name], kind), (name, obj[name])


@contextmanager
def quirk_api(*quirks: str) -> Iterator[Api]:
    state = make_state(SandboxConfig(rate_limit=0, search_rate_limit=0, quirks=set(quirks)))
    transport = InProcessTransport(create_app(state))
    with httpx.Client(transport=transport, base_url="http://sandbox.test") as client:
        yield Api(client, state)


def basic(username: str, password: str) -> dict[str, str]:
    raw = base64.b64encode(f"{username}:{password}".encode()).decode()
    return {"Authorization": f"Basic {raw}"}


def login(api: Api, username: str, password: str) -> int:
    headers = basic(username, password)
    return api.client.post("/helpdesk/api/Authorization", headers=headers).status_code


def stored(api: Api, user_id: int) -> Record:
    rec = api.state.store.get("users", user_id)
    assert rec is not None
    return rec


def create(api: Api, email: str, **form: Any) -> int:
    resp = api.post("CreateUser", email=email, **form)
    assert resp.status_code == 200, resp.text
    return int(resp.json()["userId"])


def add_category(api: Api, name: str) -> int:
    return int(api.state.store.insert("categories", records.category(name))["id"])


def permissions(api: Api) -> list[tuple[int, int]]:
    return sorted(
        (p["user_id"], p["category_id"]) for p in api.state.store.rows("tech_permissions")
    )


# -- CreateUser ------------------------------------------------------------------------


def test_create_user_with_the_email_only(api: Api) -> None:
    resp = api.post("CreateUser", email="new@example.com")
    assert resp.status_code == 200
    body = resp.json()
    assert list(body) == ["userId"]
    assert isinstance(body["userId"], int)
    user = api.get("User", userId=body["userId"]).json()
    assert_shape(user, USER_FIELDS)
    assert user["Username"] == "new@example.com"  # the username defaults to the email
    assert user["Email"] == "new@example.com"
    assert (user["IsAdmin"], user["IsTech"], user["IsManager"]) == (False, False, False)
    assert user["Departman"] is None and user["CompanyId"] is None
    rec = stored(api, body["userId"])
    # A password was generated: an empty one does not log in.
    assert login(api, "new@example.com", "") == 401
    assert rec["password_hash"] != records.hash_password("")


def test_create_user_with_every_field(api: Api) -> None:
    uid = create(
        api,
        "Jane@Example.com",
        username="jane",
        password="S3cret!pass",
        firstName="Jane",
        lastName="Doe",
        phone="555-1",
        location="Berlin",
        company="Acme",
        department="Sales",
        sendWelcomeEmail="true",
        isManager="true",
    )
    user = api.get("User", userId=uid).json()
    assert user["Username"] == "jane"
    assert user["Email"] == "Jane@Example.com"
    assert (user["FirstName"], user["LastName"]) == ("Jane", "Doe")
    assert (user["Phone"], user["Location"]) == ("555-1", "Berlin")
    assert user["CompanyName"] == "Acme"
    assert user["Departman"] == "Sales"
    assert user["IsManager"] is True
    assert user["IsTech"] is False and user["IsAdmin"] is False
    assert user["FullName"] == "Jane Doe"
    assert login(api, "jane", "S3cret!pass") == 200
    store = api.state.store
    assert [c["name"] for c in store.rows("companies")] == ["Acme"]
    assert [d["name"] for d in store.rows("departments")] == ["Sales"]


def test_create_user_reuses_companies_and_accepts_the_alternate_spellings(api: Api) -> None:
    cid = api.post("Company", name="Acme").json()["id"]
    uid = create(api, "a@example.com", firma="ACME", Departman="Support")
    other = create(api, "b@example.com", company="acme", department="support")
    for user_id in (uid, other):
        user = api.get("User", userId=user_id).json()
        assert user["CompanyId"] == cid
        assert user["Departman"] == "Support"
    assert len(api.state.store.rows("companies")) == 1
    assert len(api.state.store.rows("departments")) == 1


def test_create_user_refuses_bad_or_duplicate_input(api: Api) -> None:
    assert api.post("CreateUser").status_code == 400
    assert api.post("CreateUser", email="  ").status_code == 400
    assert api.post("CreateUser", email="not-an-email").status_code == 400
    assert api.post("CreateUser", email="a b@example.com").status_code == 400
    dup = api.post("CreateUser", email="URSULA@example.com")
    assert dup.status_code == 400
    assert "already exists" in dup.text
    assert api.post("CreateUser", email="x@example.com", username="Tina").status_code == 400
    # The default username (the email) must be free too.
    api.state.store.update("users", api.user_id("tina"), username="free@example.com")
    assert api.post("CreateUser", email="free@example.com").status_code == 400
    bad_flag = api.post("CreateUser", email="y@example.com", isManager="maybe")
    assert bad_flag.status_code == 400
    with_company = api.post("CreateUser", email="z@example.com", company="Acme", isManager="x")
    assert with_company.status_code == 400
    # A rejected call creates nothing, not even the company it names.
    assert api.state.store.rows("companies") == []
    assert len(api.state.store.rows("users")) == 3


def test_create_user_needs_an_administrator(api: Api) -> None:
    assert api.as_("tina").post("CreateUser", email="t@example.com").status_code == 403
    assert api.as_("ursula").post("CreateUser", email="u@example.com").status_code == 403
    assert api.as_(None).post("CreateUser", email="n@example.com").status_code == 401
    assert len(api.state.store.rows("users")) == 3


def test_quirk_createuser_bare_int() -> None:
    with quirk_api("createuser-bare-int") as api:
        resp = api.post("CreateUser", email="bare@example.com")
        assert resp.status_code == 200
        assert isinstance(resp.json(), int)
        assert resp.text.strip() == str(resp.json())
        assert stored(api, resp.json())["email"] == "bare@example.com"


def test_quirk_createuser_duplicate_500() -> None:
    with quirk_api("createuser-duplicate-500") as api:
        assert api.post("CreateUser", email="dup@example.com").status_code == 200
        resp = api.post("CreateUser", email="DUP@example.com")
        assert resp.status_code == 500
        assert resp.text
        # Only the duplicate e-mail answers 500: a duplicate username stays a 400.
        assert api.post("CreateUser", email="o@example.com", username="tina").status_code == 400
    with quirk_api() as api:
        assert api.post("CreateUser", email="dup@example.com").status_code == 200
        assert api.post("CreateUser", email="dup@example.com").status_code == 400


# -- UpdateUser ------------------------------------------------------------------------


def test_update_user_changes_only_what_is_sent(api: Api) -> None:
    uid = create(
        api,
        "jane@example.com",
        username="jane",
        firstName="Jane",
        lastName="Doe",
        phone="1",
        location="Berlin",
        company="Acme",
        department="Sales",
    )
    api.post("UpdateUser", userId=uid, notes="VIP", greeting="Hi #FirstName#", signature="J")
    resp = api.post("UpdateUser", userId=uid, firstName="Janet")
    assert resp.status_code == 200
    user = resp.json()
    assert_shape(user, USER_FIELDS)
    assert user["UserID"] == uid
    assert user["FirstName"] == "Janet"
    assert (user["LastName"], user["Phone"], user["Location"]) == ("Doe", "1", "Berlin")
    assert (user["Username"], user["Email"]) == ("jane", "jane@example.com")
    assert (user["CompanyName"], user["Departman"]) == ("Acme", "Sales")
    assert (user["Notes"], user["Greeting"], user["Signature"]) == ("VIP", "Hi #FirstName#", "J")
    assert (user["Disabled"], user["SendEmail"], user["IsAdmin"]) == (False, True, False)


def test_update_user_every_field(api: Api) -> None:
    uid = create(api, "jane@example.com", company="Acme", department="Sales")
    resp = api.post(
        "UpdateUser",
        userId=uid,
        username="janet",
        email="janet@example.com",
        firstName="Janet",
        lastName="Roe",
        notes="n",
        phone="2",
        location="Paris",
        Departman="Support",
        firma="Globex",
        disabled="true",
        enableEmailNotifications="false",
        greeting="Hello",
        signature="Bye",
        outOfOffice="true",
        password="new-pass-1",
    )
    assert resp.status_code == 200
    user = resp.json()
    assert (user["Username"], user["Email"]) == ("janet", "janet@example.com")
    assert (user["FirstName"], user["LastName"], user["Notes"]) == ("Janet", "Roe", "n")
    assert (user["Phone"], user["Location"]) == ("2", "Paris")
    assert (user["Departman"], user["CompanyName"]) == ("Support", "Globex")
    assert (user["Disabled"], user["SendEmail"]) == (True, False)
    assert (user["Greeting"], user["Signature"]) == ("Hello", "Bye")
    rec = stored(api, uid)
    assert rec["out_of_office"] is True
    assert rec["password_hash"] == records.hash_password("new-pass-1")
    # Disabled users cannot log in; enabling them again lets them in.
    assert login(api, "janet", "new-pass-1") == 401
    api.post("UpdateUser", userId=uid, disabled="false")
    assert login(api, "janet", "new-pass-1") == 200
    # Empty company/department clear them; the company itself stays.
    user = api.post("UpdateUser", userId=uid, company="", department="").json()
    assert (user["CompanyId"], user["Departman"]) == (None, None)
    assert api.state.store.find_name("companies", "Globex") is not None


def test_update_user_password_invalidates_the_token(api: Api) -> None:
    uid = api.user_id("ursula")
    token = stored(api, uid)["token"]
    bearer = {"Authorization": f"Bearer {token}"}
    assert api.client.get("/helpdesk/api/Authorization", headers=bearer).status_code == 200
    api.post("UpdateUser", userId=uid, password="changed-pass")
    assert api.client.get("/helpdesk/api/Authorization", headers=bearer).status_code == 401
    assert login(api, "ursula", "changed-pass") == 200
    # An empty password leaves the password alone.
    api.post("UpdateUser", userId=uid, password="")
    assert login(api, "ursula", "changed-pass") == 200


def test_update_user_is_admin(api: Api) -> None:
    uid = api.user_id("ursula")
    user = api.post("UpdateUser", userId=uid, isAdmin="true").json()
    assert (user["IsAdmin"], user["IsTech"]) == (True, True)
    user = api.post("UpdateUser", userId=uid, isAdmin="false").json()
    # Removing the administrator role keeps the technician role.
    assert (user["IsAdmin"], user["IsTech"]) == (False, True)
    assert api.as_("ursula").get("Users").status_code == 403


def test_update_user_refuses_bad_or_clashing_input(api: Api) -> None:
    uid = api.user_id("ursula")
    assert api.post("UpdateUser", firstName="X").status_code == 400
    assert api.post("UpdateUser", userId="abc").status_code == 400
    assert api.post("UpdateUser", userId=999, firstName="X").status_code == 404
    assert api.post("UpdateUser", userId=uid, username="TINA").status_code == 400
    assert api.post("UpdateUser", userId=uid, email="Tina@Example.com").status_code == 400
    assert api.post("UpdateUser", userId=uid, email="nope").status_code == 400
    assert api.post("UpdateUser", userId=uid, disabled="perhaps").status_code == 400
    assert api.post("UpdateUser", userId=uid, company="New Co", isAdmin="?").status_code == 400
    assert api.state.store.rows("companies") == []
    # Renaming to one's own username or e-mail (other case) is no clash.
    user = api.post("UpdateUser", userId=uid, username="Ursula", email="URSULA@example.com")
    assert user.status_code == 200
    assert user.json()["Username"] == "Ursula"
    assert api.as_("tina").post("UpdateUser", userId=uid, notes="x").status_code == 403
    assert api.as_("ursula").post("UpdateUser", userId=uid, notes="x").status_code == 403
    assert stored(api, uid)["notes"] == ""


def test_update_user_with_empty_optional_fields(api: Api) -> None:
    # Clients that send every optional field, empty when unset: an empty username or
    # e-mail (which cannot be empty) or flag is not given; an empty text clears.
    uid = create(api, "jane@example.com", username="jane", firstName="Jane", phone="1")
    api.state.store.update("users", uid, disabled=False, notes="n", greeting="G")
    empty = {
        "username": "",
        "email": " ",
        "password": "",
        "firstName": "",
        "lastName": "",
        "notes": "",
        "phone": "",
        "location": "",
        "greeting": "",
        "signature": "",
        "company": "",
        "department": "",
        "disabled": "",
        "isAdmin": "",
        "enableEmailNotifications": "",
        "outOfOffice": "",
    }
    resp = api.post("UpdateUser", userId=uid, **empty)
    assert resp.status_code == 200, resp.text
    user = api.get("User", userId=uid).json()
    assert (user["Username"], user["Email"]) == ("jane", "jane@example.com")
    assert (user["FirstName"], user["Phone"], user["Notes"], user["Greeting"]) == ("", "", "", "")
    assert (user["Disabled"], user["IsAdmin"]) == (False, False)
    assert login(api, "jane", "") == 401  # the password was not changed to ""


def test_quirk_updateuser_blanks_omitted() -> None:
    form = {
        "username": "jane",
        "firstName": "Jane",
        "lastName": "Doe",
        "phone": "1",
        "location": "Berlin",
        "company": "Acme",
        "department": "Sales",
    }
    with quirk_api("updateuser-blanks-omitted") as api:
        uid = create(api, "jane@example.com", **form)
        api.state.store.update(
            "users", uid, notes="keep", greeting="G", signature="S", out_of_office=True
        )
        api.state.store.update("users", uid, is_admin=True, is_tech=True, disabled=True)
        user = api.post("UpdateUser", userId=uid, firstName="Janet").json()
        assert user["FirstName"] == "Janet"
        assert user["Notes"] == "keep"  # the one field never blanked
        for name in ("Username", "Email", "LastName", "Phone", "Location", "Greeting"):
            assert user[name] == "", name
        assert user["Signature"] == ""
        assert (user["CompanyId"], user["Departman"]) == (None, None)
        assert (user["Disabled"], user["SendEmail"], user["IsAdmin"]) == (False, False, False)
        rec = stored(api, uid)
        assert rec["out_of_office"] is False
        assert rec["is_tech"] is True  # isAdmin=false keeps the technician role
    with quirk_api() as api:
        uid = create(api, "jane@example.com", **form)
        user = api.post("UpdateUser", userId=uid, firstName="Janet").json()
        assert (user["Username"], user["LastName"], user["CompanyName"]) == ("jane", "Doe", "Acme")
        assert user["SendEmail"] is True


# -- look-ups --------------------------------------------------------------------------


def test_user_by_id_for_any_caller(api: Api) -> None:
    uid = api.user_id("tina")
    for caller in ("admin", "tina", "ursula"):
        resp = api.as_(caller).get("User", userId=uid)
        assert resp.status_code == 200
        assert_shape(resp.json(), USER_FIELDS)
        assert resp.json()["Username"] == "tina"
        assert resp.json()["IsTech"] is True
    assert api.get("User", id=uid).json()["UserID"] == uid
    path = api.client.get(f"/helpdesk/api/User/{uid}", headers=api.headers())
    assert path.json()["UserID"] == uid
    assert api.get("User").status_code == 400
    assert api.get("User", userId="tina").status_code == 400
    assert api.get("User", userId=999).status_code == 404
    assert api.as_(None).get("User", userId=uid).status_code == 401


def test_user_by_email_finds_a_user_in_any_case(api: Api) -> None:
    resp = api.as_("tina").get("UserByEmail", email=" URSULA@example.com ")
    assert resp.status_code == 200
    assert_shape(resp.json(), USER_FIELDS)
    assert resp.json()["UserID"] == api.user_id("ursula")
    assert api.get("UserByEmail", email="nobody@example.com").status_code == 404
    assert api.get("UserByEmail").status_code == 400
    assert api.get("UserByEmail", email="").status_code == 400
    assert api.as_("ursula").get("UserByEmail", email="tina@example.com").status_code == 403


def test_user_by_email_uses_the_search_rate_limit() -> None:
    state = make_state(SandboxConfig(rate_limit=0, search_rate_limit=2))
    transport = InProcessTransport(create_app(state))
    with httpx.Client(transport=transport, base_url="http://sandbox.test") as client:
        api = Api(client, state)
        for _ in range(2):
            assert api.get("UserByEmail", email="tina@example.com").status_code == 200
        assert api.get("UserByEmail", email="tina@example.com").status_code == 429
        # The general bucket (off here) is not the search bucket.
        assert api.get("UserByUsername", username="tina").status_code == 200


def test_user_by_username_finds_a_user_in_any_case(api: Api) -> None:
    resp = api.as_("tina").get("UserByUsername", username="URSULA")
    assert resp.status_code == 200
    assert_shape(resp.json(), USER_FIELDS)
    assert resp.json()["Email"] == "ursula@example.com"
    assert api.get("UserByUsername", username="nobody").status_code == 404
    assert api.get("UserByUsername").status_code == 400
    assert api.get("UserByUsername", username=" ").status_code == 400
    assert api.as_("ursula").get("UserByUsername", username="tina").status_code == 403


# -- custom fields ---------------------------------------------------------------------


def test_user_custom_field_values_are_set_and_listed(api: Api) -> None:
    store = api.state.store
    emp = store.insert("custom_fields", records.custom_field("Employee ID", type=1, usage_type=3))
    vip = store.insert("custom_fields", records.custom_field("VIP", type=4, usage_type=3))
    tier = store.insert("custom_fields", records.custom_field("Tier", type=1, usage_type=4))
    uid = api.user_id("ursula")
    resp = api.post("SetCustomFieldForUser", id=uid, fieldId=emp["id"], value="E-17")
    assert (resp.status_code, resp.text) == (200, "OK")
    resp = api.post("SetCustomFieldForUser", userId=uid, fieldId=vip["id"], value="TRUE")
    assert (resp.status_code, resp.text) == (200, "OK")
    items = api.as_("tina").get("UserCustomFields", id=uid).json()
    assert items == [
        {"FieldName": "Employee ID", "FieldID": emp["id"], "Type": 1, "Value": "E-17"},
        {"FieldName": "VIP", "FieldID": vip["id"], "Type": 4, "Value": "true"},
    ]
    assert api.get("UserCustomFields", userId=uid).json() == items
    # Errors: validation by type and usage, unknown ids, missing params, permissions.
    post = api.post
    assert post("SetCustomFieldForUser", id=uid, fieldId=vip["id"], value="y").status_code == 400
    assert post("SetCustomFieldForUser", id=uid, fieldId=tier["id"], value="a").status_code == 400
    assert post("SetCustomFieldForUser", id=uid, fieldId=999, value="a").status_code == 404
    assert post("SetCustomFieldForUser", id=999, fieldId=emp["id"], value="a").status_code == 404
    assert post("SetCustomFieldForUser", id=uid, value="a").status_code == 400
    assert post("SetCustomFieldForUser", fieldId=emp["id"], value="a").status_code == 400
    tina = api.as_("tina")
    assert tina.post("SetCustomFieldForUser", id=uid, fieldId=emp["id"]).status_code == 403
    assert api.get("UserCustomFields").status_code == 400
    assert api.get("UserCustomFields", id=999).status_code == 404
    assert api.as_("ursula").get("UserCustomFields", id=uid).status_code == 403
    # An empty value clears.
    api.post("SetCustomFieldForUser", id=uid, fieldId=emp["id"], value="")
    assert api.get("UserCustomFields", id=uid).json()[0]["Value"] is None


# -- Users -----------------------------------------------------------------------------


def test_users_paging_over_501_users(api: Api) -> None:
    for n in range(498):  # with the three fixture users: 501
        create(api, f"user{n:03}@example.com")
    everyone = api.get("Users").json()
    assert len(everyone) == 500
    for item in everyone[:3]:
        assert_shape(item, LIST_ITEM_FIELDS)
    ids = [u["UserID"] for u in everyone]
    assert ids == sorted(ids)
    rest = api.get("Users", page=2).json()
    assert len(rest) == 1
    assert rest[0]["Email"] == "user497@example.com"
    assert api.get("Users", page=3).json() == []
    all_ids = [*ids, rest[0]["UserID"]]
    page2 = api.get("Users", count=50, page=2).json()
    assert [u["UserID"] for u in page2] == all_ids[50:100]
    last = api.get("Users", count=50, page=11).json()
    assert [u["UserID"] for u in last] == all_ids[500:]
    assert len(api.get("Users", count=1000).json()) == 501


def test_users_list_modes_and_filters(api: Api) -> None:
    admin, tina, ursula = (api.user_id(n) for n in ("admin", "tina", "ursula"))
    sales = create(api, "s@example.com", company="Acme", department="Sales")
    gone = create(api, "d@example.com", company="Acme")
    boss = create(api, "b@example.com", department="Sales")
    api.post("UpdateUser", userId=gone, disabled="true")
    api.post("UpdateUser", userId=boss, isAdmin="true")
    store = api.state.store
    acme = store.find_name("companies", "Acme")
    dept = store.find_name("departments", "Sales")
    assert acme is not None and dept is not None

    def ids(**params: Any) -> list[int]:
        resp = api.get("Users", **params)
        assert resp.status_code == 200, resp.text
        return [u["UserID"] for u in resp.json()]

    everyone = [admin, tina, ursula, sales, gone, boss]
    assert ids() == everyone  # `all` includes disabled users
    assert ids(listMode="all") == everyone
    assert ids(listMode="ALL") == everyone
    assert ids(listMode="techs") == [admin, tina, boss]
    assert ids(listMode="admins") == [admin, boss]
    assert ids(listMode="regular") == [ursula, sales, gone]
    assert ids(listMode="disabled") == [gone]
    assert ids(companyId=acme["id"]) == [sales, gone]
    assert ids(departmentId=dept["id"]) == [sales, boss]
    assert ids(companyId=acme["id"], departmentId=dept["id"]) == [sales]
    assert ids(companyId=acme["id"], listMode="disabled") == [gone]
    assert ids(departmentId=dept["id"], listMode="admins") == [boss]
    assert ids(companyId=999) == []
    item = next(u for u in api.get("Users").json() if u["UserID"] == sales)
    assert_shape(item, LIST_ITEM_FIELDS)
    assert (item["CompanyId"], item["CompanyName"]) == (acme["id"], "Acme")
    assert item["DepartmentID"] == dept["id"]
    assert item["Disabled"] is False and item["IsAdmin"] is False


def test_users_refuses_bad_paging_and_list_modes(api: Api) -> None:
    assert api.get("Users", listMode="everyone").status_code == 400
    assert api.get("Users", count=0).status_code == 400
    assert api.get("Users", page=0).status_code == 400
    assert api.get("Users", count="many").status_code == 400
    assert api.get("Users", companyId="acme").status_code == 400
    assert api.as_("tina").get("Users").status_code == 403
    assert api.as_("ursula").get("Users").status_code == 403


# -- tech permissions ------------------------------------------------------------------


def test_category_tech_permissions_are_added_and_removed(api: Api) -> None:
    ursula = api.user_id("ursula")
    cat = add_category(api, "Hardware")
    other = add_category(api, "Software")
    for _ in range(2):  # idempotent
        resp = api.post("AddCategoryTechPermission", userId=ursula, categoryId=cat)
        assert (resp.status_code, resp.text) == (200, "OK")
    api.post("AddCategoryTechPermission", userId=ursula, categoryId=other)
    assert permissions(api) == [(ursula, cat), (ursula, other)]
    assert api.get("User", userId=ursula).json()["IsTech"] is True
    assert api.get("Users", listMode="techs").json()[-1]["UserID"] == ursula
    for _ in range(2):  # idempotent
        resp = api.post("RemoveCategoryTechPermission", userId=ursula, categoryId=cat)
        assert (resp.status_code, resp.text) == (200, "OK")
    assert permissions(api) == [(ursula, other)]
    assert stored(api, ursula)["is_tech"] is True
    # Removing the last row ends the technician role: no rows would mean every category.
    api.post("RemoveCategoryTechPermission", userId=ursula, categoryId=other)
    assert permissions(api) == []
    assert api.get("User", userId=ursula).json()["IsTech"] is False
    # Administrators keep their roles; all-category technicians without a row are untouched.
    admin, tina = api.user_id("admin"), api.user_id("tina")
    api.post("AddCategoryTechPermission", userId=admin, categoryId=cat)
    api.post("RemoveCategoryTechPermission", userId=admin, categoryId=cat)
    api.post("RemoveCategoryTechPermission", userId=tina, categoryId=cat)
    assert (stored(api, admin)["is_admin"], stored(api, admin)["is_tech"]) == (True, True)
    assert stored(api, tina)["is_tech"] is True


def test_category_tech_permission_errors(api: Api) -> None:
    ursula = api.user_id("ursula")
    cat = add_category(api, "Hardware")
    for name in ("AddCategoryTechPermission", "RemoveCategoryTechPermission"):
        assert api.post(name, userId=ursula).status_code == 400
        assert api.post(name, categoryId=cat).status_code == 400
        assert api.post(name, userId=999, categoryId=cat).status_code == 404
        assert api.post(name, userId=ursula, categoryId=999).status_code == 404
        assert api.as_("tina").post(name, userId=ursula, categoryId=cat).status_code == 403
    assert permissions(api) == []
    assert stored(api, ursula)["is_tech"] is False


@pytest.mark.parametrize("spelling", ["department", "Departman", "DEPARTMENT"])
def test_departments_are_named_by_either_spelling(api: Api, spelling: str) -> None:
    uid = create(api, "d@example.com", **{spelling: "Ops"})
    assert api.get("User", userId=uid).json()["Departman"] == "Ops"
