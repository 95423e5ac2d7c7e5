"""What the commands share (run/outputs.py, fleet/dispatch.py), in-process: the refusal of an
output path that cannot be written (one line naming the option, the path and why), the
pull-request comment parts (exactly this plan's, stale parts removed), and --sandbox
with --env."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reconciler.errors import UsageError
from reconciler.fleet.dispatch import refuse_sandbox
from reconciler.run.flags import ConnectionFlags, PlanFlags, ValidateFlags
from reconciler.run.outputs import check_writable, write_comment_parts
from reconciler.sandbox.start import embedded


@pytest.fixture
def place(tmp_path: Path) -> Path:
    (tmp_path / "afile").write_text("x", encoding="utf-8")
    (tmp_path / "adir").mkdir()
    (tmp_path / "alink").symlink_to(tmp_path / "nowhere")
    return tmp_path


@pytest.mark.parametrize(
    ("path", "directory", "why"),
    [
        ("afile/p.json", False, "{tmp}/afile is a file, not a directory"),
        ("afile/deeper/p.json", False, "{tmp}/afile is a file, not a directory"),
        ("afile/c", True, "{tmp}/afile is a file, not a directory"),
        ("adir", False, "is a directory"),
        ("afile", True, "is not a directory"),
        ("alink", False, "{tmp}/alink is a symbolic link to nothing, not a directory"),
        ("alink", True, "{tmp}/alink is a symbolic link to nothing, not a directory"),
        ("alink/p.json", False, "{tmp}/alink is a symbolic link to nothing, not a directory"),
    ],
)
def test_a_path_that_cannot_be_written_is_refused(
    place: Path, path: str, directory: bool, why: str
) -> None:
    with pytest.raises(UsageError) as refused:
        check_writable("--out", place / path, directory=directory)
    assert str(refused.value) == f"--out {place / path}: {why.format(tmp=place)}"


@pytest.mark.parametrize(
    ("path", "directory"),
    [("new.json", False), ("new/deeper/p.json", False), ("adir", True), ("afile", False),
     ("adir/new", True)],
)  # fmt: skip
def test_a_path_that_can_be_written_passes(place: Path, path: str, directory: bool) -> None:
    check_writable("--out", place / path, directory=directory)


def test_a_place_without_write_permission_is_refused(
    place: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    locked = place / "adir"
    locked.chmod(0o500)
    if os.geteuid() == 0:
        # Root may write anywhere, so the kernel would grant it: answer as it does for
        # anyone else, for that directory only (CI runs as root).
        real_access = os.access
        monkeypatch.setattr(
            os, "access", lambda p, mode: False if Path(p) == locked else real_access(p, mode)
        )
    try:
        with pytest.raises(UsageError) as refused:
            check_writable("--log", locked / "a.jsonl")
        assert str(refused.value) == (
            f"--log {locked / 'a.jsonl'}: cannot write in {locked}: permission denied"
        )
    finally:
        locked.chmod(0o700)


def test_the_comment_parts_are_exactly_this_plans(tmp_path: Path) -> None:
    for name in ("1.md", "2.md", "3.md", "12.md", "notes.md", "a3.md"):
        (tmp_path / name).write_text("old", encoding="utf-8")
    assert write_comment_parts(tmp_path, ["first", "second"]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["1.md", "2.md", "a3.md", "notes.md"]
    assert (tmp_path / "1.md").read_text(encoding="utf-8") == "first"
    assert (tmp_path / "2.md").read_text(encoding="utf-8") == "second"
    assert write_comment_parts(tmp_path, []) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a3.md", "notes.md"]


def test_sandbox_and_env_contradict() -> None:
    refuse_sandbox(PlanFlags())
    refuse_sandbox(ValidateFlags())
    with pytest.raises(UsageError) as refused:
        refuse_sandbox(PlanFlags(connection=ConnectionFlags(sandbox=embedded("acme"))))
    assert str(refused.value) == (
        "--sandbox and --env contradict each other: an environment names its URLs"
    )
