"""The uniquenesses the helpdesk keeps, as a rename (docs/renaming.md) meets them: a user
renamed by `UpdateUser` keeps its id, and a username or e-mail another user has (a
disabled one too) is refused, ignoring case; a company renamed by `UpdateCompany` (a
change of case only included) keeps its id, and a name another company has, ignoring
case, is refused. (Employees' e-mails: test_workspace.py, 409 on POST and PUT.)"""

from __future__ import annotations

from tests.sandbox.conftest import Api


def test_update_user_renames_in_place_and_keeps_usernames_unique(api: Api) -> None:
    tina = api.user_id("tina")
    renamed = api.post("UpdateUser", userId=tina, username="tina.nguyen")
    assert renamed.status_code == 200, renamed.text
    assert api.user_id("tina.nguyen") == tina
    assert api.state.store.find_name("users", "tina", "username") is None
    api.state.store.update("users", api.user_id("ursula"), disabled=True)
    taken = api.post("UpdateUser", userId=tina, username="URSULA")
    assert taken.status_code == 400 and "already exists" in taken.text
    email = api.post("UpdateUser", userId=tina, email="Ursula@example.com")
    assert email.status_code == 400 and "already exists" in email.text
    create = api.post("CreateUser", email="new@example.com", username="Tina.Nguyen")
    assert create.status_code == 400


def test_update_company_renames_in_place_and_keeps_names_unique(api: Api) -> None:
    acme = api.post("Company", name="Acme Corp").json()["id"]
    globex = api.post("Company", name="Globex").json()["id"]
    assert api.post("Company", name="ACME CORP").json()["id"] == acme  # idempotent by name
    case_only = api.post("UpdateCompany", id=acme, name="ACME Corp")
    assert case_only.status_code == 200, case_only.text
    assert api.post("UpdateCompany", id=acme, name="Acme Corporation").status_code == 200
    names = {c["CompanyID"]: c["Name"] for c in api.get("Companies").json()}
    assert names == {acme: "Acme Corporation", globex: "Globex"}
    clash = api.post("UpdateCompany", id=globex, name="acme corporation")
    assert clash.status_code == 400 and "already exists" in clash.text
