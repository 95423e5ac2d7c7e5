"""Custom fields: the catalogue of definitions (read once per usage type the manifests
need: `reader.py`), name resolution with suggestions, and normalisation of
values so that equal values compare equal (DESIGN §1): checkbox `true`/`false`, dropdown
by option id, dates as `YYYY-MM-DD`, text without trailing white space.

Custom fields the helpdesk does not define at all (`told_once`, after the kinds are
diffed): against a helpdesk with no custom fields of a kind (a new one, or the sandbox's
`empty` seed) every value the manifests set is an error, one per object and field:
hundreds of lines that each say the same. They are told once per kind instead, at the
first value, with the fields to create; an object naming a field when others exist keeps
its own error with the closest names (`_unknown`).
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date
from typing import Any

from reconciler.kinds.custom_fields.reader import (
    CHECKBOX,
    DATE,
    DROPDOWN,
    KIND,
    KIND_OF_USAGE,
    CustomFieldCatalogue,
    FieldDefinition,
    desired_usages,
    live_value,
    parse_date,
    read_catalogue,
)
from reconciler.kinds.table import BY_NAME
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.models import OptionId
from reconciler.plans import Diagnostic, FieldChange, Operation, Ref, error
from reconciler.plans.addresses import split_address
from reconciler.resources.base import KindPlan, norm_key


class CustomFieldsResource:
    """Not a managed kind: the definitions that companies, users and assets refer to."""

    kind = KIND
    service = "helpdesk"
    uses: tuple[str, ...] = ()

    def needs(self, desired: DesiredState) -> bool:
        return bool(desired_usages(desired))

    read = staticmethod(read_catalogue)

    def diff(self, ctx: Any) -> KindPlan:
        return KindPlan()


# -- values ------------------------------------------------------------------------------


class ValueProblem(Exception):
    def __init__(self, message: str, remedy: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.remedy = remedy


def desired_value(definition: FieldDefinition, value: Any, kind: str) -> str | None:
    """The form the API stores for a manifest value of a field of `kind` (named in the
    remedy of a dropdown option that cannot be resolved); raises ValueProblem."""
    if value is None or (isinstance(value, str) and value.strip() == ""):
        return None
    field_type = definition.type
    if field_type == CHECKBOX:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower()
        raise ValueProblem(f"'{definition.name}' is a checkbox: use true or false, not {value!r}")
    if field_type == DROPDOWN:
        return _option_id(definition, value, kind)
    if field_type == DATE:
        # A YAML timestamp never gets here: the manifest refuses "a date and time".
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


def _option_id(definition: FieldDefinition, value: Any, kind: str) -> str:
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
        f"settings.custom_field_options.{kind}.{definition.name}",
    )


def shown(definition: FieldDefinition, stored: str | None) -> Any:
    """How a stored value reads in a plan: option names rather than ids."""
    if stored is None:
        return None
    if definition.type == DROPDOWN and stored.isdigit():
        # An option the API does not name reads as one, not as the number "11".
        return definition.option_names.get(int(stored), f"option {stored}")
    if definition.type == CHECKBOX:
        return stored == "true"
    return stored


def closest(name: str, candidates: Iterable[str]) -> str:
    names = list(candidates)
    lowered = {n.casefold(): n for n in names}
    # At most three (get_close_matches' default n), as far as half alike.
    matches = difflib.get_close_matches(name.casefold(), list(lowered), cutoff=0.5)
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
    field_location: Callable[[str], str | None] | None = None,
) -> tuple[list[FieldChange], list[Operation], list[Diagnostic]]:
    """Compare one entity's custom field values; `live_items` None means the entity does
    not exist yet (every given value is set). A problem with a value is located at the
    field's own line (`field_location(name)`), else at the entry's (`location`)."""
    fields: list[FieldChange] = []
    operations: list[Operation] = []
    problems: list[Diagnostic] = []
    live_by_id = {int(i["FieldID"]): i for i in live_items or [] if "FieldID" in i}

    def where(name: str) -> str | None:  # asked only for a problem: most values have none
        return (field_location(name) if field_location else None) or location

    for name, value in desired.items():
        definition = catalogue.field(usage, name) if catalogue is not None else None
        if definition is None:
            known = catalogue.names(usage) if catalogue is not None else []
            problems.append(_unknown(name, known, address, where(name)))
            continue
        try:
            wanted = desired_value(definition, value, KIND_OF_USAGE[usage])
        except ValueProblem as problem:
            problems.append(error(problem.message, address, problem.remedy, where(name)))
            continue
        current = live_value(definition, live_by_id.get(definition.id))
        if live_items is not None and current == wanted:
            continue
        if live_items is None and wanted is None:
            continue
        fields.append(
            FieldChange(
                f"custom_fields.{definition.name}",
                shown(definition, current),  # None for a new entity: no live item
                shown(definition, wanted),
            )
        )
        params = {"id": entity_id, "fieldId": definition.id, "value": wanted or ""}
        set_value = f"set {definition.name}"
        operations.append(Operation("helpdesk", "POST", set_path, params, description=set_value))
    return fields, operations, problems


def unknown_message(name: str) -> str:
    return f"custom field {name!r} does not exist"


def _unknown(name: str, known: list[str], address: str, where: str | None) -> Diagnostic:
    """A value for a custom field the service does not define (for this usage). When it
    defines none, the plan says once which to create (`told_once`)."""
    return error(
        unknown_message(name) + closest(name, known),
        address,
        f"fields: {', '.join(known)}" if known else None,
        where,
    )


def told_once(diagnostics: Sequence[Diagnostic], live: Mapping[str, Any]) -> list[Diagnostic]:
    """`diagnostics`, the errors of fields a kind without any defined replaced by one per
    kind, where the first of them was."""
    if not isinstance(live.get(KIND), CustomFieldCatalogue):
        return list(diagnostics)
    missing: dict[str, dict[str, int]] = {}  # kind -> field -> how many values
    out: list[Diagnostic] = []
    first: dict[str, int] = {}  # kind -> where its one error goes in `out`
    spellings: dict[str, str] = {}  # a field's normalised name -> its first spelling
    for found in diagnostics:
        kind, _ = split_address(found.address or "")
        name = _field(found)  # only a kind without fields has the bare error (`_unknown`)
        if name is None:
            out.append(found)
            continue
        fields = missing.setdefault(kind, {})
        spelt = spellings.setdefault(norm_key(name), name)  # as the catalogue compares
        fields[spelt] = fields.get(spelt, 0) + 1
        if kind not in first:
            first[kind] = len(out)
            out.append(found)  # replaced below, once every value is counted
    for kind, at in first.items():
        out[at] = _told(kind, missing[kind], out[at].location)
    return out


def _field(found: Diagnostic) -> str | None:
    """The field an unknown-field error names, or None for any other diagnostic."""
    if found.severity != "error" or found.remedy is not None:
        return None
    text = found.message
    quoted = text.removeprefix("custom field ").removesuffix(" does not exist")
    try:
        name = ast.literal_eval(quoted)  # the name as repr() wrote it
    except (ValueError, SyntaxError):
        return None
    return name if isinstance(name, str) and text == unknown_message(name) else None


def _told(kind: str, fields: Mapping[str, int], location: str | None) -> Diagnostic:
    row = BY_NAME[kind]
    values = sum(fields.values())
    names = ", ".join(repr(name) for name in fields)
    return error(
        f"the {row.service} defines no custom fields of {kind}, and the manifests set "
        f"{values} value(s) of {len(fields)} field(s): {names}",
        kind,
        f"create these custom fields of {kind} in the {row.service} (its settings), then "
        "plan again; or remove the values from the manifests",
        location,
    )
