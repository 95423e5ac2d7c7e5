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
import threading
import time
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


def held_by_another(url: str, directory: Path) -> bool:
    """Whether, within 5 s, `url`'s lock is seen held (by another thread here)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            with ApplyLock([url], directory=directory):
                pass
        except ApplyLocked:
            return True
        time.sleep(0.02)
    return False


def test_every_apply_takes_its_locks_in_one_order_whatever_their_spelling(
    tmp_path: Path,
) -> None:
    """Two applies naming the same services never wait on each other in a circle: the
    locks are taken in one order (the helpdesk's here, then the workspace's), however the
    addresses are spelled and sort. An apply waiting for the workspace already holds the
    helpdesk."""
    assert sorted([HELPDESK, WORKSPACE], key=lock_key) == [HELPDESK, WORKSPACE]
    respelled = "HTTPS://people.example.com"  # sorts before HELPDESK as text
    taken: list[str] = []

    def other_apply() -> None:
        with ApplyLock([HELPDESK, respelled], timeout=10, directory=tmp_path):
            taken.append("both")

    with ApplyLock([WORKSPACE], directory=tmp_path):
        other = threading.Thread(target=other_apply)
        other.start()
        held = held_by_another(HELPDESK, tmp_path)
    other.join(timeout=10)
    assert (held, taken) == (True, ["both"])


def test_an_apply_waiting_for_the_lock_takes_it_soon_after_its_release(tmp_path: Path) -> None:
    taken_at: list[float] = []

    def waiting() -> None:
        with ApplyLock([HELPDESK], timeout=10, directory=tmp_path):
            taken_at.append(time.monotonic())

    with ApplyLock([HELPDESK], directory=tmp_path):
        other = threading.Thread(target=waiting)
        other.start()
        time.sleep(0.2)  # it is waiting, trying again every 0.2 s
    released_at = time.monotonic()
    other.join(timeout=10)
    assert len(taken_at) == 1 and taken_at[0] - released_at < 0.6


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
