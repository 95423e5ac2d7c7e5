"""Categories: `categories`, `AddCategory`, and the permission model of categories.

Permission model:
- An administrator sees and edits everything.
- A technician (`is_tech`) with no rows in `tech_permissions` is a technician of every
  category; one with rows is a technician only of those categories (a "category
  technician"). Rows of a user who is not `is_tech` grant nothing: only `is_tech` makes
  a technician.
- A plain user sees only categories that are not `for_techs_only`. A category
  technician is a plain user outside their categories.

Decisions where the spec is silent:
- `categories` lists the visible categories ordered by section name, then name
  (case-insensitive); categories without a section come first.
- `AddCategory` needs an administrator (the real service keeps category management to
  administrators, whatever the spec's "caller" says). A name that exists already in the
  same section (case-insensitive) is refused with 400: the reconciler keys categories by
  name and section, so the sandbox keeps that key unique. `sectionId` 0 means no section.
- `TechsForCategory` and the permission endpoints are in `tech_permissions.py`.
"""

from __future__ import annotations

from typing import Any

from reconciler.sandbox import records
from reconciler.sandbox.errors import HttpError
from reconciler.sandbox.helpdesk.registry import Ctx, Permission, endpoint
from reconciler.sandbox.store import Record, Store


def is_category_tech(store: Store, user: Record, category_id: int) -> bool:
    if user["is_admin"]:
        return True
    if not user["is_tech"]:
        return False
    rows = {p["category_id"] for p in store.rows("tech_permissions") if p["user_id"] == user["id"]}
    return not rows or category_id in rows


def can_see_category(store: Store, user: Record, category: Record) -> bool:
    return not category["for_techs_only"] or is_category_tech(store, user, category["id"])


def section_name(store: Store, category: Record) -> str | None:
    if category["section_id"] is None:
        return None
    section = store.get("sections", category["section_id"])
    return section["name"] if section else None


def render_category(store: Store, category: Record) -> dict[str, Any]:
    section = section_name(store, category)
    return {
        "CategoryID": category["id"],
        "Name": category["name"],
        "SectionID": category["section_id"],
        "Section": section,
        "NameWithSection": f"{section} / {category['name']}" if section else category["name"],
        "ForTechsOnly": category["for_techs_only"],
        "FromAddress": category["from_address"],
    }


@endpoint("categories")
async def categories(ctx: Ctx) -> Any:
    visible = [
        c for c in ctx.store.rows("categories") if can_see_category(ctx.store, ctx.caller, c)
    ]
    visible.sort(
        key=lambda c: ((section_name(ctx.store, c) or "").casefold(), c["name"].casefold(), c["id"])
    )
    return [render_category(ctx.store, c) for c in visible]


@endpoint("AddCategory", methods=("POST",), permission=Permission.ADMIN, form_only=True)
async def add_category(ctx: Ctx) -> Any:
    name = (ctx.params.text("name", required=True) or "").strip()
    if not name:
        raise HttpError(400, "Parameter 'name' must not be empty")
    section_id = ctx.params.integer("sectionId") or None
    if section_id is not None and ctx.store.get("sections", section_id) is None:
        raise HttpError(400, f"Section {section_id} does not exist")
    for existing in ctx.store.rows("categories"):
        if existing["section_id"] == section_id and existing["name"].casefold() == name.casefold():
            raise HttpError(
                400, f"A category named '{existing['name']}' already exists in that section"
            )
    rec = ctx.store.insert("categories", records.category(name, section_id=section_id))
    return {"id": rec["id"]}
