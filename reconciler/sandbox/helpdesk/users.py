"""Users: the User object and the list item, `Authorization`, `Priorities`, the reads of
the spec's Users table (`User`, `UserByEmail`, `UserByUsername`, `Users`) and the writes
(`CreateUser`, `UpdateUser`). Custom field values are in `custom_fields.py`, category
permissions in `categories.py`. Users are never deleted by the reconciler (it disables
them), so `DeleteUser` and `MergeUsers` are not served.

Decisions where the spec is silent:
- `Users`: `all` lists enabled and disabled users (as the real service does); only
  `disabled` filters on the flag, the role modes list both. `count`/`page` below 1 are
  400; no maximum `count`. Unknown `departmentId`/`companyId` match nobody (empty list).
- Usernames and e-mails are unique ignoring case; an e-mail needs a local part, an `@` and
  a domain, and no spaces.
- `UpdateUser` with empty strings for optional fields: an empty `username`, `email` or
  `password` counts as not given (left as it is); an empty `firstName`, `lastName`,
  `phone`, `location`, `notes`, `greeting`, `signature` clears that field (an empty
  text is a value); an empty `company`/`department` clears the user's company or
  department; an empty flag (`disabled`, `isAdmin`, ...) counts as not given.
- `UpdateUser`: an empty `password` leaves the password alone; a new one also replaces the
  user's API token. `isAdmin=false` keeps the technician role. With the quirk
  `updateuser-blanks-omitted`, omitted username and e-mail are blanked too; the password
  (write-only) is never blanked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reconciler.sandbox import records
from reconciler.sandbox.errors import HttpError, not_found
from reconciler.sandbox.helpdesk.registry import Ctx, Permission, endpoint
from reconciler.sandbox.state import SandboxState
from reconciler.sandbox.store import Record

# The priorities every helpdesk has: a plain read that any caller may make.
PRIORITIES = [(-1, "Low"), (0, "Normal"), (1, "High"), (2, "Critical")]
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


def full_names(rec: Record) -> dict[str, str]:
    """`FullNameAndLogin` and `FullName`, as the User object and technicians carry them."""
    name = f"{rec['first_name']} {rec['last_name']}".strip() or rec["username"]
    return {"FullNameAndLogin": f"{name} ({rec['username']})", "FullName": name}


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
            **full_names(rec),
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


# -- reads ---------------------------------------------------------------------------


@endpoint("Authorization", methods=("POST", "GET"))
async def authorization(ctx: Ctx) -> Any:
    return render_user(ctx.state, ctx.caller)


@endpoint("Priorities")
async def priorities(ctx: Ctx) -> Any:
    return [{"PriorityID": pid, "Name": name} for pid, name in PRIORITIES]


@endpoint("User", permission=Permission.ANY)
async def user(ctx: Ctx) -> Any:
    return render_user(ctx.state, ctx.record("users", ctx.id_param("userId", "id"), "User"))


def _user_by(ctx: Ctx, param: str, what: str) -> Any:
    """The user whose `param` field (matched case-insensitively) is the parameter's value."""
    value = ctx.params.nonblank(param, required=True)
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


@endpoint("Users", permission=Permission.ADMIN)
async def users(ctx: Ctx) -> Any:
    count = ctx.params.positive("count") or DEFAULT_COUNT
    page = ctx.params.positive("page") or 1
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


# -- writes --------------------------------------------------------------------------


def is_email(text: str) -> bool:
    """A local part, an `@` and a domain, and no spaces (the seed checks the same)."""
    local, at, domain = text.rpartition("@")
    return bool(at and local and domain) and not any(c.isspace() for c in text)


def clean(name: str, raw: str) -> str:
    """A username or e-mail (`name`) stripped; an empty one (or a malformed e-mail) is 400."""
    value = raw.strip()
    if not value:
        raise HttpError(400, f"Parameter '{name}' must not be empty")
    if name == "email" and not is_email(value):
        raise HttpError(400, f"'{value}' is not a valid e-mail address")
    return value


def check_unique(ctx: Ctx, column: str, value: str, own_id: int | None = None) -> None:
    """Usernames and e-mails are unique ignoring case, as logins and look-ups match them."""
    clash = ctx.store.find_name("users", value, column)
    if clash is not None and clash["id"] != own_id:
        what = "e-mail" if column == "email" else "username"
        raise HttpError(400, f"A user with the {what} '{value}' already exists")


def org_id(ctx: Ctx, name: str | None, table: str) -> int | None:
    """The id of the company/department named `name`, created when missing; None clears."""
    if name is None or not name.strip():
        return None
    make = records.company if table == "companies" else records.named
    return int(ctx.store.ensure(table, name, make)["id"])


@endpoint("CreateUser", methods=("POST",), permission=Permission.ADMIN, form_only=True)
async def create_user(ctx: Ctx) -> Any:
    p = ctx.params
    email = clean("email", p.text("email", required=True) or "")
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
        company_id=org_id(ctx, p.text(*_COMPANY_NAMES), "companies"),
        department_id=org_id(ctx, p.text(*_DEPARTMENT_NAMES), "departments"),
    )
    new_id = ctx.store.insert("users", rec)["id"]
    if ctx.quirk("createuser-bare-int"):
        return new_id
    return {"userId": new_id}


@endpoint("UpdateUser", methods=("POST",), permission=Permission.ADMIN, form_only=True)
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
    """Username and e-mail: an empty or blank value counts as not given (the ASP.NET
    binding turns an empty form value into null). A login name or an e-mail cannot be
    empty, so clients that send every optional field, empty when unset, keep the user's
    username and e-mail rather than failing."""
    changes: dict[str, Any] = {}
    for name in ("username", "email"):
        value = ctx.params.text(name)
        if value is not None and value.strip():
            changes[name] = clean(name, value)
            check_unique(ctx, name, changes[name], rec["id"])
        elif blank:
            changes[name] = ""
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
        changes["company_id"] = org_id(ctx, company, "companies")
    department = ctx.params.text(*_DEPARTMENT_NAMES)
    if department is not None or blank:
        changes["department_id"] = org_id(ctx, department, "departments")
    return changes
