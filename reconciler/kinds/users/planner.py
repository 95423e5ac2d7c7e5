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
  user must not disable everyone) disables enabled users the manifests do not name;
  with `settings.ownership`, only those that carry the marker (resources/ownership.py).

The live state and the pure comparison (`record_changes`, the complete records) are in
`reader.py`, which `read` and `diff` share.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reconciler.errors import ApiError
from reconciler.kinds.companies.reader import LiveCompanies
from reconciler.kinds.custom_fields.planner import closest
from reconciler.kinds.users import User
from reconciler.kinds.users.reader import (
    COMPANIES,
    DEPARTMENTS,
    KIND,
    RECORD_FIELDS,
    LiveUser,
    LiveUsers,
    create_record,
    parse_user,
    read_users,
    record_changes,
    strays,
    update_record,
)
from reconciler.manifest.desired import DesiredState
from reconciler.plans import (
    Action,
    Change,
    FieldChange,
    Operation,
    Ref,
    address,
    error,
    warning,
)
from reconciler.resources.base import (
    KindPlan,
    KindResource,
    PlanContext,
    Planner,
    norm_key,
    post,
)
from reconciler.resources.ownership import marker_diagnostics, owned, value_changes

__all__ = ["LiveUser", "LiveUsers", "UsersResource", "parse_user", "record_changes"]

UPDATE = "UpdateUser"
ADD_EMAIL = "add `email:` to the entry"
CREATE_FIELDS = ("first_name", "last_name", "phone", "location", "company", "department")


class UsersResource(KindResource):
    kind = KIND
    uses: tuple[str, ...] = (DEPARTMENTS, "custom_fields")  # departments: names for the listed ids

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

    read = staticmethod(read_users)

    def diff(self, ctx: PlanContext) -> KindPlan:
        planner = _Planner(ctx)
        for user in ctx.desired.manifest.users:
            current = planner.live.get(user.username)
            if current is None:
                planner.create(user)
            else:
                planner.update(user, current)
        if ctx.prunes(KIND) and ctx.desired.manifest.users:
            for stray in strays(planner.live, ctx.desired):
                if owned(ctx, KIND, stray.custom_values):
                    planner.disable(stray)
        planner.result.diagnostics += marker_diagnostics(ctx, KIND)
        return planner.result


class _Planner(Planner):
    """Plans one run's users."""

    def __init__(self, ctx: PlanContext) -> None:
        super().__init__(ctx, KIND)
        self.live = ctx.live_of(KIND, LiveUsers) or LiveUsers({})
        self.caller_id = self.live.caller_id

    def create(self, user: User) -> None:
        if not user.email:
            message = f"user {user.username!r} cannot be created without an e-mail address "
            self.problem(user.username, message + "(CreateUser requires one)", ADD_EMAIL)
            return
        self.ctx.will_create(KIND, user.username)
        ref = Ref(address(KIND, user.username))
        given = self.given(user)
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
        create = post("CreateUser", params, creates=ref.address, idempotent=False)
        values = value_changes(self, user.username, user.custom_fields, None, ref)
        company = user.company if "company" in given else None
        self.change(
            user.username,
            Action.create,
            fields + values[0],
            [create, *_completion(user, given, ref), *values[1]],
            depends_on=self.company_dependency(user, company),
        )

    def update(self, user: User, current: LiveUser) -> None:
        disables_caller = current.id == self.caller_id and not current.disabled
        if disables_caller and user.disabled and "disabled" not in self.ignored:
            message = "is the account the reconciler runs as: disabling it would lock the "
            remedy = "run the reconciler as another administrator, or drop `disabled: true`"
            self.problem(user.username, message + "reconciler out", remedy)
        fields = record_changes(user, current, self.ignored, self.caller_id)
        if norm_key(current.username) != norm_key(user.username):  # renamed (`previously:`)
            fields.insert(0, FieldChange("username", current.username, user.username))
        operations = [self.update_operation(current, fields)] if fields else []
        live_values = current.custom_values or ()
        values = value_changes(self, user.username, user.custom_fields, live_values, current.id)
        fields += values[0]
        if not fields:
            return
        action = Action.update
        if [f.path for f in fields] == ["disabled"]:
            action = Action.disable if fields[0].after else Action.enable
        company = next((f.after for f in fields if f.path == "company"), None)
        depends_on = self.company_dependency(user, company)
        self.change(user.username, action, fields, operations + values[1], depends_on=depends_on)

    def disable(self, stray: LiveUser) -> None:
        if stray.id == self.caller_id:
            self.result.diagnostics.append(
                warning(
                    "not in the manifests, but it is the account the reconciler runs as: "
                    "left enabled",
                    address(KIND, stray.username),
                    "add it to the manifests to silence this warning",
                )
            )
            return
        fields = [FieldChange("disabled", False, True)]
        operation = self.update_operation(stray, fields)
        reason = "not in the manifests (pruned)"
        self.change(
            stray.username, Action.disable, fields, [operation], reason=reason, removal=True
        )

    def update_operation(self, current: LiveUser, fields: list[FieldChange]) -> Operation:
        """`UpdateUser` with the complete record: live, with the changes applied."""
        record = update_record(current, fields)
        if current.detail is None:
            # `read` fetches the full object for every user this plans an UpdateUser for;
            # without it the record would be incomplete, and old versions blank the rest.
            self.result.diagnostics.append(
                error(
                    "the full user record was not read, so UpdateUser cannot send it complete",
                    address(KIND, current.username),
                    "plan again; if this persists, it is a bug of the reconciler",
                )
            )
        unnamed = current.department is None and current.department_id is not None
        if unnamed and not any(f.path == "department" for f in fields):
            # UpdateUser names a department, and its record is complete (an omitted field
            # is blanked): a department known only by an id no listed department has cannot
            # be sent back, so any update of the user would clear it.
            self.problem(
                current.username,
                f"its department is listed only by id {current.department_id}, which no "
                "listed department has, and UpdateUser takes a department's name: updating "
                "the user would clear its department",
                "give the user's `department` in the entry, or fix the user's department in "
                "the helpdesk",
            )
        return post(UPDATE, record)

    def company_dependency(self, user: User, company: Any) -> tuple[str, ...]:
        """A company the plan creates is created before the user that names it. One that is
        neither live nor in the manifests would be created by CreateUser/UpdateUser as a bare
        name (no domains, no notes), and no call deletes a company: an error, as it is most
        often a typo (the companies are read whenever a user names one)."""
        if not company:
            return ()
        found = self.ctx.resolve(COMPANIES, str(company))
        if isinstance(found, Ref):
            return (found.address,)
        if found is None and self.ctx.live_of(COMPANIES, LiveCompanies) is not None:
            known = self.ctx.live_names(COMPANIES)
            self.problem(
                user.username,
                f"company {company!r} is neither live nor in the manifests: the helpdesk "
                "would create it as a side effect, and a company cannot be deleted"
                + closest(str(company), known),
                f"fix the name, or add the company under `{COMPANIES}` to create it",
                "company",
            )
        return ()


def _completion(user: User, given: set[str], ref: Ref) -> list[Operation]:
    """`CreateUser` takes no notes, role or state: a complete record follows for them."""
    extra = [
        name
        for name in ("is_admin", "disabled", "notes")
        if name in given
        and (getattr(user, name) is True or (name == "notes" and (user.notes or "").strip()))
    ]
    if not extra:
        return []
    record = create_record(user, given, ref)
    description = "set " + ", ".join(extra)
    return [post(UPDATE, record, description)]
