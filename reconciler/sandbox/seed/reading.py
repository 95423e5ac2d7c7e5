"""Reading a seed file into `SeedNode`s that know their `line:column`, collecting the
problems found in it, and typed access to its mappings: `Entry` reads one mapping field
by field, reporting every wrong field at its place; plus the small value helpers the
sections share.

Positions come from ruamel.yaml's node tree: the file is composed, never constructed as a
whole, and only plain scalars go through the safe constructor, so no tag can build an
object. JSON is read by the same parser after `json` has checked its stricter syntax.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode

from reconciler.errors import SeedError


@dataclass(eq=False)
class SeedNode:
    """A value of the seed and where it starts (1-based). Mappings hold {key: SeedNode} in
    `value` and the key nodes in `keys`; scalars keep their source text in `raw`."""

    value: Any
    line: int
    column: int
    raw: str | None = None
    keys: dict[str, SeedNode] = field(default_factory=dict)


class Problems:
    def __init__(self, file: str) -> None:
        self.file = file
        self._found: list[tuple[int, int, str]] = []

    def add(self, node: SeedNode, message: str) -> None:
        self._found.append((node.line, node.column, message))

    def __bool__(self) -> bool:
        return bool(self._found)

    def messages(self) -> list[str]:
        # In file order: the sections are checked in dependency order, not as written.
        # Once each: a mapping merged (`<<`) into many entries is read many times.
        ordered = sorted(dict.fromkeys(self._found), key=lambda p: (p[0], p[1]))
        return [f"{self.file}:{line}:{col}: {msg}" for line, col, msg in ordered]


def read(path: Path, problems: Problems) -> SeedNode:
    """The seed's tree; a file that cannot be parsed at all raises SeedError at once."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SeedError([f"{path}:1:1: cannot read the seed file: {exc.strerror or exc}"]) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - data.rfind(b"\n", 0, exc.start)
        raise SeedError([f"{path}:{line}:{column}: the seed file is not UTF-8 text"]) from None
    if path.suffix.lower() == ".json":
        # YAML reads JSON too, but forgives what JSON forbids (trailing commas).
        try:
            json.loads(text)
        except json.JSONDecodeError as exc:
            raise SeedError([f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}"]) from None
    yaml = YAML(typ="safe", pure=True)
    try:
        root = yaml.compose(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{mark.line + 1}:{mark.column + 1}" if mark else "1:1"
        raise SeedError([f"{path}:{where}: invalid YAML: {exc.problem or exc}"]) from None
    except YAMLError as exc:
        raise SeedError([f"{path}:1:1: invalid YAML: {exc}"]) from None
    return SeedNode({}, 1, 1) if root is None else _Converter(yaml, problems).convert(root)


class _Converter:
    """ruamel nodes to `SeedNode`s: scalars built by the safe constructor, merge keys (`<<`)
    applied, duplicate keys and recursive aliases reported. An aliased node is converted
    once and shared (nothing changes a `SeedNode`), so nested aliases cannot blow up."""

    def __init__(self, yaml: YAML, problems: Problems) -> None:
        self._construct = yaml.constructor.construct_object
        self._problems = problems
        self._open: set[int] = set()
        self._done: dict[int, SeedNode] = {}

    def convert(self, node: Any) -> SeedNode:
        if id(node) in self._done:
            return self._done[id(node)]
        here = SeedNode(None, node.start_mark.line + 1, node.start_mark.column + 1)
        if id(node) in self._open:
            self._problems.add(here, "a recursive alias cannot be loaded")
            return here
        self._open.add(id(node))
        if isinstance(node, MappingNode):
            self._mapping(node, here)
        elif isinstance(node, SequenceNode):
            here.value = [self.convert(item) for item in node.value]
        else:
            here.raw = str(node.value)
            here.value = self._scalar(node, here)
        self._open.discard(id(node))
        self._done[id(node)] = here
        return here

    def _scalar(self, node: Any, here: SeedNode) -> Any:
        try:
            return self._construct(node, deep=True)
        except YAMLError as exc:  # an unknown tag
            problem = str(getattr(exc, "problem", None) or exc).splitlines()[0]
            self._problems.add(here, f"cannot read this value: {problem}")
            return None
        except ValueError:
            # Looks like a date but is none (2025-13-01): text, for the field to judge.
            return str(node.value)

    def _mapping(self, node: Any, out: SeedNode) -> None:
        out.value = {}
        merges: list[SeedNode] = []
        for key_node, value_node in node.value:
            if str(getattr(key_node.tag, "value", key_node.tag)).endswith(":merge"):
                merges.append(self.convert(value_node))
                continue
            key = self.convert(key_node)
            if not isinstance(key_node, ScalarNode) or key.raw is None:
                self._problems.add(key, "a mapping key must be a plain value")
            elif key.raw in out.keys:
                self._problems.add(key, f"duplicate key '{key.raw}'")
            else:
                out.keys[key.raw] = key
                out.value[key.raw] = self.convert(value_node)
        for merged in merges:
            for source in merged.value if isinstance(merged.value, list) else [merged]:
                if not isinstance(source.value, dict):
                    self._problems.add(source, "'<<' must name a mapping or a list of mappings")
                    continue
                for name, value in source.value.items():
                    # Explicit keys win over merged ones, earlier merges over later ones.
                    if name not in out.value:
                        out.keys[name] = source.keys[name]
                        out.value[name] = value


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
