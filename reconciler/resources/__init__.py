"""One module per managed kind (DESIGN §1), plus the custom field catalogue they share.

`RESOURCES` lists them in the order they are read and planned: the catalogue, then the
kinds in the order of the table of kinds (`manifest/kinds.py`), where a kind comes after
the kinds whose ids or names it uses. `LOCATORS` find again, by natural key, an object
whose create lost its answer (apply re-reads before it would create a second one): the
`locate` methods of the resources whose creates are not idempotent (and `companies`,
idempotent by name).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from importlib import import_module
from typing import Any

from reconciler.manifest.kinds import KINDS, KindSpec
from reconciler.plans import Change
from reconciler.resources.base import KindPlan, PlanContext, Resource, norm_key
from reconciler.resources.custom_fields import CustomFieldsResource


def _resource(row: KindSpec) -> Resource:
    module, _, name = row.resource.partition(":")
    resource: Resource = getattr(import_module(module), name)()
    if resource.kind != row.name:  # pragma: no cover - a programming error
        raise RuntimeError(f"{row.resource} plans {resource.kind!r}, not {row.name!r}")
    return resource


RESOURCES: tuple[Resource, ...] = (CustomFieldsResource(), *(_resource(row) for row in KINDS))
BY_KIND: dict[str, Resource] = {resource.kind: resource for resource in RESOURCES}

Locate = Callable[[Change, Any, Any, Any], Awaitable[Any]]  # pragma: no mutate

LOCATORS: dict[str, Locate] = {
    resource.kind: resource.locate for resource in RESOURCES if hasattr(resource, "locate")
}

__all__ = [
    "BY_KIND",
    "LOCATORS",
    "RESOURCES",
    "KindPlan",
    "Locate",
    "PlanContext",
    "Resource",
    "norm_key",
]
