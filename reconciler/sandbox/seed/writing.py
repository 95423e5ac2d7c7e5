"""Writing a checked `Plan` into the store, in one batch: records in dependency order, each
reference turned from a name into the id the store gave."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

from reconciler.sandbox import records
from reconciler.sandbox.seed.entry import key
from reconciler.sandbox.seed.plan import LOOKUPS, Custom, Plan
from reconciler.sandbox.store import Record, Store


@dataclass
class _Ids:
    """Ids the store gave, for the references of later records."""

    named: dict[str, dict[str, int]] = field(default_factory=dict)  # table -> key -> id
    fields: list[int] = field(default_factory=list)  # by index in Plan.fields

    def of(self, table: str, name: str | None) -> int | None:
        return None if name is None else self.named[table][key(name)]

    def with_custom(self, rec: Record, values: Custom) -> Record:
        return {**rec, "custom": {str(self.fields[i]): value for i, value in values.items()}}


def write(store: Store, plan: Plan, now: str) -> None:
    with store.batch():
        ids = _Ids()
        _write_people(store, plan, ids)
        _write_assets(store, plan, ids)
        for rid, rule in plan.rules:
            store.insert("rules", rule, rid=rid)
        _write_workspace(store, plan, now)


def _insert_all(store: Store, ids: _Ids, table: str, recs: dict[str, Record]) -> None:
    ids.named[table] = {k: store.insert(table, rec)["id"] for k, rec in recs.items()}


def _insert_names(store: Store, ids: _Ids, table: str, names: dict[str, str]) -> None:
    """A table of bare names (departments, sections, asset lookups)."""
    _insert_all(store, ids, table, {k: records.named(n) for k, n in names.items()})


def _write_people(store: Store, plan: Plan, ids: _Ids) -> None:
    """Departments, sections, categories, custom fields, companies, users, technicians."""
    _insert_names(store, ids, "departments", plan.departments)
    _insert_names(store, ids, "sections", plan.sections)
    categories = {
        k: records.category(section_id=ids.of("sections", section), **kwargs)
        for k, (kwargs, section) in plan.categories.items()
    }
    _insert_all(store, ids, "categories", categories)
    for spec in plan.fields:
        ids.fields.append(store.insert("custom_fields", spec.record)["id"])
    companies = {
        k: ids.with_custom(records.company(**kwargs), custom)
        for k, (kwargs, custom) in plan.companies.items()
    }
    _insert_all(store, ids, "companies", companies)
    users = {}
    for k, user in plan.users.items():
        rec = records.user(
            **user.kwargs,
            company_id=ids.of("companies", user.company),
            department_id=ids.of("departments", user.department),
        )
        users[k] = ids.with_custom(rec, user.custom)
    _insert_all(store, ids, "users", users)
    for username, category in plan.tech_permissions:
        user_id, category_id = ids.named["users"][username], ids.named["categories"][category]
        store.insert("tech_permissions", {"user_id": user_id, "category_id": category_id})


def _write_assets(store: Store, plan: Plan, ids: _Ids) -> None:
    for table, names in plan.lookups.items():
        _insert_names(store, ids, table, names)
    for spec in plan.assets:
        refs: dict[str, Any] = {
            LOOKUPS[n][0]: ids.of(LOOKUPS[n][1], value) for n, value in spec.lookups.items()
        }
        rec = records.asset(**spec.kwargs, **refs, company_id=ids.of("companies", spec.company))
        rec["assigned_user_ids"] = [ids.named["users"][name] for name in spec.users]
        store.insert("assets", ids.with_custom(rec, spec.custom))


def _write_workspace(store: Store, plan: Plan, now: str) -> None:
    """API keys, and employees as workspace.py keeps them."""
    for api_key in plan.api_keys:
        store.insert("ws_api_keys", dict(api_key))
    for fields in plan.employees.values():
        rec = {"public_id": secrets.token_hex(6), "fields": fields, "created": now, "updated": now}
        store.insert("ws_employees", rec)
