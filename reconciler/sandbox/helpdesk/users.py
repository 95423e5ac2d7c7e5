"""Users: the User object and the list item, and the read endpoints of the spec's Users
table: `User`, `UserByEmail`, `UserByUsername`, `Users`, `UserCustomFields`, with
`SetCustomFieldForUser`. The writes are in `user_writes.py` (`CreateUser`, `UpdateUser`);
category permissions in `tech_permissions.py`. Users are never deleted by the reconciler
(it disables them), so `DeleteUser` and `MergeUsers` are not served.

Decisions where the spec is silent:
- `Users`: `all` lists enabled and disabled users (as the real service does); only
  `disabled` filters on the flag, the role modes list both. `count`/`page` below 1 are
  400; no maximum `count`. Unknown `departmentId`/`companyId` match nobody (empty list).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reconciler.sandbox import records
from reconciler.sandbox.errors import HttpError, not_found
from reconciler.sandbox.helpdesk.custom_fields import field_value_items, set_field_value
from reconciler.sandbox.helpdesk.registry import OK, Ctx, Permission, endpoint
from reconciler.sandbox.state import SandboxState
from reconciler.sandbox.store import Record


def full_name(rec: Record) -> str:
    name = f"{rec['first_name']} {rec['last_name']}".strip()
    return name or rec["username"]


def render_user(state: SandboxState, rec: Record) -> dict[str, Any]:
    """The full User object (Authorization, UserByEmail, UserByUsername, User)."""
    store = state.store
    company = store.get("companies", rec["company_id"]) if rec["company_id"] else None
    department = store.get("departments", rec["department_id"]) if rec["department_id"] else None
    out: dict[str, Any] = {
        "UserID": rec["id"],
        "Username": rec["username"],
        "Password": None,
        "Email": rec["email"],
        "FirstName": rec["first_name"],
        "LastName": rec["last_name"],
        "Notes": rec["notes"],
        "Location": rec["location"],
        "Phone": rec["phone"],
    }
    if state.config.quirk("user-department-id"):
        out["DepartmentID"] = department["id"] if department else None
        out["DepartmentName"] = department["name"] if department else None
    else:
        out["Departman"] = department["name"] if department else None
    out.update(
        {
            "CompanyName": company["name"] if company else None,
            "CompanyId": company["id"] if company else None,
            "CompanyNotes": company["notes"] if company else None,
            "IPAddress": "",
            "HostName": "",
            "Lang": rec["lang"],
            "UserAgent": "",
            "AvatarURL": None,
            "Signature": rec["signature"],
            "Greeting": rec["greeting"],
            "IsAdmin": rec["is_admin"],
            "IsTech": rec["is_tech"],
            "IsManager": rec["is_manager"],
            "Disabled": rec["disabled"],
            "SendEmail": rec["send_email"],
            "LastSeen": rec["last_seen"],
            "PushToken": None,
            "FullNameAndLogin": f"{full_name(rec)} ({rec['username']})",
            "FullName": full_name(rec),
        }
    )
    return out


def render_user_list_item(state: SandboxState, rec: Record) -> dict[str, Any]:
    """The item of `Users`: note it carries DepartmentID, not the department's name."""
    company = state.store.get("companies", rec["company_id"]) if rec["company_id"] else None
    return {
        "UserID": rec["id"],
        "FirstName": rec["first_name"],
        "LastName": rec["last_name"],
        "Notes": rec["notes"],
        "Location": rec["location"],
        "Phone": rec["phone"],
        "CompanyName": company["name"] if company else None,
        "CompanyId": company["id"] if company else None,
        "DepartmentID": rec["department_id"],
        "LastSeen": rec["last_seen"],
        "Username": rec["username"],
        "Email": rec["email"],
        "IsAdmin": rec["is_admin"],
        "Disabled": rec["disabled"],
    }


# -- endpoints -----------------------------------------------------------------------

USER_USAGE = records.USAGE_TYPES["users"]
DEFAULT_COUNT = 500  # the spec's default page size of `Users`

# `Users` listMode -> which users it lists. Only `disabled` looks at the disabled flag:
# as in the real service, `all` (and every role mode) lists enabled and disabled users.
LIST_MODES: dict[str, Callable[[Record], bool]] = {
    "all": lambda u: True,
    "techs": lambda u: bool(u["is_tech"] or u["is_admin"]),
    "admins": lambda u: bool(u["is_admin"]),
    "regular": lambda u: not (u["is_tech"] or u["is_admin"]),
    "disabled": lambda u: bool(u["disabled"]),
}


@endpoint("User", permission=Permission.ANY)
async def user(ctx: Ctx) -> Any:
    return render_user(ctx.state, ctx.record("users", ctx.id_param("userId", "id"), "User"))


def _user_by(ctx: Ctx, param: str, what: str) -> Any:
    """The user whose `param` field (matched case-insensitively) is the parameter's value."""
    value = (ctx.params.text(param, required=True) or "").strip()
    if not value:
        raise HttpError(400, f"Parameter '{param}' must not be empty")
    rec = ctx.store.find_name("users", value, param)
    if rec is None:
        raise not_found(f"User with the {what} '{value}'")
    return render_user(ctx.state, rec)


@endpoint("UserByEmail", permission=Permission.TECH, bucket="search")
async def user_by_email(ctx: Ctx) -> Any:
    return _user_by(ctx, "email", "e-mail")


@endpoint("UserByUsername", permission=Permission.TECH)
async def user_by_username(ctx: Ctx) -> Any:
    return _user_by(ctx, "username", "username")


@endpoint("SetCustomFieldForUser", methods=("POST",), permission=Permission.ADMIN, form_only=True)
async def set_custom_field_for_user(ctx: Ctx) -> Any:
    rec = ctx.record("users", ctx.id_param("id", "userId"), "User")
    set_field_value(ctx, USER_USAGE, "users", rec)
    return OK


@endpoint("UserCustomFields", permission=Permission.TECH)
async def user_custom_fields(ctx: Ctx) -> Any:
    rec = ctx.record("users", ctx.id_param("id", "userId"), "User")
    return field_value_items(ctx, USER_USAGE, rec)


def positive(ctx: Ctx, name: str, default: int) -> int:
    value = ctx.params.integer(name)
    if value is None:
        return default
    if value < 1:
        raise HttpError(400, f"Parameter '{name}' must be at least 1, got {value}")
    return value


@endpoint("Users", permission=Permission.ADMIN)
async def users(ctx: Ctx) -> Any:
    count = positive(ctx, "count", DEFAULT_COUNT)
    page = positive(ctx, "page", 1)
    mode = (ctx.params.text("listMode") or "").strip().lower() or "all"
    if mode not in LIST_MODES:
        raise HttpError(
            400, f"Parameter 'listMode' must be one of {', '.join(LIST_MODES)}, got '{mode}'"
        )
    department_id = ctx.params.integer("departmentId")
    company_id = ctx.params.integer("companyId")
    # Unknown department/company ids are filters like any other: they match nobody.
    selected = [
        u
        for u in sorted(ctx.store.rows("users"), key=lambda u: u["id"])
        if LIST_MODES[mode](u)
        and (department_id is None or u["department_id"] == department_id)
        and (company_id is None or u["company_id"] == company_id)
    ]
    start = (page - 1) * count
    return [render_user_list_item(ctx.state, u) for u in selected[start : start + count]]
