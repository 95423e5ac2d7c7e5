"""Companies, users and technicians' category permissions in a seed."""

from __future__ import annotations

from typing import Any

from reconciler.sandbox import records
from reconciler.sandbox.helpdesk.companies import normalise_domains
from reconciler.sandbox.helpdesk.users import is_email
from reconciler.sandbox.seed.checker import Checker
from reconciler.sandbox.seed.entry import Entry, items, key, scalar_text
from reconciler.sandbox.seed.fields import custom_values
from reconciler.sandbox.seed.plan import PlannedUser
from reconciler.sandbox.seed.reading import SeedNode

USER_FIELDS = (
    "username email password token role first_name last_name notes location phone company "
    "department is_manager disabled send_email greeting signature custom_fields"
)
ROLES = ("user", "technician", "admin")


def check_companies(c: Checker, node: SeedNode | None) -> None:
    usage = records.USAGE_TYPES["companies"]
    known = "name email_domains notes custom_fields"
    for entry in c.entries(node, "companies", "a company", known):
        name = entry.text("name", required=True)
        domains = entry.get("email_domains")
        if domains is not None and isinstance(domains.value, list):
            joined = ";".join(name for name, _ in entry.texts("email_domains"))
        else:
            joined = entry.text("email_domains") or ""
        kwargs = {
            "name": name,
            "email_domain": normalise_domains(joined),
            "notes": entry.text("notes", strip=False),
        }
        custom = custom_values(c, entry.get("custom_fields"), usage)
        c.put_new(c.plan.companies, name, (kwargs, custom), entry.node, "company")


def check_users(c: Checker, node: SeedNode | None) -> None:
    emails: set[str] = set()
    tokens: set[str] = set()
    for entry in c.entries(node, "users", "a user", USER_FIELDS):
        user = _user(c, entry)
        if user is None:
            continue
        username, email = user.kwargs["username"], user.kwargs["email"]
        if key(username) in c.plan.users:
            c.p.add(entry.node, f"duplicate username '{username}'")
        elif key(email) in emails:
            c.p.add(entry.node, f"duplicate email '{email}'")
        elif user.kwargs["token"] in tokens:
            c.p.add(entry.node, "duplicate token: another user has the same one")
        else:
            c.plan.users[key(username)] = user
            emails.add(key(email))
            tokens.add(user.kwargs["token"])
            # As with CreateUser, a company or department named here comes into being.
            if user.company:
                c.plan.companies.setdefault(key(user.company), ({"name": user.company}, {}))
            if user.department:
                c.plan.departments.setdefault(key(user.department), user.department)


def _user(c: Checker, entry: Entry) -> PlannedUser | None:
    email = entry.text("email", required=True)
    if email is not None and not is_email(email):
        c.p.add(entry.at("email"), f"'{email}' is not an e-mail address")
        email = None
    username = entry.text("username") or email
    kwargs: dict[str, Any] = {
        "username": username,
        "email": email,
        "password": entry.text("password", strip=False) or None,
        "token": entry.text("token") or records.new_token(),
        "role": entry.choice("role", ROLES, "user") or "user",
        "is_manager": entry.flag("is_manager", False),
        "disabled": entry.flag("disabled", False),
        "send_email": entry.flag("send_email", True),
    }
    for name in ("first_name", "last_name", "location", "phone"):
        kwargs[name] = entry.text(name) or ""
    for name in ("notes", "greeting", "signature"):
        kwargs[name] = entry.text(name, strip=False) or ""
    company, department = entry.text("company"), entry.text("department")
    custom = custom_values(c, entry.get("custom_fields"), records.USAGE_TYPES["users"])
    if not username or not email:
        return None
    return PlannedUser(kwargs, company or None, department or None, custom)


def check_tech_permissions(c: Checker, node: SeedNode | None) -> None:
    if node is None:
        return
    if not isinstance(node.value, dict):
        c.p.add(node, "'tech_permissions' must map category names to lists of usernames")
        return
    pairs = c.plan.tech_permissions
    for category, users in node.value.items():
        known = key(category) in c.plan.categories
        if not known:
            c.p.add(node.keys[category], f"unknown category '{category}'")
        for item in items(users, c.p, f"the technicians of '{category}'"):
            username = scalar_text(item) or ""
            user = c.plan.users.get(key(username))
            if user is None:
                c.p.add(item, f"unknown username '{username or item.raw}'")
                continue
            if user.kwargs["role"] == "user":
                user.kwargs["role"] = "technician"  # as AddCategoryTechPermission does
            if known and (key(username), key(category)) not in pairs:
                pairs.append((key(username), key(category)))
