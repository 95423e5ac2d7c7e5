"""The manifest entry of `departments` (DESIGN §2): its model, from which the JSON Schema
is written; its row in the table of kinds is beside it (`__init__.py`)."""

from __future__ import annotations

from pydantic import Field

from reconciler.manifest.models import NonEmpty, _Strict


class Department(_Strict):
    """A department (`departments`): the API creates one only through a user naming it."""

    name: NonEmpty = Field(description="Key, case-insensitive.", examples=["IT"])
