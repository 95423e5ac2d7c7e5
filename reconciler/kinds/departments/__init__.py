"""`departments`: departments, which the API creates only through a user naming one. This
module is its row of the table of kinds; the package holds the rest of the kind
(`kinds/__init__.py` lists its modules).
"""

from __future__ import annotations

from reconciler.kinds.departments.model import Department
from reconciler.manifest.kinds import HELPDESK, NO_DELETE, KeyForm, KindSpec
from reconciler.manifest.models import Kind

ROW = KindSpec(
    Kind.departments, HELPDESK, "name", KeyForm.NAME, Department, "department",
    # The Users list carries only a DepartmentID: its name comes from here.
    read_for=((Kind.users, None),),
    prune_refused=NO_DELETE.format("departments"),
    rename_instead="name the new department on its users (UpdateUser creates it), then "
    "rename or delete the old one in the helpdesk's admin panel",
)  # fmt: skip
