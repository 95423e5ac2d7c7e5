"""Ctrl-C during one `apply` (cli/apply.py), in-process against the embedded sandbox
(`--sandbox`) with real SIGINTs sent as the first operation's outcome is logged: once,
nothing new starts, the report says what was not attempted and the command exits 130;
twice, it stops at once, says the outcome of the operations in flight is unknown, and
exits 130 too."""

from __future__ import annotations

import os
import signal
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from reconciler.applying.log import ApplyLog
from reconciler.cli import main

FIRST = (
    "\nInterrupted: starting nothing new; waiting for the operations already sent to "
    "finish. Press Ctrl-C again to stop at once (their outcome is then unknown).\n"
)
MANIFEST = "companies:\n" + "".join(f"  - name: New Company {i}\n" for i in range(6))


@pytest.mark.parametrize("presses", [1, 2])
def test_ctrl_c_during_one_apply_exits_130(
    clean_workdir: Path, monkeypatch: pytest.MonkeyPatch, presses: int
) -> None:
    (clean_workdir / "c.yaml").write_text(MANIFEST, encoding="utf-8")
    recording = ApplyLog.record
    sent: list[int] = []

    def record(self: ApplyLog, entry: Mapping[str, Any]) -> None:
        recording(self, entry)
        if "event" not in entry and not sent:  # the first operation's outcome
            for _press in range(presses):
                os.kill(os.getpid(), signal.SIGINT)
                sent.append(1)

    monkeypatch.setattr(ApplyLog, "record", record)
    args = ["apply", "c.yaml", "--sandbox", "--yes", "--parallelism", "1", "--log", "a.jsonl"]
    result = CliRunner().invoke(main, args, env={"NO_COLOR": "1"})
    assert result.exit_code == 130
    assert result.stdout.endswith("Plan: 6 to create, 0 to update, 0 to delete, 0 to enable, "
                                  "0 to disable.\n")  # fmt: skip
    err = result.stderr
    assert err.startswith("Applying: 6 API calls; no rate limit applies.\n" + FIRST)
    if presses == 2:
        assert err.endswith(
            "Apply stopped at once (second interrupt): the operations in flight were "
            "abandoned, and their outcome is unknown. Log: a.jsonl. Run `reconciler apply` "
            "again: it plans afresh from the live state, so nothing is done twice.\n"
        )
        return
    assert "\nApply interrupted: nothing new was started after the interrupt, and the " in err
    assert "\n  not attempted (" in err and 'companies["New Company 5"]\n' in err
    assert err.endswith(
        "Log: a.jsonl. Run `reconciler apply` again to continue: it plans afresh from the "
        "live state.\nNot recorded as applied: the apply was interrupted.\n"
    )
