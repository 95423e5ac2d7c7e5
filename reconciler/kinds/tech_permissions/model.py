"""The manifest entry of `tech_permissions` (DESIGN §2): its model, from which the JSON Schema
is written; its row in the table of kinds is beside it (`__init__.py`)."""

from __future__ import annotations

from pydantic import Field

from reconciler.manifest.models import NonEmpty, _Strict


class TechPermission(_Strict):
    """The technicians allowed on one category (`tech_permissions`)."""

    category: NonEmpty = Field(description="Key: the category's name.")
    technicians: list[NonEmpty] = Field(description="Usernames; authoritative for this category.")
