"""`reconciler apply` as a user runs it: the CLI in a child process, in a fresh directory,
against `reconciler sandbox serve` running as a real process on a free loopback port.

Both run without rate limits (`--rate-limit 0`) to keep this quick; the faults and the
rate budget are exercised elsewhere. What the sandbox received is read from its request
log (`/_sandbox/requests`), and its state back through its APIs (tests/applying/readback.py).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from ruamel.yaml import YAML

from reconciler.manifest.loader import load_manifests
from reconciler.sandbox.process import SandboxProcess
from tests.applying.readback import Readback
from tests.e2e.conftest import Serve

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "acme"
SEEDS = ROOT / "reconciler" / "sandbox" / "seeds"
CONNECTION = (
    "HELPDESK_URL",
    "HELPDESK_USERNAME",
    "HELPDESK_PASSWORD",
    "WORKSPACE_URL",
    "WORKSPACE_API_KEY",
)
NO_RATE_LIMIT = ("--rate-limit", "0", "--search-rate-limit", "0")
RULE_SWITCH = re.compile(r"/(Enable|Disable)Rule/")


def cli(
    cwd: Path, sandbox: SandboxProcess, *args: str, **overrides: str
) -> subprocess.CompletedProcess[str]:
    """`reconciler ARGS` with only the sandbox's connection settings in the environment
    (`overrides` replace some), no terminal on stdin, and no client-side rate limit."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("HELPDESK_", "WORKSPACE_"))}
    connection = {name: sandbox.env[name] for name in CONNECTION}
    return subprocess.run(
        [sys.executable, "-m", "reconciler", *args, *NO_RATE_LIMIT],
        cwd=cwd,
        env={**clean, **connection, **overrides},
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


class Sandbox:
    """The sandbox process and plain httpx clients of its APIs and test-only routes."""

    def __init__(self, process: SandboxProcess) -> None:
        self.process = process
        self.helpdesk = httpx.Client(
            base_url=process.helpdesk_url + "/api/", auth=process.auth, trust_env=False
        )
        self.workspace = httpx.Client(
            base_url=process.workspace_url + "/api/",
            headers={"X-API-Key": process.env["WORKSPACE_API_KEY"]},
            trust_env=False,
        )
        self.routes = httpx.Client(base_url=process.url, trust_env=False)

    def close(self) -> None:
        for client in (self.helpdesk, self.workspace, self.routes):
            client.close()

    def forget_requests(self) -> None:
        self.routes.delete("/_sandbox/requests").raise_for_status()

    def requests(self) -> list[dict[str, Any]]:
        answer = self.routes.get("/_sandbox/requests")
        answer.raise_for_status()
        result: list[dict[str, Any]] = answer.json()
        return result

    def writes(self) -> list[str]:
        """The requests received that could have changed something."""
        return [
            f"{r['method']} {r['path']}"
            for r in self.requests()
            if (r["method"] != "GET" and not r["path"].endswith("/Authorization"))
            or RULE_SWITCH.search(r["path"])
        ]

    def get(self, path: str, **params: Any) -> Any:
        answer = self.helpdesk.get(path, params=params)
        answer.raise_for_status()
        return answer.json()

    def post(self, path: str, **data: Any) -> None:
        answer = self.helpdesk.post(path, data=data)
        assert answer.status_code == 200, answer.text

    def company(self, name: str) -> dict[str, Any]:
        found: dict[str, Any] = next(c for c in self.get("Companies") if c["Name"] == name)
        return found

    def mismatches(self, manifests: Path) -> list[str]:
        desired = load_manifests([manifests], env={})
        return Readback(self.helpdesk, self.workspace, desired).mismatches()


Start = Callable[[str], Sandbox]


@pytest.fixture
def start(serve: Serve, tmp_path: Path) -> Iterator[Start]:
    opened: list[Sandbox] = []

    def begin(seed: str) -> Sandbox:
        seed_file = str(SEEDS / f"{seed}.yaml")
        process = serve(tmp_path / f"{seed}.db", "--seed", seed_file, *NO_RATE_LIMIT)
        opened.append(Sandbox(process))
        return opened[-1]

    yield begin
    for sandbox in opened:
        sandbox.close()


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLE, tmp_path / "acme")
    return tmp_path


def edit(path: Path, change: Callable[[Any], None]) -> None:
    """Change a manifest file as a person would: load, edit, save (comments kept)."""
    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.width = 4096  # ruamel would wrap a long flow mapping inside a plain key
    data = yaml.load(path.read_text(encoding="utf-8"))
    change(data)
    with path.open("w", encoding="utf-8") as out:
        yaml.dump(data, out)


def entry(items: list[Any], field: str, key: str) -> Any:
    return next(item for item in items if str(item[field]) == key)


def converge(workdir: Path, sandbox: Sandbox) -> None:
    applied = cli(workdir, sandbox.process, "apply", "acme", "--yes")
    assert applied.returncode == 0, applied.stderr
    assert "Apply complete" in applied.stderr


def assert_no_changes(workdir: Path, sandbox: Sandbox, *options: str) -> None:
    check = cli(workdir, sandbox.process, "plan", "acme", "--detailed-exitcode", *options)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "No changes" in check.stdout


# -- bootstrapping ------------------------------------------------------------------------


def test_bootstrap_from_the_catalogue_matches_every_manifest_field(
    start: Start, workdir: Path
) -> None:
    sandbox = start("acme-catalogue")
    planned = cli(workdir, sandbox.process, "plan", "acme", "--format", "json")
    assert planned.returncode == 0, planned.stderr
    plan = json.loads(planned.stdout)
    operations = sum(len(c["operations"]) for c in plan["changes"])
    assert plan["summary"]["create"] >= 50 and not plan["errors"]

    sandbox.forget_requests()
    applied = cli(workdir, sandbox.process, "apply", "acme", "--yes")
    assert applied.returncode == 0, applied.stderr
    assert f"Apply complete: {len(plan['changes'])} change(s), {operations} operation(s)" in (
        applied.stderr
    )
    # One request per planned operation (and one Authorization), nothing made twice.
    assert len(sandbox.writes()) == operations
    created = [r["params"] for r in sandbox.requests() if r["path"].endswith("/CreateUser")]
    assert len(created) == sum(1 for c in plan["changes"] if c["kind"] == "users")
    assert {p["sendwelcomeemail"] for p in created} == {"false"}  # no welcome e-mails
    assert_no_changes(workdir, sandbox)
    assert sandbox.mismatches(workdir / "acme") == []

    # The record: one JSON object per line, an entry per operation, no secret.
    logs = list((workdir / ".reconciler").glob("apply-*.jsonl"))
    assert len(logs) == 1 and str(logs[0].relative_to(workdir)) in applied.stderr
    text = logs[0].read_text(encoding="utf-8")
    entries = [json.loads(line) for line in text.splitlines()]
    assert all(isinstance(e, dict) and e.get("time") for e in entries)
    assert entries[0]["event"] == "start" and entries[0]["summary"] == plan["summary"]
    assert entries[-1]["event"] == "end" and entries[-1]["operations"] == operations
    done = [e for e in entries if "outcome" in e]
    assert len(done) == operations and {e["outcome"] for e in done} == {"ok"}
    planned_ops = sorted(
        (c["address"], i, o["path"]) for c in plan["changes"] for i, o in enumerate(c["operations"])
    )
    assert sorted((e["address"], e["operation"], e["path"]) for e in done) == planned_ops
    for name in ("HELPDESK_PASSWORD", "HELPDESK_TOKEN", "WORKSPACE_API_KEY"):
        secret = sandbox.process.env[name]
        assert secret not in text and secret not in applied.stdout + applied.stderr
    assert "Waalhaven Zuidzijde" not in text  # nor a parameter value (a billing address)


# -- the change cycle ---------------------------------------------------------------------


def test_edited_manifests_apply_and_an_out_of_band_change_shows_in_the_plan(
    start: Start, workdir: Path
) -> None:
    sandbox = start("acme")
    converge(workdir, sandbox)
    manifests = workdir / "acme"
    edit(
        manifests / "companies.yaml",
        lambda d: entry(d["companies"], "name", "Acme Corp").update(
            notes="Group headquarters, moved to Canary Wharf in 2027."
        ),
    )
    edit(
        manifests / "people.yaml",
        lambda d: entry(d["users"], "username", "bob").update(last_name="Jones-Reid"),
    )
    edit(
        manifests / "assets.yaml",
        lambda d: entry(d["assets"], "serial_number", "CN0J2N3K04").update(
            location="Manchester office"
        ),
    )
    edit(
        manifests / "rules.yaml",
        lambda d: entry(d["automation_rules"], "id", "103").update(enabled=False),
    )

    applied = cli(workdir, sandbox.process, "apply", "acme", "--yes")
    assert applied.returncode == 0, applied.stderr
    assert "Apply complete: 4 change(s)" in applied.stderr
    assert_no_changes(workdir, sandbox)
    assert sandbox.mismatches(manifests) == []  # the edits are live, field by field

    acme = sandbox.company("Acme Corp")
    sandbox.post(
        "UpdateCompany",
        id=acme["CompanyID"],
        name=acme["Name"],
        notes="Edited in the admin panel",
        emailDomains=acme["EmailDomain"],
    )
    drift = cli(workdir, sandbox.process, "plan", "acme", "--detailed-exitcode")
    assert drift.returncode == 2, drift.stderr
    assert '~ companies["Acme Corp"]' in drift.stdout
    assert re.search(r'notes: +"Edited in the admin panel" -> "Group headquarters', drift.stdout)
    assert "1 to update" in drift.stdout


# -- failures -----------------------------------------------------------------------------


def test_a_failure_stops_the_apply_and_a_rerun_converges(start: Start, workdir: Path) -> None:
    sandbox = start("acme")
    workspace = workdir / "acme" / "workspace.yaml"
    # A field the workspace refuses (422), which the plan cannot know of: employees' fields
    # are an open set. (A clash of unique values, such as a user given the e-mail of the
    # sandbox's administrator, is a plan error now: nothing would be applied.) Yan, whose
    # manager zoe is, waits for her create and is not attempted.
    zoe = {"email": "zoe@globex.com", "firstName": "Zoe", "lastName": "Lee", "shoeSize": 42}
    yan = {
        "email": "yan@globex.com",
        "firstName": "Yan",
        "lastName": "Lee",
        "managerEmail": "zoe@globex.com",
    }
    edit(workspace, lambda d: d["workspace"]["employees"].extend([zoe, yan]))
    failed = cli(workdir, sandbox.process, "apply", "acme", "--yes")
    assert failed.returncode == 1
    report = failed.stderr
    assert "Apply stopped at the first failure." in report and "Traceback" not in report
    assert re.search(
        r'failed: workspace.employees\["zoe@globex.com"\]: POST /api/employees failed: 422 '
        r".*shoeSize",
        report,
    ), report
    assert re.search(r"  done \(\d+\): ", report)
    assert re.search(r"  not attempted \(\d+\): ", report)
    assert "Run `reconciler apply` again" in report
    logs = list((workdir / ".reconciler").glob("apply-*.jsonl"))
    entries = [json.loads(line) for line in logs[0].read_text(encoding="utf-8").splitlines()]
    failures = [e["address"] for e in entries if e.get("outcome") == "failed"]
    assert failures == ['workspace.employees["zoe@globex.com"]']

    edit(
        workspace,
        lambda d: entry(d["workspace"]["employees"], "email", "zoe@globex.com").pop("shoeSize"),
    )
    rerun = cli(workdir, sandbox.process, "apply", "acme", "--yes")
    assert rerun.returncode == 0, rerun.stderr
    assert_no_changes(workdir, sandbox)
    assert sandbox.mismatches(workdir / "acme") == []  # and nothing exists twice


# -- the prune cycle ----------------------------------------------------------------------


def test_prune_disables_users_and_assets_and_deletes_employees(start: Start, workdir: Path) -> None:
    sandbox = start("acme")
    converge(workdir, sandbox)
    manifests = workdir / "acme"
    edit(
        manifests / "people.yaml",
        lambda d: d["users"].remove(entry(d["users"], "username", "hana")),
    )
    edit(
        manifests / "assets.yaml",
        lambda d: d["assets"].remove(entry(d["assets"], "serial_number", "C02FK3ZQMD6T")),
    )
    edit(
        manifests / "workspace.yaml",
        lambda d: d["workspace"]["employees"].remove(
            entry(d["workspace"]["employees"], "email", "alice.smith@acme.com")
        ),
    )

    # Not configured to prune: what the manifests no longer list is left alone.
    assert_no_changes(workdir, sandbox)
    planned = cli(workdir, sandbox.process, "plan", "acme", "--prune", "--format", "json")
    assert planned.returncode == 0, planned.stderr
    removals = {(c["address"], c["action"]) for c in json.loads(planned.stdout)["changes"]}
    assert removals == {
        ('users["hana"]', "disable"),
        ('assets["C02FK3ZQMD6T"]', "disable"),
        ('workspace.employees["alice.smith@acme.com"]', "delete"),
    }

    pruned = cli(workdir, sandbox.process, "apply", "acme", "--prune", "--yes")
    assert pruned.returncode == 0, pruned.stderr
    hana = entry(sandbox.get("Users", listMode="all"), "Username", "hana")
    assert sandbox.get("User", userId=hana["UserID"])["Disabled"] is True  # not deleted
    every = sandbox.get("Assets", includeDisabled="true")
    assert any(a["SerialNumber"] == "C02FK3ZQMD6T" for a in every)  # kept, disabled
    assert all(a["SerialNumber"] != "C02FK3ZQMD6T" for a in sandbox.get("Assets"))
    employees = sandbox.workspace.get("employees").json()
    assert "alice.smith@acme.com" not in {e["email"] for e in employees}
    assert len(employees) == 5
    assert_no_changes(workdir, sandbox, "--prune")


# -- the safety brake ---------------------------------------------------------------------


def test_the_safety_brake_refuses_until_forced(start: Start, workdir: Path) -> None:
    sandbox = start("acme")
    converge(workdir, sandbox)
    manifests = workdir / "acme"
    edit(
        manifests / "settings.yaml",
        lambda d: d["settings"].update(safety={"max_change_percent": 10, "min_existing": 5}),
    )

    def move(data: Any) -> None:
        for asset in data["assets"][:5]:
            asset["location"] = "Central store, Birmingham"

    edit(manifests / "assets.yaml", move)
    sandbox.forget_requests()
    refused = cli(workdir, sandbox.process, "apply", "acme", "--yes")
    assert refused.returncode == 1
    assert "safety brake" in refused.stderr and "--force" in refused.stderr
    assert re.search(r"assets: 5 of 2\d live objects", refused.stderr), refused.stderr
    assert "Traceback" not in refused.stderr
    assert sandbox.writes() == []

    forced = cli(workdir, sandbox.process, "apply", "acme", "--yes", "--force")
    assert forced.returncode == 0, forced.stderr
    assert "Apply complete: 5 change(s)" in forced.stderr
    assert_no_changes(workdir, sandbox)


# -- saved plans --------------------------------------------------------------------------


def test_a_saved_plan_applies_and_a_stale_one_is_refused(start: Start, workdir: Path) -> None:
    sandbox = start("acme")
    saved = cli(workdir, sandbox.process, "plan", "acme", "--out", "plan.json")
    assert saved.returncode == 0, saved.stderr
    applied = cli(workdir, sandbox.process, "apply", "acme", "--plan", "plan.json", "--yes")
    assert applied.returncode == 0, applied.stderr
    assert "Apply complete: 20 change(s)" in applied.stderr
    assert_no_changes(workdir, sandbox)

    edit(
        workdir / "acme" / "companies.yaml",
        lambda d: entry(d["companies"], "name", "Acme Robotics").update(notes="Robotics, Munich."),
    )
    again = cli(workdir, sandbox.process, "plan", "acme", "--out", "plan2.json")
    assert again.returncode == 0, again.stderr
    globex = sandbox.company("Globex Logistics")
    sandbox.post("UpdateCompany", id=globex["CompanyID"], name=globex["Name"], notes="By hand")
    sandbox.forget_requests()
    stale = cli(workdir, sandbox.process, "apply", "acme", "--plan", "plan2.json", "--yes")
    assert stale.returncode == 1
    assert "run `reconciler plan` again" in stale.stderr and "Traceback" not in stale.stderr
    assert sandbox.writes() == []
    assert sandbox.company("Acme Robotics")["Notes"] != "Robotics, Munich."


# -- refusals -----------------------------------------------------------------------------


def test_without_a_terminal_and_without_yes_nothing_is_applied(start: Start, workdir: Path) -> None:
    sandbox = start("acme")
    sandbox.forget_requests()
    refused = cli(workdir, sandbox.process, "apply", "acme")
    assert refused.returncode == 1
    assert "no terminal" in refused.stderr and "--yes" in refused.stderr
    assert "Plan: 8 to create, 10 to update" in refused.stdout  # shown, not applied
    assert sandbox.writes() == []
    assert not (workdir / ".reconciler").exists()  # no apply log either


def test_wrong_credentials_make_exactly_one_request(start: Start, workdir: Path) -> None:
    sandbox = start("acme")
    sandbox.forget_requests()
    wrong = "not-the-Password-7781"
    result = cli(workdir, sandbox.process, "apply", "acme", "--yes", HELPDESK_PASSWORD=wrong)
    assert result.returncode == 1
    assert "401" in result.stderr and "Traceback" not in result.stderr
    assert wrong not in result.stdout + result.stderr
    assert [(r["path"], r["status"]) for r in sandbox.requests()] == [
        ("/helpdesk/api/Authorization", 401)
    ]
