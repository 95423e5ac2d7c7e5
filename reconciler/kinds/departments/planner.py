"""Departments: keyed by name. The API has no call that creates, renames or deletes a
department: one comes into being when `CreateUser`/`UpdateUser` names it. So a
department the manifests want is created through a managed user that names it, and one
that no managed user carries is an error with the remedy."""

from __future__ import annotations

from reconciler.kinds.departments.reader import KIND, LiveDepartments, read_departments
from reconciler.kinds.table import references_to
from reconciler.plans import Action, FieldChange, address
from reconciler.resources.base import KindPlan, KindResource, PlanContext, Planner, norm_key


def _carriers(ctx: PlanContext) -> dict[str, tuple[str, str]]:
    """Normalised department name -> (kind, key) of the first managed entry that names it
    (a user, through the table's references), whose create or update creates it."""
    carriers: dict[str, tuple[str, str]] = {}
    named_by = [
        (row, field) for row, field in references_to(KIND) if field not in ctx.ignored(row.name)
    ]
    for row, field in named_by:
        key = row.key_field_for(ctx.desired.settings.employee_key)
        for entry in ctx.desired.entries(row.name):
            if name := getattr(entry, field):
                carriers.setdefault(norm_key(name), (row.name, str(getattr(entry, key))))
    return carriers


class DepartmentsResource(KindResource):
    kind = KIND

    read = staticmethod(read_departments)

    def diff(self, ctx: PlanContext) -> KindPlan:
        live = ctx.live_of(KIND, LiveDepartments) or LiveDepartments({})
        planner = Planner(ctx, KIND)
        carriers = _carriers(ctx)
        for department in ctx.desired.manifest.departments:
            name = department.name
            found = carriers.get(norm_key(name))
            if live.get(name) is not None:
                continue
            if found is None:
                planner.problem(
                    name,
                    "does not exist, and the API creates departments only through a "
                    "user that names one",
                    f"give a managed user `department: {name}`, or create "
                    "the department in the helpdesk's admin panel",
                )
                continue
            planner.change(
                name,
                Action.create,
                [FieldChange("name", None, name)],
                [],
                depends_on=(address(*found),),
                reason=f'created by {found[0]}["{found[1]}"], which names it',
            )
        if ctx.prunes(KIND):
            wanted = {norm_key(d.name) for d in ctx.desired.manifest.departments} | set(carriers)
            for key, (_, name) in sorted(live.by_key.items()):
                if key not in wanted:
                    planner.undeletable(name, "delete it in the helpdesk's admin panel")
        return planner.result
