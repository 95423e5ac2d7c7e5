"""An export tells the user which technicians it did not write as category permissions
because they have access another way (export/entries.py): one note each, in name order,
saying through what."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.export.selection import Selection
from tests.export.sandbox import round_trip, seeded


@pytest.mark.parametrize(
    "selection",
    [
        Selection.build(targets=["tech_permissions/Hardware"]),
        Selection.build(kinds=["tech_permissions"]),
    ],
    ids=["one category", "every category"],
)
def test_technicians_with_implicit_access_are_noted_not_written(
    tmp_path: Path, selection: Selection
) -> None:
    state, credentials = seeded("techs-list-implicit")
    trip = round_trip(state, credentials, tmp_path, selection)
    assert list(trip.result.warnings) == [
        f"tech_permissions: {name} has access through the administrator role: not written as a "
        "category permission (the plan leaves it alone)"
        for name in ("admin", "helen")
    ]
    written = {t for entry in trip.desired.manifest.tech_permissions for t in entry.technicians}
    assert not written & {"admin", "helen"}


def test_every_category_with_a_permission_row_is_written(tmp_path: Path) -> None:
    state, credentials = seeded("techs-list-implicit")
    trip = round_trip(state, credentials, tmp_path, Selection.build(kinds=["tech_permissions"]))
    assert [(e.category, list(e.technicians)) for e in trip.desired.manifest.tech_permissions] == [
        ("Accounts & Access", ["priya"]),
        ("Facilities", ["felix"]),
        ("Hardware", ["tina"]),
        ("Network", ["priya", "tina"]),
        ("Software", ["omar", "priya"]),
    ]
    assert trip.plan.changes == ()
