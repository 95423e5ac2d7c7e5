"""Offline checks of merged manifests: errors only where the manifests contradict
themselves or the API, warnings for what is probably a mistake (the cases under cases/ cover
the errors' messages; these cover the rules)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.errors import ManifestError
from reconciler.kinds.tech_permissions import TechPermission
from reconciler.kinds.users import User
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.document import Manifest
from reconciler.manifest.loader import load_manifest_text
from reconciler.manifest.models import Kind, Settings
from reconciler.manifest.validate import (
    UNPRUNABLE,
    reference_warnings,
    validate_manifests,
    validate_references,
)

from .test_loader import DESIGN_EXAMPLE, ENV


def test_the_design_example_has_no_errors_and_no_warnings() -> None:
    desired = load_manifest_text(DESIGN_EXAMPLE, env=ENV)
    assert validate_references(desired) == []
    assert reference_warnings(desired) == []


@pytest.mark.parametrize("kind", list(Kind))
def test_only_kinds_the_api_can_remove_may_be_pruned(kind: Kind) -> None:
    desired = load_manifest_text(f"settings: {{prune: [{kind.value}]}}\n", "p.yaml")
    errors = validate_references(desired)
    if kind in UNPRUNABLE:
        assert errors == [f"p.yaml:1:20: {kind.value} cannot be pruned: {UNPRUNABLE[kind]}"]
    else:
        assert errors == []


def test_ignore_fields_names_fields_of_the_kind_but_never_its_key() -> None:
    text = (
        "settings:\n"
        "  employee_key: id\n"
        "  ignore_fields:\n"
        "    users: [notes, custom_fields, username]\n"
        "    workspace.employees: [anything, id]\n"
        "    automation_rules: [name, enabled, enabld]\n"
    )
    assert validate_references(load_manifest_text(text, "i.yaml")) == [
        "i.yaml:4:35: 'username' is the key of users: it cannot be ignored",
        "i.yaml:5:37: 'id' is the key of workspace.employees: it cannot be ignored",
        "i.yaml:6:39: automation_rules have no field 'enabld'; did you mean 'enabled'?",
    ]


def test_user_references_must_be_managed_users_only_when_users_are_pruned() -> None:
    body = (
        "users: [{username: alice}, {username: Bob}]\n"
        "tech_permissions: [{category: Hardware, technicians: [alice, tina]}]\n"
        "assets: [{serial_number: SN-1, assigned_users: [bob, carol]}]\n"
    )
    assert validate_references(load_manifest_text(body)) == []
    pruned = load_manifest_text("settings: {prune: [users]}\n" + body, "r.yaml")
    assert [error.split(": ", 1)[0] for error in validate_references(pruned)] == [
        "r.yaml:3:62",  # tina
        "r.yaml:4:54",  # carol
    ]


def test_warnings_for_disabled_users_repeats_and_shared_domains() -> None:
    text = (
        "settings: {prune: [workspace.employees, assets, assets], ignore_fields: {assets: [a, A]}}"
        "\n"
        "companies:\n"
        "  - {name: Acme, email_domains: [acme.com, ACME.com]}\n"
        "  - {name: Globex, email_domains: [acme.com]}\n"
        "users: [{username: alice, disabled: true}, {username: bob, disabled: false}]\n"
        "tech_permissions: [{category: Hardware, technicians: [alice, bob, Bob]}]\n"
        "assets: [{serial_number: SN-1, assigned_users: [Alice]}]\n"
    )
    assert reference_warnings(load_manifest_text(text, "w.yaml")) == [
        "w.yaml:1:20: pruning workspace.employees deletes employees missing from the "
        "manifests, and that cannot be undone",
        "w.yaml:1:49: 'assets' is listed twice in prune",
        "w.yaml:1:86: 'A' is listed twice in ignore_fields.assets",
        "w.yaml:3:44: 'ACME.com' is listed twice in email_domains",
        "w.yaml:4:36: e-mail domain 'acme.com' is also a domain of company 'Acme'",
        "w.yaml:6:55: user 'alice' is disabled (`disabled: true`)",
        "w.yaml:6:67: 'Bob' is listed twice in technicians",
        "w.yaml:7:49: user 'Alice' is disabled (`disabled: true`)",
    ]


def test_findings_about_manifests_built_in_code_have_no_location() -> None:
    manifest = Manifest(
        settings=Settings(prune=[Kind.companies, Kind.users]),
        users=[User(username="alice", disabled=True)],
        tech_permissions=[TechPermission(category="Hardware", technicians=["alice", "tina"])],
    )
    desired = DesiredState.from_manifest(manifest)
    assert validate_references(desired) == [
        f"companies cannot be pruned: {UNPRUNABLE[Kind.companies]}",
        "user 'tina' is not in the manifests' users, and users are pruned: the same run "
        "would disable it; add it to users or drop it here",
    ]
    assert reference_warnings(desired) == ["user 'alice' is disabled (`disabled: true`)"]


def test_validate_manifests_loads_then_checks_and_returns_the_warnings(tmp_path: Path) -> None:
    good = tmp_path / "good.yaml"
    good.write_text(
        "users: [{username: a, disabled: true}]\n"
        "assets: [{serial_number: S, assigned_users: [a]}]\n"
    )
    validated = validate_manifests([good], {})
    assert validated.desired.kinds_used == {Kind.users, Kind.assets}
    assert validated.warnings == [f"{good}:2:46: user 'a' is disabled (`disabled: true`)"]
    bad = tmp_path / "bad.yaml"
    bad.write_text("settings: {prune: [categories]}\n")
    with pytest.raises(ManifestError) as caught:
        validate_manifests([good, bad], {})
    assert caught.value.problems == [
        f"{bad}:1:20: categories cannot be pruned: {UNPRUNABLE[Kind.categories]}"
    ]
