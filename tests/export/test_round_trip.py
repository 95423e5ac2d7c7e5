"""The round trip on the acme tenant: export the seeded sandbox, load the files as
manifests, plan against the same sandbox: no change, no error, no warning. Also with the
sandbox quirks that change the shapes the export reads, with empty fields written, as
one document on stdout, and when dropdown option names are known only from the values."""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import UTC, datetime
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from reconciler.applying.session import ApplySession
from reconciler.export.result import SCHEMA_FILE
from reconciler.export.selection import KIND_FILES, Selection
from reconciler.kinds.table import ENTRY_MODELS
from reconciler.manifest.loader import load_manifest_text, load_manifests
from reconciler.manifest.models import Kind
from reconciler.session.workflow import read_and_plan
from tests.export.sandbox import (
    ACME_RULES,
    ROOT,
    WithoutListedOptions,
    connection,
    describe,
    export,
    round_trip,
    seeded,
    transport,
)

SHAPE_QUIRKS = ["customfield-extra-keys", "user-department-id", "asset-disabled-flag"]


@pytest.mark.parametrize(
    "quirks",
    [(), *[(q,) for q in SHAPE_QUIRKS], tuple(SHAPE_QUIRKS)],
    ids=lambda q: "+".join(q) or "spec",
)
def test_export_then_plan_shows_no_change(tmp_path: Path, quirks: tuple[str, ...]) -> None:
    state, credentials = seeded(*quirks)
    trip = round_trip(state, credentials, tmp_path)
    assert describe(trip.plan) == []
    assert not trip.result.warnings
    # Every live object of every kind is in the manifests.
    manifest = trip.desired.manifest
    store = state.store
    assert len(manifest.companies) == len(store.rows("companies"))
    assert len(manifest.departments) == len(store.rows("departments"))
    assert len(manifest.categories) == len(store.rows("categories"))
    assert len(manifest.users) == len(store.rows("users"))
    assert len(manifest.assets) == len(store.rows("assets"))
    assert [r.id for r in manifest.automation_rules] == list(ACME_RULES)
    assert manifest.workspace is not None
    assert len(manifest.workspace.employees) == len(store.rows("ws_employees"))
    with_techs = {p["category_id"] for p in store.rows("tech_permissions")}
    assert len(manifest.tech_permissions) == len(with_techs)


def test_the_export_only_reads(tmp_path: Path) -> None:
    state, credentials = seeded()
    trip = round_trip(state, credentials, tmp_path)
    writes = [
        (r["method"], r["path"])
        for r in trip.requests
        if r["method"] != "GET" and not r["path"].endswith("/api/Authorization")
    ]
    assert writes == []
    assert trip.requests[0]["path"].endswith("/api/Authorization")
    assert sum(r["path"].endswith("/api/Authorization") for r in trip.requests) == 1


def test_the_values_are_those_of_the_seed(tmp_path: Path) -> None:
    state, credentials = seeded()
    manifest = round_trip(state, credentials, tmp_path).desired.manifest
    companies = {c.name: c for c in manifest.companies}
    acme = companies["Acme Corp"]
    assert acme.email_domains == ["acme.com", "acme.co.uk"]
    assert acme.custom_fields is not None
    assert acme.custom_fields["VIP"] is True
    assert str(acme.custom_fields["Renewal date"]) == "2027-12-31"
    # The API lists no options of company dropdowns: the value is written by id.
    assert acme.custom_fields["Contract tier"].option_id == 11  # type: ignore[union-attr]
    assert acme.custom_fields["Billing address"] == (
        "Acme Corp Ltd\n1 Canal Street\nLondon EC1A 4XY\nUnited Kingdom\n"
    )
    users = {u.username: u for u in manifest.users}
    assert users["admin"].is_admin is True and users["admin"].disabled is False
    assert not {"send_welcome_email"} & users["admin"].model_fields_set
    assets = {a.serial_number: a for a in manifest.assets}
    assert all(a.enabled is not None and a.quantity for a in assets.values())


def test_files_keys_order_and_header(tmp_path: Path) -> None:
    state, credentials = seeded()
    trip = round_trip(state, credentials, tmp_path)
    names = sorted(p.name for p in tmp_path.iterdir())
    # settings.yaml: the section ids a clone needs, and the dropdowns the API hides.
    assert names == sorted([*KIND_FILES.values(), SCHEMA_FILE, "settings.yaml"])
    yaml = YAML(typ="safe")
    for kind, file_name in KIND_FILES.items():
        text = (tmp_path / file_name).read_text(encoding="utf-8")
        lines = text.splitlines()
        assert lines[0] == f"# yaml-language-server: $schema={SCHEMA_FILE}"
        assert lines[1].startswith("# Exported by `reconciler export` from http://127.0.0.1/")
        data = yaml.load(text)
        entries = data["workspace"]["employees"] if kind == "workspace.employees" else data[kind]
        if kind == "workspace.employees":
            keys = [e["email"] for e in entries]
        else:
            key_name = {"tech_permissions": "category", "users": "username"}.get(kind, "name")
            key_name = {"assets": "serial_number", "automation_rules": "id"}.get(kind, key_name)
            keys = [e[key_name] for e in entries]
            order = list(ENTRY_MODELS[Kind(kind)].model_fields)
            for entry in entries:
                assert list(entry) == sorted(entry, key=order.index), entry
        assert keys == sorted(keys, key=lambda k: str(k).casefold()), kind
    assert trip.result.count == sum(len(v) for v in trip.result.entries.values())


def test_the_same_live_state_gives_the_same_files() -> None:
    now = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    texts = []
    for _ in range(2):
        state, credentials = seeded()
        result = export(state, credentials)
        texts.append(dataclasses.replace(result, exported_at=now).files())
    assert texts[0] == texts[1]
    assert "at 2026-01-02T03:04:05Z." in texts[0]["companies.yaml"].splitlines()[1]


def test_empty_fields_written_too_still_round_trip(tmp_path: Path) -> None:
    state, credentials = seeded()
    trip = round_trip(state, credentials, tmp_path, include_empty=True)
    assert describe(trip.plan) == []
    users = {u.username: u for u in trip.desired.manifest.users}
    assert "phone" in users["admin"].model_fields_set and users["admin"].phone == ""
    assert users["admin"].custom_fields is not None
    assert set(users["admin"].custom_fields.values()) == {None}


def test_one_document_on_stdout_round_trips() -> None:
    state, credentials = seeded()
    text = export(state, credentials).document()
    assert text.startswith(f"# yaml-language-server: $schema={SCHEMA_FILE}\n")
    desired = load_manifest_text(text, "export.yaml")
    plan = asyncio.run(
        read_and_plan(desired, connection(credentials), transport=transport(state))
    ).plan
    assert describe(plan) == []
    assert desired.manifest.workspace is not None and desired.manifest.workspace.employees


def test_rules_whose_state_is_unknown_are_written_as_comments(tmp_path: Path) -> None:
    state, credentials = seeded("rule-xml-minimal")
    trip = round_trip(state, credentials, tmp_path)
    assert describe(trip.plan) == []
    assert trip.desired.manifest.automation_rules == []
    assert [e["id"] for e in trip.result.unknown_rules] == list(ACME_RULES)
    assert any("does not say whether rule(s) 101, 102, 103" in w for w in trip.result.warnings)
    text = (tmp_path / "automation_rules.yaml").read_text(encoding="utf-8")
    assert "\nautomation_rules:\n" in text
    assert "#   - id: 101\n#     enabled: false  # or true: not known\n" in text
    # Uncommented, the entries are rules of the manifest.
    uncommented = text.replace("\n#   ", "\n  ").replace("  # or true: not known", "")
    rules = load_manifest_text(uncommented).manifest.automation_rules
    assert [(r.id, r.enabled) for r in rules] == [(i, False) for i in ACME_RULES]


def test_option_names_known_only_from_values_go_to_settings(tmp_path: Path) -> None:
    state, credentials = seeded("customfield-extra-keys")
    trip = round_trip(state, credentials, tmp_path, via_factory=lambda s: WithoutListedOptions(s))
    assert describe(trip.plan) == []
    options = trip.desired.settings.custom_field_options
    assert options.of("companies")["Contract tier"] == {"Gold": 11, "Silver": 12}  # in use
    acme = next(c for c in trip.desired.manifest.companies if c.name == "Acme Corp")
    assert acme.custom_fields is not None and acme.custom_fields["Contract tier"] == "Gold"
    assert (tmp_path / "settings.yaml").is_file()
    # Planned as the real service would answer (no listed options), names still resolve.
    assert load_manifests([tmp_path], env={}).settings.custom_field_options == options


def test_option_names_the_api_lists_are_all_written_for_a_clone(tmp_path: Path) -> None:
    state, credentials = seeded("customfield-extra-keys")
    trip = round_trip(state, credentials, tmp_path)
    assert describe(trip.plan) == []
    # Every option the API lists, used or not: a clone needs them all, by name.
    options = trip.desired.settings.custom_field_options
    assert options.of("companies")["Contract tier"] == {"Gold": 11, "Silver": 12, "Bronze": 13}
    assert options.of("users")["Cost centre"]["CC-100 IT"] == 21
    assert trip.desired.settings.section_ids == {"IT Support": 1, "Workplace": 2}
    acme = next(c for c in trip.desired.manifest.companies if c.name == "Acme Corp")
    assert acme.custom_fields is not None and acme.custom_fields["Contract tier"] == "Gold"


def test_selection_by_default_exports_rules_only_when_named(tmp_path: Path) -> None:
    state, credentials = seeded()
    trip = round_trip(state, credentials, tmp_path, Selection.build())
    assert "automation_rules" not in trip.result.entries
    assert not (tmp_path / "automation_rules.yaml").exists()
    assert describe(trip.plan) == []


def test_the_applied_example_round_trips(tmp_path: Path) -> None:
    """`apply examples/acme`, then export, then plan the export: empty."""
    state, credentials = seeded()
    desired = load_manifests([ROOT / "examples" / "acme"], env={})

    async def apply() -> None:
        async with ApplySession(
            desired,
            connection(credentials),
            transport=transport(state),
            log_path=tmp_path / "apply.jsonl",
            lock_directory=tmp_path,
        ) as s:
            outcome = await s.apply(confirm=lambda planned: True)
            assert outcome.plan.changes and not outcome.plan.errors
            assert outcome.report is not None and outcome.report.ok

    asyncio.run(apply())
    trip = round_trip(state, credentials, tmp_path)
    assert describe(trip.plan) == []
    # What the example manages reads back from the export as the example says.
    exported = {u.username: u for u in trip.desired.manifest.users}
    for user in desired.manifest.users:
        assert exported[user.username].disabled is bool(user.disabled)
    assert {c.name for c in desired.manifest.companies} <= {
        c.name for c in trip.desired.manifest.companies
    }
