"""The one confirmation of `apply` over several environments names every environment
that changes, its counts and addresses, and, with waves, which go together and that a
failure stops the run before the next wave (fleet/apply.py)."""

from __future__ import annotations

import io
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
    assert fleet_apply._confirmed(runs, planned, yes=False) is verdict
    shown = capsys.readouterr().err
    for text in said:
        assert text in shown, (text, shown)
    assert ("wave" in shown) is (planned[0].number is not None)
