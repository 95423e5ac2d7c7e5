"""`CreateUser` and `UpdateUser`.

Decisions where the spec is silent:
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
from reconciler.sandbox.errors import HttpError
from reconciler.sandbox.helpdesk.companies import ensure_company, ensure_department
from reconciler.sandbox.helpdesk.registry import Ctx, Permission, endpoint
from reconciler.sandbox.helpdesk.users import render_user
from reconciler.sandbox.store import Record

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


def is_email(text: str) -> bool:
    """A local part, an `@` and a domain, and no spaces (the seed checks the same)."""
    local, at, domain = text.rpartition("@")
    return bool(at and local and domain) and not any(c.isspace() for c in text)


def clean_email(raw: str) -> str:
    email = raw.strip()
    if not email:
        raise HttpError(400, "Parameter 'email' must not be empty")
    if not is_email(email):
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


@endpoint("CreateUser", methods=("POST",), permission=Permission.ADMIN, form_only=True)
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


def given(ctx: Ctx, name: str) -> str | None:
    """An optional identity parameter: an empty or blank value counts as not given (the
    ASP.NET binding turns an empty form value into null). A login name or an e-mail
    cannot be empty, so clients that send every optional field, empty when unset, keep
    the user's username and e-mail rather than failing."""
    value = ctx.params.text(name)
    return value if value is not None and value.strip() else None


def identity_changes(ctx: Ctx, rec: Record, blank: bool) -> dict[str, Any]:
    changes: dict[str, Any] = {}
    username = given(ctx, "username")
    if username is not None:
        changes["username"] = clean_username(username)
        check_unique(ctx, "username", changes["username"], rec["id"])
    elif blank:
        changes["username"] = ""
    email = given(ctx, "email")
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
