"""Addresses as `--target`/`--exclude` take them: every address the plan prints
(`users["dmitri"]`, quotes and backslashes escaped as the plan escapes them), `KIND`, and
`KIND/KEY`; and the check that each names something, so that a misspelt target is an
error instead of a plan that silently does nothing; `Selector`, one of them parsed.

Pure: the live state and the desired state are given."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from reconciler.errors import UsageError
from reconciler.kinds.table import KIND_NAMES, key_field, normalise_key
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.kinds import norm_key
from reconciler.plans import Change, Diagnostic, error

_ADDRESS = re.compile(r'(?P<kind>[^\[\]"/]+)\["(?P<key>(?:[^"\\]|\\.)*)"\]')
_ESCAPE = re.compile(r"\\(.)")


def split_address(text: str) -> tuple[str, str | None]:
    """`users["dmitri"]` or `users/dmitri` -> ("users", "dmitri"); `users` -> ("users", None)."""
    printed = _ADDRESS.fullmatch(text.strip())
    if printed:
        return printed.group("kind"), _ESCAPE.sub(r"\1", printed.group("key"))
    kind, _, key = text.partition("/")
    return kind, key or None


@dataclass(frozen=True)
class Selector:
    """`KIND`, `KIND/KEY` or an address as the plan prints it (`users["dmitri"]`), from
    `--target`/`--exclude`."""

    kind: str
    key: str | None = None
    text: str = field(default="", compare=False)  # as given, for messages

    @classmethod
    def parse(cls, text: str) -> Selector:
        kind, key = split_address(text)
        if kind not in KIND_NAMES:
            raise UsageError(f"unknown kind {kind!r} in {text!r}; kinds: {', '.join(KIND_NAMES)}")
        return cls(kind, key, text)

    def matches(self, change: Change) -> bool:
        """Its kind, and its key: the change's, or the key a rename gives up."""
        keys = (change.key, change.renamed_from or change.key)
        return change.kind == self.kind and (
            self.key is None or norm_key(self.key) in {norm_key(k) for k in keys}
        )


def selections(targets: Iterable[str], excludes: Iterable[str]) -> tuple[list[Selector], ...]:
    """`--target` and `--exclude` parsed; a target that an exclude covers in full (`--target
    companies --exclude companies`) is a contradiction, refused as a usage error rather
    than planned as nothing."""
    selected, left_out = [Selector.parse(t) for t in targets], [Selector.parse(e) for e in excludes]
    for target in selected:
        for exclude in left_out:
            same_key = exclude.key is None or (
                target.key is not None and norm_key(target.key) == norm_key(exclude.key)
            )
            if target.kind == exclude.kind and same_key:
                raise UsageError(
                    f"--target {target.text} and --exclude {exclude.text} contradict each "
                    "other: the target would select nothing; drop one of them"
                )
    return selected, left_out


def unmatched(
    selectors: Iterable[Selector],
    desired: DesiredState,
    live_kinds: Mapping[str, Any],
    changes: Sequence[Change],
    flag: str,
) -> list[Diagnostic]:
    """An error for each `KIND/KEY` selector that names no manifest entry, no live object
    (of the kinds read) and no change."""
    found = []
    for selector in selectors:
        if selector.key is None or any(selector.matches(c) for c in changes):
            continue
        if _in_manifests(selector.kind, selector.key, desired):
            continue
        if _in_live(selector.kind, selector.key, live_kinds, desired):
            continue
        found.append(
            error(
                f"{flag} {selector.text or selector.kind + '/' + selector.key} matches no "
                "manifest entry and no live object",
                remedy="use an address as the plan prints it, e.g. "
                f'{selector.kind}["KEY"], or KIND or KIND/KEY',
            )
        )
    return found


def with_sources(changes: Sequence[Change], desired: DesiredState) -> list[Change]:
    """Each change with `source`, the `file:line` of the manifest entry it comes from,
    and `refined_at`, that of each overlay that refined the entry."""
    out = []
    for change in changes:
        where = desired.location(change.kind, change.key)
        if where is None or change.source:
            out.append(change)
            continue
        refined = tuple(_file_line(at) for at in desired.refined_at(change.kind, change.key))
        out.append(replace(change, source=_file_line(where), refined_at=refined))
    return out


def _file_line(where: str) -> str:
    """`file:line` of a `file:line:column`."""
    file, line, _column = where.rsplit(":", 2)
    return f"{file}:{line}"


def _in_manifests(kind: str, key: str, desired: DesiredState) -> bool:
    employee_key = desired.settings.employee_key
    wanted = normalise_key(kind, key, employee_key)
    field = key_field(kind, employee_key)
    for entry in desired.entries(kind):
        # Every entry has its key: loading refuses one without.
        if normalise_key(kind, getattr(entry, field), employee_key) == wanted:
            return True
    return False


def _in_live(kind: str, key: str, live_kinds: Mapping[str, Any], desired: DesiredState) -> bool:
    """Live objects by key, where the kind's live state keeps them by key (`by_key`); a
    kind not read has no entry in `live_kinds`."""
    by_key = getattr(live_kinds.get(kind), "by_key", None)
    if by_key is None:
        return False
    wanted = normalise_key(kind, key, desired.settings.employee_key)
    return wanted in by_key or key in by_key
