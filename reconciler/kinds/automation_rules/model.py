"""The manifest entry of `automation_rules` (DESIGN §2): its model, from which the JSON Schema
is written; its row in the table of kinds is beside it (`__init__.py`)."""

from __future__ import annotations

from pydantic import Field

from reconciler.manifest.models import NonEmpty, _Strict
from reconciler.manifest.values import Id32, StrictBool


class AutomationRule(_Strict):
    """An automation rule's state (`automation_rules`): only enabled or disabled."""

    id: Id32 = Field(description="Key: rules are addressed by id (the API cannot list them).")
    name: NonEmpty | None = Field(None, description="When given, it must match the live rule.")
    enabled: StrictBool
