"""The lock directory reconciler makes for itself (applying/lock.py) is the user's own:
only its owner may read, write or enter it (0700), both in the platform's cache and in
the fallback under the temporary directory, so another user cannot take or fake a lock."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import pytest

from reconciler.applying.lock import LOCK_DIR_VARIABLE, lock_directory


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_the_lock_directories_made_are_private(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(LOCK_DIR_VARIABLE, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    old = os.umask(0o022)
    try:
        cache = lock_directory()
        blocked = tmp_path / "blocked"  # a file where the cache should be: the fallback
        blocked.write_text("not a directory", encoding="utf-8")
        monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
        monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
        (tmp_path / "tmp").mkdir()
        fallback = lock_directory()
    finally:
        os.umask(old)
    assert cache == tmp_path / "cache" / "reconciler" / "locks"
    assert fallback == tmp_path / "tmp" / f"reconciler-locks-{os.getuid()}"
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    assert stat.S_IMODE(fallback.stat().st_mode) == 0o700
