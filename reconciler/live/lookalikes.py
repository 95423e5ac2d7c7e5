"""Manifest names that a live object's name equals only after Unicode normalisation and
case folding (`manifest/confusables.py`): `Acme` written with a fullwidth A in a manifest,
`Acme` live. The services compare names as written (case and white space aside), so the
manifest's name is another object to them: the plan would create a near-duplicate beside
the live one (and, under prune, remove the live one), or a reference (a user's company)
would not find it. A reviewer reads one name in both, so the plan warns, naming the
manifest entry (its `file:line:column`) and the live object (its id).

`validate` compares the manifests' names with each other offline; this compares them with
the live names. Pure: a function of the desired and the live state.
"""

from __future__ import annotations

from collections.abc import Callable

from reconciler.kinds.table import BY_NAME, normalise_key, service_of
from reconciler.live import LiveState
from reconciler.manifest.confusables import LookalikeIndex
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.models import Kind
from reconciler.manifest.references import entry_keys, named_references
from reconciler.plans import Diagnostic, address, warning

_SAME = (
    "are one name only after Unicode normalisation (NFKC, TR39 confusables) and case folding, "
    "but two to the"
)


def lookalike_warnings(desired: DesiredState, live: LiveState) -> list[Diagnostic]:
    """A warning for each manifest key or reference that equals a live name of its kind
    only after `fold`, naming both; none for a name that matches a live one as the
    service compares names. Each kind's live names are indexed once."""
    employee_key = desired.settings.employee_key
    indexes: dict[Kind, _LiveNames] = {}
    found: list[Diagnostic] = []
    for kind in Kind:
        # (name, id) of each live object of a kind whose objects have names a manifest
        # writes; none for the others (automation rules are keyed by id, a permission
        # names a category) and for a kind not read.
        named_ids = getattr(live.kinds.get(kind.value), "named_ids", None)
        if named_ids is not None:
            indexes[kind] = index = _LiveNames(list(named_ids()), _compared(kind, employee_key))
            for key in entry_keys(desired, kind):
                match = index.match(key)
                if match is not None:
                    found.append(_warning(desired, (kind, key, ()), kind, key, match))
    keys: dict[Kind, set[str | None]] = {}
    for kind, key, path, target, name in named_references(desired):
        live_names = indexes.get(target)
        match = None if live_names is None else live_names.match(name)
        if match is None:
            continue
        if target not in keys:
            keys[target] = {
                normalise_key(target, k, employee_key) for k in entry_keys(desired, target)
            }
        if normalise_key(target, name, employee_key) not in keys[target]:
            # (a name that is an entry's key is warned about as that key)
            found.append(_warning(desired, (kind, key, path), target, name, match))
    return found


class _LiveNames:
    """A kind's live (name, id) pairs, indexed for look-alike look-ups (`LookalikeIndex`
    keeps the common case cheap: an ASCII name among ASCII live names costs nothing)."""

    def __init__(
        self, pairs: list[tuple[str, object]], compared: Callable[[str], str] | None
    ) -> None:
        self._index = LookalikeIndex((name for name, _ in pairs), compared)
        self._ids: dict[str, object] = {}
        for name, ident in pairs:
            self._ids.setdefault(name, ident)

    def match(self, name: str) -> tuple[str, object] | None:
        """The live (name, id) that `name` equals only after normalisation, or None."""
        live_name = self._index.match(name)
        return None if live_name is None else (live_name, self._ids[live_name])


def _compared(kind: Kind, employee_key: str) -> Callable[[str], str] | None:
    """How the service compares the kind's keys where case matters (an employee key other
    than an e-mail address: `E-2` and `e-2` are two employees, and a plan under prune
    would delete one to create the other); None where it does not."""
    if not BY_NAME[kind].case_sensitive(employee_key):
        return None
    return lambda name: normalise_key(kind, name, employee_key) or name


def _warning(
    desired: DesiredState,
    where: tuple[Kind, str, tuple[str | int, ...]],
    kind: Kind,
    name: str,
    live_object: tuple[str, object],
) -> Diagnostic:
    """The warning on the entry `where` (kind, key, path to the name in it): `name` of
    `kind` and the live object (name, id)."""
    entry_kind, entry_key, path = where
    live_name, ident = live_object
    outcome = "this does not refer to the live one" if path else "the plan creates a second one"
    return warning(
        f"{kind.value} '{name}' and the live '{live_name}' (id {ident}) {_SAME} "
        f"{service_of(kind)}: {outcome}",
        address(entry_kind.value, entry_key),
        remedy="write the name as the live one is written",
        location=desired.location(entry_kind, entry_key, *path),
    )
