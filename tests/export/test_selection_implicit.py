"""Exporting the technicians of some categories from a helpdesk that lists implicit
technicians (administrators and all-category technicians appear in every category,
quirk techs-list-implicit): a technician listed in every category read may be an
all-category technician, or hold a permission row there; only the other categories'
listings tell, so the export reads them too and writes only the permission rows."""

from __future__ import annotations

from pathlib import Path

from reconciler.export.selection import Selection
from tests.export.sandbox import describe, round_trip, seeded


def test_one_category_reads_the_others_to_tell_a_row_from_implicit_access(
    tmp_path: Path,
) -> None:
    state, credentials = seeded("techs-list-implicit")
    selection = Selection.build(targets=["tech_permissions/Hardware"])
    trip = round_trip(state, credentials, tmp_path, selection)
    # Hardware lists tina (her row) beside the administrators admin and helen: the five
    # categories are read, and tina, absent from Software and Facilities, holds a row.
    paths = [r["path"] for r in trip.requests]
    assert sum(p.endswith("/api/TechsForCategory") for p in paths) == 5
    [hardware] = trip.desired.manifest.tech_permissions
    assert (hardware.category, list(hardware.technicians)) == ("Hardware", ["tina"])
    assert describe(trip.plan) == []
