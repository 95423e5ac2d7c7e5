"""Users: the User object and the list item, and every endpoint of the spec's Users table:
`CreateUser`, `UpdateUser`, `DeleteUser`, `User`, `UserByEmail`, `UserByUsername`,
`MergeUsers`, `SetCustomFieldForUser`, `UserCustomFields`, `Users`,
`AddCategoryTechPermission`, `RemoveCategoryTechPermission`.

Decisions where the spec is silent:
- Usernames and e-mails are unique ignoring case; an e-mail needs a local part, an `@` and
  a domain, and no spaces. An explicitly empty username or e-mail is refused with 400.
- `Users`: `all` lists enabled and disabled users (as the real service does); only
  `disabled` filters on the flag, the role modes list both. `count`/`page` below 1 are
  400; no maximum `count`. Unknown `departmentId`/`companyId` match nobody (empty list).
- `UpdateUser`: an empty `password` leaves the password alone; a new one also replaces the
  user's API token. `isAdmin=false` keeps the technician role. With the quirk
  `updateuser-blanks-omitted`, omitted username and e-mail are blanked too; the password
  (write-only) is never blanked.
- `DeleteUser` also deletes the user's own tickets with their comments and the user's
  comments elsewhere, unassigns the tickets assigned to the user, and drops the user's
  subscriptions, so nothing points at a missing user.
- `DeleteUser` of the caller, and `MergeUsers` with the caller as source, are 400: the
  sandbox must not lose its administrator.
- `MergeUsers` moves data (tickets, comments, asset assignments, subscriptions, category
  permissions), not profile fields, roles or custom field values.
- `RemoveCategoryTechPermission` of a non-administrator's last row also ends the
  technician role: a technician without rows is one of every category (categories.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reconciler.sandbox import records
from reconciler.sandbox.errors import HttpError, not_found
from reconciler.sandbox.helpdesk.companies import ensure_company, ensure_department
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

# UpdateUser fields that are plain strings or flags: parameter name -> column.
_TEXT_FIELDS = {
    "firstName": "first_name",
    "lastName": "last_name",
    "phone": "phone",
    "location": "location",
    "greeting": "greeting",
    "signature": "signature",
}
_FLAG_FIELDS = {
    "disabled": "disabled",
    "enableEmailNotifications": "send_email",
    "outOfOffice": "out_of_office",
}
_COMPANY_NAMES = ("company", "firma")
_DEPARTMENT_NAMES = ("department", "Departman")


def clean_email(raw: str) -> str:
    email = raw.strip()
    if not email:
        raise HttpError(400, "Parameter 'email' must not be empty")
    local, at, domain = email.rpartition("@")
    if not at or not local or not domain or any(c.isspace() for c in email):
        raise HttpError(400, f"'{email}' is not a valid e-mail address")
    return email


def clean_username(raw: str) -> str:
    username = raw.strip()
    if not username:
        raise HttpError(400, "Parameter 'username' must not be empty")
    return username


def check_unique(ctx: Ctx, column: str, value: str, own_id: int | None = None) -> None:
    """Usernames and e-mails are unique ignoring case, as logins and look-ups match them."""
    clash = ctx.store.find_name("users", value, column)
    if clash is not None and clash["id"] != own_id:
        what = "e-mail" if column == "email" else "username"
        raise HttpError(400, f"A user with the {what} '{value}' already exists")


def org_id(ctx: Ctx, name: str | None, ensure: Callable[[Ctx, str], Record]) -> int | None:
    """The id of the company/department named `name`, created when missing; None clears."""
    if name is None or not name.strip():
        return None
    return int(ensure(ctx, name)["id"])


@endpoint("CreateUser", methods=("POST",), permission=Permission.ADMIN)
async def create_user(ctx: Ctx) -> Any:
    p = ctx.params
    email = clean_email(p.text("email", required=True) or "")
    if ctx.store.find_name("users", email, "email") is not None:
        if ctx.quirk("createuser-duplicate-500"):
            # Older versions let the database's unique key fail and answered a bare 500.
            raise HttpError(500, "An error has occurred: duplicate e-mail address")
        raise HttpError(400, f"A user with the e-mail '{email}' already exists")
    username = (p.text("username") or "").strip() or email
    check_unique(ctx, "username", username)
    p.boolean("sendWelcomeEmail")  # validated only: the sandbox sends no mail
    is_manager = bool(p.boolean("isManager", default=False))
    # Companies and departments are created last, so that a rejected call creates nothing.
    rec = records.user(
        username,
        email,
        password=p.text("password") or None,  # None: records.user generates a strong one
        first_name=p.text("firstName") or "",
        last_name=p.text("lastName") or "",
        phone=p.text("phone") or "",
        location=p.text("location") or "",
        is_manager=is_manager,
        company_id=org_id(ctx, p.text(*_COMPANY_NAMES), ensure_company),
        department_id=org_id(ctx, p.text(*_DEPARTMENT_NAMES), ensure_department),
    )
    new_id = ctx.store.insert("users", rec)["id"]
    if ctx.quirk("createuser-bare-int"):
        return new_id
    return {"userId": new_id}


@endpoint("UpdateUser", methods=("POST",), permission=Permission.ADMIN)
async def update_user(ctx: Ctx) -> Any:
    rec = ctx.record("users", ctx.id_param("userId"), "User")
    # Older versions blanked every omitted field except notes (real-world notes).
    blank = ctx.quirk("updateuser-blanks-omitted")
    changes = identity_changes(ctx, rec, blank)
    changes.update(profile_changes(ctx, blank))
    changes.update(role_changes(ctx, blank))
    password = ctx.params.text("password")
    if password:
        # A password change invalidates the user's API token (spec, Authentication).
        changes.update(password_hash=records.hash_password(password), token=records.new_token())
    # Last, because it may create records: every check above has passed by now.
    changes.update(org_changes(ctx, blank))
    rec = ctx.store.update("users", rec["id"], **changes)
    return render_user(ctx.state, rec)


def identity_changes(ctx: Ctx, rec: Record, blank: bool) -> dict[str, Any]:
    changes: dict[str, Any] = {}
    username = ctx.params.text("username")
    if username is not None:
        changes["username"] = clean_username(username)
        check_unique(ctx, "username", changes["username"], rec["id"])
    elif blank:
        changes["username"] = ""
    email = ctx.params.text("email")
    if email is not None:
        changes["email"] = clean_email(email)
        check_unique(ctx, "email", changes["email"], rec["id"])
    elif blank:
        changes["email"] = ""
    return changes


def profile_changes(ctx: Ctx, blank: bool) -> dict[str, Any]:
    changes: dict[str, Any] = {}
    for name, column in _TEXT_FIELDS.items():
        text = ctx.params.text(name)
        if text is not None:
            changes[column] = text
        elif blank:
            changes[column] = ""
    if ctx.params.has("notes"):  # never blanked, not even by the quirk
        changes["notes"] = ctx.params.text("notes") or ""
    for name, column in _FLAG_FIELDS.items():
        flag = ctx.params.boolean(name)
        if flag is not None:
            changes[column] = flag
        elif blank:
            changes[column] = False
    return changes


def role_changes(ctx: Ctx, blank: bool) -> dict[str, Any]:
    is_admin = ctx.params.boolean("isAdmin")
    if is_admin is None and blank:
        is_admin = False
    if is_admin is True:
        return {"is_admin": True, "is_tech": True}  # an administrator is a technician too
    if is_admin is False:
        return {"is_admin": False}  # keeps the technician role it had
    return {}


def org_changes(ctx: Ctx, blank: bool) -> dict[str, Any]:
    changes: dict[str, Any] = {}
    company = ctx.params.text(*_COMPANY_NAMES)
    if company is not None or blank:
        changes["company_id"] = org_id(ctx, company, ensure_company)
    department = ctx.params.text(*_DEPARTMENT_NAMES)
    if department is not None or blank:
        changes["department_id"] = org_id(ctx, department, ensure_department)
    return changes


def replace_id(ids: list[int], old: int, new: int | None) -> list[int]:
    """`ids` with `old` replaced by `new` (or dropped when None), without duplicates."""
    out: list[int] = []
    for item in ids:
        value = new if item == old else item
        if value is not None and value not in out:
            out.append(value)
    return out


def move_assignments(ctx: Ctx, old: int, new: int | None) -> None:
    """Asset assignments and ticket subscriptions of `old` go to `new` (or are dropped)."""
    for table, column in (("assets", "assigned_user_ids"), ("tickets", "subscriber_ids")):
        for rec in ctx.store.rows(table):
            if old in rec[column]:
                ctx.store.update(table, rec["id"], **{column: replace_id(rec[column], old, new)})


def move_tech_permissions(ctx: Ctx, source: Record, target: Record) -> None:
    """The source's category permissions go to the target, without duplicates.

    Rows only mean something for a technician (categories.py): a target that is an
    administrator or an all-category technician (no rows) already has every category, and
    rows would narrow it, so the source's rows are dropped then; so are the rows of a
    source that is no technician, which granted nothing."""
    rows = ctx.store.rows("tech_permissions")
    owned = {p["category_id"] for p in rows if p["user_id"] == target["id"]}
    covers_all = bool(target["is_admin"] or (target["is_tech"] and not owned))
    keep = bool(source["is_tech"]) and not covers_all
    for perm in rows:
        if perm["user_id"] != source["id"]:
            continue
        if keep and perm["category_id"] not in owned:
            ctx.store.update("tech_permissions", perm["id"], user_id=target["id"])
            owned.add(perm["category_id"])
        else:
            ctx.store.delete("tech_permissions", perm["id"])
    if keep and owned and not target["is_tech"]:
        # Category permissions make a technician, as AddCategoryTechPermission does.
        ctx.store.update("users", target["id"], is_tech=True)


def drop_tech_permissions(ctx: Ctx, user_id: int) -> None:
    for perm in ctx.store.rows("tech_permissions"):
        if perm["user_id"] == user_id:
            ctx.store.delete("tech_permissions", perm["id"])


def drop_tickets_of(ctx: Ctx, user_id: int) -> None:
    """The user's own tickets (with all their comments) and the user's comments go; tickets
    assigned to the user become unassigned. Nothing may point at a user that is gone."""
    gone: set[int] = set()
    for ticket in ctx.store.rows("tickets"):
        if ticket["user_id"] == user_id:
            gone.add(ticket["id"])
            ctx.store.delete("tickets", ticket["id"])
        elif ticket["assigned_to_user_id"] == user_id:
            ctx.store.update("tickets", ticket["id"], assigned_to_user_id=None)
    for comment in ctx.store.rows("comments"):
        if comment["user_id"] == user_id or comment["ticket_id"] in gone:
            ctx.store.delete("comments", comment["id"])
    if gone:
        for asset in ctx.store.rows("assets"):
            kept = [t for t in asset["ticket_ids"] if t not in gone]
            if kept != asset["ticket_ids"]:
                ctx.store.update("assets", asset["id"], ticket_ids=kept)


@endpoint("DeleteUser", methods=("POST",), permission=Permission.ADMIN)
async def delete_user(ctx: Ctx) -> Any:
    rec = ctx.record("users", ctx.id_param("userId"), "User")
    if rec["id"] == ctx.caller["id"]:
        # Deleting the caller could leave the sandbox without an administrator.
        raise HttpError(400, "You cannot delete your own account")
    with ctx.store.batch():
        drop_tech_permissions(ctx, rec["id"])
        move_assignments(ctx, rec["id"], None)
        drop_tickets_of(ctx, rec["id"])
        ctx.store.delete("users", rec["id"])
    return OK


@endpoint("MergeUsers", methods=("POST",), permission=Permission.ADMIN)
async def merge_users(ctx: Ctx) -> Any:
    from_id = ctx.params.integer("fromUserId", required=True)
    to_id = ctx.params.integer("toUserId", required=True)
    assert from_id is not None and to_id is not None
    if from_id == to_id:
        raise HttpError(400, "A user cannot be merged into itself")
    source = ctx.record("users", from_id, "User")
    target = ctx.record("users", to_id, "User")
    if from_id == ctx.caller["id"]:
        raise HttpError(400, "You cannot merge away your own account")
    with ctx.store.batch():
        for ticket in ctx.store.rows("tickets"):
            changes = {
                column: to_id
                for column in ("user_id", "assigned_to_user_id")
                if ticket[column] == from_id
            }
            if changes:
                ctx.store.update("tickets", ticket["id"], **changes)
        for comment in ctx.store.rows("comments"):
            if comment["user_id"] == from_id:
                ctx.store.update("comments", comment["id"], user_id=to_id)
        move_assignments(ctx, from_id, to_id)
        move_tech_permissions(ctx, source, target)
        ctx.store.delete("users", from_id)
    return OK


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


@endpoint("SetCustomFieldForUser", methods=("POST",), permission=Permission.ADMIN)
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


def permission_target(ctx: Ctx) -> tuple[Record, Record]:
    user_id = ctx.params.integer("userId", required=True)
    category_id = ctx.params.integer("categoryId", required=True)
    assert user_id is not None and category_id is not None
    return (
        ctx.record("users", user_id, "User"),
        ctx.record("categories", category_id, "Category"),
    )


@endpoint("AddCategoryTechPermission", methods=("POST",), permission=Permission.ADMIN)
async def add_category_tech_permission(ctx: Ctx) -> Any:
    rec, category = permission_target(ctx)
    existing = ctx.store.find("tech_permissions", user_id=rec["id"], category_id=category["id"])
    if existing is None:
        ctx.store.insert("tech_permissions", {"user_id": rec["id"], "category_id": category["id"]})
    if not rec["is_tech"]:
        ctx.store.update("users", rec["id"], is_tech=True)
    return OK


@endpoint("RemoveCategoryTechPermission", methods=("POST",), permission=Permission.ADMIN)
async def remove_category_tech_permission(ctx: Ctx) -> Any:
    rec, category = permission_target(ctx)
    existing = ctx.store.find("tech_permissions", user_id=rec["id"], category_id=category["id"])
    if existing is None:
        return OK
    ctx.store.delete("tech_permissions", existing["id"])
    remaining = ctx.store.find("tech_permissions", user_id=rec["id"])
    if remaining is None and rec["is_tech"] and not rec["is_admin"]:
        # A technician without rows is a technician of EVERY category (categories.py), so
        # removing the last row would widen the user's rights: it ends the role instead.
        ctx.store.update("users", rec["id"], is_tech=False)
    return OK
