"""Offline checks of merged manifests (`reconciler validate`): what can be known wrong without
reading the live state.

An object may exist live without being in the manifests, so a name the manifests do not
define (a company, a category, a technician) is not an error offline: `plan` checks it
against the live state. It is an error only where the manifests contradict themselves:

errors
- a control or invisible character in a key or a name (characters.py).
- `settings.prune` lists a kind the API cannot remove (companies, departments, categories:
  no delete call; automation rules: no list call, so unlisted rules cannot be found).
- `settings.ignore_fields` names a field the kind does not have, or the kind's key.
- two users share an e-mail address (the helpdesk requires them unique).
- a former key (`previously:`) named by two entries, or that is another entry's key (a
  chain or a swap of keys: docs/renaming.md).
- `settings.section_ids` gives one id to two sections, or names one section twice (names
  compare as the helpdesk compares them: case and runs of white space do not matter).
- users are pruned, yet a technician or an assigned user is not among them: that user would
  be disabled by the same run that gives it work.
- an entry outside its kind's `settings.scope` (scope_check.py).

warnings
- a disabled user (`disabled: true`) is a technician or is assigned an asset.
- a value listed twice where lists are sets (e-mail domains, technicians, assigned users,
  prune, ignore_fields), and one e-mail domain claimed by two companies.
- pruning workspace employees: their removal (DELETE) cannot be undone.
- two keys of a kind, or a name and the key it refers to (a user's company, a technician),
  that are one name only after Unicode normalisation (NFKC, TR39 confusables) and case
  folding (`Acme` with a fullwidth A, and `Acme`): a reviewer reads one name, the helpdesk two.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel

from reconciler.errors import ManifestError
from reconciler.kinds.table import KINDS, key_field, spec
from reconciler.manifest.characters import character_problems
from reconciler.manifest.confusables import confusable_pairs, fold
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.kinds import KindSpec, email_key, norm_key
from reconciler.manifest.loader import load_manifests
from reconciler.manifest.models import PREVIOUSLY, Kind
from reconciler.manifest.problems import printable
from reconciler.manifest.references import entry_keys, keyed_entries, named_references
from reconciler.manifest.renames import rename_conflicts
from reconciler.manifest.scope_check import scope_problems

# Why each kind that cannot be pruned cannot be (the table of kinds).
UNPRUNABLE: dict[Kind, str] = {row.kind: row.prune_refused for row in KINDS if row.prune_refused}
# How a field is named in messages, where its name is not enough.
_LABELS = {"email": "e-mail", "email_domains": "e-mail domain"}


@dataclass(frozen=True)
class Validated:
    """Manifests that passed `validate_manifests`, and the warnings about them."""

    desired: DesiredState
    warnings: list[str] = field(default_factory=list)


def validate_manifests(
    paths: Sequence[Path],
    env: Mapping[str, str],
    variables: Mapping[str, str] | None = None,
    *,
    credential_variables: Iterable[str] = (),
) -> Validated:
    """Everything `reconciler validate` checks, offline (`credential_variables`: those
    reconciler.yaml names, never read by `${NAME}`). Raises `ManifestError` with every
    problem: those of loading, or else those of `validate_references`."""
    desired = load_manifests(paths, env, variables, credential_variables=credential_variables)
    if errors := validate_references(desired):
        raise ManifestError(errors)
    return Validated(desired, reference_warnings(desired))


def validate_references(desired: DesiredState) -> list[str]:
    """The offline errors (module docstring), each as `file:line:column: message`."""
    return _findings(desired, _ERRORS)


def reference_warnings(desired: DesiredState) -> list[str]:
    """The offline warnings (module docstring), each as `file:line:column: message`."""
    return _findings(desired, _WARNINGS)


Check = Callable[[DesiredState, "_Findings"], None]


def _findings(desired: DesiredState, checks: tuple[Check, ...]) -> list[str]:
    found = _Findings(desired)
    for check in checks:
        check(desired, found)
    return found.sorted()


def _overlaid(desired: DesiredState, kind: Kind, key: str) -> str | None:
    """Both lines of an entry an overlay refined (`written at A, refined at B`), for a
    message about it: its values come from either; None for an entry no overlay refined."""
    if not (refined := desired.refined_at(kind, key)):
        return None
    return f"written at {desired.location(kind, key)}, refined at {', '.join(refined)}"


class _Findings:
    def __init__(self, desired: DesiredState) -> None:
        self._desired = desired
        self._found: list[tuple[str | None, str]] = []  # (`file:line:column`, message)

    def entry(self, kind: Kind, key: str, path: tuple[str | int, ...], message: str) -> None:
        overlaid = _overlaid(self._desired, kind, key)
        where = self._desired.location(kind, key, *path)
        self._found.append((where, f"{message} (the entry: {overlaid})" if overlaid else message))

    def setting(self, path: tuple[str | int, ...], message: str) -> None:
        self._found.append((self._desired.settings_location(*path), message))

    def sorted(self) -> list[str]:
        """In the order of `files`, then by position; unlocated ones (built in code) last."""
        files = {name: index for index, name in enumerate(self._desired.files)}

        def order(found: tuple[str | None, str]) -> tuple[int, int, int, str]:
            where, message = found
            if not where:
                return (len(files) + 1, 0, 0, message)
            name, line, column = where.rsplit(":", 2)
            return (files.get(name, len(files)), int(line), int(column), message)

        found = sorted(
            dict.fromkeys((where, printable(text)) for where, text in self._found), key=order
        )
        return [f"{where}: {message}" if where else message for where, message in found]


def _check_entries(desired: DesiredState, found: _Findings) -> None:
    """Control and invisible characters in keys and names (characters.py); entries outside
    their kind's scope (scope_check.py)."""
    for kind, key, path, message in [*character_problems(desired), *scope_problems(desired)]:
        found.entry(kind, key, path, message)


def _check_prune(desired: DesiredState, found: _Findings) -> None:
    for index, kind in enumerate(desired.settings.prune):
        if kind in UNPRUNABLE:
            found.setting(("prune", index), f"{kind.value} cannot be pruned: {UNPRUNABLE[kind]}")


def _warn_prune(desired: DesiredState, found: _Findings) -> None:
    for index, kind in enumerate(desired.settings.prune):
        warning = spec(kind).prune_warning
        if warning and desired.settings.prune.index(kind) == index:
            found.setting(("prune", index), f"pruning {kind.value} {warning}")


def _check_ignore_fields(desired: DesiredState, found: _Findings) -> None:
    settings = desired.settings
    for kind, names in settings.ignore_fields.items():
        key = key_field(kind, settings.employee_key)
        fields = [n for n in spec(kind).model.model_fields if n not in (key, PREVIOUSLY)]
        for index, name in enumerate(names):
            where = ("ignore_fields", kind.value, index)
            if name == key:
                found.setting(where, f"'{name}' is the key of {kind.value}: it cannot be ignored")
            elif name.startswith("custom_fields.") and "custom_fields" in fields:
                continue  # one custom field of the kind, by name
            elif not spec(kind).open_fields and name not in fields:
                from difflib import get_close_matches  # only for a misspelt name

                close = get_close_matches(name, fields, n=1, cutoff=0.6)
                if close:
                    hint = f"did you mean '{close[0]}'?"
                elif fields:
                    hint = f"the fields: {', '.join(fields)}"
                else:  # departments: the key is the only field
                    hint = f"none can be ignored: their only field is the key '{key}'"
                found.setting(where, f"{kind.value} have no field '{name}'; {hint}")


def _declared(
    desired: DesiredState, fields_of: Callable[[KindSpec], tuple[str, ...]]
) -> Iterable[tuple[KindSpec, str, str, list[tuple[str, BaseModel]]]]:
    """For each field `fields_of(row)` declares in the table of kinds: (its row, the field,
    how messages name it, the row's entries with their keys as written)."""
    for row in KINDS:
        names = fields_of(row)
        if names:
            entries = keyed_entries(desired, row.kind)
            for name in names:
                yield row, name, _LABELS.get(name, name), entries


def _check_unique_values(desired: DesiredState, found: _Findings) -> None:
    for row, name, label, entries in _declared(desired, lambda row: row.unique):
        first: dict[str, str] = {}
        for entry_key, entry in entries:
            value = getattr(entry, name)
            if value is None:
                continue
            earlier = first.setdefault(email_key(str(value)), entry_key)
            if earlier != entry_key:
                where = desired.location(row.kind, earlier, name) or f"{row.noun} '{earlier}'"
                if overlaid := _overlaid(desired, row.kind, earlier):
                    where += f"; {overlaid}"
                found.entry(
                    row.kind,
                    entry_key,
                    (name,),
                    f"{label} '{value}' is also the {label} of {row.noun} '{earlier}' "
                    f"(at {where}); the helpdesk requires {label}s to be unique",
                )


def _check_former_keys(desired: DesiredState, found: _Findings) -> None:
    # A former key claimed twice, or that is another entry's key (chains, swaps).
    for kind, key, index, message in rename_conflicts(desired):
        found.entry(kind, key, (PREVIOUSLY, index), message)


def _check_section_ids(desired: DesiredState, found: _Findings) -> None:
    # Whether a section name exists is only known live; what can be known here is that the
    # mapping contradicts itself: one id cannot be two sections, one section cannot have two.
    by_id: dict[int, str] = {}
    by_name: dict[str, str] = {}
    for name, section_id in desired.settings.section_ids.items():
        where = ("section_ids", name)
        folded = norm_key(name)
        same_name = by_name.setdefault(folded, name)
        if same_name != name:
            found.setting(
                where,
                f"section '{name}' is also given as '{same_name}' (section names ignore case "
                "and white space); give each section once",
            )
            continue
        same_id = by_id.setdefault(section_id, name)
        if same_id != name:
            found.setting(
                where,
                f"sections '{same_id}' and '{name}' are both given the id {section_id}; "
                "a section id names one section",
            )


def _check_pruned_references(desired: DesiredState, found: _Findings) -> None:
    """A name that refers to a pruned kind must be in the manifests: else the same run
    would remove (disable) what the entry refers to."""
    prune = desired.settings.prune
    keys = {
        k: {key.casefold() for key in entry_keys(desired, k)}
        for k in Kind
        if k in prune and k not in UNPRUNABLE
    }
    for kind, key, path, target, name in named_references(desired):
        if target in keys and name.casefold() not in keys[target]:
            found.entry(
                kind,
                key,
                path,
                f"{spec(target).noun} '{name}' is not in the manifests' {target.value}, and "
                f"{target.value} are pruned: the same run would disable it; add it to "
                f"{target.value} or drop it here",
            )


def _warn_disabled_references(desired: DesiredState, found: _Findings) -> None:
    """A name that refers to an entry with `disabled: true`."""
    disabled = {
        kind: {
            key.casefold()
            for key, e in keyed_entries(desired, kind)
            if getattr(e, "disabled", None)
        }
        for kind in Kind
    }
    for kind, key, path, target, name in named_references(desired):
        if name.casefold() in disabled[target]:
            noun = spec(target).noun
            found.entry(kind, key, path, f"{noun} '{name}' is disabled (`disabled: true`)")


def _warn_repeats(desired: DesiredState, found: _Findings) -> None:
    # The lists of entries are sets (e-mail domains, technicians, assigned users).
    for kind in Kind:
        key = key_field(kind, desired.settings.employee_key)
        for entry in desired.entries(kind):
            for name in type(entry).model_fields:
                values = getattr(entry, name)
                if not isinstance(values, list):
                    continue
                for index in _repeated(values):
                    message = f"'{values[index]}' is listed twice in {name}"
                    found.entry(kind, str(getattr(entry, key)), (name, index), message)
    settings = desired.settings
    for index in _repeated(settings.prune):
        found.setting(("prune", index), f"'{settings.prune[index].value}' is listed twice in prune")
    for kind, names in settings.ignore_fields.items():
        for index in _repeated(names):
            found.setting(
                ("ignore_fields", kind.value, index),
                f"'{names[index]}' is listed twice in ignore_fields.{kind.value}",
            )


def _warn_shared_items(desired: DesiredState, found: _Findings) -> None:
    for row, name, label, entries in _declared(desired, lambda row: row.exclusive):
        owner: dict[str, str] = {}
        for entry_key, entry in entries:
            for index, item in enumerate(getattr(entry, name) or []):
                earlier = owner.setdefault(item.casefold(), entry_key)
                if earlier.casefold() != entry_key.casefold():
                    found.entry(
                        row.kind,
                        entry_key,
                        (name, index),
                        f"{label} '{item}' is also a {label.split()[-1]} of {row.noun} '{earlier}'",
                    )


def _repeated(values: Sequence[str]) -> list[int]:
    """Indices of values that repeat an earlier one (compared without regard to case)."""
    seen: set[str] = set()
    repeats = []
    for index, value in enumerate(values):
        folded = value.casefold()
        if folded in seen:
            repeats.append(index)
        seen.add(folded)
    return repeats


def _warn_confusable_names(desired: DesiredState, found: _Findings) -> None:
    """Keys of one kind, and names referring to another kind's keys, that are one name
    only after Unicode normalisation and case folding (confusables.py)."""
    keys: dict[Kind, list[str]] = {}
    for kind in Kind:
        keys[kind] = entry_keys(desired, kind)
        for key, first in confusable_pairs(keys[kind]):
            where = _overlaid(desired, kind, first) or desired.location(kind, first) or f"'{first}'"
            found.entry(kind, key, (), f"{kind.value} '{key}' and '{first}' (at {where}) " + _SAME)
    # A target's keys are folded once, and a reference is compared with them in full only
    # when it could be confused with one (for every reference, `validate` is quadratic).
    # An ASCII name among ASCII keys makes no pair either (`confusable_pairs`): then
    # nothing is folded, and the confusables table is not loaded.
    exact: dict[Kind, set[str]] = {}
    ascii_keys: dict[Kind, bool] = {}
    folded: dict[Kind, set[str]] = {}
    for kind, key, path, target, name in named_references(desired):
        if target not in exact:
            exact[target] = set(keys[target])
            ascii_keys[target] = all(k.isascii() for k in keys[target])
        if name in exact[target] or (ascii_keys[target] and name.isascii()):
            continue  # written as a key is, or ASCII among ASCII keys: no pair
        if target not in folded:
            folded[target] = {fold(k) for k in keys[target]}
        if fold(name) not in folded[target]:
            continue  # folds like none: no pair
        for _, defined in confusable_pairs([name], keys[target]):
            found.entry(kind, key, path, f"'{name}' and {target.value} '{defined}' " + _SAME)


_SAME = "are one name only after Unicode normalisation (NFKC, TR39 confusables) and case "
_SAME += "folding, but two to the helpdesk: write them alike"


# The checks; their order does not matter: findings are sorted by where they are.
_ERRORS: tuple[Check, ...] = (
    _check_entries,
    _check_prune,
    _check_ignore_fields,
    _check_unique_values,
    _check_former_keys,
    _check_section_ids,
    _check_pruned_references,
)
_WARNINGS: tuple[Check, ...] = (
    _warn_prune,
    _warn_disabled_references,
    _warn_repeats,
    _warn_shared_items,
    _warn_confusable_names,
)
