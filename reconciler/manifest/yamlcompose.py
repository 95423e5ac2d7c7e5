"""Composing YAML at C speed: libyaml (ruamel.yaml's C parser, the `ruamel.yaml.clibz`
distribution that ruamel.yaml's `libyaml` extra installs) scans and parses, this module
builds the node tree from its events, and `yamltree` converts that tree exactly as it
converts ruamel.yaml's, so both paths give the same `Node`s and the same problems.

The tree is made of ruamel.yaml's own node classes, so that ruamel's safe constructor
builds every scalar that is not a string (ints, floats, bools, nulls, dates) as it always
has. Plain scalars are resolved with ruamel's YAML 1.2 resolver (`yes` stays a string,
`0o17` is 15, `.inf` a float, `2027-01-31` a date), once per distinct value.

libyaml is only trusted where it agrees with ruamel: whatever is unusual (a syntax error,
an undefined alias, a `%YAML` or `%TAG` directive, a local tag, a tag and an anchor on
one node, an anchor name libyaml ends before ruamel does, nesting beyond the limit, a tab,
the line breaks YAML 1.1 and 1.2 disagree on) raises `Declined`, and the caller parses
the text with ruamel.yaml instead: its messages are the ones users see, and its results
are the reference. Without libyaml every text takes that path.
tests/manifest/test_yaml_loaders.py holds both paths to the same results.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ruamel.yaml.error import YAMLError
from ruamel.yaml.events import (
    AliasEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode
from ruamel.yaml.resolver import VersionedResolver

# Its events are ruamel.yaml's own classes, and its errors ruamel.yaml's (`YAMLError`).
# `import ruamel.yaml` loads it already when it is installed (ruamel.yaml.cyaml): using it
# costs no import, where PyYAML's parser cost its whole package (issue 25).
try:
    from _ruamel_yaml_clibz import CParser
except ImportError:  # without it: the pure-Python path
    CParser = None

_MAP = "tag:yaml.org,2002:map"
_STR = "tag:yaml.org,2002:str"
_SEQ = "tag:yaml.org,2002:seq"
# Characters where libyaml and ruamel.yaml disagree: YAML 1.1 breaks lines at the last
# three, YAML 1.2 does not; ruamel refuses tabs in places libyaml accepts them.
_DISPUTED = ("\t", "\x85", "\u2028", "\u2029", "\ufeff")
# A block scalar's header right before a comment (`|#`, or `#` opening the next non-blank
# line: the parsers disagree on whether it is a comment or the scalar's text); and the
# document end marker `...`, where they disagree on which empty documents are valid
# (`---\n...\n...\n`). Manifests hardly ever hold these: ruamel.yaml judges them.
_DISPUTED_TEXT = re.compile(
    r"[|>][-+0-9]*(?:[ \t]*(?:\r\n|\r|\n))*#|^\.\.\.(?=[ \r\n]|\Z)", re.MULTILINE
)
# An anchor or alias name as libyaml reads it, ended by a character that ruamel.yaml (YAML
# 1.2: any non-space character but `,[]{}`) still reads as part of the name: `&a:` is the
# anchor `a` before a colon to libyaml and the anchor `a:` to ruamel.
_NAME_READ_ALIKE = re.compile(r"[&*][0-9A-Za-z_-]++(?![?:%@`])")
# Explicit tags both read alike: `!!int` and the like (others are rare, and ruamel's own).
_STANDARD_TAG = re.compile(r"tag:yaml\.org,2002:[a-z]+\Z")


@dataclass(slots=True)
class AliasUse:
    """What composing returns for `*name`: the anchored node and where it is used."""

    node: Any
    line: int
    column: int


class Declined(Exception):
    """The text holds something only ruamel.yaml may judge: parse it with ruamel.yaml."""


# What composing raises when ruamel.yaml must parse the text: a syntax error is libyaml's,
# and ruamel's message about it is the one users see.
DECLINED = (Declined, YAMLError)


def libyaml_available() -> bool:
    return CParser is not None


def compose_documents(text: str, max_depth: int) -> Iterator[Any]:
    """The root node of each document of `text`, composed with libyaml. A collection's
    children are composed as the caller iterates its `value`, so the composed tree is never
    whole in memory. Raises `Declined` (at once or while the caller iterates) when the text
    must be parsed by ruamel.yaml instead: see the module's docstring."""
    if CParser is None or any(char in text for char in _DISPUTED) or _DISPUTED_TEXT.search(text):
        raise Declined
    return _Composer(text, max_depth).documents()


# ruamel.yaml's YAML 1.2 implicit resolvers, by the first character of a plain scalar.
_IMPLICIT: dict[Any, list[tuple[str, Any]]] = VersionedResolver(version=(1, 2)).versioned_resolver


def resolve_plain(value: str) -> str:
    """The tag of a plain scalar, as ruamel.yaml's `VersionedResolver.resolve` gives it."""
    for tag, pattern in _IMPLICIT.get(value[:1], ()):  # "" for the empty value, as ruamel
        if pattern.match(value):
            return tag
    return _STR


# ruamel.yaml's node classes, so that its constructor and `yamltree` take them as its own,
# with tags as plain strings: ruamel's `Tag` objects cost more than libyaml's whole parse
# (its `tag` property reads a string as well as a `Tag`).
class _Scalar(ScalarNode):
    __slots__ = ()

    def __init__(self, tag: str, value: str, mark: Any, style: str | None, anchor: Any) -> None:
        self.ctag, self.value, self.start_mark, self.style = tag, value, mark, style  # type: ignore[assignment]
        self.anchor, self.end_mark, self.comment = anchor, None, None


class _Sequence(SequenceNode):
    """`value` is first an iterator that composes the items as they are read."""

    __slots__ = ()

    def __init__(self, tag: str, mark: Any, anchor: Any) -> None:
        self.ctag, self.start_mark, self.anchor = tag, mark, anchor  # type: ignore[assignment]
        self.end_mark = self.comment = self.flow_style = None


class _Mapping(MappingNode):
    """`value` is first an iterator that composes the (key, value) pairs as they are read."""

    __slots__ = ()

    def __init__(self, tag: str, mark: Any, anchor: Any) -> None:
        self.ctag, self.start_mark, self.anchor = tag, mark, anchor  # type: ignore[assignment]
        self.end_mark = self.comment = self.flow_style = self.merge = None


def _complete(node: Any) -> None:
    """Compose what the reader of `node` left unread (a key it rejected, the value of a
    duplicate key), so that the next event belongs to the next node; kept as a list, as an
    alias may still read it."""
    if type(node) in _COLLECTIONS and type(node.value) is not list:
        node.value = list(node.value)


_COLLECTIONS = (_Sequence, _Mapping)


class _Composer:
    def __init__(self, text: str, max_depth: int) -> None:
        self._next = CParser(text).get_event
        self._text = text
        self._max_depth = max_depth
        self._depth = 0
        self._anchors: dict[str, Any] = {}

    def documents(self) -> Iterator[Any]:
        self._next()  # the stream's start
        while True:
            start = self._next()
            if type(start) is StreamEndEvent:
                return
            if start.version is not None or start.tags:
                raise Declined  # a directive: ruamel switches schema and tag handles
            self._anchors = {}
            root = self._node(self._next())
            yield root
            _complete(root)
            self._next()  # the document's end

    def _node(self, event: Any) -> Any:
        kind = type(event)
        mark = event.start_mark
        if event.anchor is not None and not _NAME_READ_ALIKE.match(self._text, mark.index):
            raise Declined  # ruamel reads a longer name (libyaml's marks count characters)
        if kind is AliasEvent:
            target = self._anchors.get(event.anchor)
            if target is None:
                raise Declined  # an undefined alias
            return AliasUse(target, mark.line + 1, mark.column + 1)
        if self._depth >= self._max_depth:
            raise Declined
        tag = event.tag
        if tag is not None and (
            event.anchor is not None  # `!!str &a x` starts at the tag or at the anchor
            or (tag != "!" and not _STANDARD_TAG.match(tag))
        ):
            raise Declined
        node: Any
        if kind is ScalarEvent:
            value = event.value
            if tag is None:
                tag = resolve_plain(value) if event.implicit[0] else _STR
            elif tag == "!":  # ruamel.yaml resolves `! 12` and `! '12'` as plain: 12
                tag = resolve_plain(value)
            node = _Scalar(tag, value, mark, event.style or None, event.anchor)
        elif kind is SequenceStartEvent:
            node = _Sequence(_SEQ if tag in (None, "!") else tag, mark, event.anchor)
            node.value = self._items()
        elif kind is MappingStartEvent:
            node = _Mapping(_MAP if tag in (None, "!") else tag, mark, event.anchor)
            node.value = self._pairs()
        else:  # pragma: no cover - libyaml emits nothing else here
            raise Declined
        if event.anchor is not None:
            self._anchors[event.anchor] = node
        return node

    def _items(self) -> Iterator[Any]:
        self._depth += 1
        event = self._next()
        while type(event) is not SequenceEndEvent:
            item = self._node(event)
            yield item
            if type(item) is not _Scalar:
                _complete(item)
            event = self._next()
        self._depth -= 1

    def _pairs(self) -> Iterator[tuple[Any, Any]]:
        self._depth += 1
        event = self._next()
        while type(event) is not MappingEndEvent:
            key = self._node(event)
            if type(key) is not _Scalar:
                _complete(key)
            value = self._node(self._next())
            yield key, value
            if type(value) is not _Scalar:
                _complete(value)
            event = self._next()
        self._depth -= 1
