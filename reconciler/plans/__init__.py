"""Plans (as Terraform's `internal/plans`): the plan's data, here in `__init__.py`, a
closed set of actions, `Change`s with field-level before/after and the exact API
`Operation`s they need, `Diagnostic`s (errors and warnings) and the `Plan` that holds them.

Plain frozen data with one serialisation (`to_dict`): the renderers and the saved plan
file both use it. The planner (`planning/`) builds it; nothing here does I/O but the saved
plan file's reading and writing.

- `coverage.py`: the live objects no manifest manages, per kind;
- `addresses.py`: addresses as `--target`/`--exclude` take them, and `Selector`;
- `text.py`: a value on one line (control characters escaped, long values shortened);
- `planfile/`: the saved plan file (`plan --out`, `apply --plan`).

Takes: what the planner found. Gives: `Plan`, and a saved plan's `SavedPlan`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from functools import partial
from typing import Any

from reconciler.plans.coverage import Coverage


class Action(StrEnum):
    create = "create"
    update = "update"
    delete = "delete"
    enable = "enable"
    disable = "disable"


SYMBOLS = {
    Action.create: "+",
    Action.update: "~",
    Action.delete: "-",
    Action.enable: "~",
    Action.disable: "~",
}


def address(kind: str, key: str) -> str:
    """`companies["Acme Corp"]`: how a change is named everywhere (like Terraform's)."""
    escaped = key.replace("\\", "\\\\").replace('"', '\\"')
    return f'{kind}["{escaped}"]'


@dataclass(frozen=True)
class Ref:
    """A value that exists only after apply: the id of an object the plan creates.
    Rendered as `(known after apply)`; resolved by apply from the create's answer."""

    address: str
    attribute: str = "id"

    def to_dict(self) -> dict[str, str]:
        return {"known_after_apply": f"{self.address}.{self.attribute}"}


@dataclass(frozen=True)
class Operation:
    """One API call. `service` is `helpdesk` or `workspace`; `path` is relative to the
    service's base URL (`/api/UpdateCompany`). `params` are form fields (helpdesk) or the
    JSON body (workspace); a value may be a `Ref`. `creates` names the address whose id
    the answer carries, so that later operations can use it."""

    service: str
    method: str
    path: str
    params: dict[str, Any] = field(default_factory=dict)
    creates: str | None = None
    description: str = ""
    # False for creates whose repetition would make a duplicate (CreateUser, Asset,
    # AddCategory, POST employees): apply re-reads instead of retrying them blindly.
    idempotent: bool = True

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "service": self.service,
            "method": self.method,
            "path": self.path,
            "params": {k: _plain(v) for k, v in self.params.items()},
        }
        optional = {"creates": self.creates, "description": self.description}
        out.update((name, value) for name, value in optional.items() if value)
        if not self.idempotent:
            out["idempotent"] = False
        return out

    @property
    def refs(self) -> list[Ref]:
        found: list[Ref] = []
        for value in self.params.values():
            _collect_refs(value, found)
        return found


@dataclass(frozen=True)
class FieldChange:
    path: str
    before: Any
    after: Any

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "before": _plain(self.before), "after": _plain(self.after)}


@dataclass(frozen=True)
class RenameHint:
    """An unlisted live object that a create looks like, renamed (`planning/renames.py`):
    advice for reviewers that never drives apply. `previously` is the line that, added to
    the create's entry, makes the create a rename of that object."""

    key: str  # the live object's key, as live
    id: Any
    reason: str  # what they share: "both have the e-mail domain acme.com"
    previously: str  # `previously: [Acme Corp]`

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Change:
    kind: str
    key: str
    action: Action
    fields: tuple[FieldChange, ...] = ()
    operations: tuple[Operation, ...] = ()
    depends_on: tuple[str, ...] = ()  # addresses that must be applied first
    reason: str = ""  # for display only; never drives apply
    removal: bool = False  # a prune: counts against the safety brake, ordered last
    # `file:line` of the manifest entry it comes from; None for a live object that no
    # entry names (a prune). For reviewers only: never drives apply.
    source: str | None = None
    # `file:line` of each overlay that refined that entry (`overlay: true`, in load order:
    # docs/environments.md); empty when none did. For reviewers only, as `source`.
    refined_at: tuple[str, ...] = ()
    # The API cannot read the value back (a rule's enabled state under some versions):
    # not compared, so not a change; `apply` sends its operations every time.
    asserted: bool = False
    # The key it had: an update that renames the live object in place (`previously:`).
    renamed_from: str | None = None
    # A create's look-alikes among the unlisted live objects: advice only, never applied.
    rename_hints: tuple[RenameHint, ...] = ()

    @property
    def address(self) -> str:
        return address(self.kind, self.key)

    @property
    def sources(self) -> tuple[str, ...]:
        """Every line the change comes from: its entry's, then each overlay's."""
        return (self.source, *self.refined_at) if self.source else self.refined_at

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "address": self.address,
            "kind": self.kind,
            "key": self.key,
            "action": self.action.value,
            "fields": [f.to_dict() for f in self.fields],
            "operations": [o.to_dict() for o in self.operations],
        }
        optional = {
            "depends_on": list(self.depends_on),
            "reason": self.reason,
            "removal": self.removal,
            "source": self.source,
            # `source` stays the entry's line, as before overlays
            "sources": list(self.sources) if self.refined_at else None,
            "asserted": self.asserted,
            "renamed_from": self.renamed_from,
            "rename_hints": [hint.to_dict() for hint in self.rename_hints],
        }
        out.update((name, value) for name, value in optional.items() if value)
        return out

    @property
    def former_address(self) -> str | None:
        return None if self.renamed_from is None else address(self.kind, self.renamed_from)


@dataclass(frozen=True)
class Diagnostic:
    severity: str  # "error", "warning" or "note"
    message: str
    address: str | None = None
    remedy: str | None = None
    location: str | None = None  # file:line:column of the manifest entry, when known

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"message": self.message}
        for name in ("address", "remedy", "location"):
            value = getattr(self, name)
            if value:
                out[name] = value
        return out

    def text(self) -> str:
        where = f"{self.location}: " if self.location else ""
        subject = f"{self.address}: " if self.address else ""
        remedy = f" ({self.remedy})" if self.remedy else ""
        return f"{where}{subject}{self.message}{remedy}"


error = partial(Diagnostic, "error")
warning = partial(Diagnostic, "warning")
# Information for the reader that asks nothing of them (an implicit technician).
note = partial(Diagnostic, "note")


FORMAT_VERSION = 1


@dataclass(frozen=True)
class BrakeVerdict:
    """The safety brake's verdict on a plan (`planning/safety.py`), shown with the plan so that
    reviewers see it before merge: `held` says why apply refuses it without `--force`;
    empty when apply would go ahead."""

    held: tuple[str, ...] = ()

    @property
    def holds(self) -> bool:
        return bool(self.held)

    def to_dict(self) -> dict[str, Any]:
        return {"holds": self.holds, "reasons": list(self.held)}


@dataclass(frozen=True)
class Plan:
    """`changes` are what differs; `asserted` are operations `apply` sends every time for
    values the API cannot read back (listed apart, never counted as changes: not in the
    summary, the exit code or the safety brake); `notes` inform and ask nothing."""

    changes: tuple[Change, ...]
    warnings: tuple[Diagnostic, ...] = ()
    errors: tuple[Diagnostic, ...] = ()
    live_digest: str = ""
    # Set by the workflow, which knows the live counts and the settings; None for a plan
    # nobody judged (the pure planner's own result, a plan read back from a file).
    brake: BrakeVerdict | None = None
    # What a partial plan (`--changed-since`) covers: `scope.Scope.to_dict()`; None for a
    # plan of every entry.
    scope: Mapping[str, Any] | None = None
    asserted: tuple[Change, ...] = ()
    notes: tuple[Diagnostic, ...] = ()
    # Unmanaged live objects and the coverage per kind (`live/coverage.py`); None when not
    # computed (a partial plan, a plan read back from a file). Never a change.
    coverage: Coverage | None = None

    @property
    def summary(self) -> dict[str, int]:
        counts = {action.value: 0 for action in Action}
        for change in self.changes:
            counts[change.action.value] += 1
        return counts

    @property
    def has_changes(self) -> bool:
        return bool(self.changes)

    @property
    def operation_count(self) -> int:
        """The operations `apply` sends: the changes' and the asserted ones'."""
        return sum(len(c.operations) for c in self.to_apply)

    @property
    def to_apply(self) -> tuple[Change, ...]:
        """What `apply` executes: the changes, then the asserted operations."""
        return self.changes + self.asserted

    def to_dict(self) -> dict[str, Any]:
        out = {
            "format_version": FORMAT_VERSION,
            "summary": self.summary,
            "changes": [c.to_dict() for c in self.changes],
            "warnings": [d.to_dict() for d in self.warnings],
            "errors": [d.to_dict() for d in self.errors],
            **({"asserted": [c.to_dict() for c in self.asserted]} if self.asserted else {}),
            **({"notes": [d.to_dict() for d in self.notes]} if self.notes else {}),
            "live_digest": self.live_digest,
        }
        if self.brake is not None:
            out["brake"] = self.brake.to_dict()
        if self.scope is not None:
            out["scope"] = dict(self.scope)
        if self.coverage is not None:
            out.update(self.coverage.to_dict())
        return out


def _plain(value: Any) -> Any:
    """JSON-able form of a value: refs as markers, tuples as lists, sets sorted."""
    if isinstance(value, Ref):
        return value.to_dict()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted(_plain(v) for v in value)
    return value


def _collect_refs(value: Any, found: list[Ref]) -> None:
    if isinstance(value, Ref):
        found.append(value)
    elif isinstance(value, dict):
        for v in value.values():
            _collect_refs(v, found)
    elif isinstance(value, list | tuple):
        for v in value:
            _collect_refs(v, found)
