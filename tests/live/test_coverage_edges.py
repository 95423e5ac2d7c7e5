"""Coverage of technician permissions from a live state that holds their lists but not
the categories (a read of the permissions alone): which categories exist is unknown, so
the kind is reported as read by name only, never as fully covered. With the categories
but not the users read, no technician is known to be an administrator."""

from __future__ import annotations

from reconciler.kinds.categories.reader import LiveCategories, LiveCategory
from reconciler.kinds.tech_permissions.reader import LiveTechPermissions, Technician
from reconciler.live import LiveState
from reconciler.live.coverage import NAMED_ONLY, live_objects


def test_permissions_without_the_categories_read_are_named_only() -> None:
    permissions = LiveTechPermissions({1: (Technician(2, "tina"),)}, {1: "Hardware"})
    live = LiveState({"tech_permissions": permissions})
    assert live_objects("tech_permissions", live) == NAMED_ONLY


def test_without_the_users_read_every_listed_technician_counts() -> None:
    categories = LiveCategories.from_items(
        [LiveCategory(1, "Hardware", None, None), LiveCategory(2, "Network", None, None)]
    )
    permissions = LiveTechPermissions(
        {1: (Technician(2, "tina"),), 2: ()}, {1: "Hardware", 2: "Network"}
    )
    live = LiveState({"categories": categories, "tech_permissions": permissions})
    assert live_objects("tech_permissions", live) == ({"hardware": "Hardware"}, set())
