"""`automation_rules`: automation rules, addressed by id: only enabled or disabled. Here:
its manifest entry (DESIGN §2: the model, from which the JSON Schema is written) and its row
of the table of kinds; the rest of the kind beside them (`kinds/__init__.py`).
"""

from __future__ import annotations

from pydantic import Field

from reconciler.manifest.kinds import HELPDESK, KeyForm, KindSpec
from reconciler.manifest.models import Kind, NonEmpty, _Strict
from reconciler.manifest.values import Id32, StrictBool


class AutomationRule(_Strict):
    """An automation rule's state (`automation_rules`): only enabled or disabled."""

    id: Id32 = Field(description="Key: rules are addressed by id (the API cannot list them).")
    name: NonEmpty | None = Field(None, description="When given, it must match the live rule.")
    enabled: StrictBool


ROW = KindSpec(
    Kind.automation_rules, HELPDESK, "id", KeyForm.ID, AutomationRule, "automation rule",
    prune_refused="the API cannot list automation rules, so rules missing from the "
    "manifests cannot be found (disable one with `enabled: false`)",
    rename_instead="rules are addressed by their id, which never changes: use the new "
    "rule's id",
)  # fmt: skip
