"""Reading a plan's JSON back into a `Plan` (the inverse of `Plan.to_dict()`), for the
saved plan files of `planfile/`: `{"known_after_apply": "address.attribute"}` markers
become `Ref`s again, tuples of changes, fields and operations are rebuilt, and the
severity of a diagnostic comes from the list it is in. A file that does not have that
shape is refused with every problem in it named by its JSON path, never half-read."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from reconciler.plans import (
    FORMAT_VERSION,
    Action,
    BrakeVerdict,
    Change,
    Diagnostic,
    FieldChange,
    Operation,
    Plan,
    Ref,
    RenameHint,
    address,
)
from reconciler.plans.coverage import COVERAGE_KEYS
from reconciler.plans.text import clean, shorten, summary_counts

T = TypeVar("T")

REF_MARKER = "known_after_apply"
_ACTIONS = frozenset(a.value for a in Action)
_PLAN_FIELDS = {"format_version", "summary", "changes", "warnings", "errors", "live_digest"}


def _show(value: Any) -> str:
    """A value quoted in a problem: as JSON, on one line, at most 80 characters."""
    return clean(shorten(json.dumps(value, ensure_ascii=False), 80))


def type_name(value: Any) -> str:
    if value is None:
        return "null"
    return {
        bool: "a boolean",
        int: "a number",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "an object",
    }.get(type(value), type(value).__name__)


# `cause`: drift or pending (docs/drift.md), for the reports; apply does not read it.
# `rename_hints`: advice for reviewers (planning/renames.py), read back for the reports.
_CHANGE_OPTIONAL = {
    "depends_on", "reason", "removal", "source", "sources", "asserted", "renamed_from", "cause",
    "rename_hints",
}  # fmt: skip


class PlanReader:
    """Reads one plan, collecting problems instead of stopping at the first."""

    def __init__(self, source: str, extra: set[str] | frozenset[str] = frozenset()) -> None:
        self.source = source
        self.extra = extra  # top-level fields another reader reads (planfile's made_from)
        self.problems: list[str] = []

    def problem(self, where: str, message: str) -> None:
        prefix = f"{self.source}: {where}" if where else self.source
        self.problems.append(f"{prefix}: {message}")

    def plan(self, data: Any) -> Plan:
        fields = self.object(
            data,
            "",
            # All required, even the derived summary and the lists that may be empty: a
            # file without its "errors" must not read as a plan that has none.
            required=_PLAN_FIELDS,
            # The coverage (unmanaged objects) informs and is not read back.
            optional={"brake", "scope", "asserted", "notes", *COVERAGE_KEYS, *self.extra},
        )
        version = fields.get("format_version")
        if "format_version" in fields and (type(version) is not int or version != FORMAT_VERSION):
            self.problem(
                "format_version",
                f"this reconciler reads format {FORMAT_VERSION} "
                f"plans, not {_show(version)}: plan again with this version",
            )
            return Plan(())  # the rest may mean anything
        changes = self.items(fields.get("changes", []), "changes", self.change)
        asserted = self.items(fields.get("asserted", []), "asserted", self.asserted_change)
        plan = Plan(
            changes=tuple(changes),
            warnings=tuple(
                self.items(
                    fields.get("warnings", []), "warnings", partial(self.diagnostic, "warning")
                )
            ),
            errors=tuple(
                self.items(fields.get("errors", []), "errors", partial(self.diagnostic, "error"))
            ),
            live_digest=self.text(fields, "live_digest", ""),
            brake=self.brake(fields["brake"]) if "brake" in fields else None,
            # What a partial plan covered (`--changed-since`): shown, never acted on.
            scope=fields["scope"] if isinstance(fields.get("scope"), dict) else None,
            asserted=tuple(asserted),
            notes=tuple(
                self.items(fields.get("notes", []), "notes", partial(self.diagnostic, "note"))
            ),
        )
        # The summary is derived from the changes; one that disagrees means the file was
        # edited after review, and applying it would not do what the reviewer read. (Not
        # checked when the changes themselves could not be read: it would only echo that.)
        if "summary" in fields and fields["summary"] != plan.summary and not self.problems:
            self.problem(
                "summary", f"does not match the changes, which make {summary_counts(plan.summary)}"
            )
        return plan

    def change(self, data: Any, where: str) -> Change:
        fields = self.object(
            data,
            where,
            required={"address", "kind", "key", "action", "fields", "operations"},
            optional=_CHANGE_OPTIONAL,
        )
        kind, key = self.text(fields, "kind", where), self.text(fields, "key", where)
        action = self.action(fields.get("action"), f"{where}.action")
        written = self.text(fields, "address", where)
        if "address" in fields and written != address(kind, key):
            self.problem(
                f"{where}.address",
                f"{_show(written)} is not the address of kind {_show(kind)} and key {_show(key)}",
            )
        return Change(
            kind=kind,
            key=key,
            action=action,
            fields=tuple(self.items(fields.get("fields", []), f"{where}.fields", self.field)),
            operations=tuple(
                self.items(fields.get("operations", []), f"{where}.operations", self.operation)
            ),
            depends_on=tuple(
                self.items(fields.get("depends_on", []), f"{where}.depends_on", self.string)
            ),
            reason=self.text(fields, "reason", where),
            removal=self.flag(fields, "removal", where, default=False),
            source=self.text(fields, "source", where) or None,
            refined_at=self.refined_at(fields, where),
            asserted=self.flag(fields, "asserted", where, default=False),
            renamed_from=self.text(fields, "renamed_from", where) or None,
            rename_hints=tuple(
                self.items(fields.get("rename_hints", []), f"{where}.rename_hints", self.hint)
            ),
        )

    def hint(self, data: Any, where: str) -> RenameHint:
        fields = self.object(data, where, required={"key", "id", "reason", "previously"})
        return RenameHint(
            key=self.text(fields, "key", where),
            id=fields.get("id"),
            reason=self.text(fields, "reason", where),
            previously=self.text(fields, "previously", where),
        )

    def refined_at(self, fields: dict[str, Any], where: str) -> tuple[str, ...]:
        """The overlays' lines: "sources" after the entry's own, which is "source"."""
        sources = self.items(fields.get("sources", []), f"{where}.sources", self.string)
        if sources and sources[0] != fields.get("source"):
            self.problem(f"{where}.sources", "does not start with the change's source")
        return tuple(sources[1:])

    def asserted_change(self, data: Any, where: str) -> Change:
        """An entry of "asserted": a change sent on every apply, flagged so wherever read."""
        change = self.change(data, where)
        if not change.asserted:
            self.problem(f"{where}.asserted", "missing: every entry here is asserted")
        return change

    def brake(self, data: Any) -> BrakeVerdict:
        fields = self.object(data, "brake", required={"holds", "reasons"})
        reasons = self.items(fields.get("reasons", []), "brake.reasons", self.string)
        if self.flag(fields, "holds", "brake", default=False) != bool(reasons):
            self.problem("brake.holds", "disagrees with the reasons")
        return BrakeVerdict(tuple(reasons))

    def action(self, value: Any, where: str) -> Action:
        if isinstance(value, str) and value in _ACTIONS:
            return Action(value)
        if value is not None:  # a missing one is already reported
            known = ", ".join(a.value for a in Action)
            self.problem(where, f"{_show(value)} is not an action ({known})")
        return Action.update

    def field(self, data: Any, where: str) -> FieldChange:
        fields = self.object(data, where, required={"path", "before", "after"})
        return FieldChange(
            path=self.text(fields, "path", where),
            before=self.value(fields.get("before"), f"{where}.before"),
            after=self.value(fields.get("after"), f"{where}.after"),
        )

    def operation(self, data: Any, where: str) -> Operation:
        fields = self.object(
            data,
            where,
            required={"service", "method", "path", "params"},
            optional={"creates", "description", "idempotent"},
        )
        params = fields.get("params", {})
        if not isinstance(params, dict):
            self.problem(f"{where}.params", f"expected an object, found {type_name(params)}")
            params = {}
        creates = self.text(fields, "creates", where)
        return Operation(
            service=self.text(fields, "service", where),
            method=self.text(fields, "method", where),
            path=self.text(fields, "path", where),
            params={k: self.value(v, f"{where}.params.{k}") for k, v in params.items()},
            creates=creates or None,
            description=self.text(fields, "description", where),
            idempotent=self.flag(fields, "idempotent", where, default=True),
        )

    def diagnostic(self, severity: str, data: Any, where: str) -> Diagnostic:
        fields = self.object(
            data, where, required={"message"}, optional={"address", "remedy", "location"}
        )
        optional = [
            self.text(fields, name, where) or None for name in ("address", "remedy", "location")
        ]
        return Diagnostic(severity, self.text(fields, "message", where), *optional)

    def value(self, value: Any, where: str) -> Any:
        """A before/after/param value with its ref markers turned back into `Ref`s."""
        if isinstance(value, dict):
            if value.keys() == {REF_MARKER}:
                return self.ref(value[REF_MARKER], f"{where}.{REF_MARKER}")
            return {k: self.value(v, f"{where}.{k}") for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(v, f"{where}[{i}]") for i, v in enumerate(value)]
        return value

    def ref(self, marker: Any, where: str) -> Ref:
        # Addresses may hold dots (inside their key), attributes never do: the last dot
        # is the one `Ref.to_dict` wrote.
        target, dot, attribute = marker.rpartition(".") if isinstance(marker, str) else ("", "", "")
        if not (target and dot and attribute):
            self.problem(where, f'expected "address.attribute", found {_show(marker)}')
        return Ref(target, attribute)

    # -- shapes ---------------------------------------------------------------------

    def object(
        self,
        data: Any,
        where: str,
        required: set[str],
        optional: frozenset[str] | set[str] = frozenset(),
    ) -> dict[str, Any]:
        if not isinstance(data, dict):
            self.problem(where, f"expected an object, found {type_name(data)}")
            return {}
        for name in sorted(required - data.keys()):
            self.problem(_join(where, name), "missing")
        for name in sorted(data.keys() - required - optional):
            self.problem(_join(where, name), "unknown field")
        return data

    def items(self, data: Any, where: str, read: Callable[[Any, str], T]) -> list[T]:
        if not isinstance(data, list):
            self.problem(where, f"expected a list, found {type_name(data)}")
            return []
        return [read(item, f"{where}[{i}]") for i, item in enumerate(data)]

    def string(self, data: Any, where: str) -> str:
        if isinstance(data, str):
            return data
        self.problem(where, f"expected a string, found {type_name(data)}")
        return ""

    def text(self, fields: dict[str, Any], name: str, where: str, default: str = "") -> str:
        if name not in fields:
            return default
        return self.string(fields[name], _join(where, name))

    def flag(self, fields: dict[str, Any], name: str, where: str, default: bool) -> bool:
        value = fields.get(name, default)
        if isinstance(value, bool):
            return value
        self.problem(_join(where, name), f"expected true or false, found {type_name(value)}")
        return default


def _join(where: str, name: str) -> str:
    return f"{where}.{name}" if where else name
