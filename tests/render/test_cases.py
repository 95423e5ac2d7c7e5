"""Data-driven rendering cases: each directory under `cases/` holds a plan as JSON (the
input, and also the expected `format_json` output: it is written in canonical form) and
the output expected from each renderer next to it. Adding a case is adding a directory.

    plan.json                  input; format_json(plan_from_json(it)) must reproduce it
    expected.txt               format_text(plan)
    expected.md                markdown_parts(plan, **markdown.json), parts separated by
                               a line `<!-- next part -->`
    expected-operations.txt    (optional) format_text(plan, show_operations=True)
    markdown.json              (optional) keyword arguments of markdown_parts

To create the expected files of a new case, run the tests with RENDER_CASES_WRITE=1: the
missing or different files are written and those tests are skipped, never passed; read
the files, then run the tests again without the variable.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from reconciler.plans import Plan
from reconciler.plans.planfile import plan_from_json
from reconciler.render import format_json, format_text, markdown_parts

CASES = Path(__file__).parent / "cases"
CASE_NAMES = sorted(p.name for p in CASES.iterdir() if (p / "plan.json").is_file())
WRITE = os.environ.get("RENDER_CASES_WRITE") == "1"


def load(case: str) -> Plan:
    return plan_from_json((CASES / case / "plan.json").read_text(encoding="utf-8"), source=case)


def markdown_options(case: str) -> dict[str, object]:
    path = CASES / case / "markdown.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def check(case: str, name: str, actual: str) -> None:
    path = CASES / case / name
    expected = path.read_text(encoding="utf-8") if path.is_file() else None
    if WRITE and actual != expected:
        path.write_text(actual, encoding="utf-8")
        pytest.skip(f"wrote {path}: read it, then run again without RENDER_CASES_WRITE")
    assert expected is not None, f"{path} is missing (RENDER_CASES_WRITE=1 writes it):\n{actual}"
    assert actual == expected


RENDERERS: dict[str, Callable[[str, Plan], str]] = {
    "expected.txt": lambda case, plan: format_text(plan),
    "expected.md": lambda case, plan: "<!-- next part -->\n".join(
        markdown_parts(plan, **markdown_options(case))  # type: ignore[arg-type]
    ),
}


def test_there_are_cases() -> None:
    assert len(CASE_NAMES) >= 10


@pytest.mark.parametrize("case", CASE_NAMES)
def test_json_reproduces_the_plan_file(case: str) -> None:
    assert format_json(load(case)) == (CASES / case / "plan.json").read_text(encoding="utf-8")


@pytest.mark.parametrize("case", CASE_NAMES)
@pytest.mark.parametrize("expected", sorted(RENDERERS))
def test_rendering(case: str, expected: str) -> None:
    check(case, expected, RENDERERS[expected](case, load(case)))


OPERATION_CASES = [c for c in CASE_NAMES if (CASES / c / "expected-operations.txt").is_file()]


@pytest.mark.parametrize("case", OPERATION_CASES)
def test_text_with_operations(case: str) -> None:
    check(case, "expected-operations.txt", format_text(load(case), show_operations=True))


def test_some_cases_show_operations() -> None:
    assert {"every_action", "refs"} <= set(OPERATION_CASES)
