"""The whole outcome of each planner case (`tests/planning/cases`), pinned: the plan as its
saved form and the renderers get it (`Plan.to_dict()`: every change with its fields,
operations and their parameters, descriptions, dependencies, reasons and sources, every
diagnostic with its message, remedy and location, the live digest), what was read from
each service, and per kind of live state the count the safety brake judges and the keys
read. The cases themselves assert the parts each is about; this catches a change
anywhere else in what a user is shown or what apply sends.

A golden file per case under `whole_plans/`: a case without one fails, naming the command
that writes it. After a deliberate change of the output (or a new case), write them with
`RECONCILER_WRITE_WHOLE_PLANS=1 python -m pytest tests/resources/test_whole_plans.py`
and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from tests.planning.test_cases import plan_case

CASES = Path(__file__).parents[1] / "planning" / "cases"
GOLDEN = Path(__file__).parent / "whole_plans"
WRITE = os.environ.get("RECONCILER_WRITE_WHOLE_PLANS") == "1"
NAMES = sorted(p.stem for p in CASES.glob("*.yaml"))


def outcome(case: dict[str, Any], tmp_path: Path) -> dict[str, Any]:
    done = plan_case(case, tmp_path)
    reads = {"helpdesk": done.helpdesk.reads, "workspace": done.workspace.reads}
    got = {
        "plan": done.plan.to_dict(),
        "reads": {service: sorted(read) for service, read in reads.items()},
        "live": {
            kind: {"count": len(state), "keys": sorted(state.keys())}
            for kind, state in sorted(done.live.kinds.items())
        },
    }
    return json.loads(json.dumps(got).replace(str(tmp_path), "{dir}"))


@pytest.mark.parametrize("name", NAMES)
def test_whole_outcome(name: str, tmp_path: Path) -> None:
    case = YAML(typ="safe").load((CASES / f"{name}.yaml").read_text())
    got = outcome(case, tmp_path)
    golden = GOLDEN / f"{name}.json"
    if WRITE:
        GOLDEN.mkdir(exist_ok=True)
        golden.write_text(json.dumps(got, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    assert golden.exists(), (
        f"no whole outcome for the case {name}: write it with RECONCILER_WRITE_WHOLE_PLANS=1 "
        "python -m pytest tests/resources/test_whole_plans.py, and review it"
    )
    assert got == json.loads(golden.read_text())


def test_every_whole_outcome_has_its_case() -> None:
    assert sorted(p.stem for p in GOLDEN.glob("*.json")) == NAMES
