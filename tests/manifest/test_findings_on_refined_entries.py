"""A warning about an entry an overlay refined (docs/environments.md) names both places
the entry's values come from, so that the user finds the one to fix."""

from __future__ import annotations

from pathlib import Path

from reconciler.manifest.loader import load_manifests
from reconciler.manifest.validate import reference_warnings, validate_references

BASELINE = """\
companies:
  - {name: Acme, email_domains: [acme.com]}
users:
  - {username: bob, company: Acme}
  - {username: old, disabled: true}
assets:
  - {serial_number: S1}
"""
OVERLAY = """\
companies:
  - name: Acme
    overlay: true
    email_domains: [acme.com, acme.com]
assets:
  - serial_number: S1
    overlay: true
    assigned_users: [old]
"""


def test_a_warning_on_a_refined_entry_names_where_it_was_written_and_refined(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.yaml").write_text(BASELINE, encoding="utf-8")
    (tmp_path / "b.yaml").write_text(OVERLAY, encoding="utf-8")
    desired = load_manifests([tmp_path / "a.yaml", tmp_path / "b.yaml"], {})
    assert validate_references(desired) == []
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    assert reference_warnings(desired) == [
        f"{b}:4:31: 'acme.com' is listed twice in email_domains "
        f"(the entry: written at {a}:2:5, refined at {b}:2:5)",
        f"{b}:8:22: user 'old' is disabled (`disabled: true`) "
        f"(the entry: written at {a}:7:5, refined at {b}:6:5)",
    ]
