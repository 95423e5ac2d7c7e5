"""Checking a whole seed (`validate`): every section in dependency order, into one `Plan`.

The sections: the helpdesk's reference data (`departments`, `sections`, `categories`);
companies, users and technicians' category permissions; assets, with the manufacturers,
types and suppliers they name; automation rules; `workspace`, its API keys and employees,
checked as the workspace API (reconciler/sandbox/workspace.py) checks them; and
`credentials`, which admin's login and which workspace key `serve` prints (by default the
first usable admin and the first key, generated when none)."""

from __future__ import annotations

import secrets
from typing import Any

from defusedxml import DefusedXmlException, ElementTree

from reconciler.sandbox import records
from reconciler.sandbox.helpdesk.companies import normalise_domains
from reconciler.sandbox.helpdesk.users import is_email
from reconciler.sandbox.seed.checker import (
    Checker,
    Credentials,
    Custom,
    check_custom_fields,
    custom_values,
)
from reconciler.sandbox.seed.reading import (
    Entry,
    Problems,
    SeedNode,
    iso_date,
    items,
    key,
    scalar_text,
)
from reconciler.sandbox.store import Record, Store
from reconciler.sandbox.workspace import EMPLOYEE_EMAIL, EMPLOYEE_OPTIONAL, EMPLOYEE_REQUIRED


def check_names(c: Checker, node: SeedNode | None, what: str) -> None:
    """`departments` and `sections`: names, or mappings with a name."""
    for item in items(node, c.p, f"'{what}'"):
        name = scalar_text(item)
        if isinstance(item.value, dict):
            name = Entry(item, c.p, f"an item of '{what}'", "name").text("name")
        if not name or not name.strip():
            c.p.add(item, f"each item of '{what}' must be a name or {{name: ...}}")
        elif c.store.find_name(what, name) is not None:
            c.p.add(item, f"duplicate name '{name.strip()}' in '{what}'")
        else:
            c.store.insert(what, records.named(name.strip()))


def check_categories(c: Checker, node: SeedNode | None) -> None:
    known = "name section for_techs_only from_address"
    for entry in c.entries(node, "categories", "a category", known):
        name, section = entry.text("name", required=True), entry.text("section")
        kwargs: dict[str, Any] = {
            "name": name,
            "for_techs_only": entry.flag("for_techs_only", False),
            "from_address": entry.text("from_address") or None,
        }
        if name is None or c.taken("categories", name, entry.node, "category"):
            continue
        # Sections come into being as categories name them.
        section_id = c.store.ensure("sections", section, records.named)["id"] if section else None
        c.store.insert("categories", records.category(section_id=section_id, **kwargs))


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
        kwargs: dict[str, Any] = {
            "name": name,
            "email_domain": normalise_domains(joined),
            "notes": entry.text("notes", strip=False),
        }
        custom = custom_values(c, entry.get("custom_fields"), usage)
        if name is not None and not c.taken("companies", name, entry.node, "company"):
            c.store.insert("companies", {**records.company(**kwargs), "custom": custom})


def check_users(c: Checker, node: SeedNode | None) -> None:
    for entry in c.entries(node, "users", "a user", USER_FIELDS):
        user = _user(c, entry)
        if user is None:
            continue
        kwargs, company, department, custom = user
        username, email = kwargs["username"], kwargs["email"]
        if c.store.find_name("users", username, "username") is not None:
            c.p.add(entry.node, f"duplicate username '{username}'")
        elif c.store.find_name("users", email, "email") is not None:
            c.p.add(entry.node, f"duplicate email '{email}'")
        elif c.store.find("users", token=kwargs["token"]) is not None:
            c.p.add(entry.node, "duplicate token: another user has the same one")
        else:
            # As with CreateUser, a company or department named here comes into being.
            company_id = department_id = None
            if company:
                company_id = c.store.ensure("companies", company, records.company)["id"]
            if department:
                department_id = c.store.ensure("departments", department, records.named)["id"]
            rec = records.user(**kwargs, company_id=company_id, department_id=department_id)
            user_id = c.store.insert("users", {**rec, "custom": custom})["id"]
            c.passwords[user_id] = kwargs["password"]


def _user(c: Checker, entry: Entry) -> tuple[dict[str, Any], str | None, str | None, Custom] | None:
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
    return kwargs, company or None, department or None, custom


def check_tech_permissions(c: Checker, node: SeedNode | None) -> None:
    if node is None:
        return
    if not isinstance(node.value, dict):
        c.p.add(node, "'tech_permissions' must map category names to lists of usernames")
        return
    for name, users in node.value.items():
        category = c.store.find_name("categories", name)
        if category is None:
            c.p.add(node.keys[name], f"unknown category '{name}'")
        for item in items(users, c.p, f"the technicians of '{name}'"):
            username = scalar_text(item) or ""
            user = c.store.find_name("users", username, "username")
            if user is None:
                c.p.add(item, f"unknown username '{username or item.raw}'")
                continue
            if not user["is_tech"]:  # as AddCategoryTechPermission does
                c.store.update("users", user["id"], is_tech=True)
            if category is None:
                continue
            pair = {"user_id": user["id"], "category_id": category["id"]}
            if c.store.find("tech_permissions", **pair) is None:
                c.store.insert("tech_permissions", pair)


LOOKUPS = {  # asset field -> (record column, lookup table)
    "manufacturer": ("manufacturer_id", "manufacturers"),
    "type": ("type_id", "asset_types"),
    "supplier": ("supplier_id", "suppliers"),
}
ASSET_FIELDS = (
    "serial_number model_name manufacturer type supplier location comments quantity company "
    "assigned_users disabled custom_fields"
)


def check_assets(c: Checker, node: SeedNode | None) -> None:
    serials: set[str] = set()
    usage = records.USAGE_TYPES["assets"]
    for entry in c.entries(node, "assets", "an asset", ASSET_FIELDS):
        serial = entry.text("serial_number") or None
        if serial and not c.taken(serials, serial, entry.at("serial_number"), "serial number"):
            serials.add(key(serial))
        quantity = entry.integer("quantity", minimum=0)
        kwargs: dict[str, Any] = {
            "model_name": entry.text("model_name", required=True),
            "serial_number": serial,
            "location": entry.text("location") or None,
            "comments": entry.text("comments", strip=False) or None,
            "quantity": 1 if quantity is None else quantity,
            "disabled": entry.flag("disabled", False),
        }
        lookups = {name: entry.text(name, required=True) for name in LOOKUPS}
        company = c.reference(entry, "company", "companies")
        users = c.references(entry, "assigned_users", "users", "username")
        custom = custom_values(c, entry.get("custom_fields"), usage)
        named = {name: value for name, value in lookups.items() if value}
        if kwargs["model_name"] is None or len(named) < len(LOOKUPS):
            continue
        refs: dict[str, Any] = {
            LOOKUPS[n][0]: c.store.ensure(LOOKUPS[n][1], value, records.named)["id"]
            for n, value in named.items()
        }
        rec = records.asset(**kwargs, **refs, company_id=company["id"] if company else None)
        c.store.insert("assets", {**rec, "assigned_user_ids": users, "custom": custom})


RULE_FIELDS = "id name enabled conditions actions"


def check_rules(c: Checker, node: SeedNode | None) -> None:
    seen: set[int] = set()
    for entry in c.entries(node, "automation_rules", "an automation rule", RULE_FIELDS):
        rid = entry.integer("id", required=True, minimum=1)
        name = entry.text("name")
        enabled = entry.flag("enabled", True)
        parts = {part: _xml_fragment(c, entry, part) for part in ("conditions", "actions")}
        if rid is None:
            continue
        if rid in seen:
            c.p.add(entry.at("id"), f"duplicate rule id {rid}")
            continue
        seen.add(rid)
        rule = records.rule(name or f"Rule {rid}", enabled=enabled, **parts)
        c.store.insert("rules", rule, rid=rid)


def _xml_fragment(c: Checker, entry: Entry, name: str) -> str:
    """The inner XML of <conditions> or <actions>; empty means none."""
    text = (entry.text(name, strip=False) or "").strip()
    try:
        ElementTree.fromstring(f"<{name}>{text}</{name}>")
    except (ElementTree.ParseError, DefusedXmlException) as exc:
        # The rule endpoints embed the fragment in their XML answer.
        reason = str(exc).split(":")[0]  # its position is in the wrapped text
        c.p.add(entry.at(name), f"'{name}' is not a well-formed XML fragment: {reason}")
    return text


WORKSPACE_FIELDS = "api_keys employees"
EMPLOYEE_FIELDS = " ".join(EMPLOYEE_REQUIRED + tuple(EMPLOYEE_OPTIONAL))


def check_workspace(c: Checker, node: SeedNode | None) -> None:
    if node is None:
        return
    top = Entry(node, c.p, "'workspace'", WORKSPACE_FIELDS)
    for entry in c.entries(top.get("api_keys"), "api_keys", "an API key", "key name"):
        api_key = entry.text("key") or secrets.token_urlsafe(24)
        if c.store.find("ws_api_keys", key=api_key) is not None:
            c.p.add(entry.at("key"), "duplicate API key")
        c.store.insert("ws_api_keys", {"key": api_key, "name": entry.text("name") or ""})
    emails: set[str] = set()
    for entry in c.entries(top.get("employees"), "employees", "an employee", EMPLOYEE_FIELDS):
        _employee(c, entry, emails)


def _employee(c: Checker, entry: Entry, emails: set[str]) -> None:
    """The employee fields as workspace.py checks and stores them."""
    fields: dict[str, Any] = {n: entry.text(n, required=True) for n in EMPLOYEE_REQUIRED}
    email = fields["email"]
    if email is not None and not EMPLOYEE_EMAIL.match(email):
        c.p.add(entry.at("email"), f"'{email}' is not an e-mail address")
    fields.update(EMPLOYEE_OPTIONAL)
    for name, default in EMPLOYEE_OPTIONAL.items():
        if isinstance(default, bool):
            fields[name] = entry.flag(name, default)
        elif entry.get(name) is not None:
            fields[name] = entry.text(name, strip=False)
    start = fields["startDate"]
    if start is not None and iso_date(start) is None:
        c.p.add(entry.at("startDate"), "'startDate' must be a date YYYY-MM-DD")
    if email is None or c.taken(emails, email, entry.at("email"), "employee email"):
        return
    emails.add(key(email))
    rec = {"public_id": secrets.token_hex(6), "fields": fields, "created": c.now}
    c.store.insert("ws_employees", {**rec, "updated": c.now})


CREDENTIAL_FIELDS = "helpdesk_user workspace_api_key"


def check_credentials(c: Checker, node: SeedNode | None, root: SeedNode) -> None:
    """What `serve` prints: an admin's login and a workspace key."""
    where = node or SeedNode({}, root.line, root.column)
    entry = Entry(where, c.p, "'credentials'", CREDENTIAL_FIELDS)
    user = _credential_user(c, entry, root)
    if not c.store.rows("ws_api_keys"):
        c.store.insert("ws_api_keys", {"key": secrets.token_urlsafe(24), "name": "sandbox"})
    api_keys = c.store.rows("ws_api_keys")
    api_key = api_keys[0]["key"]
    wanted = entry.text("workspace_api_key")
    if wanted is not None:
        matches = [k for k in api_keys if wanted in (k["key"], k["name"])]
        if len(matches) == 1:
            api_key = matches[0]["key"]
        else:
            found = "more than one" if matches else "no"
            message = f"{found} workspace API key has the key or name '{wanted}'"
            c.p.add(entry.at("workspace_api_key"), message)
    if user is not None:
        password = c.passwords[user["id"]] or ""
        c.credentials = Credentials(user["username"], password, user["token"], api_key)


def _credential_user(c: Checker, entry: Entry, root: SeedNode) -> Record | None:
    def usable(user: Record) -> bool:
        return user["is_admin"] and bool(c.passwords.get(user["id"])) and not user["disabled"]

    wanted = entry.text("helpdesk_user")
    if wanted is None:
        user = next((u for u in c.store.rows("users") if usable(u)), None)
        if user is None:
            c.p.add(root, "the seed needs an enabled admin user with a password")
        return user
    user = c.store.find_name("users", wanted, "username")
    if user is None:
        c.p.add(entry.at("helpdesk_user"), f"unknown username '{wanted}'")
    elif not usable(user):
        message = f"'{wanted}' must be an enabled admin user with a password"
        c.p.add(entry.at("helpdesk_user"), message)
    else:
        return user
    return None


SECTIONS = (
    "users companies departments sections categories tech_permissions custom_fields assets "
    "automation_rules workspace credentials"
)


def validate(root: SeedNode, problems: Problems, store: Store, now: str) -> Credentials | None:
    """Write the seed into `store`, a scratch one (`Checker`); every problem found goes to
    `problems`. The credentials `serve` prints, None when the seed names none."""
    c = Checker(problems, store, now)
    top = Entry(root, problems, "the seed", SECTIONS, noun="section")
    check_names(c, top.get("departments"), "departments")
    check_names(c, top.get("sections"), "sections")
    check_categories(c, top.get("categories"))
    check_custom_fields(c, top.get("custom_fields"))
    check_companies(c, top.get("companies"))
    check_users(c, top.get("users"))
    check_tech_permissions(c, top.get("tech_permissions"))
    check_assets(c, top.get("assets"))
    check_rules(c, top.get("automation_rules"))
    check_workspace(c, top.get("workspace"))
    check_credentials(c, top.get("credentials"), root)
    return c.credentials
