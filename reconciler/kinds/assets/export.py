"""Assets as manifest entries (pure; see export/entries.py for what is written in general).

- Keyed by serial number: an asset without one cannot be named by an entry, and several
  sharing one cannot be told apart by `plan`; both are left out, with a note.
- `company` is the name `Companies` gives for the asset's company id (the name `plan`
  resolves); an id it does not list, or whose name another company shares, is left out.
- `assigned_users`: usernames, sorted; a user the asset names only by an id that no live
  user has makes the list unknown, so it is left out (written, it would unassign).
- `quantity` is written from 1 up (the manifest's minimum); a live 0 is left out.
- `enabled` is always written: from the listing's `Disabled` flag, or else from a second
  listing without the disabled assets.
"""

from __future__ import annotations

from reconciler.export.entries import Converter, Entry, ordered, text
from reconciler.kinds.assets.reader import KIND, TEXTS, LiveAsset, LiveAssets
from reconciler.kinds.companies.reader import LiveCompanies
from reconciler.kinds.table import spec
from reconciler.kinds.users.export import live_user_names
from reconciler.kinds.users.reader import LiveUsers
from reconciler.resources.base import norm_key

REQUIRED_TEXTS = ("model_name", "manufacturer", "type", "supplier")  # never empty in a manifest


def assets(conv: Converter) -> list[Entry]:
    listed = conv.live(KIND, LiveAssets({})).all()
    unkeyed = sum(1 for a in listed if a.serial_number is None)
    if unkeyed:
        conv.notes.append(
            f"{KIND}: {unkeyed} asset(s) without a serial number cannot be named by a "
            "manifest entry: left out"
        )
    # The kinds its fields name (the table's references): their names for the ids.
    row = spec(KIND)
    companies = {c.id: c.name for c in conv.live(row.target("company"), LiveCompanies({})).items}
    usernames = live_user_names(conv.live(row.target("assigned_users"), LiveUsers({})).items)
    values = conv.values(KIND)
    entries = []
    for asset in conv.keyed(KIND, listed, lambda a: a.serial_number, drop_shared=True):
        assert asset.serial_number is not None
        where = f"{KIND}/{asset.serial_number}"
        entry: Entry = {"serial_number": asset.serial_number}
        for name in TEXTS:
            value = text(asset.texts.get(name))
            if name in REQUIRED_TEXTS:
                if value:
                    entry[name] = value
            else:
                conv.put(entry, name, value)
        if asset.quantity >= 1:
            entry["quantity"] = asset.quantity
        else:
            conv.notes.append(f"{where}: quantity {asset.quantity} is left out (at least 1)")
        _company(conv, asset, companies, entry, where)
        _assigned(conv, asset, usernames, entry, where)
        if asset.enabled is not None:
            entry["enabled"] = asset.enabled
        found = values.values(asset.custom_values, where)
        conv.put(entry, "custom_fields", found or None)
        entries.append(ordered(KIND, entry))
    return entries


def _company(
    conv: Converter, asset: LiveAsset, companies: dict[int, str], entry: Entry, where: str
) -> None:
    by_name = {norm_key(name): ident for ident, name in companies.items()}
    if asset.company_id is None:
        conv.put(entry, "company", None)
        return
    # The name `Companies` gives for the id: `plan` resolves it back to an id by name
    # (the last listed of a name wins), which must be this one.
    name = companies.get(asset.company_id)
    if name and by_name.get(norm_key(name)) == asset.company_id:
        entry["company"] = name
    elif name:
        conv.notes.append(
            f"{where}: company is left out: its company {name!r} (id {asset.company_id}) "
            "shares its name with another company, so a manifest cannot name it"
        )
    else:
        conv.notes.append(f"{where}: company is left out: no company has the id {asset.company_id}")


def _assigned(
    conv: Converter, asset: LiveAsset, usernames: dict[int, str], entry: Entry, where: str
) -> None:
    names = []
    for user in asset.assigned:
        name = user.username or usernames.get(user.id or 0)
        if not name:
            conv.notes.append(
                f"{where}: assigned_users is left out: user id {user.id} is not among the "
                "live users"
            )
            return
        names.append(name)
    folded = {n.casefold(): n for n in names}
    conv.put(entry, "assigned_users", sorted(folded.values(), key=str.casefold))
