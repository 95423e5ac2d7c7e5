"""Reads that grow with `settings.scope`, not with the tenant (DESIGN §9).

The users' and the assets' readers list through the API's own filters: one `Users` read
per (company, department) pair of the scope, with its `listMode`; one `Assets` read per
company (`assignedToCompanyId`). Pages are read as without a scope. The patterns filter
what was listed. A company or department the scope names that does not exist live is
not read at all: nothing can be in it yet (the plan warns: `scope_warnings`).

The kinds are named through the table of kinds (a users' scope filters by the kinds its
entries' `company` and `department` name), never here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any

from reconciler.kinds.table import spec
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.models import Kind
from reconciler.manifest.references import named_references
from reconciler.manifest.scopes import in_patterns
from reconciler.plans import Diagnostic, warning
from reconciler.resources.base import Reader, norm_key

Listing = list[dict[str, Any]]
# The entry fields whose kinds a scope may filter by (`companies`, `departments`).
_MEMBERSHIP = ("company", "department")


def _filters(kind: str) -> list[str]:
    """The kinds `kind`'s scope may filter by, through its entries' fields."""
    return [target.value for field, target in spec(kind).references if field in _MEMBERSHIP]


def _id(live: Any, name: str) -> int | None:
    """The live id of `name` in a kind's live state (companies: `id_of`; departments:
    `get` gives (id, name))."""
    if live is None:
        return None
    if hasattr(live, "id_of"):
        found = live.id_of(name)
        return None if found is None else int(found)
    pair = live.get(name)
    return None if pair is None else int(pair[0])


def _ids(live: Any, names: Sequence[str] | None) -> list[int | None]:
    """The live ids of `names` (None: no filter, one unfiltered read); names not live
    are left out: nothing can be in them."""
    if names is None:
        return [None]
    found = (_id(live, name) for name in names)
    return list(dict.fromkeys(i for i in found if i is not None))


async def merged(calls: Iterable[Awaitable[Listing]], id_key: str) -> Listing:
    """The items of every read, each object once (a user in two departments read)."""
    seen: dict[Any, dict[str, Any]] = {}
    for listing in await asyncio.gather(*calls):
        for item in listing:
            seen.setdefault(item.get(id_key), item)
    return list(seen.values())


async def scoped_ids(reader: Reader, kind: str, field: str) -> list[int | None]:
    """The ids to read `kind` by, one read each: those of the objects its scope names by
    `field` (`company`, `department`), from the read of their kind; [None] (one read,
    unfiltered by it) when the scope does not filter by it."""
    scope = reader.desired.settings.scope.of(kind)
    target = spec(kind).target(field)
    names = getattr(scope, target, None)  # no scope: None too
    if names is None:
        return [None]
    return _ids(await reader.get(target), names)


def users_filters(scope: Any, company: int | None, department: int | None) -> dict[str, Any]:
    """The `Users` filters of one read: the scope's `listMode`, one company, one department."""
    mode = scope.list_mode
    given = {"listMode": None if mode is None else mode.value}
    given |= {"companyId": company, "departmentId": department}
    return {k: v for k, v in given.items() if v is not None}


def in_scope(
    desired: DesiredState, kind: str, *values: Callable[[Any], str]
) -> Callable[[Any], bool]:
    """Whether a parsed live object passes `kind`'s patterns, on the `values` of it (a
    user's username and e-mail, an asset's serial number)."""
    scope = desired.settings.scope.of(kind)
    return lambda item: in_patterns(scope, *(value(item) for value in values))


async def read_outside(
    reader: Reader, kind: str, live: Mapping[str, Any], parse: Callable[[Any], Any]
) -> dict[str, Any]:
    """The users outside the scope that entries of other kinds name (technicians,
    assigned users), each read by its username: never the whole kind. Names that are
    not live are left out (the planner reports them, as without a scope)."""
    if reader.desired.settings.scope.of(kind) is None:
        return {}
    named = {
        norm_key(name): name
        for _, _, _, target, name in named_references(reader.desired)
        if target.value == kind and norm_key(name) not in live
    }
    found = await asyncio.gather(*(reader.helpdesk.user_by_username(n) for n in named.values()))
    parsed = (parse(raw) for raw in found if raw is not None)
    return {norm_key(user.username): user for user in parsed}


def scope_warnings(desired: DesiredState, live: Mapping[str, Any]) -> list[Diagnostic]:
    """A company or department a scope names that is not live: nothing can match it yet."""
    found = []
    for kind in Kind:
        scope = desired.settings.scope.of(kind.value)
        for target in _filters(kind.value):
            known = live.get(target)
            # No scope of the kind (None) names nothing, as an empty filter does.
            for index, name in enumerate(getattr(scope, target, None) or ()):
                if known is not None and _id(known, name) is None:
                    found.append(
                        warning(
                            f"settings.scope.{kind.value}: {spec(target).noun} {name!r} does "
                            "not exist: nothing can match it yet",
                            location=desired.settings_location("scope", kind.value, target, index),
                        )
                    )
    return found
