"""Merging files (manifest/merge.py): `settings` once across the files (an
empty one does not count), duplicate keys as each kind compares them and as they were
written, naming the first place, employees keyed by the field `settings` names in any
file (each needs a non-empty one), and the merged manifest in load order."""

# ruff: noqa: E501  (a message is one line, whatever its length)

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.errors import ManifestError
from tests.manifest.numbered import load


def test_settings_twice_and_keys_written_twice_across_files_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ManifestError) as refused:
        load(
            tmp_path,
            monkeypatch,
            "settings:\nusers:\n  - {username: Alice}\nautomation_rules: [{id: 7, enabled: true}]\n"
            "workspace:\n  employees:\n    - {id: 1}\n",
            "settings: {employee_key: ' id '}\n---\nsettings: {prune: [users]}\n",
            "users:\n  - {username: alice}\n  - {username: ' ALICE '}\n"
            "automation_rules: [{id: 0x7, enabled: true}]\n"
            "workspace:\n  employees:\n    - {id: 1}\n    - {id: ''}\n    - {name: x}\n    - {id: null}\n"
            "---\nsettings: {}\n",
        )
    assert refused.value.problems == [
        "1.yaml:3:1: settings given twice (first at 1.yaml:1:1); there may be one `settings` across all manifest files",
        "2.yaml:2:5: duplicate users entry 'alice' (first at 0.yaml:3:5)",
        "2.yaml:3:5: duplicate users entry ' ALICE ' (first at 0.yaml:3:5)",
        "2.yaml:4:20: duplicate automation_rules entry '0x7' (first at 0.yaml:4:20)",
        "2.yaml:7:7: duplicate workspace.employees entry '1' (first at 0.yaml:7:7)",
        "2.yaml:8:12: 'id' must be a non-empty text or number",
        "2.yaml:9:7: workspace.employees: an employee without 'id', its key (settings.employee_key)",
        "2.yaml:10:12: 'id' must be a non-empty text or number",
        "2.yaml:12:1: settings given twice (first at 1.yaml:1:1); there may be one `settings` across all manifest files",
    ]


def test_employees_keyed_by_email_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ManifestError) as refused:
        load(
            tmp_path,
            monkeypatch,
            "workspace:\n  employees:\n    - {email: ''}\n    - {name: x}\n    - {email: A@b.co}\n    - {email: a@B.co}\n",
        )
    assert refused.value.problems == [
        "0.yaml:3:15: workspace.employees[0].email: '' is not an e-mail address: An email address must have an @-sign.",
        "0.yaml:4:7: workspace.employees: an employee without 'email', its key (settings.employee_key)",
        "0.yaml:6:7: duplicate workspace.employees entry 'a@B.co' (first at 0.yaml:5:7)",
    ]


def test_the_merged_manifest_is_in_load_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    desired = load(
        tmp_path,
        monkeypatch,
        "settings: {employee_key: id}\nworkspace:\n  employees:\n    - {id: 1, name: a}\ncompanies: [{name: A}]\n",
        "workspace:\n  employees:\n    - {id: 2}\ncompanies: [{name: B}]\n---\ncompanies: [{name: C}]\nworkspace:\n",
    )
    assert desired.manifest.model_dump(mode="json", exclude_unset=True) == {
        "settings": {"employee_key": "id"},
        "companies": [{"name": "A"}, {"name": "B"}, {"name": "C"}],
        "departments": [],
        "categories": [],
        "tech_permissions": [],
        "users": [],
        "assets": [],
        "automation_rules": [],
        "workspace": {"employees": [{"id": 1, "name": "a"}, {"id": 2}]},
    }


def test_an_entry_without_its_key_or_no_mapping_is_the_schemas_to_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ManifestError) as refused:
        load(tmp_path, monkeypatch, "users:\n  - {email: a@b.co}\nworkspace:\n  employees: [x]\n")
    assert refused.value.problems == [
        "0.yaml:2:5: users[0]: missing required field 'username'",
        "0.yaml:4:15: workspace.employees[0]: expected a mapping, found text",
    ]
