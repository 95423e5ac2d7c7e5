"""The resources package's public names: what `from reconciler.resources import *` (and
of `base`, the register of kinds and the users' planner) gives a library user, and which
kinds can find again an object whose create lost its answer (`LOCATORS`: apply asks them
before creating a second one)."""

from __future__ import annotations

import pytest

from reconciler.kinds.register import BY_KIND, LOCATORS, RESOURCES


@pytest.mark.parametrize(
    ("module", "names"),
    [
        (
            "reconciler.resources",
            {
                "KindPlan",
                "PlanContext",
                "Resource",
                "norm_key",
            },
        ),
        (
            "reconciler.resources.base",
            {
                "ByName",
                "KindPlan",
                "KindResource",
                "LiveData",
                "PlanContext",
                "Reader",
                "Resource",
                "norm_key",
            },
        ),
        (
            "reconciler.kinds.register",
            {
                "BY_KIND",
                "CONVERTERS",
                "LOCATORS",
                "REGISTER",
                "RESOURCES",
                "Convert",
                "Locate",
                "Registered",
            },
        ),
        (
            "reconciler.kinds.users.planner",
            {"LiveUser", "LiveUsers", "UsersResource", "parse_user", "record_changes"},
        ),
    ],
)
def test_a_star_import_gives_the_public_names(module: str, names: set[str]) -> None:
    namespace: dict[str, object] = {}
    exec(f"from {module} import *", namespace)
    assert set(namespace) - {"__builtins__"} == names


def test_the_kinds_whose_lost_creates_are_looked_for() -> None:
    assert sorted(LOCATORS) == [
        "assets",
        "categories",
        "companies",
        "users",
        "workspace.employees",
    ]
    for kind, locate in LOCATORS.items():
        assert locate.__self__ is BY_KIND[kind]  # type: ignore[attr-defined]
        assert BY_KIND[kind] in RESOURCES
