"""`export --out DIR` into a directory that already holds manifests (export/output.py):
the refusal names the first five as `plan DIR` would read them and counts the rest."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.errors import UsageError
from reconciler.export import check_directory, existing_manifests


def test_the_refusal_names_five_manifests_and_counts_the_others(tmp_path: Path) -> None:
    for name in ["b.yaml", "a.yml", "c.yaml", ".hidden.yaml", "notes.txt", "x.yaml.bak"]:
        (tmp_path / name).write_text("{}\n")
    for folder in ["sub", ".git", "z"]:
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "m.yaml").write_text("{}\n")
    (tmp_path / "sub" / "deeper").mkdir()
    (tmp_path / "sub" / "deeper" / "n.yml").write_text("{}\n")
    found = [p.relative_to(tmp_path).as_posix() for p in existing_manifests(tmp_path)]
    assert found == ["a.yml", "b.yaml", "c.yaml", "sub/m.yaml", "sub/deeper/n.yml", "z/m.yaml"]
    with pytest.raises(UsageError) as refused:
        check_directory(tmp_path, force=False)
    assert str(refused.value) == (
        f"--out {tmp_path} already holds manifests (a.yml, b.yaml, c.yaml, sub/m.yaml, "
        "sub/deeper/n.yml and 1 more), which `plan` would read together with the export: "
        "export into an empty directory, or add --force to overwrite the files the export "
        "writes (the others are left as they are)"
    )
    check_directory(tmp_path, force=True)  # allowed: the caller is told of the others


def test_five_manifests_are_named_without_a_count(tmp_path: Path) -> None:
    for name in ["1.yaml", "2.yaml", "3.yaml", "4.yaml", "5.yaml"]:
        (tmp_path / name).write_text("{}\n")
    with pytest.raises(UsageError) as refused:
        check_directory(tmp_path, force=False)
    assert "(1.yaml, 2.yaml, 3.yaml, 4.yaml, 5.yaml), which" in str(refused.value)


def test_a_file_in_the_way_is_named(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("")
    with pytest.raises(UsageError) as refused:
        check_directory(tmp_path / "f", force=True)
    assert str(refused.value) == f"--out {tmp_path / 'f'}: exists and is not a directory"
    check_directory(tmp_path / "new", force=False)  # a directory yet to be made is fine
