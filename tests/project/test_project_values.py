"""The bounds of every value of the project file (project/model.py), each problem at its
line and column with the field's dotted path, and the values at the bounds accepted."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.project import load_project
from tests.project.test_project import problems, write

LONG = "a" * 65
FIELDS = "input should be 'HELPDESK_TOKEN', 'HELPDESK_USERNAME', 'HELPDESK_PASSWORD' or "


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            f"environments:\n  {LONG}: {{paths: [x]}}\n",
            [f"2:3: environments.{LONG}: string should have at most 64 characters"],
        ),
        (
            "environments:\n  -x: {paths: [x]}\n",
            ["2:3: environments.-x: string should match pattern '^[A-Za-z0-9][A-Za-z0-9_.-]*$'"],
        ),
        (
            "environments:\n  a:\n    paths: [x]\n"
            "    credentials: {TOKEN: A, WORKSPACE_API_KEY: 9X}\n",
            [
                f"4:19: environments.a.credentials.TOKEN: {FIELDS}'WORKSPACE_API_KEY'",
                "4:48: environments.a.credentials.WORKSPACE_API_KEY: string should match "
                "pattern '^[A-Za-z_][A-Za-z0-9_]*$'",
            ],
        ),
        (
            "environments:\n  a:\n    paths: [x]\n    search_rate_limit: -1\n    wave: 1001\n",
            [
                "4:24: environments.a.search_rate_limit: input should be greater than or "
                "equal to 0",
                "5:11: environments.a.wave: input should be less than or equal to 1000",
            ],
        ),
        (
            "environments:\n  a:\n    paths: [x]\n    wave: -1\n    safety: {max_change_percent: "
            "101, min_existing: -1, max_irreversible: -1, limit: 3}\n",
            [
                "4:11: environments.a.wave: input should be greater than or equal to 0",
                "5:34: environments.a.safety.max_change_percent: input should be less than "
                "or equal to 100",
                "5:53: environments.a.safety.min_existing: input should be greater than or "
                "equal to 0",
                "5:75: environments.a.safety.max_irreversible: input should be greater than "
                "or equal to 0",
                "5:79: environments.a.safety.limit: unknown field",
            ],
        ),
        (
            "environments:\n  a:\n    paths: [x]\n    rate_limit: 10001\n"
            "    safety: {max_change_percent: -1}\n",
            [
                "4:17: environments.a.rate_limit: input should be less than or equal to 10000",
                "5:34: environments.a.safety.max_change_percent: input should be greater "
                "than or equal to 0",
            ],
        ),
    ],
)
def test_a_value_out_of_its_bounds_is_located(
    tmp_path: Path, text: str, expected: list[str]
) -> None:
    assert problems(write(tmp_path, text)) == expected


def test_the_values_at_the_bounds_are_accepted(tmp_path: Path) -> None:
    name = "a" * 64
    text = (
        f"environments:\n  {name}:\n    paths: [x]\n    wave: 1000\n    search_rate_limit: 0\n"
        "    rate_limit: 10000\n    credentials: {HELPDESK_TOKEN: _T0}\n"
        "    safety: {max_change_percent: 100, min_existing: 0, max_irreversible: 0}\n"
    )
    project = load_project(write(tmp_path, text))
    assert project.names == [name]
    environment = project.environment(name)
    assert (environment.wave, environment.search_rate_limit, environment.rate_limit) == (
        1000,
        0,
        10000,
    )
    assert environment.credentials == {"HELPDESK_TOKEN": "_T0"}
