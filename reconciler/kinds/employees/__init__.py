"""`employees`: workspace employees, keyed by `settings.employee_key`. Here: its manifest
entry (DESIGN §2: the model, from which the JSON Schema is written) and its row of the table
of kinds; the rest of the kind beside them (`kinds/__init__.py`).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from reconciler.manifest.kinds import WORKSPACE, KeyForm, KindSpec
from reconciler.manifest.models import Kind, NonEmpty, _previously
from reconciler.manifest.values import Email


class Employee(BaseModel):
    """An open mapping of the workspace service's employee fields, passed through as
    written; `settings.employee_key` (default `email`) names its key."""

    model_config = ConfigDict(extra="allow", frozen=True)

    email: Email | None = Field(
        None, description="An e-mail address, checked as users' e-mails are (offline)."
    )
    previously: list[NonEmpty] | None = _previously()

    @property
    def fields(self) -> dict[str, Any]:
        """The fields as written, `email` among them when given."""
        given = {"email": self.email} if "email" in self.model_fields_set else {}
        return {**given, **(self.model_extra or {})}


ROW = KindSpec(
    Kind.employees, WORKSPACE, None, KeyForm.FIELD, Employee, "employee",
    export_file="workspace.yaml",
    prune_warning="deletes employees missing from the manifests, and that cannot be "
    "undone",
    unique=("email",), renamable=True,
)  # fmt: skip
