"""Planning several environments (fleet/plans.py) against the in-process sandbox:
each environment's plan or its own error (manifest problems located, a credential not
set, a refused sign-in), in the project's order, handed to `on_done` one by one; the
same manifests loaded once for environments that share them; each environment's own
safety brake settings."""

from __future__ import annotations

import asyncio
from pathlib import Path

from reconciler.fleet.plans import (
    EnvironmentRun,
    PlanRequest,
    plan_environments,
    prepare_all,
)
from reconciler.fleet.summary import exit_code
from reconciler.project import load_project, resolve
from tests.applying.inprocess import asgi, seeded

PROJECT = """\
environments:
  acme:
    paths: [good.yaml]
    helpdesk_url: http://127.0.0.1/helpdesk
    credentials: {HELPDESK_USERNAME: ACME_USER, HELPDESK_PASSWORD: ACME_PASSWORD}
    safety: {max_change_percent: 1, min_existing: 1}
  twin:
    paths: [good.yaml]
    helpdesk_url: http://127.0.0.1/helpdesk
    credentials: {HELPDESK_USERNAME: ACME_USER, HELPDESK_PASSWORD: WRONG_PASSWORD}
  broken:
    paths: [bad.yaml]
    helpdesk_url: http://127.0.0.1/helpdesk
  unset:
    paths: [good.yaml]
    helpdesk_url: http://127.0.0.1/helpdesk
    credentials: {HELPDESK_TOKEN: NOT_SET_TOKEN}
"""
GOOD = "companies: [{name: Acme Corp, notes: moved}]\n"
BAD = "departments:\n  - name: IT\n    colour: red\n"


def test_every_environment_planned_or_failed_on_its_own(tmp_path: Path) -> None:
    (tmp_path / "reconciler.yaml").write_text(PROJECT, encoding="utf-8")
    (tmp_path / "good.yaml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "bad.yaml").write_text(BAD, encoding="utf-8")
    state, credentials = seeded("acme")
    project = load_project(tmp_path / "reconciler.yaml")
    targets = [resolve(project, name) for name in ("acme", "twin", "broken", "unset")]
    environ = {
        "ACME_USER": credentials.helpdesk_username,
        "ACME_PASSWORD": credentials.helpdesk_password,
        "WRONG_PASSWORD": "not-the-password",
    }
    prepared = prepare_all(targets, environ, PlanRequest())
    acme, twin, broken, unset = prepared
    # One loading of good.yaml for the environments that share it; acme's own brake.
    assert acme.desired is not None and twin.desired is not None
    assert acme.desired.manifest.companies is twin.desired.manifest.companies
    assert acme.desired.settings.safety.max_change_percent == 1
    assert twin.desired.settings.safety.max_change_percent != 1
    assert (
        acme.desired.settings.safety.min_existing == 1 != twin.desired.settings.safety.min_existing
    )
    assert broken.error is not None and broken.desired is None
    where = f"{tmp_path / 'bad.yaml'}:3:5"
    assert broken.problems == [
        f"{where}: departments[0]: unknown field 'colour' (the fields: name)"
    ]
    assert broken.error == broken.problems[0]
    assert unset.connection is None
    assert unset.error == (
        "environment unset: NOT_SET_TOKEN (its HELPDESK_TOKEN) not set "
        f"({tmp_path / 'reconciler.yaml'}:14:3)"
    )
    seen: list[str] = []

    def done(run: EnvironmentRun) -> None:
        seen.append(run.name)

    runs = asyncio.run(
        plan_environments(
            prepared, PlanRequest(), max_parallel=2, on_done=done, transport=asgi(state)
        )
    )
    assert seen == [run.name for run in runs] == ["acme", "twin", "broken", "unset"]
    first, second, third, fourth = runs
    assert first.error is None and first.plan is not None
    assert [change.address for change in first.plan.changes] == ['companies["Acme Corp"]']
    assert first.plan.brake is not None and first.plan.brake.held == (
        "companies: 1 of 3 live objects would change or go (33%, above the 1% limit)",
    )
    assert first.plan.warnings == ()  # no prune: the other live companies are not named
    assert first.desired is acme.desired and first.connection is acme.connection
    assert first.seconds > 0
    assert second.plan is None and second.error is not None
    assert second.error.startswith("POST /api/Authorization failed: 401")
    assert (third.error, third.problems, third.plan) == (broken.error, broken.problems, None)
    assert (fourth.error, fourth.seconds) == (unset.error, 0.0)
    assert exit_code(runs, detailed=True) == 1
    assert exit_code(runs[:1], detailed=True) == 2
