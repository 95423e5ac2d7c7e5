"""`assets`: assets, matched by serial number: serial numbers compare as names (`sn-0001` in a
manifest and `SN-0001` live are one asset, and telling them apart would create a duplicate
and, under prune, disable the original). Its manifest entry (DESIGN §2; the JSON Schema is
written from the model) and its row of the table of kinds."""

from __future__ import annotations

from pydantic import Field

from reconciler.manifest.kinds import HELPDESK, KeyForm, KindSpec
from reconciler.manifest.models import (
    _CUSTOM_FIELDS,
    CustomFields,
    Kind,
    NonEmpty,
    _previously,
    _Strict,
)
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


ROW = KindSpec(
    Kind.assets, HELPDESK, "serial_number", KeyForm.NAME, Asset, "asset",
    references=(("company", Kind.companies), ("assigned_users", Kind.users)),
    export_reads=(Kind.companies, Kind.users), custom_field_usage=2, renamable=True,
    renamed_if="serial_number",
)  # fmt: skip
