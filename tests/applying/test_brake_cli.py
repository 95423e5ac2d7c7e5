"""The brake for what cannot be undone (issue 10): deleting more workspace employees than
`max_irreversible` (or more than half of them) is held without --force, whatever the
kind's size, and the plan shows the verdict in text, Markdown and JSON before merge."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.e2e.test_apply_cli import Start, assert_no_changes, cli, converge, edit


def keep_first(count: int) -> Any:
    def change(data: Any) -> None:
        del data["workspace"]["employees"][count:]

    return change


def test_deleting_employees_is_held_until_forced_and_the_plan_says_so(
    start: Start, workdir: Path
) -> None:
    sandbox = start("acme")
    converge(workdir, sandbox)
    edit(workdir / "acme" / "workspace.yaml", keep_first(1))  # 5 of 6 would go
    reason = "workspace.employees: 5 of 6 live objects would be deleted, which cannot be undone"

    text = cli(workdir, sandbox.process, "plan", "acme", "--prune")
    assert text.returncode == 0, text.stderr
    assert "Safety brake: apply refuses this plan without --force" in text.stdout
    assert reason in text.stdout
    markdown = cli(workdir, sandbox.process, "plan", "acme", "--prune", "--format", "markdown")
    assert "Safety brake:" in markdown.stdout and reason in markdown.stdout
    as_json = cli(workdir, sandbox.process, "plan", "acme", "--prune", "--format", "json")
    brake = json.loads(as_json.stdout)["brake"]
    assert brake["holds"] is True and any(r.startswith(reason) for r in brake["reasons"])

    sandbox.forget_requests()
    refused = cli(workdir, sandbox.process, "apply", "acme", "--prune", "--yes")
    assert refused.returncode == 1
    assert "safety brake holds" in refused.stderr and reason in refused.stderr
    assert "Traceback" not in refused.stderr
    assert sandbox.writes() == []
    assert len(sandbox.workspace.get("employees").json()) == 6

    forced = cli(workdir, sandbox.process, "apply", "acme", "--prune", "--yes", "--force")
    assert forced.returncode == 0, forced.stderr
    assert len(sandbox.workspace.get("employees").json()) == 1
    assert_no_changes(workdir, sandbox, "--prune")


def test_a_plan_within_the_brakes_that_disables_says_it_passes(start: Start, workdir: Path) -> None:
    sandbox = start("acme")
    planned = cli(workdir, sandbox.process, "plan", "acme", "--format", "json")
    assert json.loads(planned.stdout)["brake"] == {"holds": False, "reasons": []}
    passes = (
        "Safety brake: passes (2 removals or disables, within settings.safety): apply goes ahead."
    )
    text = cli(workdir, sandbox.process, "plan", "acme")
    assert passes in text.stdout
    markdown = cli(workdir, sandbox.process, "plan", "acme", "--format", "markdown")
    assert f"**{passes}**" in markdown.stdout
    # Once nothing is removed, the brake has nothing to say in text.
    converge(workdir, sandbox)
    again = cli(workdir, sandbox.process, "plan", "acme")
    assert "Safety brake" not in again.stdout
