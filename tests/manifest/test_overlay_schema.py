"""The manifest JSON Schema knows the overlay markers where the loader takes them (on an
entry of any kind's list, docs/environments.md) and nowhere else: an editor using the
schema neither flags a valid overlay file nor accepts a marker the loader refuses."""

from __future__ import annotations

# ruff: noqa: E501  (a case is one line, whatever its length)
import io
import json
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from reconciler.errors import ManifestError
from reconciler.manifest.loader import load_manifests
from reconciler.manifest.reference import reference_markdown
from reconciler.manifest.schema import json_schema

jsonschema = pytest.importorskip("jsonschema")

ROOT = Path(__file__).parents[2]
BASELINE = """\
users:
  - {username: oncall, email: oncall@msp.example.com, location: Leeds}
  - {username: intern, email: intern@msp.example.com}
tech_permissions:
  - {category: Hardware, technicians: [oncall]}
categories:
  - {name: Hardware}
automation_rules:
  - {id: 7, enabled: true}
workspace:
  employees:
    - {email: ann@msp.example.com, title: Engineer}
"""
OK, REFUSED = True, False
# (id, the environment's own file, the schema accepts it, the loader accepts it)
ROWS = [
    (
        "overlay-fields",
        "users:\n  - {username: oncall, overlay: true, location: Reading}\n",
        OK,
        OK,
    ),
    ("drop-user", "users:\n  - {username: intern, drop: true}\n", OK, OK),
    (
        "overlay-rule-without-enabled",
        "automation_rules:\n  - {id: 7, overlay: true, name: Triage}\n",
        OK,
        OK,
    ),
    (
        "overlay-permission-without-technicians",
        "tech_permissions:\n  - {category: Hardware, overlay: true}\n",
        OK,
        OK,
    ),
    ("drop-permission", "tech_permissions:\n  - {category: Hardware, drop: true}\n", OK, OK),
    (
        "overlay-employee",
        "workspace:\n  employees:\n    - {email: ann@msp.example.com, overlay: true, title: Lead}\n",
        OK,
        OK,
    ),
    (
        "drop-employee",
        "workspace:\n  employees:\n    - {email: ann@msp.example.com, drop: true}\n",
        OK,
        OK,
    ),
    ("overlay-not-true", "users:\n  - {username: oncall, overlay: yes please}\n", REFUSED, REFUSED),
    (
        "overlay-false",
        "users:\n  - {username: oncall, overlay: false, location: X}\n",
        REFUSED,
        REFUSED,
    ),
    (
        "drop-with-a-field",
        "users:\n  - {username: intern, drop: true, location: X}\n",
        REFUSED,
        REFUSED,
    ),
    (
        "both-markers",
        "users:\n  - {username: intern, drop: true, overlay: true}\n",
        REFUSED,
        REFUSED,
    ),
    (
        "drop-employee-with-a-field",
        "workspace:\n  employees:\n    - {email: ann@msp.example.com, drop: true, title: X}\n",
        REFUSED,
        REFUSED,
    ),
    (
        "rule-without-enabled-unmarked",
        "automation_rules:\n  - {id: 8, name: Triage}\n",
        REFUSED,
        REFUSED,
    ),
    (
        "permission-without-technicians-unmarked",
        "tech_permissions:\n  - {category: Software}\n",
        REFUSED,
        REFUSED,
    ),
    ("overlay-without-key", "users:\n  - {overlay: true, location: X}\n", REFUSED, REFUSED),
    ("marker-in-settings", "settings:\n  overlay: true\n", REFUSED, REFUSED),
    ("marker-at-top-level", "drop: true\nusers: []\n", REFUSED, REFUSED),
    ("marker-in-workspace", "workspace:\n  overlay: true\n", REFUSED, REFUSED),
    # Only the loader sees the other files: the schema cannot know no earlier file writes it.
    ("overlay-of-an-unknown-key", "users:\n  - {username: nobody, overlay: true}\n", OK, REFUSED),
]


def _schema_errors(text: str) -> list[str]:
    instance: Any = YAML(typ="safe").load(io.StringIO(text))
    validator = jsonschema.Draft202012Validator(json_schema())
    return [error.message for error in validator.iter_errors(instance)]


def _loads(tmp_path: Path, own: str) -> bool:
    (tmp_path / "a-baseline.yaml").write_text(BASELINE, encoding="utf-8")
    (tmp_path / "b-own.yaml").write_text(own, encoding="utf-8")
    try:
        load_manifests([tmp_path / "a-baseline.yaml", tmp_path / "b-own.yaml"], {})
    except ManifestError:
        return False
    return True


def test_the_baseline_is_valid_for_both() -> None:
    assert _schema_errors(BASELINE) == []


@pytest.mark.parametrize(
    ("own", "schema_ok", "loader_ok"), [row[1:] for row in ROWS], ids=[row[0] for row in ROWS]
)
def test_the_schema_and_the_loader_agree_on_markers(
    tmp_path: Path, own: str, schema_ok: bool, loader_ok: bool
) -> None:
    assert (_schema_errors(own) == []) is schema_ok, _schema_errors(own)
    assert _loads(tmp_path, own) is loader_ok


def test_the_markers_are_described_on_every_kind_and_only_there() -> None:
    schema = json_schema()
    marked = {name for name, d in schema["$defs"].items() if "overlay" in d.get("properties", {})}
    assert marked == {
        "Asset",
        "AutomationRule",
        "Category",
        "Company",
        "Department",
        "Employee",
        "TechPermission",
        "User",
    }
    for name in marked:
        for marker in ("overlay", "drop"):
            described = schema["$defs"][name]["properties"][marker]
            assert described["const"] is True and "docs/environments.md" in described["description"]


def test_the_example_fleet_is_valid_for_the_committed_schema() -> None:
    committed = (ROOT / "schemas" / "manifest.schema.json").read_text(encoding="utf-8")
    validator = jsonschema.Draft202012Validator(json.loads(committed))
    files = sorted((ROOT / "examples" / "fleet").glob("[bt]*/**/*.yaml"))
    assert any("overlay: true" in f.read_text(encoding="utf-8") for f in files)
    for path in files:
        instance = YAML(typ="safe").load(path)
        assert [e.message for e in validator.iter_errors(instance)] == [], path


def test_the_field_reference_shows_the_markers_and_what_an_overlay_may_leave_out() -> None:
    text = reference_markdown()
    assert text.count("| `overlay` | `true` | no |  | Refine the entry of this key") == 8
    assert text.count("| `drop` | `true` | no |  | Leave out the entry of this key") == 8
    assert "| `technicians` | list of string (non-empty) | yes, but not in an overlay |" in text
    assert "| `enabled` | boolean or [Variable](#variable) | yes, but not in an overlay |" in text
    assert "| `name` | string (non-empty) | yes |" in text  # a key stays required
