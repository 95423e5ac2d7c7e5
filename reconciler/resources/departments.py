"""Departments: keyed by name. The API has no call that creates, renames or deletes a
department: one comes into being when `CreateUser`/`UpdateUser` names it. So a
department the manifests want is created through a managed user that names it, and one
that no managed user carries is an error with the remedy."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reconciler.changes import Action, Change, FieldChange, address, error, warning
from reconciler.manifest import DesiredState
from reconciler.manifest.kinds import service_of
from reconciler.resources.base import KindPlan, PlanContext, Reader, norm_key

KIND = "departments"


@dataclass(frozen=True)
class LiveDepartments:
    by_key: Mapping[str, tuple[int, str]]  # normalised name -> (id, name)

    def __len__(self) -> int:
        """The number of live objects (what the safety brake counts)."""
        return len(self.by_key)

    def digest_data(self) -> Any:
        return sorted(self.by_key.values())

    def name_of(self, department_id: int | None) -> str | None:
        for ident, name in self.by_key.values():
            if ident == department_id:
                return name
        return None

    def get(self, name: str) -> tuple[int, str] | None:
        return self.by_key.get(norm_key(name))


class DepartmentsResource:
    kind = KIND
    service = service_of(KIND)

    def needs(self, desired: DesiredState) -> bool:
        manifest = desired.manifest
        # The Users list carries only a DepartmentID: its name comes from here.
        return bool(manifest.departments) or bool(manifest.users)

    async def read(self, reader: Reader) -> LiveDepartments:
        by_key = {}
        for raw in await reader.helpdesk.departments():
            ident = int(raw.get("DepartmentID") or raw.get("DepartmentId") or raw["ID"])
            name = str(raw.get("Name") or "")
            by_key[norm_key(name)] = (ident, name)
        return LiveDepartments(by_key)

    def diff(self, ctx: PlanContext) -> KindPlan:
        live = ctx.live_of(KIND, LiveDepartments) or LiveDepartments({})
        result = KindPlan()
        users_ignore_department = "department" in ctx.ignored("users")
        carriers: dict[str, str] = {}
        if not users_ignore_department:
            for user in ctx.desired.manifest.users:
                if user.department:
                    carriers.setdefault(norm_key(user.department), user.username)
        for department in ctx.desired.manifest.departments:
            if live.get(department.name) is not None:
                continue
            addr = address(KIND, department.name)
            carrier = carriers.get(norm_key(department.name))
            if carrier is None:
                result.diagnostics.append(
                    error(
                        "does not exist, and the API creates departments only through a "
                        "user that names one",
                        addr,
                        f"give a managed user `department: {department.name}`, or create "
                        "the department in the helpdesk's admin panel",
                        ctx.location(KIND, department.name),
                    )
                )
                continue
            result.changes.append(
                Change(
                    KIND,
                    department.name,
                    Action.create,
                    (FieldChange("name", None, department.name),),
                    (),
                    depends_on=(address("users", carrier),),
                    reason=f'created by users["{carrier}"], which names it',
                )
            )
        if ctx.prunes(KIND):
            wanted = {norm_key(d.name) for d in ctx.desired.manifest.departments}
            wanted |= set(carriers)
            for key, (_, name) in sorted(live.by_key.items()):
                if key not in wanted:
                    result.diagnostics.append(
                        warning(
                            "not in the manifests, and the API cannot delete departments",
                            address(KIND, name),
                            "delete it in the helpdesk's admin panel",
                        )
                    )
        return result
