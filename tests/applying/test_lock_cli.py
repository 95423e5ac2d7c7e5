"""One apply at a time per helpdesk (issue 10): two applies started together from two
directories against one sandbox process make no duplicate, and an apply that finds the
lock held is refused at once, naming the holder, having sent nothing."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

from reconciler.applying.lock import LOCK_DIR_VARIABLE, ApplyLock
from tests.e2e.test_apply_cli import (
    CONNECTION,
    EXAMPLE,
    NO_RATE_LIMIT,
    Sandbox,
    Start,
    assert_no_changes,
    cli,
)


def started_apply(cwd: Path, sandbox: Sandbox, locks: Path, *args: str) -> subprocess.Popen[str]:
    """`reconciler apply acme --yes ARGS` in the background, as `cli` runs it."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("HELPDESK_", "WORKSPACE_"))}
    env = {
        **clean,
        **{n: sandbox.process.env[n] for n in CONNECTION},
        LOCK_DIR_VARIABLE: str(locks),
    }
    return subprocess.Popen(
        [sys.executable, "-m", "reconciler", "apply", "acme", "--yes", *args, *NO_RATE_LIMIT],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def two_directories(tmp_path: Path) -> list[Path]:
    found = []
    for name in ("first", "second"):
        shutil.copytree(EXAMPLE, tmp_path / name / "acme")
        found.append(tmp_path / name)
    return found


def test_two_applies_started_together_make_no_duplicate(start: Start, tmp_path: Path) -> None:
    sandbox = start("acme-catalogue")  # every category, user and asset is a create
    locks = tmp_path / "locks"
    first, second = two_directories(tmp_path)
    # The second waits for the first (--lock-timeout), then plans afresh: nothing left.
    runs = [started_apply(d, sandbox, locks, "--lock-timeout", "600") for d in (first, second)]
    outputs = [run.communicate(timeout=600) for run in runs]
    for run, (_, stderr) in zip(runs, outputs, strict=True):
        assert run.returncode == 0, stderr
    assert sum("Apply complete" in err for _, err in outputs) == 1  # the other had nothing to do
    assert_no_changes(first, sandbox)
    assert sandbox.mismatches(first / "acme") == []  # "more than one live object" otherwise


def test_an_apply_finding_the_lock_held_is_refused_naming_the_holder(
    start: Start, tmp_path: Path
) -> None:
    sandbox = start("acme")
    locks = tmp_path / "locks"
    first, second = two_directories(tmp_path)
    urls = [sandbox.process.env["HELPDESK_URL"], sandbox.process.env["WORKSPACE_URL"]]
    in_locks = {LOCK_DIR_VARIABLE: str(locks)}
    with ApplyLock(urls, directory=locks):  # as an apply running in another checkout
        sandbox.forget_requests()
        refused = cli(second, sandbox.process, "apply", "acme", "--yes", **in_locks)
        assert refused.returncode == 1
        assert "another apply is running" in refused.stderr
        assert f"process {os.getpid()} on {socket.gethostname()}, started 20" in refused.stderr
        assert "Traceback" not in refused.stderr
        assert sandbox.requests() == []  # not even a read: the lock comes first
    applied = cli(second, sandbox.process, "apply", "acme", "--yes", **in_locks)
    assert applied.returncode == 0, applied.stderr  # re-run once the holder ended: converges
    assert_no_changes(first, sandbox)
