"""`plan(desired, live) -> Plan`: pure. Each resource module diffs its kind in dependency
order (so a user may refer to a company the plan creates), the changes are ordered, the
selection (`--target`/`--exclude`) applied, and the diagnostics collected.

The plan's data types, and the `Selector`s of `--target`/`--exclude`, live in `plans/`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from reconciler.kinds.custom_fields.planner import told_once
from reconciler.kinds.table import KIND_NAMES, service_of
from reconciler.live import LiveState
from reconciler.live.coverage import coverage
from reconciler.live.lookalikes import lookalike_warnings
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.kinds import HELPDESK, WORKSPACE, norm_key
from reconciler.planning.order import (
    CycleError,
    dependencies,
    order_changes,
    with_dependencies,
    without_dependents,
)
from reconciler.planning.renames import find_renames, mark_renames, rename_hints, with_renames
from reconciler.planning.unique_values import ordered_handoffs, uniqueness_errors
from reconciler.plans import Change, Diagnostic, Plan, error, warning
from reconciler.plans.addresses import Selector, split_address, unmatched, with_sources
from reconciler.resources.base import PlanContext, Resource
from reconciler.resources.scope_reads import scope_warnings

MANAGED_KINDS = KIND_NAMES


def prune_kinds(desired: DesiredState, prune: bool = False) -> frozenset[str]:
    """The kinds whose unlisted live objects are removed: `settings.prune`, or every kind
    with `--prune`. Reading needs it too (a pruned kind reads more)."""
    kinds = {str(k) for k in desired.settings.prune}
    if prune:
        kinds.update(MANAGED_KINDS)
    return frozenset(kinds)


def plan(
    desired: DesiredState,
    live: LiveState,
    *,
    resources: Sequence[Resource],
    prune: bool = False,
    targets: Iterable[Selector] = (),
    excludes: Iterable[Selector] = (),
) -> Plan:
    digest = live.digest()  # of what was read, before renames are applied to it
    renames, diagnostics = find_renames(desired, live.kinds)
    live = replace(live, kinds=with_renames(live.kinds, renames))
    ctx = PlanContext(desired, live.kinds, prune_kinds(desired, prune))
    changes: list[Change] = []
    for resource in resources:
        if resource.kind not in live.kinds:
            continue
        result = resource.diff(ctx)
        changes += result.changes
        diagnostics += result.diagnostics
    diagnostics = told_once(diagnostics, live.kinds)  # fields a kind has none of
    diagnostics += lookalike_warnings(desired, live)
    diagnostics += scope_warnings(desired, live.kinds)  # a scope naming what is not live
    for kind in live.skipped:
        if kind in MANAGED_KINDS:  # not the custom field catalogue
            service = service_of(kind)
            diagnostics.append(
                warning(
                    f"{kind} skipped: the {service} service is not configured",
                    remedy=_REMEDIES[service],
                )
            )
    changes = mark_renames(with_sources(changes, desired), renames, ctx.employee_key)
    changes = rename_hints(desired, live.kinds, changes)  # advice: renames nobody declared
    diagnostics += uniqueness_errors(desired, live.kinds, changes)
    changes, handoff_errors = ordered_handoffs(desired, live.kinds, changes)
    diagnostics += handoff_errors
    try:
        ordered = order_changes(changes)
    except CycleError as exc:
        cycle = " -> ".join(exc.args[1]) if len(exc.args) > 1 else str(exc)
        diagnostics.append(error(f"the changes depend on each other in a cycle: {cycle}"))
        ordered = changes
    targets, excludes = list(targets), list(excludes)
    diagnostics += unmatched(targets, desired, live.kinds, ordered, "--target")
    diagnostics += unmatched(excludes, desired, live.kinds, ordered, "--exclude")
    ordered = _select(ordered, targets, excludes, diagnostics)
    if targets or excludes:
        diagnostics = _outside_selection(diagnostics, ordered, targets, excludes)
    return Plan(
        tuple(c for c in ordered if not c.asserted),
        tuple(d for d in diagnostics if d.severity == "warning"),
        tuple(d for d in diagnostics if d.severity == "error"),
        digest,
        asserted=tuple(c for c in ordered if c.asserted),
        notes=tuple(d for d in diagnostics if d.severity == "note"),
        coverage=coverage(desired, live, ordered),  # unmanaged objects (live/coverage.py)
    )


def _select(
    changes: list[Change],
    targets: list[Selector],
    excludes: list[Selector],
    diagnostics: list[Diagnostic],
) -> list[Change]:
    """The targets and what they need, less the excluded changes and what needs them
    (each of those with a warning: it was asked for, or would have been planned)."""
    if targets:
        chosen = {c.address for c in changes if any(t.matches(c) for t in targets)}
        changes = with_dependencies(changes, chosen)
    if excludes:
        excluded = {c.address for c in changes if any(e.matches(c) for e in excludes)}
        needs = without_dependents(changes, excluded)
        for change in changes:
            needed = needs.get(change.address)
            if needed is not None:
                why = "--exclude leaves out" if needed in excluded else "is left out"
                diagnostics.append(
                    warning(f"left out: it needs {needed}, which {why}", change.address)
                )
        changes = [c for c in changes if c.address not in excluded and c.address not in needs]
    return changes


def _outside_selection(
    diagnostics: list[Diagnostic],
    kept: list[Change],
    targets: list[Selector],
    excludes: list[Selector],
) -> list[Diagnostic]:
    """An error about an object the selection leaves out blocks nothing (a hotfix with
    `--target` is not held up by a problem elsewhere): it is a warning, still shown. It
    stays an error when a selected change needs that object, and when it names no object
    (the selection cannot set it aside)."""
    needed = {c.address for c in kept}
    for change in kept:
        needed |= dependencies(change)
    out = []
    for found in diagnostics:
        where = found.address
        if found.severity != "error" or where is None or where in needed:
            out.append(found)
            continue
        kind, key = split_address(where)
        if kind not in MANAGED_KINDS or _selected(kind, key, targets, excludes):
            out.append(found)
            continue
        message = f"outside the selection, so not planned: {found.message}"
        out.append(warning(message, where, found.remedy, found.location))
    return out


def _selected(
    kind: str, key: str | None, targets: list[Selector], excludes: list[Selector]
) -> bool:
    """Whether `--target`/`--exclude` keep the object `kind`/`key`."""

    def covers(selector: Selector) -> bool:
        return selector.kind == kind and (
            selector.key is None or key is None or norm_key(selector.key) == norm_key(key)
        )

    if targets and not any(covers(t) for t in targets):
        return False
    return not any(covers(e) and (e.key is None or key is not None) for e in excludes)


_REMEDIES = {
    WORKSPACE: "set WORKSPACE_URL and WORKSPACE_API_KEY",
    HELPDESK: "set HELPDESK_URL and HELPDESK_TOKEN (or HELPDESK_USERNAME and HELPDESK_PASSWORD)",
}
