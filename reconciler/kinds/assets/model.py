"""The manifest entry of `assets` (DESIGN §2): its model, from which the JSON Schema
is written; its row in the table of kinds is beside it (`__init__.py`)."""

from __future__ import annotations

from pydantic import Field

from reconciler.manifest.models import _CUSTOM_FIELDS, CustomFields, NonEmpty, _previously, _Strict
from reconciler.manifest.values import Id32, StrictBool


class Asset(_Strict):
    """An asset (`assets`), matched by serial number."""

    serial_number: NonEmpty = Field(description="Key.", examples=["SN-0001"])
    previously: list[NonEmpty] | None = _previously()
    model_name: NonEmpty | None = Field(None, description="Required to create the asset.")
    manufacturer: NonEmpty | None = Field(None, description="Required to create the asset.")
    type: NonEmpty | None = Field(None, description="Required to create the asset.")
    supplier: NonEmpty | None = Field(None, description="Required to create the asset.")
    location: str | None = None
    comments: str | None = None
    quantity: Id32 | None = None
    company: NonEmpty | None = Field(None, description="The company's name.")
    assigned_users: list[NonEmpty] | None = Field(
        None, description="Usernames; authoritative when given."
    )
    enabled: StrictBool | None = Field(None, description="false disables the asset.")
    custom_fields: CustomFields | None = Field(None, description=_CUSTOM_FIELDS)
