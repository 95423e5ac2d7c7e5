"""The one confirmation of `apply` over several environments names every environment
that changes, its counts and addresses, and, with waves, which go together and that a
failure stops the run before the next wave (cli/fleet_apply.py); an environment whose plan
only asserts values (no change counted) is named as such, with both its services' URLs,
and one without waves is listed at the first indent."""

from __future__ import annotations

import io
from types import SimpleNamespace
from typing import Any

import click
import pytest

from reconciler.fleet import apply as fleet_apply
from reconciler.fleet.rollout import Wave
from reconciler.plans import Action, Change, Plan
from reconciler.run.apply import confirmed


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _run(name: str, creates: int) -> Any:
    plan = Plan(tuple(Change("users", f"u{i}", Action.create) for i in range(creates)))
    url = f"http://127.0.0.1:8765/{name}/helpdesk"
    connection = SimpleNamespace(helpdesk=SimpleNamespace(url=url), workspace=None)
    return SimpleNamespace(name=name, plan=plan, connection=connection)


# (waves, the answer, what the confirmation says, the verdict)
CASES = [
    (
        [Wave(1, ("acme", "globex")), Wave(2, ("initech",))], "yes",
        ["Do you want to apply these changes to 3 environment(s)?", "  wave 1 (at once):",
         "    acme: 2 to create  http://127.0.0.1:8765/acme/helpdesk", "    globex: 1 to create",
         "  wave 2:", "    initech: 3 to create",
         "  A failure stops the run before the next wave."],
        True,
    ),
    (
        [Wave(None, ("acme",)), Wave(None, ("globex",)), Wave(None, ("initech",))], "no",
        ["  acme: 2 to create  http://127.0.0.1:8765/acme/helpdesk", "  initech: 3 to create"],
        False,
    ),
]  # fmt: skip


@pytest.mark.parametrize(("planned", "answer", "said", "verdict"), CASES)
def test_the_confirmation_names_every_environment_and_its_wave(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    planned: list[Wave],
    answer: str,
    said: list[str],
    verdict: bool,
) -> None:
    monkeypatch.setattr("sys.stdin", _Terminal())
    monkeypatch.setattr(click, "prompt", lambda *a, **k: answer)
    runs = [_run("acme", 2), _run("globex", 1), _run("initech", 3)]
    assert confirmed(False, lambda: fleet_apply._question(runs, planned)) is verdict
    shown = capsys.readouterr().err
    for text in said:
        assert text in shown, (text, shown)
    assert ("wave" in shown) is (planned[0].number is not None)


def _run_of_plan(name: str, plan: Plan, workspace: bool = False) -> Any:
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
    runs = [_run_of_plan("acme", asserted, workspace=True), _run_of_plan("globex", changed)]
    planned = [Wave(None, ("acme",)), Wave(None, ("globex",))]
    assert confirmed(False, lambda: fleet_apply._question(runs, planned)) is True
    assert capsys.readouterr().err == (
        "\n"
        "Do you want to apply these changes to 2 environment(s)?\n"
        "  acme: asserted values only  http://127.0.0.1:8765/acme/helpdesk "
        "http://127.0.0.1:8765/acme/ws\n"
        "  globex: 1 to update, 1 to delete  http://127.0.0.1:8765/globex/helpdesk\n"
        "  Only 'yes' will be accepted to approve.\n"
    )
