"""Custom fields: the catalogue of definitions (read once per usage type the manifests
need), name resolution with suggestions, and normalisation of values so that equal
values compare equal (DESIGN §1): checkbox `true`/`false`, dropdown by option id, dates
as `YYYY-MM-DD`, text without trailing white space.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from reconciler.changes import Diagnostic, FieldChange, Operation, Ref, error
from reconciler.manifest import DesiredState
from reconciler.manifest.models import OptionId
from reconciler.resources.base import KindPlan, Reader, norm_key

TEXT, DATE, DROPDOWN, CHECKBOX, MULTILINE = 1, 2, 3, 4, 5
USAGE = {"assets": 2, "users": 3, "companies": 4}
_DATE_FORMATS = ("%Y-%m-%d", "%m/%d/%Y", "%d.%m.%Y", "%Y/%m/%d", "%d %b %Y", "%b %d, %Y")


@dataclass(frozen=True)
class FieldDefinition:
    id: int
    name: str
    type: int
    usage_type: int
    options: Mapping[str, int] = field(default_factory=dict)  # normalised name -> id
    option_names: Mapping[int, str] = field(default_factory=dict)  # id -> name as shown

    def digest_data(self) -> Any:
        return [self.id, self.name, self.type, self.usage_type, sorted(self.option_names.items())]


@dataclass(frozen=True)
class CustomFieldCatalogue:
    by_usage: Mapping[int, Mapping[str, FieldDefinition]]  # usage -> normalised name -> def

    def __len__(self) -> int:
        return sum(len(fields) for fields in self.by_usage.values())

    def digest_data(self) -> Any:
        return {
            str(usage): [d.digest_data() for _, d in sorted(fields.items())]
            for usage, fields in sorted(self.by_usage.items())
        }

    def field(self, usage: int, name: str) -> FieldDefinition | None:
        return self.by_usage.get(usage, {}).get(norm_key(name))

    def names(self, usage: int) -> list[str]:
        return sorted(d.name for d in self.by_usage.get(usage, {}).values())


def parse_options(raw: Any) -> dict[int, str]:
    """`SelectionComboOptions` in whatever shape a version sends: objects with an id and a
    name under various spellings, or `[id, name]` pairs."""
    options: dict[int, str] = {}
    if not isinstance(raw, list):
        return options
    for item in raw:
        ident: Any = None
        name: Any = None
        if isinstance(item, dict):
            lowered = {str(k).lower(): v for k, v in item.items()}
            ident = next(
                (lowered[k] for k in ("optionid", "id", "value", "key") if k in lowered), None
            )
            name = next(
                (lowered[k] for k in ("name", "text", "label", "title") if k in lowered), None
            )
        elif isinstance(item, list | tuple) and len(item) == 2:
            ident, name = item
        try:
            options[int(ident)] = str(name)
        except (TypeError, ValueError):
            continue
    return options


def parse_definition(raw: Mapping[str, Any], extra_options: Mapping[str, int]) -> FieldDefinition:
    option_names = parse_options(raw.get("SelectionComboOptions"))
    if not option_names and extra_options:
        option_names = {ident: name for name, ident in extra_options.items()}
    return FieldDefinition(
        id=int(raw["FieldID"]),
        name=str(raw["FieldName"]),
        type=int(raw.get("Type") or TEXT),
        usage_type=int(raw.get("UsageType") or 0),
        options={norm_key(name): ident for ident, name in option_names.items()},
        option_names=option_names,
    )


class CustomFieldsResource:
    """Not a managed kind: the definitions that companies, users and assets refer to."""

    kind = "custom_fields"
    service = "helpdesk"

    def usages(self, desired: DesiredState) -> list[int]:
        manifest = desired.manifest
        wanted = []
        if any(a.custom_fields for a in manifest.assets):
            wanted.append(USAGE["assets"])
        if any(u.custom_fields for u in manifest.users):
            wanted.append(USAGE["users"])
        if any(c.custom_fields for c in manifest.companies):
            wanted.append(USAGE["companies"])
        return wanted

    def needs(self, desired: DesiredState) -> bool:
        return bool(self.usages(desired))

    async def read(self, reader: Reader) -> CustomFieldCatalogue:
        configured = reader.desired.settings.custom_field_options
        by_usage: dict[int, dict[str, FieldDefinition]] = {}
        for usage in self.usages(reader.desired):
            fields: dict[str, FieldDefinition] = {}
            for raw in await reader.helpdesk.custom_fields(usage):
                if int(raw.get("UsageType") or usage) != usage:
                    continue
                extra = _configured_options(configured, str(raw.get("FieldName", "")))
                definition = parse_definition(raw, extra)
                fields[norm_key(definition.name)] = definition
            by_usage[usage] = fields
        return CustomFieldCatalogue(by_usage)

    def diff(self, ctx: Any) -> KindPlan:
        return KindPlan()


def _configured_options(configured: Mapping[str, Mapping[str, int]], name: str) -> dict[str, int]:
    for field_name, options in configured.items():
        if norm_key(field_name) == norm_key(name):
            return dict(options)
    return {}


# -- values ------------------------------------------------------------------------------


class ValueProblem(Exception):
    def __init__(self, message: str, remedy: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.remedy = remedy


def parse_date(text: str) -> str | None:
    text = text.strip()
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).date().isoformat()
    except ValueError:
        pass
    for fmt in (*_DATE_FORMATS, "%m/%d/%Y %I:%M:%S %p"):
        try:
            return datetime.strptime(text, fmt).date().isoformat()
        except ValueError:
            continue
    return None


def desired_value(definition: FieldDefinition, value: Any) -> str | None:
    """The form the API stores for a manifest value; raises ValueProblem."""
    if value is None or (isinstance(value, str) and value.strip() == ""):
        return None
    kind = definition.type
    if kind == CHECKBOX:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower()
        raise ValueProblem(f"'{definition.name}' is a checkbox: use true or false, not {value!r}")
    if kind == DROPDOWN:
        return _option_id(definition, value)
    if kind == DATE:
        if isinstance(value, datetime):
            return value.date().isoformat()
        if isinstance(value, date):
            return value.isoformat()
        parsed = parse_date(str(value))
        if parsed is None:
            raise ValueProblem(f"'{definition.name}' is a date: {value!r} is not one")
        return parsed
    if isinstance(value, OptionId):
        raise ValueProblem(f"'{definition.name}' is not a dropdown: option_id does not apply")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, date):
        return value.isoformat()
    return str(value).rstrip()


def _option_id(definition: FieldDefinition, value: Any) -> str:
    if isinstance(value, OptionId):
        return str(value.option_id)
    name = str(value)
    found = definition.options.get(norm_key(name))
    if found is not None:
        return str(found)
    if definition.options:
        suggestion = closest(name, definition.option_names.values())
        raise ValueProblem(
            f"'{definition.name}' has no option {name!r}" + suggestion,
            f"options: {', '.join(sorted(definition.option_names.values()))}",
        )
    raise ValueProblem(
        f"the API does not list the options of dropdown '{definition.name}', so {name!r} "
        "cannot be resolved",
        f"give the value as {{option_id: N}}, or map option names to ids under "
        f"settings.custom_field_options.{definition.name}",
    )


def live_value(definition: FieldDefinition, item: Mapping[str, Any] | None) -> str | None:
    """The comparable form of a live value item (`Value`, and in some versions `OptionID`
    or `ValueWithOption`)."""
    if item is None:
        return None
    value = item.get("Value")
    if definition.type == DROPDOWN:
        option = item.get("OptionID")
        if isinstance(option, int) and option > 0:
            return str(option)
        if value is None or str(value).strip() == "":
            return None
        text = str(value).strip()
        if text.isdigit():
            return text
        by_name = definition.options.get(norm_key(text))
        return str(by_name) if by_name is not None else text
    if value is None or str(value).strip() == "":
        return None
    if definition.type == CHECKBOX:
        return str(value).strip().lower()
    if definition.type == DATE:
        return parse_date(str(value)) or str(value).strip()
    return str(value).rstrip()


def shown(definition: FieldDefinition, stored: str | None) -> Any:
    """How a stored value reads in a plan: option names rather than ids."""
    if stored is None:
        return None
    if definition.type == DROPDOWN and stored.isdigit():
        return definition.option_names.get(int(stored), stored)
    if definition.type == CHECKBOX:
        return stored == "true"
    return stored


def closest(name: str, candidates: Iterable[str]) -> str:
    names = list(candidates)
    lowered = {n.casefold(): n for n in names}
    matches = difflib.get_close_matches(name.casefold(), list(lowered), n=3, cutoff=0.5)
    if not matches:
        return ""
    return "; did you mean " + " or ".join(repr(lowered[m]) for m in matches) + "?"


def diff_values(
    *,
    catalogue: CustomFieldCatalogue | None,
    usage: int,
    desired: Mapping[str, Any],
    live_items: Iterable[Mapping[str, Any]] | None,
    set_path: str,
    entity_id: int | Ref,
    address: str,
    location: str | None,
) -> tuple[list[FieldChange], list[Operation], list[Diagnostic]]:
    """Compare one entity's custom field values; `live_items` None means the entity does
    not exist yet (every given value is set)."""
    fields: list[FieldChange] = []
    operations: list[Operation] = []
    problems: list[Diagnostic] = []
    live_by_id = {int(i["FieldID"]): i for i in live_items or [] if "FieldID" in i}
    for name, value in desired.items():
        definition = catalogue.field(usage, name) if catalogue else None
        if definition is None:
            known = catalogue.names(usage) if catalogue else []
            problems.append(
                error(
                    f"custom field {name!r} does not exist" + closest(name, known),
                    address,
                    f"fields: {', '.join(known)}" if known else "no such fields exist",
                    location,
                )
            )
            continue
        try:
            wanted = desired_value(definition, value)
        except ValueProblem as problem:
            problems.append(error(problem.message, address, problem.remedy, location))
            continue
        current = live_value(definition, live_by_id.get(definition.id))
        if live_items is not None and current == wanted:
            continue
        if live_items is None and wanted is None:
            continue
        fields.append(
            FieldChange(
                f"custom_fields.{definition.name}",
                shown(definition, current) if live_items is not None else None,
                shown(definition, wanted),
            )
        )
        operations.append(
            Operation(
                "helpdesk",
                "POST",
                set_path,
                {"id": entity_id, "fieldId": definition.id, "value": wanted or ""},
                description=f"set {definition.name}",
            )
        )
    return fields, operations, problems


def unignored(values: Mapping[str, Any], ignored: frozenset[str]) -> dict[str, Any]:
    """`ignore_fields` may name single custom fields as `custom_fields.NAME`."""
    skip = {norm_key(f.split(".", 1)[1]) for f in ignored if f.startswith("custom_fields.")}
    return {k: v for k, v in values.items() if norm_key(k) not in skip}
