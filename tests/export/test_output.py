"""Writing an export into a directory: refused where manifests are already (plan would
read both) unless --force, the schema written next to the files unless named, the source
shown without credentials."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from reconciler.errors import UsageError
from reconciler.export.result import SCHEMA_FILE, ExportResult
from reconciler.manifest.loader import load_manifests
from reconciler.manifest.schema import json_schema
from reconciler.run.export import check_directory, existing_manifests, public_url, write_directory

NOW = datetime(2026, 5, 4, 3, 2, 1, tzinfo=UTC)


def result(**entries: list[dict[str, object]]) -> ExportResult:
    return ExportResult(
        entries or {"companies": [{"name": "Acme"}], "departments": [{"name": "IT"}]},
        {"helpdesk": "https://acme.example.com/helpdesk"},
        NOW,
    )


def test_into_a_new_directory_with_the_schema(tmp_path: Path) -> None:
    out = tmp_path / "new" / "manifests"
    written = write_directory(result(), out)
    assert [p.name for p in written.files] == ["companies.yaml", "departments.yaml", SCHEMA_FILE]
    assert written.others == []
    assert json.loads((out / SCHEMA_FILE).read_text()) == json_schema()
    text = (out / "companies.yaml").read_text()
    assert text.splitlines()[:2] == [
        f"# yaml-language-server: $schema={SCHEMA_FILE}",
        "# Exported by `reconciler export` from https://acme.example.com/helpdesk at "
        "2026-05-04T03:02:01Z.",
    ]
    assert [c.name for c in load_manifests([out], env={}).manifest.companies] == ["Acme"]
    assert not list(out.glob(".*"))  # no temporary file left


def test_a_schema_named_by_the_caller_is_not_written(tmp_path: Path) -> None:
    written = write_directory(result(), tmp_path, schema="../schemas/manifest.schema.json")
    assert SCHEMA_FILE not in {p.name for p in written.files}
    first = (tmp_path / "departments.yaml").read_text().splitlines()[0]
    assert first == "# yaml-language-server: $schema=../schemas/manifest.schema.json"


def test_a_directory_with_manifests_is_refused_without_force(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("notes")  # not a manifest: no objection
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "x.yaml").write_text("{}")  # the loader skips dot-directories
    write_directory(result(), tmp_path)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "mine.yml").write_text("users: []\n")
    with pytest.raises(UsageError) as refused:
        write_directory(result(), tmp_path)
    assert str(refused.value) == (
        f"--out {tmp_path} already holds manifests (companies.yaml, departments.yaml, "
        "sub/mine.yml), which `plan` would read together with the export: export into an "
        "empty directory, or add --force to overwrite the files the export writes (the "
        "others are left as they are)"
    )
    written = write_directory(result(companies=[{"name": "Globex"}]), tmp_path, force=True)
    assert [p.relative_to(tmp_path).as_posix() for p in written.others] == [
        "departments.yaml",
        "sub/mine.yml",
    ]
    assert "Globex" in (tmp_path / "companies.yaml").read_text()


def test_a_file_is_not_a_directory(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("")
    with pytest.raises(UsageError) as refused:
        check_directory(tmp_path / "f", force=True)
    assert str(refused.value) == f"--out {tmp_path / 'f'}: exists and is not a directory"
    assert existing_manifests(tmp_path / "missing") == []


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (
            "https://user:secret@acme.example.com/helpdesk/?token=abc#x",
            "https://acme.example.com/helpdesk",
        ),
        ("http://127.0.0.1:8765/helpdesk", "http://127.0.0.1:8765/helpdesk"),
        ("http://[::1]:80/", "http://[::1]:80"),
    ],
)
def test_sources_are_shown_without_credentials(url: str, shown: str) -> None:
    assert public_url(url) == shown


def test_kinds_with_no_live_object_are_written_empty(tmp_path: Path) -> None:
    write_directory(result(categories=[], **{"workspace.employees": []}), tmp_path)
    assert "\ncategories: []\n" in (tmp_path / "categories.yaml").read_text()
    assert "workspace:\n  employees: []\n" in (tmp_path / "workspace.yaml").read_text()
    assert load_manifests([tmp_path], env={}).manifest.categories == []


# `export --out DIR` into a directory that already holds manifests (run/export.py): the refusal
# names the first five as `plan DIR` would read them and counts the rest.


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
