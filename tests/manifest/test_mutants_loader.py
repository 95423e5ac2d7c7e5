"""Loading paths (manifest/loader.py): a linked directory outside the folder given is read
(its manifests count, as under prune a skipped one would remove its objects), a directory
that cannot be read is named, a file that is not UTF-8 does not stop the files after it,
and a manifest given as text is named `manifest.yaml` unless told otherwise."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from reconciler.errors import ManifestError
from reconciler.manifest import load_manifest_text, load_manifests


def problems(paths: list[Path]) -> list[str]:
    with pytest.raises(ManifestError) as refused:
        load_manifests(paths, {})
    return refused.value.problems


@pytest.mark.usefixtures("no_network")
def test_a_linked_directory_outside_the_folder_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("outside").mkdir()
    Path("outside/o.yaml").write_text("companies:\n  - name: Outside\n", encoding="utf-8")
    Path("m").mkdir()
    Path("m/own.yaml").write_text("companies:\n  - name: Own\n", encoding="utf-8")
    Path("m/link").symlink_to("../outside")
    desired = load_manifests([Path("m")], {})
    assert desired.files == ("m/link/o.yaml", "m/own.yaml")
    assert [c.name for c in desired.manifest.companies] == ["Outside", "Own"]


@pytest.mark.usefixtures("no_network")
def test_a_directory_that_cannot_be_read_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("m/sub").mkdir(parents=True)
    Path("m/a.yaml").write_text("companies:\n  - name: A\n", encoding="utf-8")
    Path("m/sub/b.yaml").write_text("companies:\n  - name: B\n", encoding="utf-8")
    original = os.scandir

    def scandir(path: Any = ".") -> Any:  # root may read any directory
        if os.fspath(path) == os.path.join("m", "sub"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return original(path)

    monkeypatch.setattr(os, "scandir", scandir)
    assert problems([Path("m")]) == ["m:1:1: cannot read the directory m/sub: Permission denied"]


def test_a_file_that_is_not_utf8_does_not_stop_the_files_after_it(tmp_path: Path) -> None:
    latin = tmp_path / "a-latin.yaml"
    latin.write_bytes(b"companies:\n  - name: Caf\xe9\n")
    after = tmp_path / "b-after.yaml"
    after.write_text("companies:\n  - name: B\n    qqq: 1\n", encoding="utf-8")
    found = problems([latin, after])
    assert found[0] == (f"{latin}:2:14: not UTF-8 text (byte 0xe9); manifests must be UTF-8")
    assert found[1].startswith(f"{after}:3:5: companies[0]: unknown field 'qqq'")
    assert len(found) == 2


def test_a_manifest_given_as_text_is_named_manifest_yaml() -> None:
    desired = load_manifest_text("companies:\n  - name: A\n")
    assert desired.files == ("manifest.yaml",)
    assert desired.location("companies", "A") == "manifest.yaml:2:5"
    # asked again (the planner asks each environment of a fleet for the same places)
    assert desired.location("companies", "A") == "manifest.yaml:2:5"
    with pytest.raises(ManifestError) as refused:
        load_manifest_text("companies: 1\n")
    assert refused.value.problems[0].startswith("manifest.yaml:1:12: companies: ")
