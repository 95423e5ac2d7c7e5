"""`employees`: workspace employees, keyed by `settings.employee_key`. This module is its row
of the table of kinds; the package holds the rest of the kind (`kinds/__init__.py` lists its
modules).
"""

from __future__ import annotations

from reconciler.kinds.employees.model import Employee
from reconciler.manifest.kinds import WORKSPACE, KeyForm, KindSpec
from reconciler.manifest.models import Kind

ROW = KindSpec(
    Kind.employees, WORKSPACE, None, KeyForm.FIELD, Employee, "employee",
    export_file="workspace.yaml",
    prune_warning="deletes employees missing from the manifests, and that cannot be "
    "undone",
    unique=("email",), renamable=True,
)  # fmt: skip
