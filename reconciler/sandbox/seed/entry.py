"""Typed access to the seed's mappings: `Entry` reads one mapping field by field, reporting
every wrong field at its place; plus the small value helpers the sections share."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from reconciler.sandbox.seed.reading import Problems, SeedNode


def key(name: str) -> str:
    """Names are matched case-insensitively, as the helpdesk matches them."""
    return name.strip().casefold()


def scalar_text(node: SeedNode) -> str | None:
    """Text of a scalar; numbers and dates keep their source spelling (`0123`)."""
    if isinstance(node.value, str):
        return node.value
    if node.value is None or isinstance(node.value, bool | dict | list):
        return None
    return node.raw


def iso_date(text: str) -> str | None:
    try:
        return date.fromisoformat(text.strip()).isoformat()
    except ValueError:
        return None


def items(node: SeedNode | None, problems: Problems, what: str) -> list[SeedNode]:
    if node is None or node.value is None:
        return []
    if not isinstance(node.value, list):
        problems.add(node, f"{what} must be a list")
        return []
    return list(node.value)


class Entry:
    """One mapping of the seed, read field by field; every wrong field is reported at its
    place and read as absent, so that checking goes on."""

    def __init__(
        self, node: SeedNode, problems: Problems, what: str, known: str, noun: str = "field"
    ) -> None:
        self.node = node
        self.what = what
        self.problems = problems
        self.ok = isinstance(node.value, dict)
        self.values: dict[str, SeedNode] = node.value if self.ok else {}
        names = known.split()
        if not self.ok:
            problems.add(node, f"{what} must be a mapping of {', '.join(names)}")
        for name, key_node in node.keys.items():
            if name not in names:
                message = f"unknown {noun} '{name}' in {what}; known: {', '.join(names)}"
                problems.add(key_node, message)

    def get(self, name: str) -> SeedNode | None:
        node = self.values.get(name)
        return None if node is None or node.value is None else node

    def at(self, name: str) -> SeedNode:
        """Where a field is (or the entry, when the field is absent)."""
        return self.values.get(name) or self.node

    def missing(self, name: str) -> None:
        if self.ok:  # a non-mapping was reported once already
            self.problems.add(self.node, f"{self.what} needs '{name}'")

    def _given(self, name: str, required: bool) -> SeedNode | None:
        """The field's node; a required one that is absent is reported."""
        node = self.get(name)
        if node is None and required:
            self.missing(name)
        return node

    def text(self, name: str, *, required: bool = False, strip: bool = True) -> str | None:
        node = self._given(name, required)
        if node is None:
            return None
        text = scalar_text(node)
        if text is None:
            self.problems.add(node, f"'{name}' must be text")
            return None
        text = text.strip() if strip else text
        if required and not text:
            self.problems.add(node, f"'{name}' must not be empty")
            return None
        return text

    def flag(self, name: str, default: bool) -> bool:
        node = self.get(name)
        if node is None:
            return default
        if not isinstance(node.value, bool):
            self.problems.add(node, f"'{name}' must be true or false")
            return default
        return node.value

    def integer(
        self, name: str, *, required: bool = False, minimum: int | None = None
    ) -> int | None:
        node = self._given(name, required)
        if node is None:
            return None
        if isinstance(node.value, bool) or not isinstance(node.value, int):
            self.problems.add(node, f"'{name}' must be an integer")
            return None
        if minimum is not None and node.value < minimum:
            self.problems.add(node, f"'{name}' must be at least {minimum}")
            return None
        return node.value

    def choice(self, name: str, choices: Iterable[str], default: str) -> str | None:
        """One of `choices`, `default` when absent, None (reported) when wrong."""
        text = self.text(name)
        if text is None:
            return default
        if text not in choices:
            self.problems.add(self.at(name), f"'{name}' must be one of {', '.join(choices)}")
            return None
        return text

    def texts(self, name: str) -> list[tuple[str, SeedNode]]:
        """A list of names; each wrong item is reported."""
        out: list[tuple[str, SeedNode]] = []
        for item in items(self.get(name), self.problems, f"'{name}'"):
            text = scalar_text(item)
            if text is None or not text.strip():
                self.problems.add(item, f"each item of '{name}' must be a non-empty text")
            else:
                out.append((text.strip(), item))
        return out
