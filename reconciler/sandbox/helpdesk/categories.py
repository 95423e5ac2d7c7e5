"""Categories: `categories`, `AddCategory`, and the permission model of categories with
its endpoints, `TechsForCategory`, `AddCategoryTechPermission` and
`RemoveCategoryTechPermission`.

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
- `TechsForCategory` answers any caller who may see the category (the spec's permission
  is "caller"); a category the caller cannot see (for technicians only) is 403. It lists
  the users with an explicit permission row for the category, by id: administrators and
  all-category technicians have no row and are listed in no category, so every category
  answers them the same way. With the quirk `techs-list-implicit` (some real versions)
  they are listed in every category instead, after the explicit rows.
- `TicketsAssigned` is 0: the sandbox serves no tickets.
- A permission row of a user who is no technician (possible only through a seed) grants
  nothing and is not listed.
- `RemoveCategoryTechPermission` of a non-administrator's last row also ends the
  technician role: a technician without rows is one of every category, so removing the
  last row would otherwise widen the user's rights.
"""

from __future__ import annotations

from typing import Any

from reconciler.sandbox import records
from reconciler.sandbox.errors import HttpError
from reconciler.sandbox.helpdesk.registry import OK, Ctx, Permission, endpoint
from reconciler.sandbox.helpdesk.users import full_names
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
    name = ctx.params.nonblank("name", required=True)
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


@endpoint("TechsForCategory")
async def techs_for_category(ctx: Ctx) -> Any:
    category = ctx.record("categories", ctx.id_param("id", "categoryId"), "Category")
    if not can_see_category(ctx.store, ctx.caller, category):
        raise HttpError(403, f"Access denied: category {category['id']} is for technicians only")
    listed = category_technicians(ctx.store, category["id"])
    if ctx.quirk("techs-list-implicit"):
        shown = {u["id"] for u in listed}
        listed += [u for u in implicit_technicians(ctx.store) if u["id"] not in shown]
    return [tech_item(u) for u in listed]


def category_technicians(store: Store, category_id: int) -> list[Record]:
    """The technicians with an explicit row for the category, by id. A row may outlive its
    user or belong to a user who is no technician: neither is listed."""
    user_ids = sorted(
        {p["user_id"] for p in store.rows("tech_permissions") if p["category_id"] == category_id}
    )
    users = [store.get("users", uid) for uid in user_ids]
    return [u for u in users if u is not None and (u["is_tech"] or u["is_admin"])]


def implicit_technicians(store: Store) -> list[Record]:
    """Enabled administrators and all-category technicians (technicians with no rows): the
    users who work in every category without a permission row, by id."""
    with_rows = {p["user_id"] for p in store.rows("tech_permissions")}
    return sorted(
        (
            u
            for u in store.rows("users")
            if not u["disabled"] and (u["is_admin"] or (u["is_tech"] and u["id"] not in with_rows))
        ),
        key=lambda u: u["id"],
    )


def tech_item(user: Record) -> dict[str, Any]:
    return {
        "UserID": user["id"],
        "Username": user["username"],
        "FirstName": user["first_name"],
        "LastName": user["last_name"],
        "TicketsAssigned": 0,
        **full_names(user),
    }


def permission_target(ctx: Ctx) -> tuple[Record, Record]:
    user_id = ctx.params.integer("userId", required=True)
    category_id = ctx.params.integer("categoryId", required=True)
    assert user_id is not None and category_id is not None
    return (
        ctx.record("users", user_id, "User"),
        ctx.record("categories", category_id, "Category"),
    )


@endpoint(
    "AddCategoryTechPermission", methods=("POST",), permission=Permission.ADMIN, form_only=True
)
async def add_category_tech_permission(ctx: Ctx) -> Any:
    rec, category = permission_target(ctx)
    existing = ctx.store.find("tech_permissions", user_id=rec["id"], category_id=category["id"])
    if existing is None:
        ctx.store.insert("tech_permissions", {"user_id": rec["id"], "category_id": category["id"]})
    if not rec["is_tech"]:
        ctx.store.update("users", rec["id"], is_tech=True)
    return OK


@endpoint(
    "RemoveCategoryTechPermission", methods=("POST",), permission=Permission.ADMIN, form_only=True
)
async def remove_category_tech_permission(ctx: Ctx) -> Any:
    rec, category = permission_target(ctx)
    existing = ctx.store.find("tech_permissions", user_id=rec["id"], category_id=category["id"])
    if existing is None:
        return OK
    ctx.store.delete("tech_permissions", existing["id"])
    remaining = ctx.store.find("tech_permissions", user_id=rec["id"])
    if remaining is None and rec["is_tech"] and not rec["is_admin"]:
        # A technician without rows is a technician of EVERY category (above), so
        # removing the last row would widen the user's rights: it ends the role instead.
        ctx.store.update("users", rec["id"], is_tech=False)
    return OK
