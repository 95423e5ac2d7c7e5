"""Coverage of technician permissions from a live state that holds their lists but not
the categories (a read of the permissions alone): which categories exist is unknown, so
the kind is reported as read by name only, never as fully covered."""

from __future__ import annotations

from reconciler.kinds.tech_permissions.reader import LiveTechPermissions, Technician
from reconciler.live import LiveState
from reconciler.live.coverage import NAMED_ONLY, live_objects


def test_permissions_without_the_categories_read_are_named_only() -> None:
    permissions = LiveTechPermissions({1: (Technician(2, "tina"),)}, {1: "Hardware"})
    live = LiveState({"tech_permissions": permissions})
    assert live_objects("tech_permissions", live) == NAMED_ONLY
