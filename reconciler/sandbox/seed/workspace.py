"""The `workspace` section of a seed: API keys, employees, desks, assets and bookings, checked
as the workspace API (reconciler/sandbox/workspace.py) checks them."""

from __future__ import annotations

import re
import secrets
from typing import Any

from reconciler.sandbox.seed.checker import Checker
from reconciler.sandbox.seed.entry import Entry, iso_date
from reconciler.sandbox.seed.reading import SeedNode
from reconciler.sandbox.workspace import EMPLOYEE_OPTIONAL, EMPLOYEE_REQUIRED

WORKSPACE_FIELDS = "api_keys employees desks assets bookings"
EMPLOYEE_FIELDS = " ".join(EMPLOYEE_REQUIRED + tuple(EMPLOYEE_OPTIONAL))
DESK_FIELDS = "name floor location bookable"
ASSET_FIELDS = "tag name type assigned_to"
BOOKING_FIELDS = "desk employee date status"
_WS_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")  # what workspace.py accepts


def check_workspace(c: Checker, node: SeedNode | None) -> None:
    if node is None:
        return
    top = Entry(node, c.p, "'workspace'", WORKSPACE_FIELDS)
    for entry in c.entries(top.get("api_keys"), "api_keys", "an API key", "key name"):
        api_key = entry.text("key") or secrets.token_urlsafe(24)
        if any(k["key"] == api_key for k in c.plan.api_keys):
            c.p.add(entry.at("key"), "duplicate API key")
        c.plan.api_keys.append({"key": api_key, "name": entry.text("name") or ""})
    for entry in c.entries(top.get("employees"), "employees", "an employee", EMPLOYEE_FIELDS):
        _employee(c, entry)
    for entry in c.entries(top.get("desks"), "desks", "a desk", DESK_FIELDS):
        _desk(c, entry)
    tags: dict[str, SeedNode] = {}
    for entry in c.entries(top.get("assets"), "assets", "a workspace asset", ASSET_FIELDS):
        _asset(c, entry, tags)
    for entry in c.entries(top.get("bookings"), "bookings", "a booking", BOOKING_FIELDS):
        _booking(c, entry)


def _employee(c: Checker, entry: Entry) -> None:
    """The employee fields as workspace.py checks and stores them."""
    fields: dict[str, Any] = {n: entry.text(n, required=True) for n in EMPLOYEE_REQUIRED}
    email = fields["email"]
    if email is not None and not _WS_EMAIL.match(email):
        c.p.add(entry.at("email"), f"'{email}' is not an e-mail address")
    fields.update(EMPLOYEE_OPTIONAL)
    for name, default in EMPLOYEE_OPTIONAL.items():
        if isinstance(default, bool):
            fields[name] = entry.flag(name, default)
        elif entry.get(name) is not None:
            fields[name] = entry.text(name, strip=False)
    start = fields["startDate"]
    if start is not None and iso_date(start) is None:
        c.p.add(entry.at("startDate"), "'startDate' must be a date YYYY-MM-DD")
    c.put_new(c.plan.employees, email, fields, entry.at("email"), "employee email")


def _desk(c: Checker, entry: Entry) -> None:
    name = entry.text("name", required=True)
    floor = entry.get("floor")
    if floor is not None and not _is_floor(floor.value):
        c.p.add(floor, "'floor' must be a number or a text")
        floor = None
    fields = {
        "name": name,
        "floor": None if floor is None else floor.value,
        "location": entry.text("location") or None,
        "bookable": entry.flag("bookable", True),
    }
    c.put_new(c.plan.desks, name, fields, entry.at("name"), "desk")


def _asset(c: Checker, entry: Entry, tags: dict[str, SeedNode]) -> None:
    tag = entry.text("tag", required=True)
    c.put_new(tags, tag, entry.node, entry.at("tag"), "asset tag")
    fields = {"tag": tag, "name": entry.text("name", required=True)}
    fields["type"] = entry.text("type") or None
    employees = c.plan.employees
    fields["assignedTo"] = c.reference(entry, "assigned_to", employees, what="employee")
    c.plan.ws_assets.append(fields)


def _booking(c: Checker, entry: Entry) -> None:
    desks = c.plan.desks
    desk = c.reference(entry, "desk", desks, required=True)
    if desk is not None and not desks[desk]["bookable"]:
        c.p.add(entry.at("desk"), f"desk '{desks[desk]['name']}' is not bookable")
    employee = c.reference(entry, "employee", c.plan.employees, required=True)
    day = entry.text("date", required=True)
    if day is not None and iso_date(day) is None:
        c.p.add(entry.at("date"), "'date' must be a date YYYY-MM-DD")
    status = entry.text("status") or "confirmed"
    fields = {"deskId": desk, "employeeId": employee, "date": day, "status": status}
    c.plan.bookings.append(fields)


def _is_floor(value: Any) -> bool:
    return isinstance(value, int | str) and not isinstance(value, bool)
