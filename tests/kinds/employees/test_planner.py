"""How employee values compare, and the shape of their operations."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import pytest

from reconciler.kinds.employees.planner import comparable, employee_path, json_value


@pytest.mark.parametrize(
    ("name", "a", "b"),
    [
        ("firstName", "Alice  ", "Alice"),
        ("managerEmail", "CEO@Acme.com", "ceo@acme.com"),
        ("email", "Bob@x.com ", "bob@X.COM"),
        ("phone", "", None),
        ("startDate", date(2024, 1, 15), "2024-01-15"),
        ("tags", ["a ", "b"], ["a", "b"]),
        ("active", True, True),
    ],
)
def test_equal_values(name: str, a: Any, b: Any) -> None:
    assert comparable(name, a) == comparable(name, b)


@pytest.mark.parametrize(
    ("name", "a", "b"),
    [
        ("firstName", "alice", "Alice"),  # only e-mail fields ignore case
        ("firstName", " Alice", "Alice"),  # leading white space is kept
        ("active", True, False),
        ("startDate", date(2024, 1, 15), "2024-01-16"),
    ],
)
def test_different_values(name: str, a: Any, b: Any) -> None:
    assert comparable(name, a) != comparable(name, b)


def test_json_values_carry_dates_as_text() -> None:
    value = {"start": date(2024, 1, 15), "at": [datetime(2024, 1, 15, 9, 30)]}
    assert json_value(value) == {"start": "2024-01-15", "at": ["2024-01-15T09:30:00"]}


@pytest.mark.parametrize(
    ("ident", "path"), [(7, "/api/employees/7"), ("a b/c", "/api/employees/a%20b%2Fc")]
)
def test_ids_are_opaque_path_segments(ident: Any, path: str) -> None:
    assert employee_path(ident) == path
