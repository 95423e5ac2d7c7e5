"""What an export covers: --kinds, --target, --exclude, --rule-ids, services that are
not configured, and live objects that cannot all be named by manifests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reconciler.errors import UsageError
from reconciler.export.selection import EXPORT_KINDS, Selection, parse_rule_ids, split_list
from reconciler.sandbox import records
from tests.export.sandbox import describe, export, round_trip, seeded


def test_by_default_every_kind_but_rules() -> None:
    assert Selection.build().kinds == tuple(k for k in EXPORT_KINDS if k != "automation_rules")
    assert Selection.build(rule_ids=[7]).kinds == EXPORT_KINDS


def test_kinds_comma_separated_or_repeated_in_schema_order() -> None:
    selection = Selection.build(kinds=["users,companies", "assets"])
    assert selection.kinds == ("companies", "users", "assets")


def test_targets_choose_kinds_and_objects() -> None:
    selection = Selection.build(targets=["users/Alice", "companies"])
    assert selection.kinds == ("companies", "users")
    assert selection.wants("users", "alice") and not selection.wants("users", "bob")
    assert selection.wants("companies", "Anything")
    assert not selection.wants("assets", "SN-1")


def test_excludes_leave_out_kinds_and_objects() -> None:
    selection = Selection.build(excludes=["assets", "users/bob"])
    assert "assets" not in selection.kinds
    assert selection.wants("users", "alice") and not selection.wants("users", " BOB ")


def test_a_rule_target_names_the_rule_to_read() -> None:
    selection = Selection.build(targets=["automation_rules/102"])
    assert selection.kinds == ("automation_rules",) and selection.rule_ids == (102,)


KINDS = (
    "kinds: companies, departments, categories, users, tech_permissions, assets, "
    "automation_rules, workspace.employees"
)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"kinds": ["widgets"]}, f"unknown kind 'widgets'; {KINDS}"),
        ({"targets": ["widgets/x"]}, f"unknown kind 'widgets' in 'widgets/x'; {KINDS}"),
        (
            {"kinds": ["automation_rules"]},
            "the API cannot list automation rules: name the rules to export with "
            "--rule-ids 101,102",
        ),
        (
            {"kinds": ["users"], "rule_ids": [1]},
            "--rule-ids names automation rules, but automation_rules is not among the kinds "
            "exported",
        ),
        (
            {"targets": ["automation_rules/x"]},
            "--target automation_rules/x: rules are keyed by id (a number)",
        ),
        (
            {"kinds": ["users"], "excludes": ["users"]},
            "nothing to export: the options leave out every kind",
        ),
    ],
)
def test_selections_that_cannot_work_are_usage_errors(
    options: dict[str, list[str]], message: str
) -> None:
    with pytest.raises(UsageError) as refused:
        Selection.build(**options)  # type: ignore[arg-type]
    assert str(refused.value) == message


def test_rule_ids_are_whole_numbers_from_one_read_once_each() -> None:
    assert parse_rule_ids(["101,102", "101", " 7 "]) == [101, 102, 7]
    with pytest.raises(UsageError) as not_a_number:
        parse_rule_ids(["x"])
    assert str(not_a_number.value) == "--rule-ids takes rule ids (numbers), not 'x'"
    with pytest.raises(UsageError) as zero:
        parse_rule_ids(["0"])
    assert str(zero.value) == "--rule-ids: 0 is not a rule id (ids start at 1)"


def test_only_the_targeted_objects_are_read_and_written(tmp_path: Path) -> None:
    state, credentials = seeded()
    selection = Selection.build(
        targets=["users/alice", "users/nobody", "tech_permissions/Hardware"],
        excludes=["users/bob"],
    )
    trip = round_trip(state, credentials, tmp_path, selection)
    assert describe(trip.plan) == []
    assert sorted(p.name for p in tmp_path.glob("*.yaml")) == [
        "settings.yaml",  # the users' dropdown whose options the API does not show
        "tech_permissions.yaml",
        "users.yaml",
    ]
    assert [u.username for u in trip.desired.manifest.users] == ["alice"]
    assert [p.category for p in trip.desired.manifest.tech_permissions] == ["Hardware"]
    assert trip.result.warnings == ["--target users/nobody matched no live object"]
    # Per-object reads only for what is exported: one user's values.
    paths = [r["path"] for r in trip.requests]
    assert sum(p.endswith("/api/UserCustomFields") for p in paths) == 1
    # Hardware's technicians only: no administrator is listed there, so this helpdesk lists
    # permission rows only and tina's listing is her permission (no implicit technician to
    # tell apart by reading every other category).
    assert sum(p.endswith("/api/TechsForCategory") for p in paths) == 1
    assert not any(p.endswith("/api/Assets") for p in paths)


def test_a_missing_rule_is_a_usage_error() -> None:
    state, credentials = seeded()
    with pytest.raises(UsageError) as missing:
        export(state, credentials, Selection.build(rule_ids=[101, 999]))
    assert str(missing.value) == (
        "no automation rule with id 999: check the ids given with --rule-ids (the helpdesk's "
        "automation rules page shows them)"
    )


def test_kinds_of_a_service_not_configured_are_skipped_with_a_warning() -> None:
    state, credentials = seeded()
    result = export(state, credentials, Selection.build(), workspace=False)
    assert "workspace.employees" not in result.entries
    assert result.warnings == [
        "workspace.employees skipped: the workspace service is not configured"
    ]
    with pytest.raises(UsageError) as nothing:
        export(state, credentials, Selection.build(kinds=["workspace.employees"]), workspace=False)
    assert str(nothing.value) == (
        "nothing to export: the services of the kinds asked for are not configured "
        "(workspace.employees skipped: the workspace service is not configured)"
    )


def test_objects_sharing_a_key_are_reported(tmp_path: Path) -> None:
    state, credentials = seeded()
    store = state.store
    store.insert("companies", records.company("Acme  Corp"))  # "Acme Corp" with two spaces
    type_id = store.rows("asset_types")[0]["id"]
    for _ in range(2):
        store.insert(
            "assets",
            records.asset(
                model_name="Dock",
                manufacturer_id=store.rows("manufacturers")[0]["id"],
                supplier_id=store.rows("suppliers")[0]["id"],
                type_id=type_id,
                serial_number="DUP-1",
            ),
        )
    store.insert("categories", records.category("Hardware"))  # also in IT Support
    trip = round_trip(state, credentials, tmp_path)
    assert describe(trip.plan) == []
    warnings = "\n".join(trip.result.warnings)
    assert "companies/Acme Corp: 2 live objects share this name" in warnings
    # Assets of the company the manifests cannot name do not manage their company.
    assert "company 'Acme Corp' (id 1) shares its name with another company" in warnings
    assert "assets/DUP-1: 2 live objects share this key" in warnings
    assert "categories/Hardware: is also in no section" in warnings
    assert "DUP-1" not in {a.serial_number for a in trip.desired.manifest.assets}
    hardware = [c for c in trip.desired.manifest.categories if c.name == "Hardware"]
    assert [c.section for c in hardware] == ["IT Support"]


# What `reconciler export` writes in two corners of a live helpdesk (the in-process sandbox):
# technicians of several categories when two categories share a name, and an asset that belongs to
# no company when empty fields are written too.


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


# What an export covers (export/selection.py), as `reconciler export` takes it from its options:
# the kinds chosen and the rule ids read, every refusal's whole message, which objects are wanted,
# and which targets named no live object.

KINDS = (
    "companies, departments, categories, users, tech_permissions, assets, automation_rules, "
    "workspace.employees"
)
NO_RULE_LIST = (
    "the API cannot list automation rules: name the rules to export with --rule-ids 101,102"
)
RULES_LEFT_OUT = (
    "--rule-ids names automation rules, but automation_rules is not among the kinds exported"
)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"kinds": ["widgets"]}, f"unknown kind 'widgets'; kinds: {KINDS}"),
        ({"kinds": ["users, widgets"]}, f"unknown kind 'widgets'; kinds: {KINDS}"),
        ({"targets": ["widgets/x"]}, f"unknown kind 'widgets' in 'widgets/x'; kinds: {KINDS}"),
        ({"kinds": ["automation_rules"]}, NO_RULE_LIST),
        ({"targets": ["automation_rules"]}, NO_RULE_LIST),
        ({"kinds": ["users"], "rule_ids": [1]}, RULES_LEFT_OUT),
        ({"rule_ids": [1], "excludes": ["automation_rules"]}, RULES_LEFT_OUT),
        ({"targets": ["automation_rules/7"], "excludes": ["automation_rules"]}, RULES_LEFT_OUT),
        (
            {"targets": ["automation_rules/x"]},
            "--target automation_rules/x: rules are keyed by id (a number)",
        ),
        (
            {"kinds": ["users"], "excludes": ["users"]},
            "nothing to export: the options leave out every kind",
        ),
        (
            {"targets": ["users/a"], "excludes": ["users"]},
            "nothing to export: the options leave out every kind",
        ),
    ],
)
def test_each_refusal_says_why_in_full(options: dict[str, Any], message: str) -> None:
    with pytest.raises(UsageError) as refused:
        Selection.build(**options)
    assert str(refused.value) == message


@pytest.mark.parametrize(
    ("options", "kinds", "rule_ids"),
    [
        # Rules are exported only when ids are given: by --rule-ids or by a rule target.
        (
            {},
            (
                "companies",
                "departments",
                "categories",
                "users",
                "tech_permissions",
                "assets",
                "workspace.employees",
            ),
            (),
        ),
        ({"kinds": ["assets,users", " ", "users"]}, ("users", "assets"), ()),
        (
            {"targets": ["automation_rules/7", "automation_rules/5"], "rule_ids": [7, 9]},
            ("automation_rules",),
            (7, 9, 5),
        ),
        ({"kinds": ["automation_rules"], "rule_ids": [3]}, ("automation_rules",), (3,)),
        # An exclude with a key leaves the kind in; without one it leaves the kind out.
        ({"kinds": ["users", "companies"], "excludes": ["users/bob"]}, ("companies", "users"), ()),
        ({"targets": ["users/alice", "assets"], "excludes": ["assets"]}, ("users",), ()),
        (
            {"excludes": ["automation_rules/4"], "rule_ids": [4]},
            (
                "companies",
                "departments",
                "categories",
                "users",
                "tech_permissions",
                "assets",
                "automation_rules",
                "workspace.employees",
            ),
            (4,),
        ),
    ],
)
def test_the_kinds_chosen_and_the_rules_read(
    options: dict[str, Any], kinds: tuple[str, ...], rule_ids: tuple[int, ...]
) -> None:
    selection = Selection.build(**options)
    assert (selection.kinds, selection.rule_ids) == (kinds, rule_ids)


SELECTION = Selection.build(
    kinds=["users", "companies", "workspace.employees"],
    targets=[
        "users/Alice",
        "users/nobody",
        "companies",
        "assets/SN-1",
        "workspace.employees/Ann@Acme.com",
        "workspace.employees/gone@acme.com",
    ],
    excludes=["companies/Acme  Corp", "users/alice"],
)


@pytest.mark.parametrize(
    ("kind", "key", "wanted"),
    [
        ("companies", "acme corp", False),  # excluded, compared as manifests compare names
        ("companies", "Globex", True),  # the kind is targeted whole
        ("users", "ALICE", False),  # targeted, and excluded: the exclude wins
        ("users", "nobody", True),
        ("users", "bob", False),  # not targeted
        ("assets", "SN-1", False),  # its kind is not among the kinds
        ("workspace.employees", "ann@acme.com", True),  # e-mail keys without case
        ("workspace.employees", "bob@acme.com", False),
    ],
)
def test_which_objects_are_wanted(kind: str, key: str, wanted: bool) -> None:
    assert SELECTION.wants(kind, key) is wanted


def test_the_targets_that_named_no_live_object_in_the_order_given() -> None:
    exported = {"users": {"alice"}, "workspace.employees": {"ann@acme.com"}}
    # `companies` names a kind, `assets/SN-1` a kind not exported: neither can miss.
    assert SELECTION.unmatched_targets(exported) == [
        "users/nobody",
        "workspace.employees/gone@acme.com",
    ]
    assert SELECTION.unmatched_targets({}) == [
        "users/Alice",
        "users/nobody",
        "workspace.employees/Ann@Acme.com",
        "workspace.employees/gone@acme.com",
    ]


def test_lists_split_on_commas_and_rule_ids_once_each() -> None:
    assert split_list(["a, b,,", " ", "c"]) == ["a", "b", "c"]
    assert parse_rule_ids(["3,1", "3", " 2 ,1"]) == [3, 1, 2]
    with pytest.raises(UsageError) as refused:
        parse_rule_ids(["1,x"])
    assert str(refused.value) == "--rule-ids takes rule ids (numbers), not 'x'"
    with pytest.raises(UsageError) as refused:
        parse_rule_ids(["-2"])
    assert str(refused.value) == "--rule-ids: -2 is not a rule id (ids start at 1)"
