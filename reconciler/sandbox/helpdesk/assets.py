"""Assets: the Asset object and the endpoints of the spec's Assets table that the
reconciler calls: `Assets`, `Asset` (GET one, POST create), `UpdateAsset`,
`AssignAssetToUser`, `UnAssignAssetToUser`, `EnableAsset`, `DisableAsset` (custom field
values are in `custom_fields.py`; the sandbox serves no tickets, so no asset-to-ticket
links either).

Decisions where the spec is silent or open:
- Permissions (the spec lists none for assets): reading (`Assets`, `GET Asset`) needs a
  technician, every write needs an administrator.
- `AssignedUsers` items are `{UserID, Username, FirstName, LastName, Email}` (the element
  shape is not published), in the order the users were assigned. With no tickets served,
  `Tickets` is null and `TicketCount` 0.
- `Assets`: filters combine (all must match). `assignedToCompanyId` matches the asset's
  own company; `assignedToDepartmentId` matches assets assigned to at least one user of
  that department. Filters naming unknown objects match nothing (an empty page, not 404).
  `page` below 1 is 400. An empty `nameprefix` counts as absent (ASP.NET binds empty
  strings to null); otherwise it needs at least 3 characters (400) and matches the start
  of the model name case-insensitively.
- `POST /Asset`/`UpdateAsset`: manufacturer, type and supplier are names, matched
  case-insensitively and created when missing; a blank name or model name is 400.
  `quantity` must be an integer of at least 1 (400). An unknown `companyId` is 404;
  `companyId` empty or 0 means no company (and clears it in `UpdateAsset`). Blank
  `serialNumber`, `location`, `comments` are stored as null.
- `UpdateAsset`: the spec's conflict over `modelName` being required is settled as
  optional. Omitted fields stay as they are, except `quantity`: the spec gives it a
  default of 1 and the real service is seen to reset it to 1 when omitted, so an
  `UpdateAsset` without `quantity` sets 1 (the quirk `updateasset-keeps-quantity` keeps
  the current quantity instead, the other reading of the spec).
- Assign/unassign are idempotent and answer `OK`, as do
  `EnableAsset`/`DisableAsset`. Disabled assets can still be read by id and changed.

Quirk `asset-disabled-flag` adds `Disabled` (bool) to the Asset object.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reconciler.sandbox import records
from reconciler.sandbox.errors import HttpError
from reconciler.sandbox.helpdesk.companies import render_company
from reconciler.sandbox.helpdesk.custom_fields import field_value_items
from reconciler.sandbox.helpdesk.registry import OK, Ctx, Permission, endpoint
from reconciler.sandbox.store import Record

ASSET_USAGE = records.USAGE_TYPES["assets"]
PAGE_SIZE = 50
MIN_PREFIX = 3

# The name-valued parameters and the lookup table each resolves into.
_NAMED = (
    ("manufacturer", "manufacturers", "manufacturer_id"),
    ("type", "asset_types", "type_id"),
    ("supplier", "suppliers", "supplier_id"),
)


# -- rendering ---------------------------------------------------------------------------


def _name_of(ctx: Ctx, table: str, rid: int) -> str:
    rec = ctx.store.get(table, rid)
    return str(rec["name"]) if rec else ""


def _assigned_user(rec: Record) -> dict[str, Any]:
    return {
        "UserID": rec["id"],
        "Username": rec["username"],
        "FirstName": rec["first_name"],
        "LastName": rec["last_name"],
        "Email": rec["email"],
    }


def render_asset(ctx: Ctx, rec: Record) -> dict[str, Any]:
    company = ctx.store.get("companies", rec["company_id"]) if rec["company_id"] else None
    users = [ctx.store.get("users", u) for u in rec["assigned_user_ids"]]
    out: dict[str, Any] = {
        "ItemID": rec["id"],
        "Manufacturer": _name_of(ctx, "manufacturers", rec["manufacturer_id"]),
        "Supplier": _name_of(ctx, "suppliers", rec["supplier_id"]),
        "ModelName": rec["model_name"],
        "TypeID": rec["type_id"],
        "Type": _name_of(ctx, "asset_types", rec["type_id"]),
        "ManufacturerID": rec["manufacturer_id"],
        "SupplierID": rec["supplier_id"],
        "SerialNumber": rec["serial_number"],
        "Location": rec["location"],
        "Comments": rec["comments"],
        "Quantity": rec["quantity"],
        "TicketCount": 0,
        "company": render_company(company) if company else None,
        "CompanyID": company["id"] if company else None,
        "Tickets": None,
        "AssignedUsers": [_assigned_user(u) for u in users if u is not None],
        "Fields": field_value_items(ctx, ASSET_USAGE, rec),
        "Attachments": None,
    }
    if ctx.quirk("asset-disabled-flag"):
        out["Disabled"] = rec["disabled"]
    return out


# -- parameters --------------------------------------------------------------------------


def _named_ids(ctx: Ctx, *, required: bool) -> dict[str, int]:
    """Resolve manufacturer/type/supplier names to ids, creating the missing ones.

    Every name is checked before anything is created, so a 400 leaves no stray rows."""
    names = {param: ctx.params.nonblank(param, required=required) for param, _, _ in _NAMED}
    ids: dict[str, int] = {}
    for param, table, key in _NAMED:
        if names[param]:
            ids[key] = ctx.store.ensure(table, names[param], records.named)["id"]
    return ids


def _company_id(ctx: Ctx) -> int | None:
    """The `companyId` parameter: None for empty or 0, 404 for an unknown company."""
    company_id = ctx.params.integer("companyId")
    if not company_id:
        return None
    ctx.record("companies", company_id, "Company")
    return company_id


def _optional_texts(ctx: Ctx) -> dict[str, str | None]:
    """The free-text fields that were sent; blank ones become null (the spec's nullables)."""
    out: dict[str, str | None] = {}
    for param, key in (
        ("serialNumber", "serial_number"),
        ("location", "location"),
        ("comments", "comments"),
    ):
        if ctx.params.has(param):
            out[key] = (ctx.params.text(param) or "").strip() or None
    return out


# -- reading -----------------------------------------------------------------------------


Predicate = Callable[[Record], bool]


def _filters(ctx: Ctx) -> list[Predicate]:
    """Predicates on asset records for the filter parameters that were sent."""
    preds: list[Predicate] = []
    user_id = ctx.params.integer("assignedToUserId")
    if user_id is not None:
        preds.append(lambda a: user_id in a["assigned_user_ids"])
    company_id = ctx.params.integer("assignedToCompanyId")
    if company_id is not None:
        preds.append(lambda a: a["company_id"] == company_id)
    department_id = ctx.params.integer("assignedToDepartmentId")
    if department_id is not None:
        members = {u["id"] for u in ctx.store.rows("users") if u["department_id"] == department_id}
        preds.append(lambda a: bool(members.intersection(a["assigned_user_ids"])))
    prefix = ctx.params.text("nameprefix")
    if prefix:
        if len(prefix) < MIN_PREFIX:
            raise HttpError(400, f"Parameter 'nameprefix' needs at least {MIN_PREFIX} characters")
        wanted = prefix.casefold()
        preds.append(lambda a: a["model_name"].casefold().startswith(wanted))
    if not ctx.params.boolean("includeDisabled", default=False):
        preds.append(lambda a: not a["disabled"])
    return preds


@endpoint("Assets", permission=Permission.TECH)
async def assets(ctx: Ctx) -> Any:
    page = ctx.params.integer("page")
    page = 1 if page is None else page
    if page < 1:
        raise HttpError(400, f"Parameter 'page' must be 1 or more, got {page}")
    preds = _filters(ctx)
    rows = sorted(ctx.store.rows("assets"), key=lambda a: a["id"])
    matching = [a for a in rows if all(p(a) for p in preds)]
    start = (page - 1) * PAGE_SIZE
    return [render_asset(ctx, a) for a in matching[start : start + PAGE_SIZE]]


@endpoint("Asset", permission=Permission.TECH)
async def get_asset(ctx: Ctx) -> Any:
    return render_asset(ctx, ctx.record("assets", ctx.id_param("id"), "Asset"))


# -- writing -----------------------------------------------------------------------------


@endpoint("Asset", methods=("POST",), permission=Permission.ADMIN, form_only=True)
async def create_asset(ctx: Ctx) -> Any:
    model_name = ctx.params.nonblank("modelName", required=True)
    # Validate everything that can fail before _named_ids creates lookup rows.
    quantity = ctx.params.positive("quantity")
    company_id = _company_id(ctx)
    texts = _optional_texts(ctx)
    ids = _named_ids(ctx, required=True)
    rec = records.asset(
        model_name=model_name,
        manufacturer_id=ids["manufacturer_id"],
        supplier_id=ids["supplier_id"],
        type_id=ids["type_id"],
        quantity=1 if quantity is None else quantity,
        company_id=company_id,
    )
    rec = ctx.store.insert("assets", {**rec, **texts})
    return {"id": rec["id"]}


@endpoint("UpdateAsset", methods=("POST",), permission=Permission.ADMIN, form_only=True)
async def update_asset(ctx: Ctx) -> Any:
    rec = ctx.record("assets", ctx.id_param("id"), "Asset")
    changes: dict[str, Any] = {}
    model_name = ctx.params.nonblank("modelName")
    if model_name:
        changes["model_name"] = model_name
    quantity = ctx.params.positive("quantity")
    if quantity is not None:
        changes["quantity"] = quantity
    elif not ctx.quirk("updateasset-keeps-quantity"):
        changes["quantity"] = 1  # the spec's default, and what the service is seen to do
    if ctx.params.has("companyId"):
        changes["company_id"] = _company_id(ctx)
    changes.update(_optional_texts(ctx))
    changes.update(_named_ids(ctx, required=False))
    return render_asset(ctx, ctx.store.update("assets", rec["id"], **changes))


def _assign(ctx: Ctx, present: bool) -> Any:
    """The user `userId` assigned to the asset `assetId` or not; both must exist."""
    asset = ctx.record_of("assetId", "assets", "Asset")
    user_id = ctx.record_of("userId", "users", "User")["id"]
    ids = list(asset["assigned_user_ids"])  # the stored list is live: change a copy
    if present and user_id not in ids:
        ids.append(user_id)
    elif not present and user_id in ids:
        ids.remove(user_id)
    else:
        return OK  # already as asked: nothing to write
    ctx.store.update("assets", asset["id"], assigned_user_ids=ids)
    return OK


@endpoint("AssignAssetToUser", methods=("POST",), permission=Permission.ADMIN, form_only=True)
async def assign_asset_to_user(ctx: Ctx) -> Any:
    return _assign(ctx, True)


@endpoint("UnAssignAssetToUser", methods=("POST",), permission=Permission.ADMIN, form_only=True)
async def unassign_asset_to_user(ctx: Ctx) -> Any:
    return _assign(ctx, False)


@endpoint("EnableAsset", methods=("POST",), permission=Permission.ADMIN, form_only=True)
async def enable_asset(ctx: Ctx) -> Any:
    ctx.store.update("assets", ctx.record_of("assetId", "assets", "Asset")["id"], disabled=False)
    return OK


@endpoint("DisableAsset", methods=("POST",), permission=Permission.ADMIN, form_only=True)
async def disable_asset(ctx: Ctx) -> Any:
    ctx.store.update("assets", ctx.record_of("assetId", "assets", "Asset")["id"], disabled=True)
    return OK
