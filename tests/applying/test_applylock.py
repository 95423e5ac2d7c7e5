"""The apply lock (applylock.py): one apply at a time per service URL, whoever started it
and from whichever directory; the holder named to the one refused; released at the end
and when the holder dies."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from reconciler.applying.lock import (
    LOCK_DIR_VARIABLE,
    ApplyLock,
    ApplyLocked,
    lock_directory,
    lock_key,
)

HELPDESK = "https://acme.example.com/helpdesk"
WORKSPACE = "https://people.example.com"


def held_here(url: str, waited: str = "", pid: int | None = None) -> str:
    """The whole refusal naming a process of this machine (this one unless `pid`) as the
    holder of `url`'s lock, as a pattern: the time it was taken is the clock's, so only its
    shape is matched."""
    return (
        rf"^another apply is running for {re.escape(url)}: process {pid or os.getpid()} on "
        rf"{re.escape(socket.gethostname())}, started \d{{4}}-\d\d-\d\dT\d\d:\d\d:\d\dZ; "
        rf"refused{re.escape(waited)}\. Wait for it to end \(or give --lock-timeout SECONDS "
        r"to wait\), then apply again: it plans afresh$"
    )


def test_a_second_holder_is_refused_naming_the_first(tmp_path: Path) -> None:
    with (
        ApplyLock([HELPDESK, WORKSPACE], directory=tmp_path),
        pytest.raises(ApplyLocked) as refused,
        ApplyLock([HELPDESK], directory=tmp_path),
    ):
        pass
    assert re.match(held_here(HELPDESK), str(refused.value)), str(refused.value)


def test_the_key_is_the_service_not_its_spelling() -> None:
    assert lock_key("HTTPS://ACME.example.com/helpdesk/") == lock_key(HELPDESK)
    assert lock_key(HELPDESK) != lock_key("https://acme.example.com/other")
    assert lock_key(HELPDESK) != lock_key(WORKSPACE)


def test_released_at_the_end_and_other_services_are_free(tmp_path: Path) -> None:
    # another service: no wait
    with ApplyLock([HELPDESK], directory=tmp_path), ApplyLock([WORKSPACE], directory=tmp_path):
        pass
    with ApplyLock([HELPDESK], directory=tmp_path):  # released: taken again at once
        pass
    assert not list(tmp_path.glob("*.holder.json"))  # nobody claims to hold it


def test_a_refused_apply_holds_nothing(tmp_path: Path) -> None:
    # The workspace is free but the helpdesk is not: the partial take is given back.
    with ApplyLock([HELPDESK], directory=tmp_path):
        with (
            pytest.raises(ApplyLocked, match=held_here(HELPDESK)),
            ApplyLock([WORKSPACE, HELPDESK], directory=tmp_path),
        ):
            pass
        with ApplyLock([WORKSPACE], directory=tmp_path):
            pass


def test_a_timeout_waits_that_long_and_says_so(tmp_path: Path) -> None:
    with (
        ApplyLock([HELPDESK], directory=tmp_path),
        pytest.raises(ApplyLocked, match=held_here(HELPDESK, waited=" after waiting 0.3 s")),
        ApplyLock([HELPDESK], timeout=0.3, directory=tmp_path),
    ):
        pass


def test_the_lock_dies_with_its_process(tmp_path: Path) -> None:
    holder = textwrap.dedent(
        f"""
        import os, sys
        from pathlib import Path
        from reconciler.applying.lock import ApplyLock
        lock = ApplyLock([{HELPDESK!r}], directory=Path({str(tmp_path)!r}))
        lock.__enter__()
        print("held", flush=True)
        sys.stdin.readline()
        os._exit(9)  # a crash: no release, no cleanup
        """
    )
    child = subprocess.Popen(
        [sys.executable, "-c", holder],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "held"
        with (
            pytest.raises(ApplyLocked, match=held_here(HELPDESK, pid=child.pid)),
            ApplyLock([HELPDESK], directory=tmp_path),
        ):
            pass
        assert child.stdin is not None
        child.stdin.write("\n")
        child.stdin.flush()
        assert child.wait(timeout=30) == 9
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    with ApplyLock([HELPDESK], directory=tmp_path):  # the OS released it
        pass


def test_the_directory_is_per_user_and_can_be_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(LOCK_DIR_VARIABLE, str(tmp_path / "locks"))
    assert lock_directory() == tmp_path / "locks"
    monkeypatch.delenv(LOCK_DIR_VARIABLE)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert lock_directory() == tmp_path / "cache" / "reconciler" / "locks"
    assert not str(lock_directory()).startswith(str(Path.cwd()))
