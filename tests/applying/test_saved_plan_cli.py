"""A saved plan is a reviewed intent, not a script (issue 10, DESIGN §4): `apply --plan`
plans again and executes only when the fresh plan is exactly the saved one. Tampered
files and a plan whose manifests changed are refused with zero writes, counted from the
sandbox's own request log; an untouched plan saved with --prune applies and converges."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_apply_cli import Sandbox, Start, assert_no_changes, cli, edit, entry

pytestmark = pytest.mark.e2e

Tamper = Callable[[dict[str, Any]], None]


def first_operation(plan: dict[str, Any], path: str) -> dict[str, Any]:
    found: dict[str, Any] = next(
        op for change in plan["changes"] for op in change["operations"] if op["path"] == path
    )
    return found


def change_a_value(plan: dict[str, Any]) -> None:
    first_operation(plan, "/api/UpdateCompany")["params"]["notes"] = "Edited after review"


def add_an_operation(plan: dict[str, Any]) -> None:
    change = next(c for c in plan["changes"] if c["kind"] == "users")
    change["operations"].append(
        {"service": "helpdesk", "method": "POST", "path": "/api/DeleteUser", "params": {"id": 2}}
    )


def send_elsewhere(plan: dict[str, Any]) -> None:
    first_operation(plan, "/api/UpdateCompany")["path"] = "/api/../../_sandbox/faults"


TAMPERED: dict[str, Tamper] = {
    "a value": change_a_value,
    "an operation added": add_an_operation,
    "a path outside the API": send_elsewhere,
}


def saved(workdir: Path, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((workdir / name).read_text(encoding="utf-8"))
    return data


def write(workdir: Path, name: str, data: dict[str, Any]) -> None:
    (workdir / name).write_text(json.dumps(data, indent=2), encoding="utf-8")


def assert_refused(
    workdir: Path, sandbox: Sandbox, plan_file: str, *expected: str, read: bool = True
) -> None:
    sandbox.forget_requests()
    refused = cli(workdir, sandbox.process, "apply", "acme", "--plan", plan_file, "--yes")
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "Traceback" not in refused.stderr
    assert "Nothing was applied" in refused.stderr
    for text in expected:
        assert text in refused.stderr, refused.stderr
    assert sandbox.writes() == []
    # A tampered file is found out by planning again; changed manifests before any read.
    assert bool(sandbox.requests()) is read


def test_tampered_and_outdated_plans_are_refused_and_an_untouched_one_converges(
    start: Start, workdir: Path
) -> None:
    sandbox = start("acme")
    made = cli(workdir, sandbox.process, "plan", "acme", "--prune", "--out", "plan.json")
    assert made.returncode == 0, made.stderr
    original = saved(workdir, "plan.json")
    assert original["made_from"]["prune"] is True
    assert original["made_from"]["manifests_digest"].startswith("sha256:")

    for name, tamper in TAMPERED.items():
        data = json.loads(json.dumps(original))
        tamper(data)
        write(workdir, f"{name}.json", data)
        assert_refused(workdir, sandbox, f"{name}.json", "differs from a plan made now")

    # The file is untouched, but the manifests changed after it was made.
    companies = workdir / "acme" / "companies.yaml"
    before = companies.read_text(encoding="utf-8")
    edit(companies, lambda d: entry(d["companies"], "name", "Acme Corp").update(notes="New"))
    assert_refused(workdir, sandbox, "plan.json", "manifests (after variables) differ", read=False)
    companies.write_text(before, encoding="utf-8")

    # Untouched: applied with the file's own --prune, and the result is converged.
    applied = cli(workdir, sandbox.process, "apply", "acme", "--plan", "plan.json", "--yes")
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert f"Apply complete: {len(original['changes'])} change(s)" in applied.stderr
    assert_no_changes(workdir, sandbox, "--prune")
    assert sandbox.mismatches(workdir / "acme") == []


def test_a_plan_changed_by_an_out_of_band_edit_is_refused_showing_the_difference(
    start: Start, workdir: Path
) -> None:
    sandbox = start("acme")
    made = cli(workdir, sandbox.process, "plan", "acme", "--out", "plan.json")
    assert made.returncode == 0, made.stderr
    robotics = sandbox.company("Acme Robotics")
    sandbox.post(
        "UpdateCompany",
        id=robotics["CompanyID"],
        name=robotics["Name"],
        notes="Changed by hand after the review",
        emailDomains=robotics["EmailDomain"],
    )
    assert_refused(
        workdir,
        sandbox,
        "plan.json",
        'companies["Acme Robotics"]: fields[',
        "differs from a plan made now",
    )
