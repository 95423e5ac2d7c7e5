"""An e-mail handed from one user to another, end to end against the embedded sandbox
(`--sandbox`, real HTTP on loopback), which keeps users' e-mails unique as the helpdesk
does: alice takes bob's old address while bob gets a new one, applied one change at a
time (`--parallelism 1`) so that the order is the plan's alone; and a swap, refused at
plan time with nothing written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from reconciler.cli import main
from tests.applying.inprocess import admin_client, seeded

USERS = """users:
  - {{username: alice.h, email: {alice}}}
  - {{username: bob.h, email: {bob}}}
"""


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith(("HELPDESK_", "WORKSPACE_")):
            monkeypatch.delenv(name)
    return tmp_path


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), env={"NO_COLOR": "1"})


def write_users(workdir: Path, alice: str, bob: str) -> None:
    (workdir / "u.yaml").write_text(USERS.format(alice=alice, bob=bob), encoding="utf-8")


def test_the_sandbox_refuses_a_second_user_with_one_email() -> None:
    state, credentials = seeded("acme")
    users = {u["username"]: u for u in state.store.rows("users")}
    first, second = list(users.values())[:2]
    with admin_client(state, credentials, "http://127.0.0.1/helpdesk/api/") as helpdesk:
        answer = helpdesk.post(
            "UpdateUser", data={"userId": second["id"], "email": first["email"].upper()}
        )
    assert answer.status_code == 400
    assert "already exists" in answer.text


def test_alice_takes_bobs_old_address_after_bob_leaves_it(workdir: Path) -> None:
    write_users(workdir, "alice.h@acme.com", "bob.h@acme.com")
    made = run("apply", "u.yaml", "--sandbox", "--yes")
    assert made.exit_code == 0, made.output
    write_users(workdir, "bob.h@acme.com", "robert.h@acme.com")
    handed = run("apply", "u.yaml", "--sandbox", "--yes", "--parallelism", "1")
    assert handed.exit_code == 0, handed.output
    assert "Apply complete: 2 change(s)" in handed.stderr
    again = run("plan", "u.yaml", "--sandbox", "--detailed-exitcode")
    assert again.exit_code == 0, again.output


def test_a_swap_is_refused_at_plan_time_and_nothing_is_written(workdir: Path) -> None:
    write_users(workdir, "alice.h@acme.com", "bob.h@acme.com")
    assert run("apply", "u.yaml", "--sandbox", "--yes").exit_code == 0
    write_users(workdir, "bob.h@acme.com", "alice.h@acme.com")
    refused = run("apply", "u.yaml", "--sandbox", "--yes")
    assert refused.exit_code == 1
    assert (
        "user 'alice.h' would take the e-mail 'bob.h@acme.com' from user 'bob.h', and users "
        "'alice.h' and 'bob.h' swap their e-mails" in refused.stderr
    )
    assert "first give user 'alice.h' a temporary e-mail that no one has" in refused.stderr
    write_users(workdir, "alice.h@acme.com", "bob.h@acme.com")
    unchanged = run("plan", "u.yaml", "--sandbox", "--detailed-exitcode")
    assert unchanged.exit_code == 0, unchanged.output
