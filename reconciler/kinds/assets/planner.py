"""Assets: keyed by serial number. Read with `Assets?includeDisabled=true` (every page);
created with `Asset`, updated with `UpdateAsset` sending the complete record, assigned
with `AssignAssetToUser`/`UnAssignAssetToUser`, switched with `EnableAsset`/
`DisableAsset`, custom field values set with `SetCustomFieldForAsset` (compared against
the `Fields` of the listing: no per-asset read).

Decisions:
- Serial numbers match case-insensitively and ignoring surrounding white space (serials
  are typed both ways). When the spellings differ, the manifest's is written.
- Manufacturer, type and supplier are names the service matches case-insensitively (and
  creates when missing), so they compare so too; other texts compare without surrounding
  white space (the service strips them), and an empty text equals none.
- `UpdateAsset` always carries `quantity` (the real service resets an omitted one to 1)
  and every other field, `companyId` empty for none (which clears it).
- Whether an asset is enabled comes from its `Disabled` flag when the listing carries it;
  otherwise, only when it matters (an entry that manages `enabled` names a live asset, or
  prune may disable one), from a second listing without the disabled ones.
- `assigned_users` is authoritative when given. Assigned users are compared by user id
  where one is known (from the `AssignedUsers` item or the live users), else by username.
- Several live assets sharing a serial number cannot be told apart: an entry naming that
  serial is an error; prune disables all of them when none is listed.
- Prune disables (never deletes) enabled live assets the manifests do not list (with
  `settings.ownership`, only marked ones), and only when they list assets at all. Assets
  without a serial number cannot be matched, so they are never disabled (one warning).
"""

from __future__ import annotations

from typing import Any

from reconciler.kinds.assets import Asset
from reconciler.kinds.assets.reader import (
    COMPANIES,
    KIND,
    TEXTS,
    USERS,
    AssignedUser,
    LiveAsset,
    LiveAssets,
    clean_text,
    parse_asset,
    read_assets,
)
from reconciler.kinds.companies.reader import LiveCompanies
from reconciler.kinds.custom_fields.planner import closest
from reconciler.kinds.users.reader import LiveUsers
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

REQUIRED = ("model_name", "manufacturer", "type", "supplier")
NAMES = frozenset({"manufacturer", "type", "supplier"})  # the service matches these by name
REMOVAL_REASON = "not in the manifests: pruned by disabling it (EnableAsset restores it)"


class AssetsResource(KindResource):
    kind = KIND
    uses: tuple[str, ...] = ("custom_fields",)

    async def locate(
        self, change: Change, helpdesk: Any, workspace: Any, desired: DesiredState
    ) -> Any:
        """The id of the asset a lost `POST /Asset` may have made (matched by serial number;
        the API has no serial filter, so every page is read), or None."""
        for raw in await helpdesk.assets(include_disabled=True):
            asset = parse_asset(raw)
            if asset.serial_number is not None and norm_key(asset.serial_number) == norm_key(
                change.key
            ):
                return asset.id
        return None

    read = staticmethod(read_assets)

    def diff(self, ctx: PlanContext) -> KindPlan:
        planner = _Planner(ctx, ctx.live_of(KIND, LiveAssets) or LiveAssets({}))
        # The loader refuses two entries for one serial number (case-insensitive).
        for entry in ctx.desired.manifest.assets:
            planner.plan(entry)
        planner.result.diagnostics += marker_diagnostics(ctx, KIND)
        if ctx.prunes(KIND):
            planner.prune()
        return planner.result


class _Planner(Planner):
    """Plans one run's assets; resolves the companies and users entries name to live
    ids, or to the `Ref` of a create in this plan (anything else is an error)."""

    def __init__(self, ctx: PlanContext, live: LiveAssets) -> None:
        super().__init__(ctx, KIND)
        self.live = live
        self.companies = ctx.live_of(COMPANIES, LiveCompanies) or LiveCompanies({})
        # Keyed so that a missing id (None) finds nothing, as no object has it.
        self.company_names: dict[int | None, str] = {
            c.id: c.name for c in self.companies.by_key.values()
        }
        self.user_ids: dict[str, int] = {}
        self.usernames: dict[int | None, str] = {}
        # AssignedUsers items that carry both are live users too.
        known = [(u.id, u.username) for a in live.all() for u in a.assigned]
        users = ctx.live_of(USERS, LiveUsers)
        known += [(u.id, u.username) for u in users.by_key.values()] if users else []
        for user_id, username in known:
            if user_id is not None and username:
                self.user_ids[norm_key(username)] = user_id
                self.usernames[user_id] = username

    def plan(self, entry: Asset) -> None:
        group = self.live.get(entry.serial_number)
        if len(group) > 1:
            ids = ", ".join(str(a.id) for a in group)
            self.problem(
                entry.serial_number,
                f"{len(group)} live assets (ids {ids}) have this serial number, so "
                "the entry cannot tell which one it means",
                "give each asset its own serial number in the helpdesk",
            )
        elif group:
            self.update(entry, group[0])
        else:
            self.create(entry)

    def company(self, entry: Asset, name: str) -> int | Ref | None:
        found = self.ctx.resolve(COMPANIES, name)
        if found is None:
            self.problem(
                entry.serial_number,
                f"unknown company {name!r}" + closest(name, self.ctx.known_names(COMPANIES)),
                f"add it under `{COMPANIES}` in the manifests, or fix the name",
            )
        return found

    def user(self, entry: Asset, username: str) -> int | Ref | None:
        # The AssignedUsers items name users too, with their ids.
        found: int | Ref | None = self.user_ids.get(norm_key(username))
        if found is None:
            found = self.ctx.resolve(USERS, username)
        if found is None:
            known = [*self.usernames.values(), *self.ctx.known_names(USERS)]
            self.problem(
                entry.serial_number,
                f"unknown user {username!r}" + closest(username, known),
                "add the user under `users` in the manifests, or fix the username",
            )
        return found

    def create(self, entry: Asset) -> None:
        given = self.given(entry)
        missing = [n for n in REQUIRED if n not in given or getattr(entry, n) is None]
        if missing:
            names = ", ".join(missing)
            self.problem(
                entry.serial_number,
                f"does not exist, and the API cannot create an asset without {names}",
                f"give {names} in the entry, or fix the serial number",
            )
            return
        addr = address(KIND, entry.serial_number)
        fields = [FieldChange("serial_number", None, entry.serial_number)]
        params: dict[str, Any] = {"serialNumber": entry.serial_number}
        for name, param in TEXTS.items():
            if name in given and clean_text(getattr(entry, name)) is not None:
                fields.append(FieldChange(name, None, getattr(entry, name)))
                params[param] = getattr(entry, name)
        if "quantity" in given and entry.quantity is not None:
            fields.append(FieldChange("quantity", None, entry.quantity))
            params["quantity"] = entry.quantity
        if "company" in given and entry.company:
            fields.append(FieldChange("company", None, entry.company))
            company_id = self.company(entry, entry.company)
            if company_id is not None:
                params["companyId"] = company_id
        operations = [post("Asset", params, creates=addr, idempotent=False)]
        cf_fields, cf_ops = value_changes(
            self, entry.serial_number, entry.custom_fields, None, Ref(addr)
        )
        fields += cf_fields
        operations += cf_ops
        if "assigned_users" in given and entry.assigned_users:
            fields.append(FieldChange("assigned_users", None, list(entry.assigned_users)))
            for username in entry.assigned_users:
                user_id = self.user(entry, username)
                if user_id is not None:
                    operations.append(_assign(Ref(addr), user_id, username))
        if "enabled" in given and entry.enabled is not None:
            fields.append(FieldChange("enabled", None, entry.enabled))
            if not entry.enabled:
                operations.append(_disable(Ref(addr)))
        self.change(entry.serial_number, Action.create, fields, operations)

    def update(self, entry: Asset, current: LiveAsset) -> None:
        given = self.given(entry)
        fields: list[FieldChange] = []
        record = current.record()
        if "serial_number" in given and entry.serial_number != current.serial_number:
            fields.append(FieldChange("serial_number", current.serial_number, entry.serial_number))
            record["serialNumber"] = entry.serial_number
        for name, param in TEXTS.items():
            value = getattr(entry, name)
            if name not in given or (value is None and name in REQUIRED):
                continue  # required fields cannot be cleared: null leaves them alone
            wanted, have = clean_text(value), current.texts.get(name)
            if name in NAMES:  # required, so never empty here: null was skipped above
                same = have is not None and norm_key(value) == norm_key(have)
            else:
                same = wanted == have
            if not same:
                fields.append(FieldChange(name, have, value))
                record[param] = wanted or ""
        if "quantity" in given and entry.quantity not in (None, current.quantity):
            fields.append(FieldChange("quantity", current.quantity, entry.quantity))
            record["quantity"] = entry.quantity
        if "company" in given:
            self.update_company(entry, current, record, fields)
        operations = [post("UpdateAsset", record)] if fields else []
        live_values = current.custom_values
        cf_fields, cf_ops = value_changes(
            self, entry.serial_number, entry.custom_fields, live_values, current.id
        )
        fields += cf_fields
        operations += cf_ops
        if "assigned_users" in given and entry.assigned_users is not None:
            assignment, assign_ops = self.assignments(entry, entry.assigned_users, current)
            fields += assignment
            operations += assign_ops
        action = Action.update
        if "enabled" in given and entry.enabled is not None and current.enabled != entry.enabled:
            if not fields:
                action = Action.enable if entry.enabled else Action.disable
            fields.append(FieldChange("enabled", current.enabled, entry.enabled))
            # Enable before the other calls, disable after them: the asset is never
            # changed while retired, whatever the service makes of that.
            switch = _switch(current.id, enable=entry.enabled)
            operations = [switch, *operations] if entry.enabled else [*operations, switch]
        if fields:
            self.change(entry.serial_number, action, fields, operations)

    def update_company(
        self, entry: Asset, current: LiveAsset, record: dict[str, Any], fields: list[FieldChange]
    ) -> None:
        before = current.company_name or self.company_names.get(current.company_id)
        if current.company_id is not None and before is None:
            before = f"company #{current.company_id}"
        if entry.company is None:
            if current.company_id is not None:
                fields.append(FieldChange("company", before, None))
                record["companyId"] = ""
            return
        wanted = self.company(entry, entry.company)
        if wanted is not None and wanted != current.company_id:
            fields.append(FieldChange("company", before, entry.company))
            record["companyId"] = wanted

    def identity(self, user: AssignedUser) -> int | str | None:
        """How an assigned user is compared: by id when one is known, else by name; an
        item with neither is no user an entry can name (None)."""
        if user.id is not None:
            return user.id
        if not user.username:
            return None
        name = norm_key(user.username)
        return self.user_ids.get(name, name)

    def shown(self, user: AssignedUser) -> str:
        return user.username or self.usernames.get(user.id) or f"user #{user.id}"

    def assignments(
        self, entry: Asset, usernames: list[str], current: LiveAsset
    ) -> tuple[list[FieldChange], list[Operation]]:
        live = {self.identity(u): u for u in current.assigned}
        wanted: dict[int | str, tuple[str, int | Ref]] = {}
        for username in usernames:
            target = self.user(entry, username)
            if target is not None:
                key = target if isinstance(target, int) else norm_key(username)
                wanted[key] = (username, target)
        operations = []
        for ident, user in live.items():
            if ident in wanted:
                continue
            shown = self.shown(user)
            if isinstance(ident, int):
                unassign = {"assetId": current.id, "userId": ident}
                operations.append(post("UnAssignAssetToUser", unassign, f"unassign {shown}"))
            else:
                self.problem(
                    entry.serial_number,
                    f"cannot unassign {shown!r}: the API gives no user id",
                    "unassign the user in the helpdesk",
                )
        for key, (username, target) in wanted.items():
            if key not in live:
                operations.append(_assign(current.id, target, username))
        if not operations:
            return [], []
        before = [self.shown(u) for u in current.assigned]
        return [FieldChange("assigned_users", before, list(usernames))], operations

    def prune(self) -> None:
        listed = {norm_key(a.serial_number) for a in self.ctx.desired.manifest.assets}
        unknown = 0
        for key, group in sorted(self.live.by_key.items()):
            if key in listed or not all(owned(self.ctx, KIND, a.custom_values) for a in group):
                continue
            if any(a.enabled is None for a in group):
                unknown += len(group)
                continue
            enabled = [a for a in group if a.enabled]
            if not enabled:
                continue
            shown = ", ".join(
                f"{a.texts.get('model_name') or 'asset'} (id {a.id})" for a in enabled
            )
            self.change(
                enabled[0].serial_number or key,
                Action.disable,
                [FieldChange("enabled", True, False)],
                [_disable(a.id) for a in enabled],
                reason=f"{shown}: {REMOVAL_REASON}",
                removal=True,
            )
        if unknown:
            self.result.diagnostics.append(
                error(
                    f"cannot prune assets: the API does not say which of {unknown} unlisted "
                    "assets are enabled, and the live state was read without pruning",
                    remedy="read the live state with the same prune setting as the plan "
                    "(read_live(prune=plan.prune_kinds(...)))",
                )
            )
        unmatched = sum(1 for a in self.live.unkeyed if a.enabled is not False)
        if unmatched:
            self.result.diagnostics.append(
                warning(
                    f"{unmatched} live asset(s) have no serial number: they cannot be "
                    "matched to manifest entries, so prune never disables them",
                    remedy="give them serial numbers in the helpdesk to manage them",
                )
            )


def _assign(asset_id: int | Ref, user_id: int | Ref, username: str) -> Operation:
    params = {"assetId": asset_id, "userId": user_id}
    return post("AssignAssetToUser", params, f"assign to {username}")


def _switch(asset_id: int | Ref, *, enable: bool) -> Operation:
    return post("EnableAsset", {"assetId": asset_id}) if enable else _disable(asset_id)


def _disable(asset_id: int | Ref) -> Operation:
    return post("DisableAsset", {"assetId": asset_id})
