"""The manifest entry of `users` (DESIGN §2): its model, from which the JSON Schema
is written; its row in the table of kinds is beside it (`__init__.py`)."""

from __future__ import annotations

from pydantic import Field

from reconciler.manifest.models import _CUSTOM_FIELDS, CustomFields, NonEmpty, _previously, _Strict
from reconciler.manifest.values import Email, StrictBool


class User(_Strict):
    """A helpdesk user (`users`), matched by username. Passwords never appear here."""

    username: NonEmpty = Field(description="Key, case-insensitive.", examples=["alice"])
    previously: list[NonEmpty] | None = _previously()
    email: Email | None = Field(None, description="Required to create the user.")
    first_name: str | None = None
    last_name: str | None = None
    phone: str | None = None
    location: str | None = None
    notes: str | None = None
    company: NonEmpty | None = Field(None, description="The company's name.")
    department: NonEmpty | None = Field(None, description="The department's name.")
    is_admin: StrictBool | None = None
    disabled: StrictBool | None = Field(None, description="A disabled user cannot log in.")
    send_welcome_email: StrictBool = Field(
        False, description="Only on creation: send the welcome e-mail."
    )
    custom_fields: CustomFields | None = Field(None, description=_CUSTOM_FIELDS)
