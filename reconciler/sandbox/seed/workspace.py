"""The `workspace` section of a seed: API keys and employees, checked as the workspace API
(reconciler/sandbox/workspace.py) checks them."""

from __future__ import annotations

import secrets
from typing import Any

from reconciler.sandbox.seed.checker import Checker
from reconciler.sandbox.seed.entry import Entry, iso_date
from reconciler.sandbox.seed.reading import SeedNode
from reconciler.sandbox.workspace import EMPLOYEE_EMAIL, EMPLOYEE_OPTIONAL, EMPLOYEE_REQUIRED

WORKSPACE_FIELDS = "api_keys employees"
EMPLOYEE_FIELDS = " ".join(EMPLOYEE_REQUIRED + tuple(EMPLOYEE_OPTIONAL))


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


def _employee(c: Checker, entry: Entry) -> None:
    """The employee fields as workspace.py checks and stores them."""
    fields: dict[str, Any] = {n: entry.text(n, required=True) for n in EMPLOYEE_REQUIRED}
    email = fields["email"]
    if email is not None and not EMPLOYEE_EMAIL.match(email):
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
