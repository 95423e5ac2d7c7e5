"""Overlays (manifest/overlays.py): a later file refines (`overlay: true`) or drops
(`drop: true`) an earlier file's entry by key; conflicts are reported at the marker."""

from __future__ import annotations

# ruff: noqa: E501  (a case is one line, whatever its length)
from pathlib import Path

import pytest

from reconciler.errors import ManifestError
from reconciler.manifest import load_manifests

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


def load(tmp_path: Path, own: str) -> object:
    (tmp_path / "a-baseline.yaml").write_text(BASELINE, encoding="utf-8")
    (tmp_path / "b-own.yaml").write_text(own, encoding="utf-8")
    return load_manifests([tmp_path / "a-baseline.yaml", tmp_path / "b-own.yaml"], {})


def test_an_overlay_merges_fields_replaces_lists_and_merges_custom_fields(tmp_path: Path) -> None:
    desired: object = load(
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
    desired: object = load(tmp_path, "users:\n  - username: intern\n    drop: true\n")
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
        load(tmp_path, own)
    shown = "\n".join(caught.value.problems).replace(str(tmp_path) + "/", "")
    assert expected in shown
