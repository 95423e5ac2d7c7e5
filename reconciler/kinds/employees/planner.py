"""Workspace employees: keyed by `settings.employee_key` (default `email`), read with
`GET /api/employees`, created with `POST`, updated with `PUT` (the complete record),
removed with `DELETE`, which is irreversible. The service publishes no field list, so an
entry's fields are an open set, passed through as written, and ids are opaque (a string
or an integer, kept as the service gave them).

Decisions:
- Keys compare as the manifest loader compares them (`normalise_key`): without
  surrounding white space, and case-insensitively when the key is an e-mail field.
- Only the fields an entry gives are compared (minus `ignore_fields`). Strings compare
  without trailing white space, fields whose name ends in `email` without regard to case,
  an empty string equals null, and dates as `YYYY-MM-DD` (YAML reads them as dates;
  the JSON body carries them so too).
- `id`, `createdAt` and `updatedAt` are the server's: never compared or written.
- `PUT` sends the live record without the server's fields (`id`, `createdAt`,
  `updatedAt`) with the desired fields applied, because it replaces the whole record.
- Prune deletes, but only under `settings.prune`/`--prune` and only when the manifests
  list employees at all; the change says that it cannot be undone and lists the record
  being lost. Live employees without the key field cannot be matched and are never
  deleted (one warning).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import date
from typing import Any
from urllib.parse import quote

from reconciler.kinds.employees import Employee
from reconciler.kinds.employees.reader import (
    KIND,
    SERVER_FIELDS,
    LiveEmployees,
    employee_key,
    read_employees,
)
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.kinds import email_key
from reconciler.plans import Action, Change, FieldChange, Operation, address, warning
from reconciler.resources.base import KindPlan, KindResource, PlanContext, Planner

DELETE_REASON = "not in the manifests: pruned by DELETE, which cannot be undone"


def comparable(name: str, value: Any) -> Any:
    """The form in which two values of field `name` are equal (see the decisions)."""
    if isinstance(value, date):  # and datetime
        return value.isoformat()
    if isinstance(value, str):
        text = value.rstrip()
        if not text:
            return None
        return email_key(text) if name.casefold().endswith("email") else text
    if isinstance(value, list):
        return [comparable(name, v) for v in value]
    if isinstance(value, dict):
        return {k: comparable(str(k), v) for k, v in value.items()}
    return value


def json_value(value: Any) -> Any:
    """A manifest value as the JSON body carries it."""
    if isinstance(value, date):  # and datetime
        return value.isoformat()
    if isinstance(value, list):
        return [json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    return value


def employee_path(employee_id: Any) -> str:
    return "/api/employees/" + quote(str(employee_id), safe="")


class EmployeesResource(KindResource):
    kind = KIND

    async def locate(
        self, change: Change, helpdesk: Any, workspace: Any, desired: DesiredState
    ) -> Any:
        """The id of the employee a lost `POST /api/employees` may have made, or None."""
        key_field = desired.settings.employee_key
        wanted = employee_key(key_field, change.key)
        for record in await workspace.employees():
            if employee_key(key_field, record.get(key_field)) == wanted:
                return record.get("id")
        return None

    read = staticmethod(read_employees)

    def diff(self, ctx: PlanContext) -> KindPlan:
        key_field = ctx.desired.settings.employee_key
        live = ctx.live_of(KIND, LiveEmployees) or LiveEmployees(key_field, {})
        planner = Planner(ctx, KIND)
        listed: set[str] = set()
        for entry in ctx.desired.entries_as(KIND, Employee):
            written = entry.fields.get(key_field)
            key = employee_key(key_field, written)
            if key is None:
                continue  # validation rejects an entry without its key
            listed.add(key)
            shown_key = str(written).strip()
            group = live.get(written)
            if len(group) > 1:
                planner.problem(
                    shown_key,
                    f"{len(group)} live employees (ids "
                    f"{', '.join(str(r.get('id')) for r in group)}) have this "
                    f"{key_field}, so the entry cannot tell which one it means",
                    "delete all but one of them in the workspace service, then plan "
                    "again; a deletion cannot be undone, so keep the right one",
                )
            elif group:
                _update(planner, entry, shown_key, group[0])
            else:
                _create(planner, entry, shown_key)
        _after_new_managers(planner.result)
        if ctx.prunes(KIND):
            _prune(planner, live, listed)
        return planner.result


def _managed(planner: Planner, fields: Mapping[str, Any]) -> dict[str, Any]:
    """The fields an entry (or a live record) gives that the plan compares or writes."""
    skip = planner.ignored | SERVER_FIELDS
    return {k: v for k, v in fields.items() if k not in skip}


def _create(planner: Planner, entry: Employee, key: str) -> None:
    body = {k: json_value(v) for k, v in _managed(planner, entry.fields).items()}
    fields = [FieldChange(k, None, v) for k, v in body.items()]
    operation = Operation(
        "workspace", "POST", "/api/employees", body, creates=address(KIND, key), idempotent=False
    )
    planner.change(key, Action.create, fields, [operation])


def _update(planner: Planner, entry: Employee, key: str, current: Mapping[str, Any]) -> None:
    record = {k: v for k, v in current.items() if k not in SERVER_FIELDS}
    fields: list[FieldChange] = []
    for name, value in _managed(planner, entry.fields).items():
        if comparable(name, value) != comparable(name, current.get(name)):
            fields.append(FieldChange(name, current.get(name), json_value(value)))
            record[name] = json_value(value)
    if fields:
        operation = Operation("workspace", "PUT", employee_path(current.get("id")), record)
        planner.change(key, Action.update, fields, [operation])


def _prune(planner: Planner, live: LiveEmployees, listed: set[str]) -> None:
    for key, group in sorted(live.by_key.items()):
        if key in listed:
            continue
        lost = [
            FieldChange(name, value, None)
            for name, value in group[0].items()
            if name not in SERVER_FIELDS and value not in (None, "")
        ]
        operations = [
            Operation("workspace", "DELETE", employee_path(record.get("id"))) for record in group
        ]
        shown_key = str(group[0].get(live.key_field)).strip()
        planner.change(
            shown_key, Action.delete, lost, operations, reason=DELETE_REASON, removal=True
        )
    if live.unkeyed:
        planner.result.diagnostics.append(
            warning(
                f"{live.unkeyed} live employee(s) have no {live.key_field!r}: they cannot "
                "be matched to manifest entries, so prune never deletes them",
                remedy=f"set {live.key_field!r} on them in the workspace service",
            )
        )


def _after_new_managers(result: KindPlan) -> None:
    """An employee whose `managerEmail` names an employee this plan creates is written
    after that one: a directory may refuse a manager it does not know yet. Two new
    employees managing each other are therefore a cycle, which the plan reports."""
    created = {
        comparable("email", change.operations[0].params.get("email")): change.address
        for change in result.changes
        if change.action is Action.create
    }
    for index, change in enumerate(result.changes):
        manager = comparable("managerEmail", change.operations[0].params.get("managerEmail"))
        needed = created.get(manager) if isinstance(manager, str) else None
        if needed is not None and needed != change.address:
            result.changes[index] = replace(change, depends_on=(*change.depends_on, needed))
