"""Reading a seed file into `SeedNode`s that know their `line:column`, and collecting the
problems found in it.

Positions come from ruamel.yaml's node tree: the file is composed, never constructed as a
whole, and only plain scalars go through the safe constructor, so no tag can build an
object. JSON is read by the same parser after `json` has checked its stricter syntax.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
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
