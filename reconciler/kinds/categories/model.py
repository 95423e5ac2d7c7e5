"""The manifest entry of `categories` (DESIGN §2): its model, from which the JSON Schema
is written; its row in the table of kinds is beside it (`__init__.py`)."""

from __future__ import annotations

from pydantic import Field

from reconciler.manifest.models import NonEmpty, _Strict


class Category(_Strict):
    """A ticket category (`categories`), matched by name."""

    name: NonEmpty = Field(description="Key, case-insensitive.", examples=["Hardware"])
    section: NonEmpty | None = Field(None, description="The section's name; none for no section.")
