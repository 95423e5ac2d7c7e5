"""The manifest entry of `companies` (DESIGN §2): its model, from which the JSON Schema
is written; its row in the table of kinds is beside it (`__init__.py`)."""

from __future__ import annotations

from pydantic import Field

from reconciler.manifest.models import _CUSTOM_FIELDS, CustomFields, NonEmpty, _previously, _Strict
from reconciler.manifest.values import Hostname


class Company(_Strict):
    """A company (`companies`), matched by name."""

    name: NonEmpty = Field(description="Key, case-insensitive.", examples=["Acme Corp"])
    previously: list[NonEmpty] | None = _previously()
    email_domains: list[Hostname] | None = Field(
        None,
        description="E-mail domains of the company's users; compared as a set.",
        examples=[["acme.com", "acme.co.uk"]],
    )
    notes: str | None = None
    custom_fields: CustomFields | None = Field(None, description=_CUSTOM_FIELDS)
