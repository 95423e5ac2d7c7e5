"""Exit codes as a drift job reads them: an interrupt is 130 with one line, no traceback;
`--help` of every command lists the codes."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from reconciler.cli import main


def _sigint_as_in_a_terminal() -> None:
    # A command started in the background of a shell without job control (`cmd &` in a
    # script, as a CI wrapper may start the suite) inherits SIGINT ignored, and Python
    # then keeps it ignored: the child would never see the signal. Ctrl-C in a terminal
    # is what this test stands for, so the child starts with the default disposition.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_an_interrupted_plan_exits_130(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text("companies: [{name: Acme}]\n", encoding="utf-8")
    with socket.socket() as silent:  # accepts, never answers: the plan waits on it
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        silent.settimeout(60)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("HELPDESK_", "WORK"))}
        env.update(
            HELPDESK_URL=f"http://127.0.0.1:{silent.getsockname()[1]}/helpdesk",
            HELPDESK_TOKEN="token-value",
        )
        child = subprocess.Popen(
            [sys.executable, "-m", "reconciler", "plan", "m.yaml"],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=_sigint_as_in_a_terminal,
        )
        try:
            connection, _ = silent.accept()
            with connection:
                child.send_signal(signal.SIGINT)
                _, stderr = child.communicate(timeout=60)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
    assert child.returncode == 130, stderr
    assert "Interrupted." in stderr and "Traceback" not in stderr


def _commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = [prefix]
    context = click.Context(group)
    for name in group.list_commands(context):  # the top level loads its commands lazily
        command = group.get_command(context, name)
        if isinstance(command, click.Group):
            found += _commands(command, (*prefix, name))
        else:
            found.append((*prefix, name))
    return found


@pytest.mark.parametrize("command", _commands(main), ids=lambda c: " ".join(c) or "reconciler")
def test_every_help_lists_the_exit_codes(command: tuple[str, ...]) -> None:
    result = CliRunner().invoke(main, [*command, "--help"])
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    assert "Exit codes: 0 " in text and "usage errors included" in text
    # Each command's own: only plan (and the top level) speaks of --detailed-exitcode.
    assert ("--detailed-exitcode" in text.split("Exit codes:")[1]) == (command in [(), ("plan",)])
    if command[:1] == ("apply",):
        assert "Apply cancelled." in text
    if command[:1] != ("sandbox",):
        assert "130 interrupted" in text
