"""`categories`: ticket categories, matched by name (and section). Its manifest entry (DESIGN
§2; the JSON Schema is written from the model) and its row of the table of kinds."""

from __future__ import annotations

from pydantic import Field

from reconciler.manifest.kinds import HELPDESK, NO_DELETE, KeyForm, KindSpec
from reconciler.manifest.models import Kind, NonEmpty, _Strict


class Category(_Strict):
    """A ticket category (`categories`), matched by name."""

    name: NonEmpty = Field(description="Key, case-insensitive.", examples=["Hardware"])
    section: NonEmpty | None = Field(None, description="The section's name; none for no section.")


ROW = KindSpec(
    Kind.categories, HELPDESK, "name", KeyForm.NAME, Category, "category",
    read_for=((Kind.tech_permissions, None),),  # their category ids come from here
    prune_refused=NO_DELETE.format("categories"),
    rename_instead="rename it in the helpdesk's admin panel, then change its name in "
    "the manifests (and in the tech permissions that name it)",
)  # fmt: skip
