"""Users: the User object and the list item, and every endpoint of the spec's Users table."""

from __future__ import annotations

from typing import Any

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
