"""`settings.ownership` in a plan (DESIGN §9): a custom field and value that mark the
objects the manifests own, for the kinds with custom fields (companies, users, assets).

- Every listed entry wants the marker among its custom field values: a create sets it, a
  listed live object without it gets it by an update the plan shows (adoption), and one
  that has it plans nothing. The marker is added to what an entry gives, never written
  in it (`export --scope-from` leaves the field out).
- `prune` removes only the unlisted objects (in the scope) that carry the marker; the
  others are left alone and reported as unmanaged (coverage).
- A kind the manifests list with no live custom field of that name cannot carry the
  marker: when the kind is pruned, an error (prune could not tell what the manifests
  own); otherwise a warning (creates go unmarked), both at `settings.ownership`.

Pure: planning helpers, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from reconciler.kinds.custom_fields.planner import ValueProblem, desired_value, diff_values
from reconciler.kinds.custom_fields.reader import KIND as CATALOGUE
from reconciler.kinds.custom_fields.reader import (
    USAGE,
    CustomFieldCatalogue,
    FieldDefinition,
    live_value,
    unignored,
)
from reconciler.kinds.table import spec
from reconciler.plans import Diagnostic, FieldChange, Operation, Ref, address, error, warning
from reconciler.resources.base import PlanContext, Planner, norm_key

# The built-in sandbox seed whose kinds have the marker field (docs/sharing.md).
SEED_WITH_MARKER = "shared"


def marker_field(ctx: PlanContext, kind: str) -> FieldDefinition | None:
    """The live definition of the marker's field for `kind`, or None (no ownership, no
    such field, or the catalogue was not read)."""
    ownership = ctx.desired.settings.ownership
    catalogue = ctx.live_of(CATALOGUE, CustomFieldCatalogue)
    if ownership is None or catalogue is None or kind not in USAGE:
        return None
    return catalogue.field(USAGE[kind], ownership.custom_field)


def value_changes(
    planner: Planner,
    key: str,
    given: Mapping[str, Any] | None,
    live_items: Iterable[Mapping[str, Any]] | None,
    entity_id: int | Ref,
) -> tuple[list[FieldChange], list[Operation]]:
    """The changes of the custom field values the entry `key` manages, the marker
    included (`live_items` None: the object is new); their problems go to the plan."""
    ctx, kind = planner.ctx, planner.kind
    wanted = unignored(given, planner.ignored)
    definition, ownership = marker_field(ctx, kind), ctx.desired.settings.ownership
    if definition is not None and ownership is not None:
        wanted = {k: v for k, v in wanted.items() if norm_key(k) != norm_key(definition.name)}
        wanted[definition.name] = ownership.value
    if not wanted:
        return [], []
    fields, operations, problems = diff_values(
        catalogue=ctx.live_of(CATALOGUE, CustomFieldCatalogue),
        usage=USAGE[kind],
        desired=wanted,
        live_items=live_items,
        set_path=f"/api/SetCustomFieldFor{spec(kind).noun.capitalize()}",
        entity_id=entity_id,
        address=address(kind, key),
        location=ctx.location(kind, key),
        field_location=lambda name: ctx.desired.location(kind, key, "custom_fields", name),
    )
    planner.result.diagnostics += problems
    return fields, operations


def carries(ctx: PlanContext, kind: str, items: Iterable[Mapping[str, Any]] | None) -> bool:
    """Whether a live object's custom field value items hold the marker. Values not read
    (None), or no field to hold it: no, so that nothing unproven is removed."""
    definition = marker_field(ctx, kind)
    ownership = ctx.desired.settings.ownership
    if definition is None or ownership is None or items is None:
        return False
    try:
        wanted = desired_value(definition, ownership.value, kind)
    except ValueProblem:
        return False
    found = next((i for i in items if str(i.get("FieldID")) == str(definition.id)), None)
    return live_value(definition, found) == wanted


def owned(ctx: PlanContext, kind: str, items: Iterable[Mapping[str, Any]] | None) -> bool:
    """Whether prune may remove an unlisted object: always without ownership, else only
    when it carries the marker."""
    return ctx.desired.settings.ownership is None or carries(ctx, kind, items)


def marker_diagnostics(ctx: PlanContext, kind: str) -> list[Diagnostic]:
    """The kind's diagnostic when the marker's field does not exist live for it."""
    ownership = ctx.desired.settings.ownership
    catalogue = ctx.live_of(CATALOGUE, CustomFieldCatalogue)
    if ownership is None or catalogue is None or kind not in USAGE:
        return []
    if not ctx.desired.entries(kind) or marker_field(ctx, kind) is not None:
        return []
    name = ownership.custom_field
    others = [k for k in USAGE if k != kind and catalogue.field(USAGE[k], name) is not None]
    has = f" ({', '.join(others)} have one)" if others else ""
    remedy = (
        f"create a {kind} custom field named {name!r} in the helpdesk's admin panel (the "
        f"sandbox seed {SEED_WITH_MARKER} has one for users, companies and assets)"
    )
    where = ctx.desired.settings_location("ownership", "custom_field")
    if ctx.prunes(kind):
        message = (
            f"{kind} are pruned with settings.ownership, but no {kind} custom field is "
            f"named {name!r}{has}: prune cannot tell the objects the manifests own"
        )
        return [error(message, None, remedy, where)]
    message = f"no {kind} custom field is named {name!r}{has}: {kind} created go unmarked"
    return [warning(message, None, remedy, where)]
