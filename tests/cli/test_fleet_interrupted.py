"""Ctrl-C during a plan of several environments (fleet/commands.py), in-process with a real
SIGINT sent as an environment's plan is done: the summary of the environments finished,
then those not finished, by name, on stderr; exit 130. Each environment's warnings are
named by it, just before its plan. No service is reached: the environments point at a
loopback port nothing listens on, so each one's plan is its connection error."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import reconciler.fleet.plans as fleet
from reconciler.cli import main

PROJECT = "".join(
    f"  {name}:\n    paths: [m]\n    helpdesk_url: http://127.0.0.1:9/helpdesk\n"
    for name in ("prod", "stage", "down")
)
WARNING = (
    "m/w.yaml:3:5: departments '\uff2fps' and 'Ops' (at m/w.yaml:2:5) are one name only "
    "after Unicode normalisation (NFKC, TR39 confusables) and case folding, but two to the "
    "helpdesk: write them alike"
)
HEADER = (
    "environment  create  update  delete  enable  disable  errors  brake  duration\n"
    "-----------  ------  ------  ------  ------  -------  ------  -----  --------\n"
)


@pytest.fixture
def project(clean_workdir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (clean_workdir / "reconciler.yaml").write_text(f"environments:\n{PROJECT}", encoding="utf-8")
    (clean_workdir / "m").mkdir()
    (clean_workdir / "m" / "w.yaml").write_text(
        'departments:\n  - name: Ops\n  - name: "\\uff2fps"\n', encoding="utf-8"
    )
    monkeypatch.setenv("HELPDESK_TOKEN", "a-token")
    return clean_workdir


def ctrl_c_at(monkeypatch: pytest.MonkeyPatch, count: int, *, before: bool = False) -> None:
    """The user presses Ctrl-C as the `count`-th environment's plan is done (`before`:
    just before it is shown). One environment at a time (--max-parallel 1): the next one
    has not been read when the interrupt is handled."""
    planned = fleet.plan_environments

    def plan_environments(*args: Any, on_done: Callable[[Any], None], **kwargs: Any) -> Any:
        seen: list[Any] = []

        def done(run: Any) -> None:
            seen.append(run)
            if before and len(seen) == count:
                os.kill(os.getpid(), signal.SIGINT)
                return
            on_done(run)
            if len(seen) == count:
                os.kill(os.getpid(), signal.SIGINT)

        return planned(*args, on_done=done, **kwargs)

    monkeypatch.setattr(fleet, "plan_environments", plan_environments)


def durations(text: str) -> str:
    return "\n".join(
        line[: -len(line.split()[-1])] + "N.Ns" if line.endswith("s") and "  " in line else line
        for line in text.split("\n")
    )


def row(name: str) -> str:
    return f"{name:<11}       0       0       0       0        0       1      -      N.Ns\n"


@pytest.mark.parametrize(
    ("count", "before", "finished", "left"),
    [
        (1, False, ["prod"], "stage, down"),
        (3, False, ["prod", "stage", "down"], "(none)"),
        (1, True, [], "prod, stage, down"),
    ],
)
def test_an_interrupted_fleet_plan_sums_up_what_finished_and_names_the_rest(
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    count: int,
    before: bool,
    finished: list[str],
    left: str,
) -> None:
    ctrl_c_at(monkeypatch, count, before=before)
    result = CliRunner().invoke(
        main, ["plan", "--env", "*", "--max-parallel", "1"], env={"NO_COLOR": "1"}
    )
    assert result.exit_code == 130
    warnings = "".join(f"Warning: {name}: {WARNING}\n" for name in finished)
    summary = ""
    if finished:
        errors = ", ".join(finished)
        summary = (
            HEADER
            + "".join(row(name) for name in finished)
            + f"{len(finished)} environment(s), 0 with changes, {len(finished)} with errors "
            f"({errors}).\n"
        )
    assert durations(result.stderr) == (
        f"Planning 3 environment(s)...\n{warnings}{summary}"
        f"Interrupted: not finished: {left}.\n\nInterrupted.\n"
    )
    shown = [line for line in result.stdout.splitlines() if line.startswith("=== ")]
    assert shown == [f"=== Environment {name} {'=' * (56 - len(name) + 4)}" for name in finished]


def test_the_rule_after_an_environments_name_shortens_to_nothing(
    clean_workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    long = "a" * 59 + "-x"  # 61 characters: no rule; 60 - 1: one "="
    names = (long, long[:59])
    (clean_workdir / "reconciler.yaml").write_text(
        "environments:\n"
        + "".join(
            f"  {n}:\n    paths: [m]\n    helpdesk_url: http://127.0.0.1:9/h\n" for n in names
        ),
        encoding="utf-8",
    )
    (clean_workdir / "m").mkdir()
    monkeypatch.setenv("HELPDESK_TOKEN", "a-token")
    result = CliRunner().invoke(main, ["plan", "--env", "*"], env={"NO_COLOR": "1"})
    assert result.exit_code == 1
    shown = [line for line in result.stdout.splitlines() if line.startswith("=== ")]
    assert shown == [f"=== Environment {long} ", f"=== Environment {long[:59]} ="]
