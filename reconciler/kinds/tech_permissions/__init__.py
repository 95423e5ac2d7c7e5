"""`tech_permissions`: the technicians allowed on each category, keyed by the category's name.
Its manifest entry (DESIGN §2; the JSON Schema is written from the model) and its row of the
table of kinds."""

from __future__ import annotations

from pydantic import Field

from reconciler.manifest.kinds import HELPDESK, KeyForm, KindSpec
from reconciler.manifest.models import Kind, NonEmpty, _Strict


class TechPermission(_Strict):
    """The technicians allowed on one category (`tech_permissions`)."""

    category: NonEmpty = Field(description="Key: the category's name.")
    technicians: list[NonEmpty] = Field(description="Usernames; authoritative for this category.")


ROW = KindSpec(
    Kind.tech_permissions, HELPDESK, "category", KeyForm.NAME, TechPermission,
    "tech permission",
    references=(("category", Kind.categories), ("technicians", Kind.users)),
    # The administrators, who are implicit technicians (never exported).
    export_reads=(Kind.users,),
    rename_instead="they follow their category: rename the category in the helpdesk's "
    "admin panel, then change `category:` here",
)  # fmt: skip
