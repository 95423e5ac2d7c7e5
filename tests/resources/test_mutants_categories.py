"""A category create whose answer was lost: apply asks `locate` whether it exists now. A
name may live in several sections, so the category found is the one in the section the
change creates it in, never a namesake elsewhere (which would be taken for the new one
and the create skipped). Issue 26, survivor categories.py:89 of tuning seed 1026."""

from __future__ import annotations

import asyncio
from typing import Any, cast

from reconciler.manifest import DesiredState
from reconciler.plans import Action, Change, FieldChange
from reconciler.resources.categories import CategoriesResource

NO_DESIRED = cast(DesiredState, None)  # locate looks only at the live service
LISTED = [
    {"CategoryID": 3, "Name": "Hardware", "SectionID": 1, "Section": "IT"},
    {"CategoryID": 5, "Name": "hardware", "SectionID": 2, "Section": "Facilities"},
]


class Helpdesk:
    async def categories(self) -> list[dict[str, Any]]:
        return LISTED


def locate(key: str, section: str | None) -> Any:
    fields = [FieldChange("name", None, key)]
    if section is not None:
        fields.append(FieldChange("section", None, section))
    change = Change("categories", key, Action.create, tuple(fields))
    return asyncio.run(CategoriesResource().locate(change, Helpdesk(), None, NO_DESIRED))


def test_a_lost_category_create_is_found_in_its_own_section() -> None:
    assert locate("Hardware", "facilities") == 5
    assert locate("Hardware", "IT") == 3
    assert locate("Hardware", "Finance") is None
    assert locate("Software", "IT") is None


def test_without_a_section_the_first_of_that_name_is_found() -> None:
    assert locate("HARDWARE", None) == 3
