"""Overlays (manifest/merge.py): a later file refines (`overlay: true`) or drops
(`drop: true`) an earlier file's entry by key; conflicts are reported at the marker."""

# ruff: noqa: E501  (a message is one line, whatever its length)

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.errors import ManifestError
from reconciler.manifest.loader import load_manifests
from tests.manifest.numbered import load

BASELINE = """\
users:
  - username: oncall
    email: oncall@msp.example.com
    location: Leeds
    department: Service Desk
    custom_fields: {Shift: Day, Badge: B-1}
  - username: intern
    email: intern@msp.example.com
companies:
  - name: MSP
    email_domains: [msp.example.com, msp.example.org]
"""


def load_over_baseline(tmp_path: Path, own: str) -> object:
    (tmp_path / "a-baseline.yaml").write_text(BASELINE, encoding="utf-8")
    (tmp_path / "b-own.yaml").write_text(own, encoding="utf-8")
    return load_manifests([tmp_path / "a-baseline.yaml", tmp_path / "b-own.yaml"], {})


def test_an_overlay_merges_fields_replaces_lists_and_merges_custom_fields(tmp_path: Path) -> None:
    desired: object = load_over_baseline(
        tmp_path,
        "users:\n  - username: oncall\n    overlay: true\n    location: Reading\n"
        "    custom_fields: {Shift: Night}\n"
        "companies:\n  - name: MSP\n    overlay: true\n    email_domains: [msp.example.net]\n",
    )
    users = {u.username: u for u in desired.entries("users")}  # type: ignore[attr-defined]
    oncall = users["oncall"]
    assert (oncall.location, oncall.department) == ("Reading", "Service Desk")
    assert oncall.email == "oncall@msp.example.com"
    assert oncall.custom_fields == {"Shift": "Night", "Badge": "B-1"}
    (company,) = desired.entries("companies")  # type: ignore[attr-defined]
    assert company.email_domains == ["msp.example.net"]
    # The entry is the baseline's; a value the overlay gave is located in its file.
    location = desired.location  # type: ignore[attr-defined]
    assert location("users", "oncall").startswith(str(tmp_path / "a-baseline.yaml") + ":2:")
    assert location("users", "oncall", "location") == f"{tmp_path / 'b-own.yaml'}:4:15"
    assert location("users", "oncall", "department").startswith(str(tmp_path / "a-baseline"))
    refined_at = desired.refined_at  # type: ignore[attr-defined]
    assert refined_at("users", "oncall") == [f"{tmp_path / 'b-own.yaml'}:2:5"]


def test_a_drop_leaves_the_entry_out(tmp_path: Path) -> None:
    desired: object = load_over_baseline(tmp_path, "users:\n  - username: intern\n    drop: true\n")
    names = [u.username for u in desired.entries("users")]  # type: ignore[attr-defined]
    assert names == ["oncall"]


@pytest.mark.parametrize(
    ("own", "expected"),
    [
        ("users:\n  - username: nobody\n    overlay: true\n", "b-own.yaml:3:5: users: overlay of 'nobody', which no earlier file writes"),
        ("users:\n  - username: nobody\n    drop: true\n", "b-own.yaml:3:5: users: drop of 'nobody', which no earlier file writes"),
        ("users:\n  - username: intern\n    drop: true\n    location: X\n", "b-own.yaml:4:5: users: a drop names only the key; 'location' has no effect here"),
        ("users:\n  - username: intern\n    drop: true\n    overlay: true\n", "b-own.yaml:3:5: an entry is an overlay or a drop, not both"),
        ("users:\n  - username: intern\n    overlay: yes please\n", "b-own.yaml:3:14: 'overlay' takes true (or is left out)"),
        ("users:\n  - username: intern\n    location: X\n", "b-own.yaml:2:5: duplicate users entry 'intern'"),
        ("users:\n  - username: intern\n    drop: true\n  - username: intern\n    overlay: true\n", "b-own.yaml:5:5: users: overlay of 'intern', which no earlier file writes"),
    ],
)  # fmt: skip
def test_conflicts_are_reported_at_the_marker(tmp_path: Path, own: str, expected: str) -> None:
    with pytest.raises(ManifestError) as caught:
        load_over_baseline(tmp_path, own)
    shown = "\n".join(caught.value.problems).replace(str(tmp_path) + "/", "")
    assert expected in shown


# Overlays across three files (manifest/merge.py): keys compared as the kind compares them
# (users case-insensitively, employees keyed by another field than `email` as written, that field
# read from `settings` in any file, white space aside), two overlays of one entry one after the
# other (custom fields merged, the later value winning), a drop after which the key may be written
# anew, an overlay with custom fields where the earlier entry has none, and every marker problem
# in one file, in full.


def test_overlays_and_drops_follow_the_kinds_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    desired = load(
        tmp_path,
        monkeypatch,
        "users:\n  - {username: Oncall, email: o@acme.com, custom_fields: {A: 1, D: 5}}\n"
        "  - {username: b}\n  - {username: c}\n",
        "users:\n  - {username: ONCALL, overlay: true, location: X}\n"
        "  - {username: b, overlay: true, custom_fields: {B: 2}}\n"
        "  - {username: C, drop: true}\n",
        "users:\n  - {username: oncall, overlay: true, custom_fields: {C: 3, A: 4}}\n"
        "  - {username: b, drop: true}\n  - {username: b, email: b@acme.com}\n",
    )
    users = [user.model_dump(exclude_unset=True) for user in desired.manifest.users]
    assert users == [
        {
            "username": "Oncall",
            "email": "o@acme.com",
            "location": "X",
            "custom_fields": {"A": 4, "D": 5, "C": 3},
        },
        {"username": "b", "email": "b@acme.com"},
    ]
    assert desired.refined_at("users", "Oncall") == ["1.yaml:2:5", "2.yaml:2:5"]
    assert desired.location("users", "Oncall", "location") == "1.yaml:2:49"
    assert desired.location("users", "b") == "2.yaml:4:5"


def test_employees_keyed_by_another_field_are_matched_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    desired = load(
        tmp_path,
        monkeypatch,
        "workspace:\n  employees:\n    - {id: E1, name: A, tags: [x]}\n    - {id: e1, name: B}\n",
        "settings: {employee_key: ' id '}\n"
        "workspace:\n  employees:\n    - {id: E1, overlay: true, name: C}\n    - {id: e1, drop: true}\n",
    )
    assert desired.manifest.workspace is not None
    employees = [employee.fields for employee in desired.manifest.workspace.employees]
    assert employees == [{"id": "E1", "name": "C", "tags": ["x"]}]


def test_an_overlay_gives_custom_fields_the_earlier_entry_has_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    desired = load(
        tmp_path,
        monkeypatch,
        "users:\n  - {username: a, custom_fields: null}\n  - {username: b, custom_fields: {A: 1}}\n"
        "  - {username: c}\n",
        "users:\n  - {username: a, overlay: true, custom_fields: {B: 2}}\n"
        "  - {username: b, overlay: true, custom_fields: null}\n"
        "  - {username: c, overlay: true, custom_fields: {C: 3}}\n",
    )
    assert [user.custom_fields for user in desired.manifest.users] == [{"B": 2}, None, {"C": 3}]


def test_every_marker_problem_of_a_file_is_reported_in_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ManifestError) as refused:
        load(
            tmp_path,
            monkeypatch,
            "users:\n  - {username: a}\n",
            "users:\n  - {username: a, drop: true}\n",
            "users:\n  - {username: a, overlay: true}\n  - {username: c, overlay: false}\n"
            "  - {username: d, drop: 1}\n  - {username: a, drop: true, overlay: true}\n",
        )
    assert refused.value.problems == [
        "2.yaml:2:19: users: overlay of 'a', which no earlier file writes (an overlay refines an entry of an earlier path, e.g. the baseline)",
        "2.yaml:3:19: users[0]: unknown field 'overlay' (the fields: username, previously, email, first_name, last_name, phone, location, notes, company, department, is_admin, disabled, send_welcome_email, custom_fields)",
        "2.yaml:3:28: 'overlay' takes true (or is left out)",
        "2.yaml:4:19: users[1]: unknown field 'drop' (the fields: username, previously, email, first_name, last_name, phone, location, notes, company, department, is_admin, disabled, send_welcome_email, custom_fields)",
        "2.yaml:4:25: 'drop' takes true (or is left out)",
        "2.yaml:5:19: an entry is an overlay or a drop, not both",
        "2.yaml:5:19: users[2]: unknown field 'drop' (the fields: username, previously, email, first_name, last_name, phone, location, notes, company, department, is_admin, disabled, send_welcome_email, custom_fields)",
        "2.yaml:5:31: users[2]: unknown field 'overlay' (the fields: username, previously, email, first_name, last_name, phone, location, notes, company, department, is_admin, disabled, send_welcome_email, custom_fields)",
    ]


def test_employees_keyed_by_email_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    desired = load(
        tmp_path,
        monkeypatch,
        "workspace:\n  employees:\n    - {email: a@acme.com, name: A}\n    - {email: b@acme.com}\n",
        "workspace:\n  employees:\n    - {email: A@Acme.com, overlay: true, name: C}\n"
        "    - {email: B@acme.com, drop: true}\n",
    )
    assert desired.manifest.workspace is not None
    employees = [employee.fields for employee in desired.manifest.workspace.employees]
    assert employees == [{"email": "a@acme.com", "name": "C"}]


def test_a_value_an_overlay_gives_is_refused_in_the_overlays_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The value sits in the earlier file's entry once merged; its problem is the overlay's
    file's, at the place it is written there."""
    with pytest.raises(ManifestError) as refused:
        load(
            tmp_path,
            monkeypatch,
            "users:\n  - {username: a, custom_fields: {A: 1}, phone: 7}\n",
            "users:\n  - {username: a, overlay: true, location: 5, zzz: 1, custom_fields: {B: [1], '': 3}}\n",
        )
    assert refused.value.problems == [
        '0.yaml:2:49: users[0].phone: expected text, found a number; quote it to keep it as written: "7"',
        '1.yaml:2:44: users[0].location: expected text, found a number; quote it to keep it as written: "5"',
        "1.yaml:2:47: users[0]: unknown field 'zzz' (the fields: username, previously, email, first_name, last_name, phone, location, notes, company, department, is_admin, disabled, send_welcome_email, custom_fields)",
        "1.yaml:2:74: users[0].custom_fields.B: expected text, a number, a date, true/false or {option_id: N}, found a list",
        "1.yaml:2:79: users[0].custom_fields: key '': must not be empty",
    ]


def test_an_overlay_refines_the_first_of_duplicate_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ManifestError) as refused:
        load(
            tmp_path,
            monkeypatch,
            "users:\n  - {username: a}\n  - {username: A}\n",
            "users:\n  - {username: a, overlay: true, location: 5}\n",
        )
    assert refused.value.problems == [
        "0.yaml:3:5: duplicate users entry 'A' (first at 0.yaml:2:5)",
        '1.yaml:2:44: users[0].location: expected text, found a number; quote it to keep it as written: "5"',
    ]
