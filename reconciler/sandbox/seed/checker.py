"""What every section check shares: the problems, the plan being filled, the custom field
names known so far, and the checks of names (unique ones, references to known ones)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TypeVar

from reconciler.sandbox.helpdesk.custom_fields import USAGE_NAMES
from reconciler.sandbox.seed.entry import Entry, items, key
from reconciler.sandbox.seed.plan import Plan
from reconciler.sandbox.seed.reading import Problems, SeedNode

T = TypeVar("T")


class Checker:
    def __init__(self, problems: Problems) -> None:
        self.p = problems
        self.plan = Plan()
        # usage type -> key(name) -> index in plan.fields
        self.field_names: dict[int, dict[str, int]] = {u: {} for u in USAGE_NAMES}

    def entries(
        self, node: SeedNode | None, section: str, what: str, known: str
    ) -> Iterator[Entry]:
        """The mappings of the list `section`, each read as `what` with fields `known`."""
        for item in items(node, self.p, f"'{section}'"):
            yield Entry(item, self.p, what, known)

    def put_new(
        self, into: dict[str, T], name: str | None, value: T, where: SeedNode, what: str
    ) -> bool:
        """File `value` under `name`'s key, unless `name` is None (absent or reported
        already) or taken (reported here as a duplicate `what`). True when filed."""
        if name is None:
            return False
        if key(name) in into:
            self.p.add(where, f"duplicate {what} '{name}'")
            return False
        into[key(name)] = value
        return True

    def reference(
        self,
        entry: Entry,
        name: str,
        known: dict[str, Any],
        *,
        required: bool = False,
        what: str | None = None,
    ) -> str | None:
        """The key of the record that field `name` names, None when it names none."""
        text = entry.text(name, required=required)
        if not text:
            return None
        if key(text) not in known:
            self.p.add(entry.at(name), f"unknown {what or name} '{text}'")
            return None
        return key(text)

    def references(self, entry: Entry, name: str, known: dict[str, Any], what: str) -> list[str]:
        """The keys of the records that the list `name` names, each once, in order."""
        out: list[str] = []
        for text, item in entry.texts(name):
            if key(text) not in known:
                self.p.add(item, f"unknown {what} '{text}'")
            elif key(text) not in out:
                out.append(key(text))
        return out
