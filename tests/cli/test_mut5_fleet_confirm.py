"""The confirmation of `apply` over several environments, whole (cli/fleet_apply.py): an
environment whose plan only asserts values (no change counted) is named as such, with
both its services' URLs, and one without waves is listed at the first indent."""

from __future__ import annotations

import io
from types import SimpleNamespace
from typing import Any

import click
import pytest

from reconciler.changes import Action, Change, Plan
from reconciler.cli import fleet_apply
from reconciler.project.waves import Wave


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _run(name: str, plan: Plan, workspace: bool = False) -> Any:
    helpdesk = SimpleNamespace(url=f"http://127.0.0.1:8765/{name}/helpdesk")
    other = SimpleNamespace(url=f"http://127.0.0.1:8765/{name}/ws") if workspace else None
    connection = SimpleNamespace(helpdesk=helpdesk, workspace=other)
    return SimpleNamespace(name=name, plan=plan, connection=connection)


def test_an_environment_that_only_asserts_values_is_named_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", _Terminal())
    monkeypatch.setattr(click, "prompt", lambda *a, **k: "yes")
    asserted = Plan((), asserted=(Change("users", "u", Action.update),))
    changed = Plan((Change("users", "v", Action.delete), Change("users", "w", Action.update)))
    runs = [_run("acme", asserted, workspace=True), _run("globex", changed)]
    planned = [Wave(None, ("acme",)), Wave(None, ("globex",))]
    assert fleet_apply._confirmed(runs, planned, yes=False) is True
    assert capsys.readouterr().err == (
        "\n"
        "Do you want to apply these changes to 2 environment(s)?\n"
        "  acme: asserted values only  http://127.0.0.1:8765/acme/helpdesk "
        "http://127.0.0.1:8765/acme/ws\n"
        "  globex: 1 to update, 1 to delete  http://127.0.0.1:8765/globex/helpdesk\n"
        "  Only 'yes' will be accepted to approve.\n"
    )
