from __future__ import annotations

from typing import Any

from reconciler.sandbox import records
from tests.sandbox.conftest import Api, api_with

CATEGORY_FIELDS = {
    "CategoryID": int,
    "Name": str,
    "SectionID": (int, type(None)),
    "Section": (str, type(None)),
    "NameWithSection": str,
    "ForTechsOnly": bool,
    "FromAddress": (str, type(None)),
}


def section(api: Api, name: str) -> int:
    return int(api.state.store.insert("sections", records.named(name))["id"])


def category(api: Api, name: str, **kwargs: Any) -> int:
    return int(api.state.store.insert("categories", records.category(name, **kwargs))["id"])


def grant(api: Api, username: str, category_id: int) -> None:
    api.state.store.insert(
        "tech_permissions", {"user_id": api.user_id(username), "category_id": category_id}
    )


def names(resp_json: list[dict[str, object]]) -> list[object]:
    return [c["NameWithSection"] for c in resp_json]


def world(api: Api) -> dict[str, int]:
    it = section(api, "IT Support")
    facilities = section(api, "Facilities")
    return {
        "hardware": category(api, "Hardware", section_id=it, from_address="it@example.com"),
        "software": category(api, "software", section_id=it),
        "internal": category(api, "Internal", section_id=it, for_techs_only=True),
        "cleaning": category(api, "Cleaning", section_id=facilities),
        "general": category(api, "General"),
        "it": it,
    }


def test_categories_fields_and_order(api: Api) -> None:
    ids = world(api)
    listed = api.get("categories").json()
    # By section name (none first), then name, case-insensitively.
    assert names(listed) == [
        "General",
        "Facilities / Cleaning",
        "IT Support / Hardware",
        "IT Support / Internal",
        "IT Support / software",
    ]
    for item in listed:
        assert set(item) == set(CATEGORY_FIELDS)
        for key, kind in CATEGORY_FIELDS.items():
            assert isinstance(item[key], kind), key
    hardware = next(c for c in listed if c["Name"] == "Hardware")
    assert hardware == {
        "CategoryID": ids["hardware"],
        "Name": "Hardware",
        "SectionID": ids["it"],
        "Section": "IT Support",
        "NameWithSection": "IT Support / Hardware",
        "ForTechsOnly": False,
        "FromAddress": "it@example.com",
    }
    general = next(c for c in listed if c["Name"] == "General")
    assert general["SectionID"] is None and general["Section"] is None


def test_categories_visible_to_each_kind_of_caller(api: Api) -> None:
    ids = world(api)
    everything = names(api.get("categories").json())
    assert names(api.as_("tina").get("categories").json()) == everything
    public = [n for n in everything if n != "IT Support / Internal"]
    assert names(api.as_("ursula").get("categories").json()) == public
    # A category technician sees the techs-only categories of their own categories only.
    grant(api, "tina", ids["hardware"])
    assert names(api.as_("tina").get("categories").json()) == public
    grant(api, "tina", ids["internal"])
    assert names(api.as_("tina").get("categories").json()) == everything
    # Permission rows of a user who is not a technician grant nothing.
    grant(api, "ursula", ids["internal"])
    assert names(api.as_("ursula").get("categories").json()) == public
    assert api.as_(None).get("categories").status_code == 401


def test_add_category_creates_a_category_in_a_section(api: Api) -> None:
    it = section(api, "IT Support")
    resp = api.post("AddCategory", name=" Printers ", sectionId=it)
    assert resp.status_code == 200
    new_id = resp.json()["id"]
    assert isinstance(new_id, int)
    listed = {c["CategoryID"]: c for c in api.get("categories").json()}
    assert listed[new_id]["NameWithSection"] == "IT Support / Printers"
    assert listed[new_id]["ForTechsOnly"] is False
    bare = api.post("AddCategory", name="Printers").json()["id"]
    assert api.post("AddCategory", name="Other", sectionId=0).status_code == 200
    assert {c["CategoryID"]: c for c in api.get("categories").json()}[bare]["SectionID"] is None


def test_add_category_refuses_duplicates_and_bad_sections(api: Api) -> None:
    it = section(api, "IT Support")
    api.post("AddCategory", name="Printers", sectionId=it)
    assert api.post("AddCategory").status_code == 400
    assert api.post("AddCategory", name="   ").status_code == 400
    assert api.post("AddCategory", name="X", sectionId=999).status_code == 400
    assert api.post("AddCategory", name="X", sectionId="abc").status_code == 400
    duplicate = api.post("AddCategory", name="PRINTERS", sectionId=it)
    assert duplicate.status_code == 400
    assert "already exists" in duplicate.text
    # The same name in another section (or none) is another category.
    assert api.post("AddCategory", name="Printers").status_code == 200
    assert api.post("AddCategory", name="printers").status_code == 400
    assert api.as_("tina").post("AddCategory", name="Y").status_code == 403
    assert api.as_("ursula").post("AddCategory", name="Y").status_code == 403
    assert len(api.get("categories").json()) == 2


def test_techs_for_category_lists_the_explicit_technicians_by_id(api: Api) -> None:
    store = api.state.store
    ids = world(api)
    carl = store.insert(
        "users",
        records.user("carl", "carl@example.com", role="technician", first_name="Carl"),
    )
    grant(api, "tina", ids["hardware"])
    store.insert("tech_permissions", {"user_id": carl["id"], "category_id": ids["hardware"]})
    store.insert("tech_permissions", {"user_id": carl["id"], "category_id": ids["software"]})
    resp = api.as_("tina").get("TechsForCategory", id=ids["hardware"])
    assert resp.status_code == 200
    assert resp.json() == [
        {
            "UserID": api.user_id("tina"),
            "Username": "tina",
            "FirstName": "Tina",
            "LastName": "",
            "TicketsAssigned": 0,
            "FullNameAndLogin": "Tina (tina)",
            "FullName": "Tina",
        },
        {
            "UserID": carl["id"],
            "Username": "carl",
            "FirstName": "Carl",
            "LastName": "",
            "TicketsAssigned": 0,  # the sandbox serves no tickets
            "FullNameAndLogin": "Carl (carl)",
            "FullName": "Carl",
        },
    ]
    # `categoryId` works too; all-category technicians have no rows and are not listed.
    assert api.get("TechsForCategory", categoryId=ids["general"]).json() == []
    assert [u["Username"] for u in api.get("TechsForCategory", id=ids["software"]).json()] == [
        "carl"
    ]


def test_techs_for_category_errors(api: Api) -> None:
    ids = world(api)
    assert api.get("TechsForCategory").status_code == 400
    assert api.get("TechsForCategory", id="x").status_code == 400
    assert api.get("TechsForCategory", id=999).status_code == 404
    # A category for technicians only is hidden from a plain user.
    assert api.as_("ursula").get("TechsForCategory", id=ids["internal"]).status_code == 403


def test_techs_for_category_answers_any_caller_who_sees_the_category(api: Api) -> None:
    # The spec's permission is "caller": a plain user may ask about a category they see.
    ids = world(api)
    grant(api, "tina", ids["hardware"])
    resp = api.as_("ursula").get("TechsForCategory", id=ids["hardware"])
    assert resp.status_code == 200
    assert [u["Username"] for u in resp.json()] == ["tina"]
    # tina is now a technician of hardware only: internal (for technicians) is hidden.
    assert api.as_("tina").get("TechsForCategory", id=ids["internal"]).status_code == 403
    assert api.get("TechsForCategory", id=ids["internal"]).json() == []


def test_techs_for_category_lists_no_implicit_technicians_by_default(api: Api) -> None:
    # admin (administrator) and a technician without rows work in every category, and
    # every category answers them the same way: not listed.
    ids = world(api)
    api.state.store.insert("users", records.user("tom", "tom@example.com", role="technician"))
    for key in ("hardware", "software", "internal", "cleaning", "general"):
        assert api.get("TechsForCategory", id=ids[key]).json() == []


def test_techs_list_implicit_quirk_lists_admins_and_all_category_techs() -> None:
    with api_with("techs-list-implicit") as api:
        ids = world(api)
        store = api.state.store
        tom = store.insert("users", records.user("tom", "tom@example.com", role="technician"))
        gone = store.insert(
            "users", records.user("gone", "gone@example.com", role="admin", disabled=True)
        )
        grant(api, "tina", ids["hardware"])  # tina now has rows: a category technician
        expected_everywhere = [api.user_id("admin"), tom["id"]]
        for key in ("hardware", "software", "internal", "cleaning", "general"):
            listed = [u["UserID"] for u in api.get("TechsForCategory", id=ids[key]).json()]
            explicit = [api.user_id("tina")] if key == "hardware" else []
            # Explicit rows first, then the implicit ones, each once; never a disabled user.
            assert listed == explicit + expected_everywhere
            assert gone["id"] not in listed
