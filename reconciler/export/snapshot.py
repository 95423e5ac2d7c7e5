"""Reading the live state for an export (the only I/O of an export): the resources' own
readers, each reading its kind in full (`live.FullRead`), so that what is written is what
`plan` reads. Per-object details are read only for the objects the selection exports
(company and user custom field values, when any field of that kind is defined; the
technicians of each exported category); assets are listed with the disabled ones, and,
when the listing does not say which are disabled, once more without them.

`LiveSnapshot` is what the conversion (`entries`, `people`, `assets`) works from.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from reconciler.clients import RuleInfo
from reconciler.errors import UsageError
from reconciler.export.selection import EMPLOYEES, RULES, Selection
from reconciler.live import FullRead, LiveState, read_live
from reconciler.manifest import DesiredState
from reconciler.manifest.models import Manifest
from reconciler.resources import RESOURCES
from reconciler.resources.asset_records import LiveAsset, LiveAssets
from reconciler.resources.category_records import LiveCategories
from reconciler.resources.company_records import LiveCompanies, LiveCompany
from reconciler.resources.custom_field_records import KIND as CATALOGUE
from reconciler.resources.custom_field_records import CustomFieldCatalogue
from reconciler.resources.department_records import LiveDepartments
from reconciler.resources.employee_records import LiveEmployees
from reconciler.resources.rule_records import LiveRules
from reconciler.resources.tech_permission_records import LiveTechPermissions, Technician
from reconciler.resources.user_records import LiveUser, LiveUsers

OnRead = Callable[[str], None]
T = TypeVar("T")

# What the conversion of a kind looks up in other kinds' lists (names for ids).
# tech_permissions: the administrators, who are implicit technicians (never exported).
_LOOKUPS = {"assets": ("companies", "users"), "tech_permissions": ("users",)}


@dataclass
class LiveSnapshot:
    """What was read. Lists are complete (other kinds look names up in them); per-object
    details (custom values, technicians) are filled for the exported objects only."""

    kinds: tuple[str, ...]  # the kinds exported
    catalogue: CustomFieldCatalogue = field(default_factory=lambda: CustomFieldCatalogue({}))
    companies: list[LiveCompany] = field(default_factory=list)
    departments: LiveDepartments = field(default_factory=lambda: LiveDepartments({}))
    categories: LiveCategories = field(default_factory=lambda: LiveCategories({}))
    technicians: dict[int, tuple[Technician, ...]] = field(default_factory=dict)
    users: list[LiveUser] = field(default_factory=list)
    assets: list[LiveAsset] = field(default_factory=list)
    rules: dict[int, RuleInfo] = field(default_factory=dict)
    employees: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, live: LiveState, kinds: tuple[str, ...]) -> LiveSnapshot:
        def kind(name: str, empty: T) -> T:
            found = live.kinds.get(name)
            return found if isinstance(found, type(empty)) else empty

        users = kind("users", LiveUsers({}))
        return cls(
            kinds,
            catalogue=kind(CATALOGUE, CustomFieldCatalogue({})),
            companies=list(kind("companies", LiveCompanies({})).items),
            departments=kind("departments", LiveDepartments({})),
            categories=kind("categories", LiveCategories({})),
            technicians=dict(kind("tech_permissions", LiveTechPermissions({})).by_category),
            users=list(users.items),
            assets=kind("assets", LiveAssets({})).all(),
            rules={i: r for i, r in kind(RULES, LiveRules({})).by_id.items() if r is not None},
            employees=[dict(r) for r in kind(EMPLOYEES, LiveEmployees("", {})).records],
            notes=_unnamed_departments(users) if "users" in kinds else [],
        )


def _unnamed_departments(users: LiveUsers) -> list[str]:
    return [
        f"users/{user.username}: department is left out: its id {user.department_id} "
        "is not among the departments listed"
        for user in users.items
        if user.department is None and user.department_id
    ]


async def read_snapshot(
    selection: Selection,
    kinds: tuple[str, ...],
    helpdesk: Any,
    workspace: Any,
    on_read: OnRead | None = None,
) -> LiveSnapshot:
    """Read `kinds` in full (raises UsageError for a rule id the service does not know)."""
    scope = FullRead(
        frozenset(kinds),
        wants=selection.wants,
        named={RULES: tuple(str(i) for i in selection.rule_ids)},
        # A kind exported is read in full anyway: a lookup must not narrow its read.
        also=frozenset(k for kind in kinds for k in _LOOKUPS.get(kind, ()) if k not in kinds),
    )

    def read(kind: str) -> None:
        if on_read is not None and kind in kinds:
            on_read(kind)

    live = await read_live(
        DesiredState.from_manifest(Manifest()),
        RESOURCES,
        helpdesk=helpdesk,
        workspace=workspace,
        on_read=read,
        full=scope,
    )
    rules = live.kinds.get(RULES)
    if isinstance(rules, LiveRules):
        missing = [str(i) for i in selection.rule_ids if rules.by_id.get(i) is None]
        if missing:
            raise UsageError(
                f"no automation rule with id {', '.join(missing)}: check the ids given with "
                "--rule-ids (the helpdesk's automation rules page shows them)"
            )
    return LiveSnapshot.of(live, kinds)
