"""Assets in a seed, with the manufacturers, types and suppliers they name."""

from __future__ import annotations

from reconciler.sandbox import records
from reconciler.sandbox.seed.checker import Checker
from reconciler.sandbox.seed.entry import key
from reconciler.sandbox.seed.fields import custom_values
from reconciler.sandbox.seed.plan import LOOKUPS, PlannedAsset
from reconciler.sandbox.seed.reading import SeedNode

ASSET_FIELDS = (
    "serial_number model_name manufacturer type supplier location comments quantity company "
    "assigned_users disabled custom_fields"
)


def check_assets(c: Checker, node: SeedNode | None) -> None:
    serials: dict[str, SeedNode] = {}
    usage = records.USAGE_TYPES["assets"]
    for entry in c.entries(node, "assets", "an asset", ASSET_FIELDS):
        serial = entry.text("serial_number") or None
        c.put_new(serials, serial, entry.node, entry.at("serial_number"), "serial number")
        quantity = entry.integer("quantity", minimum=0)
        kwargs = {
            "model_name": entry.text("model_name", required=True),
            "serial_number": serial,
            "location": entry.text("location") or None,
            "comments": entry.text("comments", strip=False) or None,
            "quantity": 1 if quantity is None else quantity,
            "disabled": entry.flag("disabled", False),
        }
        lookups = {name: entry.text(name, required=True) for name in LOOKUPS}
        company = c.reference(entry, "company", c.plan.companies)
        users = c.references(entry, "assigned_users", c.plan.users, "username")
        custom = custom_values(c, entry.get("custom_fields"), usage)
        named = {name: value for name, value in lookups.items() if value}
        if kwargs["model_name"] is None or len(named) < len(LOOKUPS):
            continue
        for name, value in named.items():
            c.plan.lookups.setdefault(LOOKUPS[name][1], {}).setdefault(key(value), value)
        c.plan.assets.append(PlannedAsset(kwargs, named, company, users, custom))
