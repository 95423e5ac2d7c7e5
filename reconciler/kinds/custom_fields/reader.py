"""The custom field catalogue's live state: the definitions of the fields of companies,
users and assets (`CustomFields?type=N`), with their dropdown options in whatever shape
a version sends them, and the comparable form of a live value (`live_value`). Its reader
reads the usage types the manifests set values of, and in a full read those of the kinds
read in full. The planning side is `planner.py`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from reconciler.kinds.table import KINDS
from reconciler.manifest.desired import DesiredState
from reconciler.resources.base import Reader, norm_key

KIND = "custom_fields"
TEXT, DATE, DROPDOWN, CHECKBOX, MULTILINE = 1, 2, 3, 4, 5
# Kind -> the usage type of its custom fields (from the table of kinds), by usage type.
USAGE = dict(
    sorted(
        ((row.name, row.custom_field_usage) for row in KINDS if row.custom_field_usage),
        key=lambda item: item[1],
    )
)
# Usage type -> the kind whose custom fields it holds.
KIND_OF_USAGE = {usage: kind for kind, usage in USAGE.items()}
_DATE_FORMATS = ("%Y-%m-%d", "%m/%d/%Y", "%d.%m.%Y", "%Y/%m/%d", "%d %b %Y", "%b %d, %Y")
T = TypeVar("T")


@dataclass(frozen=True)
class FieldDefinition:
    id: int
    name: str
    type: int
    options: Mapping[str, int] = field(default_factory=dict)  # normalised name -> id
    option_names: Mapping[int, str] = field(default_factory=dict)  # id -> name as shown

    def digest_data(self) -> Any:
        return [self.id, self.name, self.type, sorted(self.option_names.items())]


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

    def keys(self) -> frozenset[str]:
        """The normalised names of the fields read (of every usage type read)."""
        return frozenset(name for fields in self.by_usage.values() for name in fields)

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
        ident: Any
        name: Any
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
        else:
            continue  # neither an object nor an [id, name] pair: no option
        if name is None:  # an option without a name cannot be named in a manifest
            continue
        try:
            options[int(ident)] = str(name)
        except (TypeError, ValueError):
            continue
    return options


def parse_definition(
    raw: Mapping[str, Any], extra_options: Mapping[str, int] | None
) -> FieldDefinition:
    option_names = parse_options(raw.get("SelectionComboOptions"))
    if not option_names and extra_options:
        option_names = {ident: name for name, ident in extra_options.items()}
    return FieldDefinition(
        id=int(raw["FieldID"]),
        name=str(raw["FieldName"]),
        type=int(raw.get("Type") or TEXT),
        options={norm_key(name): ident for ident, name in option_names.items()},
        option_names=option_names,
    )


def desired_usages(desired: DesiredState) -> list[int]:
    """The usage types whose values the manifests set, or whose marker `settings.ownership`
    sets (on the kinds the manifests list)."""
    manifest = desired.manifest
    marked = desired.settings.ownership is not None
    return [
        usage
        for kind, usage in USAGE.items()
        if any(marked or entry.custom_fields for entry in getattr(manifest, kind))
    ]


def usages(reader: Reader) -> list[int]:
    """The usage types to read: those whose values the manifests set, and those of the
    kinds read in full."""
    wanted = desired_usages(reader.desired)
    return [u for kind, u in USAGE.items() if u in wanted or reader.full(kind)]


async def read_catalogue(reader: Reader) -> CustomFieldCatalogue:
    by_usage: dict[int, dict[str, FieldDefinition]] = {}
    for usage in usages(reader):
        configured = reader.desired.settings.custom_field_options.of(KIND_OF_USAGE[usage])
        fields: dict[str, FieldDefinition] = {}
        for raw in await reader.helpdesk.custom_fields(usage):
            if int(raw.get("UsageType") or usage) != usage:
                continue
            extra = _configured_options(configured, str(raw["FieldName"]))
            definition = parse_definition(raw, extra)
            fields[norm_key(definition.name)] = definition
        by_usage[usage] = fields
    return CustomFieldCatalogue(by_usage)


async def full_values_for(
    reader: Reader,
    kind: str,
    objects: Iterable[T],
    already: list[T],
    name_of: Callable[[T], str],
) -> list[T]:
    """In a full read of `kind`: the objects (beyond `already`) whose custom field values
    are read, those selected, and only when some field of the kind is defined."""
    if not reader.full(kind):
        return []
    catalogue = await reader.get(KIND)
    if not isinstance(catalogue, CustomFieldCatalogue) or not catalogue.by_usage.get(USAGE[kind]):
        return []
    done = {id(o) for o in already}
    return [o for o in objects if id(o) not in done and reader.wants(kind, name_of(o))]


def _configured_options(
    configured: Mapping[str, Mapping[str, int]], name: str
) -> dict[str, int] | None:
    """The options `settings.custom_field_options` gives the field `name` of one kind
    (`configured`: that kind's table), or None."""
    for field_name, options in configured.items():
        if norm_key(field_name) == norm_key(name):
            return dict(options)
    return None


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


def unignored(values: Mapping[str, Any] | None, ignored: frozenset[str]) -> dict[str, Any]:
    """The custom field values an entry manages: none when `ignore_fields` names
    `custom_fields`, less those it names one by one as `custom_fields.NAME`."""
    if "custom_fields" in ignored:
        return {}
    skip = {norm_key(f.split(".", 1)[1]) for f in ignored if f.startswith("custom_fields.")}
    return {k: v for k, v in (values or {}).items() if norm_key(k) not in skip}
