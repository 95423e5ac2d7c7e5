"""`apply --env '*'` (fleet/apply.py) as its user reads it, before and after the
rollout: nothing to apply, the safety brake of some environments, the one confirmation
(only the environments that change, their waves), each environment's outcome line as it
finishes (applied, failed, nothing left to apply), and the options of the command as each
environment's apply is given them."""

from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import click
import pytest

from reconciler.applying.executor import ApplyReport
from reconciler.errors import UsageError
from reconciler.fleet import apply as fleet_apply
from reconciler.fleet.rollout import Applied, Result, Wave
from reconciler.run.apply import confirmed
from reconciler.run.flags import ApplyFlags


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _run(name: str, creates: int, *, holds: bool = False) -> Any:
    summary = {"create": creates, "update": 0, "delete": 0, "enable": 0, "disable": 0}
    plan = SimpleNamespace(
        to_apply=[object()] * creates, brake=SimpleNamespace(holds=holds), summary=summary
    )
    url = f"http://127.0.0.1:8765/{name}/helpdesk"
    connection = SimpleNamespace(helpdesk=SimpleNamespace(url=url), workspace=None)
    return SimpleNamespace(name=name, plan=plan, connection=connection)


def test_no_change_anywhere_applies_nothing_and_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    unplanned = SimpleNamespace(name="initech", plan=None)
    fleet_apply.apply_fleet([_run("acme", 0), unplanned], ApplyFlags(yes=True), [], 0)
    assert capsys.readouterr().err == "No changes in any environment: nothing to apply.\n"


def test_the_brake_of_any_environment_holds_the_whole_run() -> None:
    runs = [_run("acme", 1, holds=True), _run("globex", 1), _run("initech", 2, holds=True)]
    with pytest.raises(UsageError) as refused:
        fleet_apply.apply_fleet(runs, ApplyFlags(yes=True), [Wave(None, ("acme",))], 0)
    assert str(refused.value) == (
        "the safety brake holds for acme, initech (see each plan): nothing applied; review "
        "the plans, then add --force to apply them anyway"
    )


def test_without_a_terminal_or_yes_nothing_is_applied(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO())
    with pytest.raises(UsageError) as refused:
        fleet_apply.apply_fleet([_run("acme", 1)], ApplyFlags(), [Wave(None, ("acme",))], 0)
    assert str(refused.value) == (
        "there is no terminal to confirm on: add --yes to apply without asking"
    )


def test_the_confirmation_names_only_what_changes_and_a_no_applies_nothing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", _Terminal())
    monkeypatch.setattr(click, "prompt", lambda *a, **k: " no ")
    # --force: the brake of acme does not hold the run; globex has nothing to apply.
    runs = [_run("acme", 2, holds=True), _run("globex", 0), _run("initech", 1)]
    planned = [Wave(1, ("acme", "globex")), Wave(2, ("globex",)), Wave(3, ("initech",))]
    with pytest.raises(UsageError) as refused:
        fleet_apply.apply_fleet(runs, ApplyFlags(force=True), planned, 0)
    assert str(refused.value) == "nothing applied"
    assert capsys.readouterr().err == (
        "\nDo you want to apply these changes to 2 environment(s)?\n"
        "  wave 1:\n"
        "    acme: 2 to create  http://127.0.0.1:8765/acme/helpdesk\n"
        "  wave 3:\n"
        "    initech: 1 to create  http://127.0.0.1:8765/initech/helpdesk\n"
        "  A failure stops the run before the next wave.\n"
        "  Only 'yes' will be accepted to approve.\n"
    )


def test_without_waves_each_environment_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", _Terminal())
    monkeypatch.setattr(click, "prompt", lambda *a, **k: "yes")
    runs = [_run("acme", 0), _run("globex", 3)]
    runs[0].plan.to_apply = [object()]  # asserted values only: nothing counted
    planned = [Wave(None, ("acme",)), Wave(None, ("globex",))]
    assert confirmed(False, lambda: fleet_apply._question(runs, planned)) is True
    assert capsys.readouterr().err == (
        "\nDo you want to apply these changes to 2 environment(s)?\n"
        "  acme: asserted values only  http://127.0.0.1:8765/acme/helpdesk\n"
        "  globex: 3 to create  http://127.0.0.1:8765/globex/helpdesk\n"
        "  Only 'yes' will be accepted to approve.\n"
    )


def _report(**fields: Any) -> ApplyReport:
    return ApplyReport(**fields)


@pytest.mark.parametrize(
    ("item", "said"),
    [
        (
            Applied("acme", Wave(2, ("acme",)), Result.UNCHANGED),
            "=== Applied environment acme (wave 2): nothing to apply\n"
            "acme: nothing to apply any more.\n",
        ),
        (
            Applied("acme", Wave(None, ("acme",)), Result.FAILED, error="connection refused"),
            "=== Applied environment acme: failed\nError: acme: connection refused\n",
        ),
        (
            Applied("acme", Wave(1, ("acme",)), Result.NOT_ATTEMPTED),
            "=== Applied environment acme (wave 1): not attempted\n",
        ),
    ],
)
def test_each_environment_is_reported_as_it_finishes(
    capsys: pytest.CaptureFixture[str], item: Applied, said: str
) -> None:
    fleet_apply._print_applied(item)
    assert capsys.readouterr().err == said


def test_an_applied_environment_gives_its_report_and_log(
    capsys: pytest.CaptureFixture[str],
) -> None:
    item = Applied(
        "globex",
        Wave(None, ("globex",)),
        Result.APPLIED,
        report=_report(),
        log_path=Path("g.jsonl"),
    )
    fleet_apply._print_applied(item)
    assert capsys.readouterr().err == (
        "=== Applied environment globex: applied\n"
        "Apply complete: 0 change(s), 0 operation(s). Log: g.jsonl\n"
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


def test_each_environment_says_when_it_waits_for_a_429(tmp_path: Path) -> None:
    """`apply --env '*'`: while the helpdesks answer 429, each environment says it waits
    (the one progress line of a single environment is not there to say it)."""
    import httpx

    from reconciler.sandbox.process import SandboxProcess
    from tests.e2e.test_plan_cli import run

    options = ("--rate-limit", "0", "--seed", "acme")
    with (
        SandboxProcess(tmp_path / "a.db", *options) as first,
        SandboxProcess(tmp_path / "b.db", *options) as second,
    ):
        (tmp_path / "c.yaml").write_text("companies: [{name: Waiting Co}]\n", encoding="utf-8")
        (tmp_path / "reconciler.yaml").write_text(
            "environments:\n"
            f"  first: {{paths: [c.yaml], helpdesk_url: '{first.helpdesk_url}',"
            " credentials: {HELPDESK_TOKEN: FIRST_TOKEN}}\n"
            f"  second: {{paths: [c.yaml], helpdesk_url: '{second.helpdesk_url}',"
            " credentials: {HELPDESK_TOKEN: SECOND_TOKEN}}\n",
            encoding="utf-8",
        )
        env = {
            "FIRST_TOKEN": first.env["HELPDESK_TOKEN"],
            "SECOND_TOKEN": second.env["HELPDESK_TOKEN"],
            "NO_PROXY": "127.0.0.1,localhost",
            "RECONCILER_LOCK_DIR": str(tmp_path / "locks"),
        }
        # Every call answered 429 for the next 10 s: the process starts within them.
        for sandbox in (first, second):
            faults = {"throttle_after": 0, "throttle_for": 10}
            httpx.put(f"{sandbox.url}/_sandbox/faults", json=faults).raise_for_status()
        result = run(tmp_path, "apply", "--env", "*", "--yes", env=env)
    assert result.returncode == 0, result.stderr
    for name in ("first", "second"):
        assert f"env {name}: waiting for a 429 to pass (" in result.stderr, result.stderr
