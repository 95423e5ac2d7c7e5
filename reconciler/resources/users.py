"""Users: keyed by username (case-insensitive). Read from the paged `Users` list, created
with `CreateUser`, updated with `UpdateUser` sending the complete record, custom field
values set with `SetCustomFieldForUser`; pruned users are disabled, never deleted.

Decisions (DESIGN §1, §5 and the real-world notes):
- Managed fields: email (case-insensitive), first_name, last_name, phone, location, notes
  (trailing white space ignored, null the same as empty), company and department (by
  name, case-insensitive; null clears), is_admin, disabled, custom_fields. A username that
  differs only in case is the same user and not a change: logins ignore case.
- The list item lacks the greeting, signature and e-mail notification flag that a
  complete `UpdateUser` record carries, so the full `User` object is read for exactly the
  users that get an `UpdateUser`: those whose list-based diff (`record_changes`, the same
  function `diff` uses) changes a field it carries, and those pruned. A detail key the
  object lacks is left out of the record rather than guessed.
- `CreateUser` needs an e-mail (a missing one is an error naming the user) and takes no
  notes, role or state: when the entry sets `is_admin: true`, `disabled: true` or notes,
  one `UpdateUser` follows with the complete record built from the entry (its greeting,
  signature and notification flag are the service's defaults, which the plan cannot
  know, so they are left out). The welcome e-mail is sent only when the entry asks.
- A company the plan creates is created first (`depends_on`), so that it carries its
  domains and notes; departments need nothing (`CreateUser`/`UpdateUser` create them).
- The account the reconciler runs as (`POST /Authorization`, already made and cached by
  the client) is never disabled: pruning it is a warning, an entry disabling it an error.
- Pruning (only when the manifests list users: `--prune` with manifests that manage no
  user must not disable everyone) disables enabled users the manifests do not name.

The live state and the pure comparison (`record_changes`, the complete records) are in
`user_records.py`, which `read` and `diff` share.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from reconciler.changes import Action, Change, FieldChange, Operation, Ref, address, error, warning
from reconciler.errors import ApiError
from reconciler.manifest import DesiredState
from reconciler.manifest.kinds import service_of
from reconciler.manifest.models import User
from reconciler.resources.base import KindPlan, PlanContext, Reader, norm_key
from reconciler.resources.companies import LiveCompanies
from reconciler.resources.custom_fields import (
    USAGE,
    CustomFieldCatalogue,
    closest,
    diff_values,
    unignored,
)
from reconciler.resources.user_records import (
    KIND,
    RECORD_FIELDS,
    LiveUser,
    LiveUsers,
    create_record,
    ignored_fields,
    parse_user,
    record_changes,
    strays,
    update_record,
)

__all__ = ["LiveUser", "LiveUsers", "UsersResource", "parse_user", "record_changes"]

UPDATE_PATH = "/api/UpdateUser"
CREATE_FIELDS = ("first_name", "last_name", "phone", "location", "company", "department")


def _prunes(reader: Reader) -> bool:
    """Whether this run prunes users: only when the manifests list some (see above)."""
    return KIND in reader.prune and bool(reader.desired.manifest.users)


def _custom_values_wanted(user: User, ignored: frozenset[str]) -> dict[str, Any]:
    if not user.custom_fields or "custom_fields" in ignored:
        return {}
    return unignored(user.custom_fields, ignored)


def _user_id(caller: Any) -> int | None:
    if not isinstance(caller, Mapping):
        return None
    ident = caller.get("UserID") or caller.get("UserId")
    return int(ident) if ident else None


class UsersResource:
    kind = KIND
    service = service_of(KIND)

    async def locate(
        self, change: Change, helpdesk: Any, workspace: Any, desired: DesiredState
    ) -> Any:
        """The id of the user a lost `CreateUser` may have made, or None (`UserByUsername`
        answers 404 for an unknown username)."""
        try:
            found = await helpdesk.request(
                "GET", "/UserByUsername", {"username": change.key}, write=False
            )
        except ApiError as err:
            if err.status == 404:
                return None
            raise
        return parse_user(found).id if isinstance(found, Mapping) else None

    def needs(self, desired: DesiredState) -> bool:
        manifest = desired.manifest
        # Tech permissions and asset assignments name users: their ids come from here.
        return (
            bool(manifest.users)
            or any(p.technicians for p in manifest.tech_permissions)
            or any(a.assigned_users for a in manifest.assets)
        )

    async def read(self, reader: Reader) -> LiveUsers:
        helpdesk = reader.helpdesk
        desired = reader.desired
        departments = await reader.get("departments")
        users = {}
        for raw in await helpdesk.users():
            user = parse_user(raw, departments)
            users[norm_key(user.username)] = user
        pruning = _prunes(reader)
        caller_id = None
        if pruning or any(u.disabled for u in desired.manifest.users):
            # Free: the client made this call before any other and keeps the answer.
            caller_id = _user_id(await helpdesk.authenticate())
        ignored = ignored_fields(desired)
        detail_for: list[LiveUser] = []
        custom_for: list[LiveUser] = []
        for entry in desired.manifest.users:
            current = users.get(norm_key(entry.username))
            if current is None:
                continue
            if record_changes(entry, current, ignored, caller_id):
                detail_for.append(current)
            if _custom_values_wanted(entry, ignored):
                custom_for.append(current)
        if pruning:
            live = LiveUsers(users, caller_id)
            detail_for += [u for u in strays(live, desired) if u.id != caller_id]
        found = await asyncio.gather(
            *(helpdesk.user(u.id) for u in detail_for),
            *(helpdesk.user_custom_fields(u.id) for u in custom_for),
        )
        for user, detail in zip(detail_for, found[: len(detail_for)], strict=True):
            key = norm_key(user.username)
            users[key] = replace(users[key], detail=dict(detail))
        for user, items in zip(custom_for, found[len(detail_for) :], strict=True):
            key = norm_key(user.username)
            users[key] = replace(users[key], custom_values=tuple(items))
        return LiveUsers(users, caller_id)

    def diff(self, ctx: PlanContext) -> KindPlan:
        live = ctx.live_of(KIND, LiveUsers) or LiveUsers({})
        result = KindPlan()
        for user in ctx.desired.manifest.users:
            current = live.get(user.username)
            if current is None:
                self._create(ctx, user, result)
            else:
                self._update(ctx, user, current, live.caller_id, result)
        if ctx.prunes(KIND) and ctx.desired.manifest.users:
            for stray in strays(live, ctx.desired):
                self._disable(stray, live.caller_id, result)
        return result

    def _create(
        self,
        ctx: PlanContext,
        user: User,
        result: KindPlan,
    ) -> None:
        addr = address(KIND, user.username)
        location = ctx.location(KIND, user.username)
        if not user.email:
            result.diagnostics.append(
                error(
                    f"user {user.username!r} cannot be created without an e-mail address "
                    "(CreateUser requires one)",
                    addr,
                    "add `email:` to the entry",
                    location,
                )
            )
            return
        ctx.will_create(KIND, user.username)
        ref = Ref(addr)
        ignored = ctx.ignored(KIND)
        given = user.model_fields_set - ignored
        fields = [
            FieldChange("username", None, user.username),
            FieldChange("email", None, user.email),
        ]
        params: dict[str, Any] = {"email": user.email, "username": user.username}
        for name in RECORD_FIELDS:
            value = getattr(user, name)
            if name == "email" or name not in given or value is None:
                continue
            fields.append(FieldChange(name, None, value))
            if name in CREATE_FIELDS:
                params[RECORD_FIELDS[name]] = value
        params["sendWelcomeEmail"] = user.send_welcome_email
        operations = [
            Operation("helpdesk", "POST", "/api/CreateUser", params, creates=addr, idempotent=False)
        ]
        # CreateUser takes no notes, role or state: a complete record follows for them.
        extra = [
            name
            for name in ("is_admin", "disabled", "notes")
            if name in given
            and (getattr(user, name) is True or (name == "notes" and (user.notes or "").strip()))
        ]
        if extra:
            record = create_record(user, given, ref)
            operations.append(
                Operation(
                    "helpdesk", "POST", UPDATE_PATH, record, description="set " + ", ".join(extra)
                )
            )
        _custom_values(ctx, user, None, ref, fields, operations, result)
        result.changes.append(
            Change(
                KIND,
                user.username,
                Action.create,
                tuple(fields),
                tuple(operations),
                depends_on=_company_dependency(
                    ctx, user, user.company if "company" in given else None, result
                ),
            )
        )

    def _update(
        self,
        ctx: PlanContext,
        user: User,
        current: LiveUser,
        caller_id: int | None,
        result: KindPlan,
    ) -> None:
        addr = address(KIND, user.username)
        location = ctx.location(KIND, user.username)
        ignored = ctx.ignored(KIND)
        disables_caller = current.id == caller_id and not current.disabled
        if disables_caller and user.disabled and "disabled" not in ignored:
            result.diagnostics.append(
                error(
                    "is the account the reconciler runs as: disabling it would lock the "
                    "reconciler out",
                    addr,
                    "run the reconciler as another administrator, or drop `disabled: true`",
                    location,
                )
            )
        fields = record_changes(user, current, ignored, caller_id)
        operations: list[Operation] = []
        if fields:
            operations.append(self._update_operation(current, fields, result))
        live_values = current.custom_values or ()
        _custom_values(ctx, user, live_values, current.id, fields, operations, result)
        if not fields:
            return
        action = Action.update
        if [f.path for f in fields] == ["disabled"]:
            action = Action.disable if fields[0].after else Action.enable
        company = next((f.after for f in fields if f.path == "company"), None)
        result.changes.append(
            Change(
                KIND,
                user.username,
                action,
                tuple(fields),
                tuple(operations),
                depends_on=_company_dependency(ctx, user, company, result),
            )
        )

    def _disable(self, stray: LiveUser, caller_id: int | None, result: KindPlan) -> None:
        addr = address(KIND, stray.username)
        if stray.id == caller_id:
            result.diagnostics.append(
                warning(
                    "not in the manifests, but it is the account the reconciler runs as: "
                    "left enabled",
                    addr,
                    "add it to the manifests to silence this warning",
                )
            )
            return
        fields = [FieldChange("disabled", False, True)]
        operation = self._update_operation(stray, fields, result)
        result.changes.append(
            Change(
                KIND,
                stray.username,
                Action.disable,
                tuple(fields),
                (operation,),
                reason="not in the manifests (pruned)",
                removal=True,
            )
        )

    def _update_operation(
        self, current: LiveUser, fields: list[FieldChange], result: KindPlan
    ) -> Operation:
        """`UpdateUser` with the complete record: live, with the changes applied."""
        record = update_record(current, fields)
        if current.detail is None:
            # `read` fetches the full object for every user this plans an UpdateUser for;
            # without it the record would be incomplete, and old versions blank the rest.
            result.diagnostics.append(
                error(
                    "the full user record was not read, so UpdateUser cannot send it complete",
                    address(KIND, current.username),
                    "plan again; if this persists, it is a bug of the reconciler",
                )
            )
        return Operation("helpdesk", "POST", UPDATE_PATH, record)


def _custom_values(
    ctx: PlanContext,
    user: User,
    live_items: tuple[Mapping[str, Any], ...] | None,
    user_id: int | Ref,
    fields: list[FieldChange],
    operations: list[Operation],
    result: KindPlan,
) -> None:
    """Adds the custom field value changes of one user (`live_items` None: a new user)."""
    wanted = _custom_values_wanted(user, ctx.ignored(KIND))
    if not wanted:
        return
    found, calls, problems = diff_values(
        catalogue=ctx.live_of("custom_fields", CustomFieldCatalogue),
        usage=USAGE[KIND],
        desired=wanted,
        live_items=live_items,
        set_path="/api/SetCustomFieldForUser",
        entity_id=user_id,
        address=address(KIND, user.username),
        location=ctx.location(KIND, user.username),
    )
    fields += found
    operations += calls
    result.diagnostics += problems


def _company_dependency(
    ctx: PlanContext, user: User, company: Any, result: KindPlan
) -> tuple[str, ...]:
    """A company the plan creates is created before the user that names it. One that is
    neither live nor in the manifests would be created by CreateUser/UpdateUser as a bare
    name (no domains, no notes): a warning, as it is most often a typo. That is known only
    when the companies were read (the manifests manage companies)."""
    if not company:
        return ()
    ref = ctx.created_ref("companies", str(company))
    if ref is not None:
        return (ref.address,)
    companies = ctx.live_of("companies", LiveCompanies)
    if companies is not None and companies.get(str(company)) is None:
        known = [c.name for c in companies.by_key.values()]
        result.diagnostics.append(
            warning(
                f"company {company!r} is neither live nor in the manifests: the helpdesk "
                "creates it with no e-mail domains or notes" + closest(str(company), known),
                address(KIND, user.username),
                "add it under `companies`, or fix the name",
                ctx.desired.location(KIND, user.username, "company"),
            )
        )
    return ()
