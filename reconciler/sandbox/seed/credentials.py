"""The `credentials` section of a seed: which admin's login and which workspace key `serve`
prints (by default the first usable admin and the first key, generated when none)."""

from __future__ import annotations

import secrets

from reconciler.sandbox.seed.checker import Checker
from reconciler.sandbox.seed.entry import Entry, key
from reconciler.sandbox.seed.plan import Credentials, PlannedUser
from reconciler.sandbox.seed.reading import SeedNode

CREDENTIAL_FIELDS = "helpdesk_user workspace_api_key"


def check_credentials(c: Checker, node: SeedNode | None, root: SeedNode) -> None:
    """What `serve` prints: an admin's login and a workspace key."""
    where = node or SeedNode({}, root.line, root.column)
    entry = Entry(where, c.p, "'credentials'", CREDENTIAL_FIELDS)
    user = _user(c, entry, root)
    if not c.plan.api_keys:
        c.plan.api_keys.append({"key": secrets.token_urlsafe(24), "name": "sandbox"})
    api_key = c.plan.api_keys[0]["key"]
    wanted = entry.text("workspace_api_key")
    if wanted is not None:
        matches = [k for k in c.plan.api_keys if wanted in (k["key"], k["name"])]
        if len(matches) == 1:
            api_key = matches[0]["key"]
        else:
            found = "more than one" if matches else "no"
            message = f"{found} workspace API key has the key or name '{wanted}'"
            c.p.add(entry.at("workspace_api_key"), message)
    if user is not None:
        kwargs = user.kwargs
        c.plan.credentials = Credentials(
            kwargs["username"], kwargs["password"], kwargs["token"], api_key
        )


def _usable(user: PlannedUser) -> bool:
    kwargs = user.kwargs
    return kwargs["role"] == "admin" and bool(kwargs["password"]) and not kwargs["disabled"]


def _user(c: Checker, entry: Entry, root: SeedNode) -> PlannedUser | None:
    wanted = entry.text("helpdesk_user")
    if wanted is None:
        user = next((u for u in c.plan.users.values() if _usable(u)), None)
        if user is None:
            c.p.add(root, "the seed needs an enabled admin user with a password")
        return user
    user = c.plan.users.get(key(wanted))
    if user is None:
        c.p.add(entry.at("helpdesk_user"), f"unknown username '{wanted}'")
    elif not _usable(user):
        message = f"'{wanted}' must be an enabled admin user with a password"
        c.p.add(entry.at("helpdesk_user"), message)
    else:
        return user
    return None
