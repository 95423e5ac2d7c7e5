"""Reading the live state for an export: every object of the chosen kinds (the only I/O
of an export), parsed with the resource modules' own parsers so that what is written is
what `plan` will read.

The custom field definitions first, then the lists, concurrently (the client keeps
within the rate budget), and the per-object reads, only for the objects the selection
exports: company and user custom field values (skipped when no field of that kind is
defined), the technicians of each exported category. Assets are listed with the
disabled ones; when the listing does not say which are disabled, a second listing
without them tells.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from reconciler.clients import RuleInfo, parse_rule
from reconciler.errors import ApiError, UsageError
from reconciler.export.selection import EMPLOYEES, RULES, Selection
from reconciler.resources.asset_records import LiveAsset, parse_asset
from reconciler.resources.base import norm_key
from reconciler.resources.categories import LiveCategories, parse_category
from reconciler.resources.companies import LiveCompany, parse_company
from reconciler.resources.custom_fields import (
    USAGE,
    CustomFieldCatalogue,
    FieldDefinition,
    parse_definition,
)
from reconciler.resources.departments import LiveDepartments
from reconciler.resources.tech_permissions import Technician, parse_technician
from reconciler.resources.user_records import LiveUser, parse_user

OnRead = Callable[[str], None]


@dataclass
class LiveSnapshot:
    """What was read. Lists are complete (other kinds look names up in them); per-object
    details (custom values, technicians) are filled for the exported objects only."""

    kinds: tuple[str, ...]  # the kinds exported
    catalogue: CustomFieldCatalogue = field(default_factory=lambda: CustomFieldCatalogue({}))
    companies: list[LiveCompany] = field(default_factory=list)
    departments: LiveDepartments = field(default_factory=lambda: LiveDepartments({}))
    categories: LiveCategories = field(default_factory=lambda: LiveCategories({}))
    technicians: dict[int, tuple[Technician, ...]] = field(default_factory=dict)
    users: list[LiveUser] = field(default_factory=list)
    assets: list[LiveAsset] = field(default_factory=list)
    rules: dict[int, RuleInfo] = field(default_factory=dict)
    employees: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def exported_category_ids(categories: LiveCategories, selection: Selection) -> list[int]:
    """The categories whose technicians are exported: one per name (manifests key
    categories by name; the first by id, as `categories` exports it), selected."""
    chosen = []
    for group in categories.by_key.values():
        first = group[0]
        if selection.wants("tech_permissions", first.name):
            chosen.append(first.id)
    return sorted(chosen)


class SnapshotReader:
    def __init__(
        self,
        selection: Selection,
        kinds: tuple[str, ...],
        helpdesk: Any,
        workspace: Any,
        on_read: OnRead | None = None,
    ) -> None:
        self.selection = selection
        self.kinds = kinds
        self.helpdesk = helpdesk
        self.workspace = workspace
        self._on_read = on_read or (lambda kind: None)
        self.snapshot = LiveSnapshot(kinds)

    def needs(self, *kinds: str) -> bool:
        return any(kind in self.kinds for kind in kinds)

    async def read(self) -> LiveSnapshot:
        # The field definitions first: without them, no value read would be needed.
        await self._catalogue()
        await asyncio.gather(
            self._companies(),
            self._departments_and_users(),
            self._categories(),
            self._assets(),
            self._rules(),
            self._employees(),
        )
        return self.snapshot

    async def _catalogue(self) -> None:
        usages = [USAGE[k] for k in ("assets", "users", "companies") if k in self.kinds]
        found = await asyncio.gather(*(self.helpdesk.custom_fields(u) for u in usages))
        by_usage: dict[int, dict[str, FieldDefinition]] = {}
        for usage, raws in zip(usages, found, strict=True):
            fields: dict[str, FieldDefinition] = {}
            for raw in raws:
                if int(raw.get("UsageType") or usage) != usage:
                    continue  # as the planner's catalogue does
                definition = parse_definition(raw, {})
                fields[norm_key(definition.name)] = definition
            by_usage[usage] = fields
        self.snapshot.catalogue = CustomFieldCatalogue(by_usage)

    async def _companies(self) -> None:
        if not self.needs("companies", "assets"):
            return
        companies = [parse_company(raw) for raw in await self.helpdesk.companies()]
        if "companies" in self.kinds:
            companies = await self._with_values(
                companies, "companies", self.helpdesk.company_custom_fields
            )
            self._on_read("companies")
        self.snapshot.companies = companies

    async def _departments_and_users(self) -> None:
        if not self.needs("departments", "users", "assets"):
            return
        departments = LiveDepartments({})
        if self.needs("departments", "users"):
            by_key: dict[str, tuple[int, str]] = {}
            for raw in await self.helpdesk.departments():
                ident = int(raw.get("DepartmentID") or raw.get("DepartmentId") or raw["ID"])
                name = str(raw.get("Name") or "")
                by_key[norm_key(name)] = (ident, name)  # the last wins, as in the planner
            departments = LiveDepartments(by_key)
            self.snapshot.departments = departments
            if "departments" in self.kinds:
                self._on_read("departments")
        if not self.needs("users", "assets"):
            return
        users = []
        for raw in await self.helpdesk.users():
            user = parse_user(raw, departments)
            department_id = raw.get("DepartmentID", raw.get("DepartmentId"))
            if user.department is None and department_id and "users" in self.kinds:
                self.snapshot.notes.append(
                    f"users/{user.username}: department is left out: its id {department_id} "
                    "is not among the departments listed"
                )
            users.append(user)
        if "users" in self.kinds:
            users = await self._with_values(users, "users", self.helpdesk.user_custom_fields)
            self._on_read("users")
        self.snapshot.users = users

    async def _with_values(
        self,
        objects: list[Any],
        kind: str,
        read: Callable[[int], Awaitable[list[dict[str, Any]]]],
    ) -> list[Any]:
        """`objects` with `custom_values` read for those exported (when any field exists)."""
        if not self.snapshot.catalogue.by_usage.get(USAGE[kind]):
            return objects
        key = "name" if kind == "companies" else "username"
        wanted = [o for o in objects if self.selection.wants(kind, getattr(o, key))]
        found = await asyncio.gather(*(read(o.id) for o in wanted))
        values = {o.id: tuple(items) for o, items in zip(wanted, found, strict=True)}
        return [replace(o, custom_values=values[o.id]) if o.id in values else o for o in objects]

    async def _categories(self) -> None:
        if not self.needs("categories", "tech_permissions"):
            return
        raw = await self.helpdesk.categories()
        categories = LiveCategories.from_items([parse_category(item) for item in raw])
        self.snapshot.categories = categories
        if "categories" in self.kinds:
            self._on_read("categories")
        if "tech_permissions" not in self.kinds:
            return
        ids = exported_category_ids(categories, self.selection)
        found = await asyncio.gather(*(self.helpdesk.techs_for_category(i) for i in ids))
        self.snapshot.technicians = {
            i: tuple(parse_technician(t) for t in items)
            for i, items in zip(ids, found, strict=True)
        }
        self._on_read("tech_permissions")

    async def _assets(self) -> None:
        if "assets" not in self.kinds:
            return
        assets = [parse_asset(raw) for raw in await self.helpdesk.assets(include_disabled=True)]
        if any(a.enabled is None for a in assets):
            enabled = {parse_asset(raw).id for raw in await self.helpdesk.assets(False)}
            assets = [
                a if a.enabled is not None else replace(a, enabled=a.id in enabled) for a in assets
            ]
        self.snapshot.assets = assets
        self._on_read("assets")

    async def _rules(self) -> None:
        if RULES not in self.kinds:
            return
        ids = self.selection.rule_ids
        found = await asyncio.gather(*(self._rule(i) for i in ids))
        missing = [str(i) for i, info in zip(ids, found, strict=True) if info is None]
        if missing:
            raise UsageError(
                f"no automation rule with id {', '.join(missing)}: check the ids given with "
                "--rule-ids (the helpdesk's automation rules page shows them)"
            )
        self.snapshot.rules = {
            i: info for i, info in zip(ids, found, strict=True) if info is not None
        }
        self._on_read(RULES)

    async def _rule(self, rule_id: int) -> RuleInfo | None:
        try:
            xml = await self.helpdesk.rule_xml(rule_id)
        except ApiError as exc:
            if exc.status == 404:
                return None
            raise
        return parse_rule(xml, rule_id=rule_id)

    async def _employees(self) -> None:
        if EMPLOYEES not in self.kinds:
            return
        self.snapshot.employees = list(await self.workspace.employees())
        self._on_read(EMPLOYEES)
