"""`companies`: companies, matched by name. This module is its row of the table of kinds; the
package holds the rest of the kind (`kinds/__init__.py` lists its modules).
"""

from __future__ import annotations

from reconciler.kinds.companies.model import Company
from reconciler.manifest.kinds import HELPDESK, NO_DELETE, KeyForm, KindSpec
from reconciler.manifest.models import Kind

ROW = KindSpec(
    Kind.companies, HELPDESK, "name", KeyForm.NAME, Company, "company",
    custom_field_usage=4, exclusive=("email_domains",),
    # A user's company is checked against the live ones: CreateUser/UpdateUser would
    # create a missing one as a side effect, and a company cannot be deleted.
    read_for=((Kind.assets, "company"), (Kind.users, "company")),
    prune_refused=NO_DELETE.format("companies"), renamable=True,
    renamed_if="email_domains",
)  # fmt: skip
