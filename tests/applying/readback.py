"""Read the live state back through the raw APIs (plain httpx, none of reconciler's
clients or parsers) and list every manifest field the live state does not match.

What "matches" means is spelled out here, independently of the planner: names compare
case-insensitively where the API treats them so; a dropdown value is its option's id
(`settings.custom_field_options`); dates compare as `YYYY-MM-DD`; a checkbox as
`true`/`false`; text without trailing whitespace (a YAML `|` block ends with a newline).
Only the fields a manifest entry writes are compared; a field this module does not know
how to read back is reported, so that a new manifest field cannot go unchecked.
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Mapping
from datetime import date, datetime
from typing import Any

import httpx
from pydantic import BaseModel

from reconciler.manifest.desired import DesiredState
from reconciler.manifest.document import managed_fields
from reconciler.sandbox.records import FIELD_TYPES

TYPE_NAMES = {code: name for name, code in FIELD_TYPES.items()}
ASSETS_PAGE = 50


class Readback:
    """`helpdesk`: a client whose base URL is the helpdesk's `.../api/`, authenticated;
    `workspace`: one whose base URL is the workspace's `.../api/`, with its key."""

    def __init__(
        self, helpdesk: httpx.Client, workspace: httpx.Client, desired: DesiredState
    ) -> None:
        self.hd = helpdesk
        self.ws = workspace
        self.desired = desired
        settings = desired.settings
        self.options = settings.custom_field_options
        self.problems: list[str] = []

    def get(self, path: str, **params: Any) -> Any:
        answer = self.hd.get(path, params=params)
        answer.raise_for_status()
        return answer.json()

    def mismatches(self) -> list[str]:
        self.problems = []
        manifest = self.desired.manifest
        self._companies(manifest.companies)
        self._departments(manifest.departments)
        self._categories(manifest.categories, manifest.tech_permissions)
        self._users(manifest.users)
        self._assets(manifest.assets)
        self._rules(manifest.automation_rules)
        if manifest.workspace is not None:
            self._employees(manifest.workspace.employees)
        return self.problems

    # -- comparing ------------------------------------------------------------------------

    def check(self, where: str, name: str, wanted: Any, live: Any) -> None:
        if wanted != live:
            self.problems.append(f"{where}: {name}: manifest {wanted!r}, live {live!r}")

    def index(
        self, kind: str, items: list[dict[str, Any]], key: Callable[[dict[str, Any]], str]
    ) -> dict[str, dict[str, Any]]:
        """The live objects by their key (case-insensitive); a key held by more than one
        object (a create made twice) is a problem."""
        found: dict[str, dict[str, Any]] = {}
        for item in items:
            name = key(item).casefold()
            if name in found:
                self.problems.append(f'{kind}["{key(item)}"]: more than one live object')
            found[name] = item
        return found

    def fields(self, where: str, entry: BaseModel, readers: Mapping[str, Any]) -> None:
        for name in sorted(managed_fields(entry) - {"custom_fields"}):  # see `custom`
            if name not in readers:
                self.problems.append(f"{where}: {name}: not read back by this test")
                continue
            wanted = getattr(entry, name)
            live = readers[name]
            if isinstance(wanted, list):
                wanted, live = sorted(v.casefold() for v in wanted), sorted(live)
            elif isinstance(wanted, str | None) and isinstance(live, str | None):
                wanted, live = (wanted or "").rstrip(), (live or "").rstrip()
            self.check(where, name, wanted, live)

    def custom(self, where: str, wanted: Mapping[str, Any] | None, items: Any) -> None:
        live = {item["FieldName"]: item for item in items or []}
        for name, value in (wanted or {}).items():
            item = live.get(name)
            if item is None:
                self.problems.append(f"{where}: custom_fields.{name}: no such field live")
                continue
            kind = TYPE_NAMES[item["Type"]]
            self.check(
                where,
                f"custom_fields.{name}",
                self._stored(kind, name, value, where.split("[", 1)[0]),
                _normalised(kind, item["Value"]),
            )

    def _stored(self, kind: str, field: str, value: Any, owner: str) -> str | None:
        """`owner`: the kind whose field it is (its options are that kind's)."""
        if value is None:
            return None
        if kind == "dropdown":
            if isinstance(value, Mapping):
                return str(value["option_id"])
            return str(self.options.of(owner)[field][str(value)])
        if kind == "checkbox":
            return "true" if value is True or str(value).lower() == "true" else "false"
        if kind == "date":
            return value.isoformat() if isinstance(value, date) else _date(str(value))
        return str(value).rstrip()

    # -- kinds ----------------------------------------------------------------------------

    def _companies(self, companies: list[Any]) -> None:
        live = self.index("companies", self.get("Companies"), lambda c: c["Name"])
        for company in companies:
            where = f'companies["{company.name}"]'
            found = live.get(company.name.casefold())
            if found is None:
                self.problems.append(f"{where}: missing")
                continue
            domains = [d.strip().casefold() for d in (found["EmailDomain"] or "").split(";")]
            readers = {
                "name": found["Name"],
                "email_domains": [d for d in domains if d],
                "notes": found["Notes"],
            }
            self.fields(where, company, readers)
            items = self.get("CompanyCustomFields", id=found["CompanyID"])
            self.custom(where, company.custom_fields, items)

    def _departments(self, departments: list[Any]) -> None:
        live = {d["Name"].casefold() for d in self.get("Departments")}
        for department in departments:
            if department.name.casefold() not in live:
                self.problems.append(f'departments["{department.name}"]: missing')

    def _categories(self, categories: list[Any], permissions: list[Any]) -> None:
        listed = self.get("categories")
        self.index("categories", listed, lambda c: f"{c['Section']} / {c['Name']}")
        live = {c["Name"].casefold(): c for c in listed}
        for category in categories:
            where = f'categories["{category.name}"]'
            found = live.get(category.name.casefold())
            if found is None:
                self.problems.append(f"{where}: missing")
                continue
            self.fields(where, category, {"name": found["Name"], "section": found["Section"]})
        for permission in permissions:
            where = f'tech_permissions["{permission.category}"]'
            found = live.get(permission.category.casefold())
            if found is None:
                self.problems.append(f"{where}: no such category")
                continue
            techs = self.get("TechsForCategory", id=found["CategoryID"])
            readers = {
                "category": found["Name"],
                "technicians": [t["Username"].casefold() for t in techs],
            }
            self.fields(where, permission, readers)

    def _users(self, users: list[Any]) -> None:
        listed = self.get("Users", listMode="all", count=500)
        live = self.index("users", listed, lambda u: u["Username"])
        for user in users:
            where = f'users["{user.username}"]'
            found = live.get(user.username.casefold())
            if found is None:
                self.problems.append(f"{where}: missing")
                continue
            detail = self.get("User", userId=found["UserID"])
            readers = {
                "username": detail["Username"],
                "email": detail["Email"],
                "first_name": detail["FirstName"],
                "last_name": detail["LastName"],
                "phone": detail["Phone"],
                "location": detail["Location"],
                "notes": detail["Notes"],
                "company": detail["CompanyName"],
                "department": detail["Departman"],
                "is_admin": detail["IsAdmin"],
                "disabled": detail["Disabled"],
            }
            self.fields(where, user, readers)
            items = self.get("UserCustomFields", id=found["UserID"])
            self.custom(where, user.custom_fields, items)

    def _asset_pages(self, **params: Any) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        page = 1
        while True:
            batch = self.get("Assets", page=page, **params)
            found += batch
            if len(batch) < ASSETS_PAGE:
                return found
            page += 1

    def _assets(self, assets: list[Any]) -> None:
        every = self._asset_pages(includeDisabled="true")
        enabled = {a["ItemID"] for a in self._asset_pages()}
        serials = [a for a in every if a["SerialNumber"]]
        live = self.index("assets", serials, lambda a: str(a["SerialNumber"]))
        companies = {c["CompanyID"]: c["Name"] for c in self.get("Companies")}
        for asset in assets:
            where = f'assets["{asset.serial_number}"]'
            found = live.get(asset.serial_number.casefold())
            if found is None:
                self.problems.append(f"{where}: missing")
                continue
            readers = {
                "serial_number": found["SerialNumber"],
                "model_name": found["ModelName"],
                "manufacturer": found["Manufacturer"],
                "type": found["Type"],
                "supplier": found["Supplier"],
                "location": found["Location"],
                "comments": found["Comments"],
                "quantity": found["Quantity"],
                "company": companies.get(found["CompanyID"]),
                "assigned_users": [u["Username"].casefold() for u in found["AssignedUsers"]],
                "enabled": found["ItemID"] in enabled,
            }
            self.fields(where, asset, readers)
            self.custom(where, asset.custom_fields, found["Fields"])

    def _rules(self, rules: list[Any]) -> None:
        for rule in rules:
            where = f'automation_rules["{rule.id}"]'
            answer = self.hd.get(f"Rule/{rule.id}")
            answer.raise_for_status()
            document = ElementTree.fromstring(answer.text)
            readers = {
                "id": int(document.findtext("RuleID") or 0),
                "name": document.findtext("Name"),
                "enabled": (document.findtext("Enabled") or "").lower() == "true",
            }
            self.fields(where, rule, readers)

    def _employees(self, employees: list[Any]) -> None:
        answer = self.ws.get("employees")
        answer.raise_for_status()
        live = self.index("workspace.employees", answer.json(), lambda e: str(e["email"]))
        for employee in employees:
            written = employee.model_dump(exclude_unset=True)
            where = f'workspace.employees["{written["email"]}"]'
            found = live.get(str(written["email"]).casefold())
            if found is None:
                self.problems.append(f"{where}: missing")
                continue
            for name, wanted in sorted(written.items()):
                value = found.get(name)
                if name == "startDate" and wanted is not None:
                    wanted, value = _date(str(wanted)), _date(str(value))
                self.check(where, name, wanted, value)


def _date(text: str) -> str:
    return datetime.fromisoformat(text.strip()[:10]).date().isoformat()


def _normalised(kind: str, value: Any) -> str | None:
    if value is None or str(value).strip() == "":
        return None
    if kind == "checkbox":
        return str(value).strip().lower()
    if kind == "date":
        return _date(str(value))
    return str(value).rstrip()
