"""An `AssignedUsers` element in each shape a version sends: an object (id and name under
their spellings), a bare id (number or digits), or a bare username. A flag is no id."""

from __future__ import annotations

from typing import Any

import pytest

from reconciler.kinds.assets.reader import AssignedUser, parse_assigned


@pytest.mark.parametrize(
    ("item", "user"),
    [
        ({"UserID": 7, "Username": " amy "}, AssignedUser(7, "amy")),
        ({"id": "8", "login": "bob"}, AssignedUser(8, "bob")),
        ({"Name": "cy"}, AssignedUser(None, "cy")),
        (9, AssignedUser(9, None)),
        (" 10 ", AssignedUser(10, None)),
        ("dee", AssignedUser(None, "dee")),
        (True, AssignedUser(None, "True")),  # a flag, not user 1
    ],
)
def test_each_shape_of_an_assigned_user(item: Any, user: AssignedUser) -> None:
    assert parse_assigned(item) == user
