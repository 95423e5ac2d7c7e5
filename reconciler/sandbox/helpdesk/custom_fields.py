"""Custom fields: the definitions (`CustomFields`), the values of users, companies and
assets (`UserCustomFields`, `CompanyCustomFields`, `SetCustomFieldForUser`,
`SetCustomFieldForCompany`, `SetCustomFieldForAsset`) and the rules for values that the
user, company and asset objects share.

Values are validated by type, as the service does: checkbox `true`/`false`, dropdown an
option id of that field, date any parseable date (stored as `YYYY-MM-DD`). An empty value
clears the field.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from reconciler.sandbox import records
from reconciler.sandbox.errors import HttpError
from reconciler.sandbox.helpdesk.registry import OK, Ctx, Permission, endpoint
from reconciler.sandbox.store import Record

TEXT, DATE, DROPDOWN, CHECKBOX, MULTILINE = 1, 2, 3, 4, 5
USAGE_NAMES = {1: "ticket", 2: "asset", 3: "user", 4: "company"}
_DATE_FORMATS = ("%Y-%m-%d", "%m/%d/%Y", "%d.%m.%Y", "%Y/%m/%d", "%d %b %Y", "%b %d, %Y")


def parse_date(raw: str) -> str:
    text = raw.strip()
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).date().isoformat()
    except ValueError:
        pass
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt).date().isoformat()
        except ValueError:
            continue
    raise HttpError(400, f"'{raw}' is not a valid date")


def validate_value(field: Record, raw: str) -> str | None:
    """The stored form of `raw` for `field`, None to clear; 400 when it does not fit."""
    if raw.strip() == "":
        return None
    kind = field["type"]
    if kind == CHECKBOX:
        lowered = raw.strip().lower()
        if lowered not in ("true", "false"):
            raise HttpError(400, f"Field '{field['name']}' is a checkbox: use true or false")
        return lowered
    if kind == DROPDOWN:
        try:
            option_id = int(raw.strip())
        except ValueError:
            raise HttpError(
                400, f"Field '{field['name']}' is a dropdown: the value must be an option id"
            ) from None
        if not any(o["id"] == option_id for o in field["options"]):
            raise HttpError(400, f"Option {option_id} does not exist for field '{field['name']}'")
        return str(option_id)
    if kind == DATE:
        return parse_date(raw)
    return raw


def field_for(ctx: Ctx, usage_type: int, field_id: int) -> Record:
    field = ctx.store.get("custom_fields", field_id)
    if field is None:
        raise HttpError(404, f"Custom field {field_id} not found")
    if field["usage_type"] != usage_type:
        raise HttpError(
            400,
            f"Custom field {field_id} is a {USAGE_NAMES[field['usage_type']]} field, "
            f"not a {USAGE_NAMES[usage_type]} field",
        )
    return field


def set_field_value(ctx: Ctx, usage_type: int, table: str, entity: Record) -> None:
    """`SetCustomFieldFor*`: params `fieldId` and `value`."""
    field_id = ctx.params.integer("fieldId", required=True)
    assert field_id is not None
    field = field_for(ctx, usage_type, field_id)
    value = validate_value(field, ctx.params.text("value") or "")
    custom = dict(entity.get("custom", {}))
    if value is None:
        custom.pop(str(field["id"]), None)
    else:
        custom[str(field["id"])] = value
    ctx.store.update(table, entity["id"], custom=custom)


def value_item(ctx: Ctx, field: Record, value: str | None) -> dict[str, Any]:
    """The user/company/asset value item: FieldName, FieldID, Type, Value (+ quirk keys)."""
    item: dict[str, Any] = {
        "FieldName": field["name"],
        "FieldID": field["id"],
        "Type": field["type"],
        "Value": value,
    }
    if ctx.quirk("customfield-extra-keys"):
        option = None
        if field["type"] == DROPDOWN and value is not None:
            option = next((o for o in field["options"] if str(o["id"]) == value), None)
        item["OptionID"] = option["id"] if option else None
        item["ValueWithOption"] = option["name"] if option else value
        item["AccessType"] = 0
        item["ForTechsOnly"] = field["for_techs_only"]
    return item


def field_value_items(ctx: Ctx, usage_type: int, entity: Record) -> list[dict[str, Any]]:
    """Every field of the usage type, with its value or null when unset."""
    custom = entity.get("custom", {})
    fields = [f for f in ctx.store.rows("custom_fields") if f["usage_type"] == usage_type]
    return [value_item(ctx, f, custom.get(str(f["id"]))) for f in fields]


def definition(ctx: Ctx, field: Record) -> dict[str, Any]:
    item: dict[str, Any] = {
        "FieldID": field["id"],
        "FieldName": field["name"],
        "Type": field["type"],
        "UsageType": field["usage_type"],
        "Mandatory": field["mandatory"],
    }
    if ctx.quirk("customfield-extra-keys"):
        options = [{"OptionID": o["id"], "Name": o["name"]} for o in field["options"]]
        item["SelectionComboOptions"] = options if field["type"] == DROPDOWN else None
        item["ForTechsOnly"] = field["for_techs_only"]
    return item


@endpoint("CustomFields")
async def custom_fields(ctx: Ctx) -> Any:
    usage = ctx.params.integer("type")
    if usage is not None and usage not in USAGE_NAMES:
        raise HttpError(400, "Parameter 'type' must be 1 (tickets), 2 (assets), 3 (users) or 4")
    rows = ctx.store.rows("custom_fields")
    if not ctx.is_tech:
        rows = [f for f in rows if not f["for_techs_only"]]
    return [definition(ctx, f) for f in rows if usage is None or f["usage_type"] == usage]


def _value_endpoints(entity: str, table: str, id_names: tuple[str, ...], read: bool) -> None:
    """`SetCustomFieldFor<entity>` and, when `read`, `<entity>CustomFields`: the record is
    named by the first of `id_names` that is given (or by the path)."""
    usage = records.USAGE_TYPES[table]

    async def set_value(ctx: Ctx) -> Any:
        set_field_value(ctx, usage, table, ctx.record(table, ctx.id_param(*id_names), entity))
        return OK

    async def values(ctx: Ctx) -> Any:
        rec = ctx.record(table, ctx.id_param(*id_names), entity)
        return field_value_items(ctx, usage, rec)

    name = f"SetCustomFieldFor{entity}"
    endpoint(name, methods=("POST",), permission=Permission.ADMIN, form_only=True)(set_value)
    if read:
        endpoint(f"{entity}CustomFields", permission=Permission.TECH)(values)


_value_endpoints("User", "users", ("id", "userId"), read=True)
_value_endpoints("Company", "companies", ("id", "companyId"), read=True)
_value_endpoints("Asset", "assets", ("id",), read=False)
