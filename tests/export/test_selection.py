"""What an export covers: --kinds, --target, --exclude, --rule-ids, services that are
not configured, and live objects that cannot all be named by manifests."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.errors import UsageError
from reconciler.export import EXPORT_KINDS, Selection, parse_rule_ids
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


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"kinds": ["widgets"]}, "unknown kind 'widgets'"),
        ({"targets": ["widgets/x"]}, "unknown kind 'widgets'"),
        ({"kinds": ["automation_rules"]}, "--rule-ids 101,102"),
        ({"kinds": ["users"], "rule_ids": [1]}, "automation_rules is not among the kinds"),
        ({"targets": ["automation_rules/x"]}, "rules are keyed by id"),
        ({"kinds": ["users"], "excludes": ["users"]}, "nothing to export"),
    ],
)
def test_selections_that_cannot_work_are_usage_errors(
    options: dict[str, list[str]], message: str
) -> None:
    with pytest.raises(UsageError, match=message):
        Selection.build(**options)  # type: ignore[arg-type]


def test_rule_ids() -> None:
    assert parse_rule_ids(["101,102", "101", " 7 "]) == [101, 102, 7]
    with pytest.raises(UsageError, match="not 'x'"):
        parse_rule_ids(["x"])
    with pytest.raises(UsageError, match="ids start at 1"):
        parse_rule_ids(["0"])


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
    with pytest.raises(UsageError, match="no automation rule with id 999"):
        export(state, credentials, Selection.build(rule_ids=[101, 999]))


def test_kinds_of_a_service_not_configured_are_skipped_with_a_warning() -> None:
    state, credentials = seeded()
    result = export(state, credentials, Selection.build(), workspace=False)
    assert "workspace.employees" not in result.entries
    assert result.warnings == [
        "workspace.employees skipped: the workspace service is not configured"
    ]
    with pytest.raises(UsageError, match="nothing to export"):
        export(state, credentials, Selection.build(kinds=["workspace.employees"]), workspace=False)


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
