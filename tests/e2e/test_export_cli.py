"""`reconciler export` as a new user runs it: a sandbox process seeded with a tenant the
project has never seen (written here), the credentials it prints in the environment, and
the commands as the README gives them. Export, plan the export (nothing to do), change
one field, plan shows exactly that change, apply, plan again: nothing to do."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from tests.e2e.conftest import Serve

pytestmark = pytest.mark.e2e

# A freight forwarder in the Netherlands: nothing like the acme tenant.
SEED = """
departments: [Planning, Warehouse, Customs]
sections: [Operations, Back office]
categories:
  - {name: Shipments, section: Operations}
  - {name: Customs papers, section: Back office}
  - {name: Forklifts, section: Operations}
custom_fields:
  - {name: Incoterm, usage: companies, type: dropdown,
     options: [{id: 41, name: FOB}, {id: 42, name: CIF}]}
  - {name: Credit limit, usage: companies, type: text}
  - {name: Badge number, usage: users, type: text}
  - {name: Forklift licence, usage: users, type: checkbox}
  - {name: Inspected on, usage: assets, type: date}
companies:
  - name: Nordwind Logistiek
    email_domains: [nordwind.nl]
    notes: "Head office: Rotterdam, Waalhaven 12"
    custom_fields: {Incoterm: FOB, Credit limit: "0012500"}
  - name: Polder Freight
    email_domains: [polderfreight.nl, polder.eu]
    custom_fields: {Incoterm: CIF}
users:
  - {username: beheer, email: beheer@nordwind.nl, password: beheer-Secret-1, role: admin,
     first_name: Beheer, company: Nordwind Logistiek, department: Planning}
  - {username: joost, email: joost@nordwind.nl, first_name: Joost, last_name: de Vries,
     phone: "+31101234567", location: Rotterdam, company: Nordwind Logistiek,
     department: Warehouse, role: technician,
     custom_fields: {Badge number: "0042", Forklift licence: true}}
  - {username: sanne, email: sanne@polderfreight.nl, first_name: Sanne, last_name: Bakker,
     location: Delft, company: Polder Freight, department: Customs}
  - {username: kees, email: kees@nordwind.nl, first_name: Kees, disabled: true,
     department: Warehouse}
tech_permissions:
  Forklifts: [joost]
  Shipments: [joost]
assets:
  - {serial_number: FL-0007, model_name: Linde E20, manufacturer: Linde, type: Forklift,
     supplier: Kion, location: Hal 3, company: Nordwind Logistiek, assigned_users: [joost],
     custom_fields: {Inspected on: 2026-03-01}}
  - {serial_number: "000981", model_name: Zebra ZT411, manufacturer: Zebra, type: Printer,
     supplier: Bechtle, quantity: 2, company: Polder Freight}
  - {serial_number: SC-55, model_name: TC52 scanner, manufacturer: Zebra, type: Scanner,
     supplier: Bechtle, disabled: true}
automation_rules:
  - {id: 5, name: Route customs tickets to Back office, enabled: true}
  - {id: 6, name: Close stale shipments, enabled: false}
workspace:
  employees:
    - {email: joost@nordwind.nl, firstName: Joost, lastName: de Vries, department: Warehouse,
       startDate: 2019-05-01}
    - {email: sanne@polderfreight.nl, firstName: Sanne, lastName: Bakker, jobTitle: Customs clerk}
credentials:
  helpdesk_user: beheer
"""


def run(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("HELPDESK_", "WORKSPACE_"))}
    return subprocess.run(
        [sys.executable, "-m", "reconciler", *args],
        cwd=cwd,
        env={**clean, **env, "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def tenant(tmp_path: Path, serve: Serve) -> dict[str, str]:
    seed = tmp_path / "nordwind.yaml"
    seed.write_text(SEED, encoding="utf-8")
    return serve(tmp_path / "sandbox.db", "--seed", str(seed), "--rate-limit", "0").env


def plan_json(cwd: Path, env: dict[str, str], path: str) -> dict[str, object]:
    planned = run(cwd, env, "plan", path, "--format", "json")
    assert planned.returncode == 0, planned.stderr
    data: dict[str, object] = json.loads(planned.stdout)
    return data


def test_export_edit_plan_apply_converges(tmp_path: Path, tenant: dict[str, str]) -> None:
    exported = run(tmp_path, tenant, "export", "--out", "manifests", "--rule-ids", "5,6")
    assert exported.returncode == 0, exported.stderr
    assert "Exported" in exported.stderr and "Traceback" not in exported.stderr
    out = tmp_path / "manifests"
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        "assets.yaml",
        "automation_rules.yaml",
        "categories.yaml",
        "companies.yaml",
        "departments.yaml",
        "manifest.schema.json",
        "settings.yaml",  # what a clone needs: section ids, dropdown options (export/result.py)
        "tech_permissions.yaml",
        "users.yaml",
        "workspace.yaml",
    ]
    users_text = (out / "users.yaml").read_text(encoding="utf-8")
    assert tenant["HELPDESK_PASSWORD"] not in users_text
    assert "phone: '+31101234567'" in users_text and "Badge number: '0042'" in users_text
    assert "serial_number: '000981'" in (out / "assets.yaml").read_text(encoding="utf-8")
    assert "Credit limit: '0012500'" in (out / "companies.yaml").read_text(encoding="utf-8")

    unchanged = run(tmp_path, tenant, "plan", "manifests", "--detailed-exitcode")
    assert unchanged.returncode == 0, unchanged.stdout + unchanged.stderr

    # One field changed by hand, as a user edits the exported file.
    yaml = YAML()
    data = yaml.load(out / "users.yaml")
    sanne = next(u for u in data["users"] if u["username"] == "sanne")
    sanne["location"] = "Leiden"
    yaml.dump(data, out / "users.yaml")
    planned = plan_json(tmp_path, tenant, "manifests")
    changes = planned["changes"]
    assert isinstance(changes, list) and len(changes) == 1, changes
    (change,) = changes
    assert change["address"] == 'users["sanne"]' and change["action"] == "update"
    assert change["fields"] == [{"path": "location", "before": "Delft", "after": "Leiden"}]

    applied = run(tmp_path, tenant, "apply", "manifests", "--yes")
    assert applied.returncode == 0, applied.stdout + applied.stderr
    after = run(tmp_path, tenant, "plan", "manifests", "--detailed-exitcode")
    assert after.returncode == 0, after.stdout + after.stderr

    # Exporting again over the manifests is refused, and allowed with --force.
    again = run(tmp_path, tenant, "export", "--out", "manifests")
    assert again.returncode == 1 and "already holds manifests" in again.stderr
    assert "Traceback" not in again.stderr
    forced = run(tmp_path, tenant, "export", "--out", "manifests", "--force", "--rule-ids", "5,6")
    assert forced.returncode == 0, forced.stderr
    assert "location: Leiden" in (out / "users.yaml").read_text(encoding="utf-8")


def test_kinds_target_and_exclude_choose_what_is_written(
    tmp_path: Path, tenant: dict[str, str]
) -> None:
    kinds = run(tmp_path, tenant, "export", "--out", "kinds", "--kinds", "companies,assets")
    assert kinds.returncode == 0, kinds.stderr
    assert sorted(p.name for p in (tmp_path / "kinds").glob("*.yaml")) == [
        "assets.yaml",
        "companies.yaml",
        "settings.yaml",  # the dropdowns a clone needs, or a comment on those hidden
    ]

    chosen = run(
        tmp_path,
        tenant,
        "export",
        "--target",
        "users",
        "--target",
        "automation_rules/6",
        "--exclude",
        "users/beheer",
    )
    assert chosen.returncode == 0, chosen.stderr
    data = YAML(typ="safe").load(chosen.stdout)
    assert set(data) == {"users", "automation_rules"}
    assert [u["username"] for u in data["users"]] == ["joost", "kees", "sanne"]
    assert data["automation_rules"] == [
        {"id": 6, "name": "Close stale shipments", "enabled": False}
    ]
    (tmp_path / "one.yaml").write_text(chosen.stdout, encoding="utf-8")
    unchanged = run(tmp_path, tenant, "plan", "one.yaml", "--detailed-exitcode")
    assert unchanged.returncode == 0, unchanged.stdout + unchanged.stderr

    bad = run(tmp_path, tenant, "export", "--kinds", "automation_rules")
    assert bad.returncode == 1 and "--rule-ids" in bad.stderr and "Traceback" not in bad.stderr
    missing = run(tmp_path, tenant, "export", "--rule-ids", "77")
    assert missing.returncode == 1 and "no automation rule with id 77" in missing.stderr
