"""The confirmation of `apply` over several environments, whole (fleet/apply.py): an
environment whose plan only asserts values (no change counted) is named as such, with
both its services' URLs, and one without waves is listed at the first indent."""

from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import click
import pytest

from reconciler.changes import Action, Change, Plan
from reconciler.fleet import apply as fleet_apply
from reconciler.fleet.waves import Wave


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


def test_the_options_of_apply_over_several_environments_reach_each_environments_apply(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`apply --env '*' --parallelism 3 --lock-timeout 5 ...`: what every environment's
    apply is given, from the options as click parses them."""
    from click.testing import CliRunner

    from reconciler.cli import main
    from reconciler.fleet import dispatch
    from reconciler.fleet.apply import _request

    asked: list[Any] = []
    monkeypatch.setattr(dispatch, "run_command", lambda flags, chosen: asked.append(flags))

    def request(*args: str) -> Any:
        CliRunner().invoke(main, ["apply", *args], catch_exceptions=False)
        return _request(asked.pop())

    log = tmp_path / "apply.log"
    args = ["--env", "*", "--parallelism", "3", "--lock-timeout", "5", "--prune", "--force"]
    args += ["--target", "users", "--exclude", "users/bob", "--log", str(log)]
    given = request(*args)
    assert (given.parallelism, given.lock_timeout, given.log_path) == (3, 5, log)
    assert (given.options.prune, given.options.force) == (True, True)
    assert [t.text for t in given.options.targets] == ["users"]
    assert [e.text for e in given.options.excludes] == ["users/bob"]
    defaults = request("--env", "*")
    assert (defaults.parallelism, defaults.lock_timeout) == (10, 0)
