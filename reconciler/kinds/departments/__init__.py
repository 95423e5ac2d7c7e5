"""`departments`: departments, which the API creates only through a user naming one. Here:
its manifest entry (DESIGN §2: the model, from which the JSON Schema is written) and its row
of the table of kinds; the rest of the kind beside them (`kinds/__init__.py`).
"""

from __future__ import annotations

from pydantic import Field

from reconciler.manifest.kinds import HELPDESK, NO_DELETE, KeyForm, KindSpec
from reconciler.manifest.models import Kind, NonEmpty, _Strict


class Department(_Strict):
    """A department (`departments`): the API creates one only through a user naming it."""

    name: NonEmpty = Field(description="Key, case-insensitive.", examples=["IT"])


ROW = KindSpec(
    Kind.departments, HELPDESK, "name", KeyForm.NAME, Department, "department",
    # The Users list carries only a DepartmentID: its name comes from here.
    read_for=((Kind.users, None),),
    prune_refused=NO_DELETE.format("departments"),
    rename_instead="name the new department on its users (UpdateUser creates it), then "
    "rename or delete the old one in the helpdesk's admin panel",
)  # fmt: skip
