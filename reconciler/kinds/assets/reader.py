"""The assets' live state: `Assets` items parsed into `LiveAsset`s (tolerating the shapes
of different versions: assigned users as objects, ids or names; a `Disabled` flag or
none), indexed by serial number, and their reader. The decisions are the planner's
(`planner.py`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from operator import attrgetter
from typing import Any

from reconciler.kinds.table import spec
from reconciler.manifest.models import Kind
from reconciler.manifest.renames import formers_of
from reconciler.resources.base import Keyed, Reader, norm_key
from reconciler.resources.scope_reads import in_scope, merged, scoped_ids

KIND = "assets"
# The kinds its entries name (the table of kinds' references).
COMPANIES, USERS = spec(KIND).targets("company", "assigned_users")

# Manifest field -> parameter of `Asset`/`UpdateAsset`, for the plain text fields.
TEXTS = {
    "model_name": "modelName",
    "manufacturer": "manufacturer",
    "type": "type",
    "supplier": "supplier",
    "location": "location",
    "comments": "comments",
}


@dataclass(frozen=True)
class AssignedUser:
    id: int | None
    username: str | None


@dataclass(frozen=True)
class LiveAsset:
    id: int
    serial_number: str | None
    texts: Mapping[str, str | None]  # manifest field name -> live value, for TEXTS
    quantity: int
    company_id: int | None
    company_name: str | None
    assigned: tuple[AssignedUser, ...]
    custom_values: tuple[Mapping[str, Any], ...]
    enabled: bool | None  # None: the listing does not say and it was not needed

    def digest_data(self) -> Any:
        values = sorted((str(v.get("FieldID")), str(v.get("Value"))) for v in self.custom_values)
        users = sorted((u.id or 0, u.username or "") for u in self.assigned)
        texts = [self.texts.get(name) for name in TEXTS]
        return [
            self.id,
            self.serial_number,
            texts,
            self.quantity,
            self.company_id,
            users,
            values,
            self.enabled,
        ]

    def record(self) -> dict[str, Any]:
        """The complete `UpdateAsset` record of the live asset (one matched by its serial
        number: an asset without one is never updated)."""
        record: dict[str, Any] = {"id": self.id}
        record.update({param: self.texts.get(name) or "" for name, param in TEXTS.items()})
        record["serialNumber"] = self.serial_number
        record["quantity"] = self.quantity
        record["companyId"] = self.company_id if self.company_id is not None else ""
        return record


@dataclass(frozen=True)
class LiveAssets(Keyed):
    kind = KIND
    by_key: Mapping[str, tuple[LiveAsset, ...]]  # normalised serial -> assets
    unkeyed: tuple[LiveAsset, ...] = ()  # assets without a serial number

    def __len__(self) -> int:
        return sum(len(group) for group in self.by_key.values()) + len(self.unkeyed)

    def digest_data(self) -> Any:
        assets = [a for _, group in sorted(self.by_key.items()) for a in group]
        return [a.digest_data() for a in [*assets, *self.unkeyed]]

    def named_ids(self) -> Iterable[tuple[str, object]]:
        return ((a.serial_number, a.id) for a in self.all() if a.serial_number)

    def get(self, serial_number: str) -> tuple[LiveAsset, ...]:
        return self.by_key.get(norm_key(serial_number), ())

    def all(self) -> list[LiveAsset]:
        return [a for group in self.by_key.values() for a in group] + list(self.unkeyed)


def _lowered(raw: Mapping[str, Any]) -> dict[str, Any]:
    """`raw`'s keys in lower case, None values left out: the service's versions differ in
    the case of keys. Made once per record, not once per field read (a fleet reads
    thousands of assets)."""
    return {str(k).lower(): v for k, v in raw.items() if v is not None}


def _value(lowered: Mapping[str, Any], *names: str) -> Any:
    """The first of `names` (lower case) that a `_lowered` record holds."""
    return next((lowered[n] for n in names if n in lowered), None)


def _integer(value: Any) -> int | None:
    try:
        return int(value) if value is not None and not isinstance(value, bool) else None
    except (TypeError, ValueError):
        return None


def _flag(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()  # None reads "none": neither
    return True if text in ("true", "1") else False if text in ("false", "0") else None


def clean_text(value: Any) -> str | None:
    text = str(value).strip() if value is not None else ""
    return text or None


def parse_assigned(item: Any) -> AssignedUser:
    """An `AssignedUsers` element: its shape is unpublished (the sandbox sends
    `{UserID, Username, ...}`), so an object with some id and name spelling, a bare id
    or a bare username are all accepted."""
    if isinstance(item, Mapping):
        fields = _lowered(item)
        ident = _integer(_value(fields, "userid", "id"))
        name = clean_text(_value(fields, "username", "login", "name"))
        return AssignedUser(ident, name)
    if isinstance(item, int) and not isinstance(item, bool):
        return AssignedUser(item, None)
    text = clean_text(item)
    if text is not None and text.isdigit():
        return AssignedUser(int(text), None)
    return AssignedUser(None, text)


def asset_id(raw: Mapping[str, Any]) -> int:
    """An asset's id, as `parse_asset` reads it: all the listing of the enabled ones is
    read for."""
    return _id(_lowered(raw))


def _id(fields: Mapping[str, Any]) -> int:
    return int(_value(fields, "itemid", "id", "assetid"))


def parse_asset(raw: Mapping[str, Any]) -> LiveAsset:
    fields = _lowered(raw)
    company = raw.get("company") or raw.get("Company")
    of_company = _lowered(company) if isinstance(company, Mapping) else None
    company_name = clean_text(_value(of_company, "name")) if of_company is not None else None
    company_id = _integer(_value(fields, "companyid"))
    if company_id is None and of_company is not None:
        company_id = _integer(_value(of_company, "companyid", "id"))
    disabled = _flag(_value(fields, "disabled", "isdisabled"))
    quantity = _integer(_value(fields, "quantity"))
    return LiveAsset(
        id=_id(fields),
        serial_number=clean_text(_value(fields, "serialnumber")),
        texts={name: clean_text(_value(fields, param.lower())) for name, param in TEXTS.items()},
        quantity=quantity if quantity is not None else 1,
        company_id=company_id,
        company_name=company_name,
        assigned=tuple(parse_assigned(u) for u in raw.get("AssignedUsers") or ()),
        custom_values=tuple(f for f in raw.get("Fields") or () if isinstance(f, Mapping)),
        enabled=None if disabled is None else not disabled,
    )


def index_assets(assets: Iterable[LiveAsset]) -> LiveAssets:
    by_key: dict[str, tuple[LiveAsset, ...]] = {}
    unkeyed: list[LiveAsset] = []
    for asset in assets:
        if asset.serial_number is None:
            unkeyed.append(asset)
        else:
            key = norm_key(asset.serial_number)
            by_key[key] = (*by_key.get(key, ()), asset)
    return LiveAssets(by_key, tuple(unkeyed))


def state_needed(reader: Reader) -> Callable[[LiveAsset], bool]:
    """Whether a read needs to know if a live asset is enabled: in a full read, always;
    else when its entry manages `enabled`, or no entry lists it and assets are pruned."""
    desired = reader.desired
    listed = {norm_key(a.serial_number) for a in desired.manifest.assets}
    ignored = set(desired.settings.ignore_fields.get(Kind(KIND), []))
    managed = {
        norm_key(a.serial_number)
        for a in desired.manifest.assets
        if "enabled" in a.model_fields_set - ignored
    }
    for entry in formers_of(desired, spec(KIND)):  # a renamed asset is read as listed
        formers = {n for n in entry.normals if n is not None}
        listed |= formers
        managed |= formers if entry.normal in managed else set()
    pruning = KIND in reader.prune  # `settings.prune` and `--prune`
    full = reader.full(KIND)

    def needed(asset: LiveAsset) -> bool:
        if full:
            return True
        if asset.serial_number is None:
            return False  # never matched, never disabled
        key = norm_key(asset.serial_number)
        return key in managed or (pruning and key not in listed)

    return needed


async def read_assets(reader: Reader) -> LiveAssets:
    """Every asset of the scope (`scope_reads.py`), disabled ones included. When the
    listing does not say which are enabled and that is needed, those a listing without the
    disabled ones still holds."""
    # An asset without a serial number gives the patterns no value: none matches it.
    wanted = in_scope(reader.desired, KIND, attrgetter("serial_number"))
    listed = await _list(reader, include_disabled=True)
    assets = [a for a in (parse_asset(raw) for raw in listed) if wanted(a)]
    needed = state_needed(reader)
    if any(a.enabled is None and needed(a) for a in assets):
        enabled = await _list(reader, include_disabled=False)
        ids = {asset_id(raw) for raw in enabled}
        assets = [a if a.enabled is not None else replace(a, enabled=a.id in ids) for a in assets]
    return index_assets(assets)


async def _list(reader: Reader, include_disabled: bool) -> list[dict[str, Any]]:
    """The `Assets` items of the scope: one read per company of it."""
    companies = await scoped_ids(reader, KIND, "company")
    if companies == [None]:
        listing: list[dict[str, Any]] = await reader.helpdesk.assets(include_disabled)
        return listing
    reads = (reader.helpdesk.assets(include_disabled, company_id=c) for c in companies)
    return await merged(reads, "ItemID")
