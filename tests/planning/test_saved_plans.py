"""Every planner case's plan survives being saved: `plan -out` writes it as JSON and
`apply PLANFILE` reads it back, so a plan the planner makes that the plan file refuses
(a dependency that is no address, say) could be reviewed but never applied. And what the
plan records each change waits for (`depends_on`, written to the plan file) is exactly
the dependencies it has, not only an order that happens to come out right."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from reconciler.plans.planfile import plan_from_json
from reconciler.render import format_json
from tests.planning.test_cases import CASES, _plain, run_case


def _load(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = _plain(YAML(typ="safe").load(path.read_text()))
    return loaded


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_the_plan_of_a_case_reads_back_from_its_plan_file(path: Path, tmp_path: Path) -> None:
    result, _, _ = run_case(_load(path), tmp_path)
    # The coverage of unmanaged objects is for the reader of a fresh plan: not saved.
    assert plan_from_json(format_json(result)) == replace(result, coverage=None)


def test_employees_wait_only_for_the_new_managers_they_name(tmp_path: Path) -> None:
    # amy and bob name zed, whom the plan creates; cid names bob, who exists; zed names
    # itself. Only amy and bob wait for anything.
    case = _load(Path(__file__).parent / "cases" / "order_employees_after_their_manager.yaml")
    result, _, _ = run_case(case, tmp_path)
    zed = 'workspace.employees["zed@acme.com"]'
    assert {c.key: c.depends_on for c in result.changes} == {
        "amy@acme.com": (zed,),
        "bob@acme.com": (zed,),
        "cid@acme.com": (),
        "zed@acme.com": (),
    }
