"""`users`: helpdesk users, matched by username. Its manifest entry (DESIGN §2; the JSON Schema
is written from the model) and its row of the table of kinds."""

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


ROW = KindSpec(
    Kind.users, HELPDESK, "username", KeyForm.NAME, User, "user",
    references=(("company", Kind.companies), ("department", Kind.departments)),
    custom_field_usage=3, unique=("email",), renamable=True, renamed_if="email",
    # Ids of the users named, and the administrators (implicit technicians).
    read_for=((Kind.tech_permissions, None), (Kind.assets, "assigned_users")),
)  # fmt: skip
