"""`companies`: companies, matched by name. Its manifest entry (DESIGN §2; the JSON Schema is
written from the model) and its row of the table of kinds."""

from __future__ import annotations

from pydantic import Field

from reconciler.manifest.kinds import HELPDESK, NO_DELETE, KeyForm, KindSpec
from reconciler.manifest.models import (
    _CUSTOM_FIELDS,
    CustomFields,
    Kind,
    NonEmpty,
    _previously,
    _Strict,
)
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


ROW = KindSpec(
    Kind.companies, HELPDESK, "name", KeyForm.NAME, Company, "company",
    custom_field_usage=4, exclusive=("email_domains",),
    # A user's company is checked against the live ones: CreateUser/UpdateUser would
    # create a missing one as a side effect, and a company cannot be deleted.
    read_for=((Kind.assets, "company"), (Kind.users, "company")),
    prune_refused=NO_DELETE.format("companies"), renamable=True,
    renamed_if="email_domains",
)  # fmt: skip
