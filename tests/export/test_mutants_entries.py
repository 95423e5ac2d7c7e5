"""What `reconciler export` writes in two corners of a live helpdesk (the in-process
sandbox): technicians of several categories when two categories share a name, and an
asset that belongs to no company when empty fields are written too."""

from __future__ import annotations

from reconciler.export import Selection
from tests.export.sandbox import export, seeded


def test_a_shared_category_name_leaves_out_only_that_category() -> None:
    state, credentials = seeded()
    facilities = state.store.find_name("categories", "Facilities")
    assert facilities is not None
    state.store.update("categories", facilities["id"], name="Hardware")  # two Hardware now
    result = export(state, credentials, Selection.build(kinds=["tech_permissions"]))
    # Without the categories (which give each its section) the manifests cannot say which
    # Hardware; the categories after it in name order are exported all the same.
    assert result.entries["tech_permissions"] == [
        {"category": "Accounts & Access", "technicians": ["priya"]},
        {"category": "Network", "technicians": ["priya", "tina"]},
        {"category": "Software", "technicians": ["omar", "priya"]},
    ]
    assert result.warnings == [
        "tech_permissions/Hardware: left out: several categories have this name, and only "
        "with its `categories` entry (which gives the section) can the manifests say which "
        "one (export categories too)"
    ]


def test_an_asset_of_no_company_says_so_when_empty_fields_are_written() -> None:
    state, credentials = seeded()
    asset = state.store.find("assets", serial_number="PF4KX2A1")
    assert asset is not None
    state.store.update("assets", asset["id"], company_id=None)
    selection = Selection.build(kinds=["assets"])
    every = export(state, credentials, selection, include_empty=True)
    [entry] = [e for e in every.entries["assets"] if e["serial_number"] == "PF4KX2A1"]
    assert "company" in entry and entry["company"] is None
    assert "\n    company: null\n" in every.files()["assets.yaml"].split("PF4KX2A1", 1)[1]
    plain = export(state, credentials, selection)
    [entry] = [e for e in plain.entries["assets"] if e["serial_number"] == "PF4KX2A1"]
    assert "company" not in entry


def test_a_shared_category_name_is_written_when_the_categories_are_exported_too() -> None:
    state, credentials = seeded()
    facilities = state.store.find_name("categories", "Facilities")
    assert facilities is not None
    state.store.update("categories", facilities["id"], name="Hardware")  # two Hardware now
    kinds = ["categories", "tech_permissions"]
    result = export(state, credentials, Selection.build(kinds=kinds))
    # The categories' entry gives the section, so the manifests can say which Hardware.
    assert result.entries["tech_permissions"] == [
        {"category": "Accounts & Access", "technicians": ["priya"]},
        {"category": "Hardware", "technicians": ["tina"]},
        {"category": "Network", "technicians": ["priya", "tina"]},
        {"category": "Software", "technicians": ["omar", "priya"]},
    ]
    assert result.warnings == [
        "categories/Hardware: is also in section 'Workplace'; manifests key categories by "
        "name, so only the one in section 'IT Support' is written"
    ]
