"""What an export covers: the kinds (`--kinds`, else every kind whose service is
configured), the objects (`--target KIND[/KEY]`, `--exclude KIND[/KEY]`) and the rule ids
(`--rule-ids`, and the ids of the rules `--target` names: the API cannot list rules),
and the scope (`--scope-from`: the `settings.scope` of manifests; only it is read; their
`settings.ownership` marker field is left out of the entries, as the marker is the
ownership's to set).

Keys are compared as the manifest loader compares them (`normalise_key`): names without
regard to case and runs of white space, rule ids as integers, e-mail keys without case.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from reconciler.errors import UsageError
from reconciler.kinds.table import KINDS, normalise_key
from reconciler.manifest.loader import load_manifests
from reconciler.manifest.models import Kind, Scope, Settings
from reconciler.manifest.scopes import Ownership
from reconciler.plans.addresses import Selector

RULES = Kind.automation_rules.value
EMPLOYEES = Kind.employees.value
# The kinds in the order they are read, converted and written; one file each.
KIND_FILES: dict[str, str] = {row.name: row.file_name for row in KINDS}
SETTINGS_FILE = "settings.yaml"
EXPORT_KINDS = tuple(KIND_FILES)


def settings_of(path: Path | None) -> Settings:
    """The settings of the manifests at `path` (a file or a directory; None: the
    defaults: no scope, no ownership). Raises ManifestError for manifests that do not load."""
    if path is None:
        return Settings()
    return load_manifests([path], dict(os.environ)).settings


def split_list(values: Iterable[str]) -> list[str]:
    """`--kinds users,assets --kinds companies` -> ['users', 'assets', 'companies']."""
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def parse_rule_ids(values: Iterable[str]) -> list[int]:
    ids: list[int] = []
    for text in split_list(values):
        try:
            rule_id = int(text)
        except ValueError:
            raise UsageError(f"--rule-ids takes rule ids (numbers), not {text!r}") from None
        if rule_id < 1:
            raise UsageError(f"--rule-ids: {rule_id} is not a rule id (ids start at 1)")
        if rule_id not in ids:
            ids.append(rule_id)
    return ids


@dataclass(frozen=True)
class Selection:
    kinds: tuple[str, ...]  # asked for, in EXPORT_KINDS order (before services are known)
    targets: tuple[Selector, ...] = ()
    excludes: tuple[Selector, ...] = ()
    rule_ids: tuple[int, ...] = ()
    employee_key: str = "email"
    scope: Scope = field(default_factory=Scope)  # `--scope-from`: only the scope is read
    ownership: Ownership | None = None  # `--scope-from`: its marker is not exported

    @classmethod
    def build(
        cls,
        *,
        kinds: Iterable[str] = (),
        targets: Iterable[str] = (),
        excludes: Iterable[str] = (),
        rule_ids: Iterable[int] = (),
        scope_from: Path | None = None,
    ) -> Selection:
        """From the command line's values; raises UsageError for an unknown kind or a
        selection that cannot export anything it names."""
        named = split_list(kinds)
        for kind in named:
            if kind not in EXPORT_KINDS:
                raise UsageError(f"unknown kind {kind!r}; kinds: {', '.join(EXPORT_KINDS)}")
        chosen = [k for k in EXPORT_KINDS if not named or k in named]
        wanted = tuple(Selector.parse(t) for t in targets)
        left_out = tuple(Selector.parse(e) for e in excludes)
        ids = list(rule_ids)
        for selector in wanted:
            if selector.kind == RULES and selector.key is not None:
                try:
                    rule_id = int(selector.key)
                except ValueError:
                    raise UsageError(
                        f"--target {RULES}/{selector.key}: rules are keyed by id (a number)"
                    ) from None
                if rule_id not in ids:
                    ids.append(rule_id)
        if wanted:
            target_kinds = {s.kind for s in wanted}
            chosen = [k for k in chosen if k in target_kinds]
        chosen = [k for k in chosen if not any(e.kind == k and e.key is None for e in left_out)]
        if RULES in chosen and not ids:
            if RULES in named or any(s.kind == RULES for s in wanted):
                raise UsageError(
                    "the API cannot list automation rules: name the rules to export with "
                    "--rule-ids 101,102"
                )
            chosen.remove(RULES)
        elif ids and RULES not in chosen:
            raise UsageError(
                f"--rule-ids names automation rules, but {RULES} is not among the kinds exported"
            )
        if not chosen:
            raise UsageError("nothing to export: the options leave out every kind")
        settings = settings_of(scope_from)
        return cls(
            tuple(chosen),
            wanted,
            left_out,
            tuple(ids),
            scope=settings.scope,
            ownership=settings.ownership,
        )

    def key(self, kind: str, value: object) -> str | None:
        return normalise_key(kind, value, self.employee_key)

    def wants(self, kind: str, key: object) -> bool:
        """Whether the object of `kind` with this key is exported (its kind is chosen)."""
        if kind not in self.kinds:
            return False
        normalised = self.key(kind, key)
        targets = [s for s in self.targets if s.kind == kind]
        named = any(s.key is None or self.key(kind, s.key) == normalised for s in targets)
        if targets and not named:
            return False
        return not any(
            s.kind == kind and s.key is not None and self.key(kind, s.key) == normalised
            for s in self.excludes
        )

    def unmatched_targets(self, exported: dict[str, set[str]]) -> list[str]:
        """The `--target KIND/KEY`s that named no live object (`exported`: kind -> the
        normalised keys exported)."""
        missing = []
        for selector in self.targets:
            if selector.key is None or selector.kind not in self.kinds:
                continue
            if self.key(selector.kind, selector.key) not in exported.get(selector.kind, set()):
                missing.append(f"{selector.kind}/{selector.key}")
        return missing
