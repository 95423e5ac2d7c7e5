"""The var files a project file names are read only inside the repository (`repository`, the
project file's directory): a path above it, an absolute one elsewhere, or a symbolic link
leading out of it is refused unread, naming the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.errors import ManifestError
from reconciler.manifest.files import inside
from reconciler.manifest.varfiles import load_var_files


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "tenants").mkdir(parents=True)
    (root / "tenants" / "vars.yaml").write_text("COMPANY: Acme\n", encoding="utf-8")
    (tmp_path / "outside.yaml").write_text("SECRET_LINE: root-only\n", encoding="utf-8")
    (root / "tenants" / "link.yaml").symlink_to(tmp_path / "outside.yaml")
    return root


def test_var_files_inside_the_repository_are_read(repository: Path) -> None:
    (repository / "more.yaml").write_text("REGION: eu\n", encoding="utf-8")
    given = [repository / "tenants" / "vars.yaml", repository / "more.yaml"]
    assert load_var_files(given, repository=repository) == {"COMPANY": "Acme", "REGION": "eu"}


@pytest.mark.parametrize(
    "name", ["../outside.yaml", "tenants/../../outside.yaml", "tenants/link.yaml", "{abs}"]
)
def test_a_var_file_outside_the_repository_is_refused_unread(repository: Path, name: str) -> None:
    path = Path(name.replace("{abs}", str(repository.parent / "outside.yaml")))
    given = path if path.is_absolute() else repository / path
    with pytest.raises(ManifestError) as raised:
        load_var_files([given], repository=repository)
    assert raised.value.problems == [
        f"{given}:1:1: the variables file is outside the repository ({repository}): not read"
    ]
    assert "root-only" not in str(raised.value)


def test_without_a_root_any_var_file_is_read(repository: Path) -> None:
    """`--var-file` on the command line names the file the user chose."""
    assert load_var_files([repository.parent / "outside.yaml"]) == {"SECRET_LINE": "root-only"}


def test_inside_compares_whole_directory_names(tmp_path: Path) -> None:
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo-other").mkdir()
    assert inside(tmp_path / "repo" / "a.yaml", tmp_path / "repo")
    assert not inside(tmp_path / "repo-other" / "a.yaml", tmp_path / "repo")
