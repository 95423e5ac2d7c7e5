"""The apply lock on a machine that never applied before, and across threads: the lock
directory is made on the first apply, a home whose cache cannot be written falls back to
a directory of the user's own, and a lock taken in one thread is released from another
(an apply's end may run elsewhere than its start); a directory where no lock can be made
is refused as such, never taken for a lock held."""

from __future__ import annotations

import errno
import os
import tempfile
import threading
from pathlib import Path

import platformdirs
import platformdirs.windows
import pytest

from reconciler.applying import lock
from reconciler.applying.lock import (
    LOCK_DIR_VARIABLE,
    ApplyLock,
    ApplyLocked,
    LockUnusable,
    lock_directory,
)
from tests.applying.test_applylock import held_here

HELPDESK = "https://acme.example.com/helpdesk"


def test_the_first_apply_on_a_fresh_machine_makes_the_lock_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh = tmp_path / "never" / "used"
    with ApplyLock([HELPDESK], directory=fresh):
        assert len(list(fresh.glob("apply-*.lock"))) == 1
        assert len(list(fresh.glob("apply-*.holder.json"))) == 1
    monkeypatch.setenv(LOCK_DIR_VARIABLE, str(tmp_path / "configured" / "locks"))
    with ApplyLock([HELPDESK]):
        assert list((tmp_path / "configured" / "locks").glob("apply-*.lock"))


def cache_unwritable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No lock directory configured, a file where the cache directory should be, and the
    temporary directory under `tmp_path / "tmp"`."""
    monkeypatch.delenv(LOCK_DIR_VARIABLE, raising=False)
    blocked = tmp_path / "cache"
    blocked.write_text("a file where the cache directory should be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()


def test_a_cache_that_cannot_be_written_falls_back_to_a_directory_of_the_user(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache_unwritable(tmp_path, monkeypatch)
    found = lock_directory()
    assert found == tmp_path / "tmp" / f"reconciler-locks-{os.getuid()}"
    assert found.is_dir()


@pytest.mark.parametrize(
    ("username", "directory"),
    [("tina", "reconciler-locks-tina"), (None, "reconciler-locks-user")],
)
def test_without_user_ids_the_fallback_directory_is_named_for_the_login_name(
    username: str | None, directory: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A system without numeric user ids (Windows) names the user's own directory with
    the login name, `USERNAME`, or `user` when it is not set."""
    cache_unwritable(tmp_path, monkeypatch)
    monkeypatch.delattr(os, "getuid")
    if username is None:
        monkeypatch.delenv("USERNAME", raising=False)
    else:
        monkeypatch.setenv("USERNAME", username)
    assert lock_directory() == tmp_path / "tmp" / directory


def test_on_windows_the_lock_directory_is_the_apps_own_under_local_app_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`%LOCALAPPDATA%\\reconciler\\Cache\\locks`: no folder of an author above the
    app's (platformdirs' Windows layout, its folder lookup pointed at a directory here)."""
    monkeypatch.delenv(LOCK_DIR_VARIABLE, raising=False)
    local = tmp_path / "AppData" / "Local"
    monkeypatch.setattr(platformdirs, "PlatformDirs", platformdirs.windows.Windows)
    monkeypatch.setattr(platformdirs.windows, "get_win_folder", lambda csidl: str(local))
    assert lock_directory() == local / "reconciler" / "Cache" / "locks"


def test_a_lock_taken_in_one_thread_is_released_from_another(tmp_path: Path) -> None:
    lock = ApplyLock([HELPDESK], directory=tmp_path)
    taken = threading.Thread(target=lock.__enter__)
    taken.start()
    taken.join()
    with (
        pytest.raises(ApplyLocked, match=held_here(HELPDESK)),
        ApplyLock([HELPDESK], directory=tmp_path),
    ):
        pass  # held, though by another thread of this process
    lock.__exit__(None, None, None)
    with ApplyLock([HELPDESK], directory=tmp_path):  # released: taken again at once
        pass


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="no /proc here")
def test_a_directory_no_file_can_be_made_in_is_refused_as_such() -> None:
    """/proc/self exists, but no file can be made in it (not even by root): a lock that
    could never be created is not taken for one another apply holds."""
    with (
        pytest.raises(LockUnusable) as refused,
        ApplyLock([HELPDESK], directory=Path("/proc/self")),
    ):
        pass
    assert str(refused.value) == (
        f"the apply lock cannot be taken in /proc/self: {os.strerror(errno.ENOENT)}; set "
        "RECONCILER_LOCK_DIR to a directory that can be written"
    )


def test_a_lock_error_without_the_systems_words_is_named_by_its_kind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The holder's record on a network share that times out: the error says no more."""

    def timing_out(path: Path, url: str) -> None:
        raise TimeoutError()

    monkeypatch.setattr(lock, "_write_holder", timing_out)
    with pytest.raises(LockUnusable) as refused, ApplyLock([HELPDESK], directory=tmp_path):
        pass
    assert str(refused.value) == (
        f"the apply lock cannot be taken in {tmp_path}: TimeoutError; set "
        "RECONCILER_LOCK_DIR to a directory that can be written"
    )
