"""`Planner` (reconciler.resources.base), the part each kind's planner shares: where the
problems it writes down point to in the manifests."""

from __future__ import annotations

from pathlib import Path

from reconciler.manifest.loader import load_manifests
from reconciler.resources.base import PlanContext, Planner

MANIFEST = """\
categories:
  - name: Printers
    section: IT Support
  - name: Software
"""


def planner(tmp_path: Path) -> tuple[Planner, Path]:
    path = tmp_path / "categories.yaml"
    path.write_text(MANIFEST)
    context = PlanContext(load_manifests([path], env={}), {}, frozenset())
    return Planner(context, "categories"), path


def test_a_problem_with_a_value_the_entry_writes_points_to_that_value(tmp_path: Path) -> None:
    found, path = planner(tmp_path)
    found.problem("Printers", "wrong section", None, "section")
    [problem] = found.result.diagnostics
    assert problem.text() == f'{path}:3:14: categories["Printers"]: wrong section'


def test_a_problem_with_a_value_the_entry_does_not_write_points_to_the_entry(
    tmp_path: Path,
) -> None:
    # `Software` gives no section: the value cannot be pointed to, its entry can.
    found, path = planner(tmp_path)
    found.problem("software", "no section", "give one", "section")
    [problem] = found.result.diagnostics
    assert problem.text() == f'{path}:4:5: categories["software"]: no section (give one)'
