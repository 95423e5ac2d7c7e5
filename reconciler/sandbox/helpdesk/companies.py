"""Companies and departments: `Companies`, `Company`, `UpdateCompany`, `Departments` (the
custom field values of companies are in `custom_fields.py`)."""

from __future__ import annotations

from typing import Any

from reconciler.sandbox import records
from reconciler.sandbox.errors import HttpError
from reconciler.sandbox.helpdesk.registry import Ctx, Permission, endpoint
from reconciler.sandbox.store import Record


def render_company(rec: Record) -> dict[str, Any]:
    return {
        "CompanyID": rec["id"],
        "Name": rec["name"],
        "EmailDomain": rec["email_domain"],
        "Notes": rec["notes"],
    }


def normalise_domains(value: str | None) -> str | None:
    if value is None:
        return None
    parts = [p.strip() for p in value.replace(",", ";").split(";") if p.strip()]
    return ";".join(parts) or None


@endpoint("Companies", permission=Permission.ADMIN)
async def companies(ctx: Ctx) -> Any:
    return [render_company(c) for c in ctx.store.rows("companies")]


@endpoint("Company", methods=("POST",), permission=Permission.ADMIN, form_only=True)
async def create_company(ctx: Ctx) -> Any:
    name = ctx.params.nonblank("name", required=True)
    existing = ctx.store.find_name("companies", name)
    if existing is not None:
        # Idempotent by name: the existing id, nothing created.
        return {"id": existing["id"]}
    domains = normalise_domains(ctx.params.text("emailDomains", "emailDomain"))
    rec = ctx.store.insert("companies", records.company(name, email_domain=domains))
    return {"id": rec["id"]}


@endpoint("UpdateCompany", methods=("POST",), permission=Permission.ADMIN, form_only=True)
async def update_company(ctx: Ctx) -> Any:
    rec = ctx.record("companies", ctx.id_param("id"), "Company")
    changes: dict[str, Any] = {}
    name = ctx.params.nonblank("name")
    if name:
        clash = ctx.store.find_name("companies", name)
        if clash is not None and clash["id"] != rec["id"]:
            raise HttpError(400, f"A company named '{name}' already exists")
        changes["name"] = name
    if ctx.params.has("notes"):
        changes["notes"] = ctx.params.text("notes") or None
    if ctx.params.has("emailDomains", "emailDomain"):
        changes["email_domain"] = normalise_domains(ctx.params.text("emailDomains", "emailDomain"))
    rec = ctx.store.update("companies", rec["id"], **changes)
    return render_company(rec)


@endpoint("Departments", permission=Permission.ADMIN)
async def departments(ctx: Ctx) -> Any:
    return [{"DepartmentID": d["id"], "Name": d["name"]} for d in ctx.store.rows("departments")]
