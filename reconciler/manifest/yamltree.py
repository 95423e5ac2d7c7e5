"""YAML text to `Node`s that know where they start, with every problem reported at its place.

Positions come from a node tree composed by libyaml (`yamlcompose`, at C speed) or, when
libyaml is missing or the text needs it, by ruamel.yaml: a document is composed, never
constructed as a whole, and only scalars go through the safe constructor, so no tag can
build an object.
The composer is taught to remember where each alias is used, because an alias is where an
alias bomb ("billion laughs") and a recursive alias must be reported. An aliased node is
converted once and shared (nothing changes a `Node`), and each node knows how many nodes
its value expands to, so a bomb is refused after counting, never after expanding it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.composer import Composer
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import AliasEvent
from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode
from ruamel.yaml.reader import ReaderError

from reconciler.manifest.yamlcompose import (
    DECLINED,
    AliasUse,
    compose_documents,
    libyaml_available,
)

# Nodes a document may materialise through aliases; real manifests use a few hundred.
ALIAS_NODE_LIMIT = 100_000
# Nesting a document may have, aliases included; real manifests need about six levels.
MAX_DEPTH = 64
# Documents one file may hold: real manifests hold a few. Each costs its own conversion
# and validation (about 0.2 ms even empty), so a file of millions of `---` would take
# minutes and gigabytes before saying anything.
MAX_DOCUMENTS = 10_000

_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_STR = "tag:yaml.org,2002:str"
_MERGE = "tag:yaml.org,2002:merge"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"

# Reports a problem at a 1-based line and column.
Report = Callable[[int, int, str], None]
# Substitutes variables in a string value: the result and the problems found.
Substitute = Callable[[str], tuple[str, list[str]]]


@dataclass(eq=False, slots=True)
class Node:
    """A value and where it starts (1-based). A mapping's `value` is {key: Node} and `keys`
    holds its key nodes; a sequence's is [Node]; a scalar's is the constructed value and
    `raw` its source text. `size` and `depth` count the value as expanded by aliases."""

    value: Any
    line: int
    column: int
    keys: dict[str, Node] | None = None
    raw: str | None = None
    size: int = 1
    depth: int = 1

    def plain(self, scalar: Callable[[Node], Any] | None = None) -> Any:
        """The value as plain Python data (dicts, lists and scalars), for pydantic; each
        scalar's value as `scalar` gives it, when given."""
        if isinstance(self.value, dict):
            return {key: node.plain(scalar) for key, node in self.value.items()}
        if isinstance(self.value, list):
            return [node.plain(scalar) for node in self.value]
        return self.value if scalar is None else scalar(self)

    def child(self, part: str | int) -> Node | None:
        """The value under a mapping's key or at a sequence's index, if there is one."""
        if isinstance(self.value, dict) and isinstance(part, str):
            found: Node | None = self.value.get(part)
            return found
        if isinstance(self.value, list) and isinstance(part, int) and 0 <= part < len(self.value):
            return self.value[part]  # type: ignore[no-any-return]
        return None

    @property
    def is_mapping(self) -> bool:
        return self.keys is not None

    @property
    def is_empty(self) -> bool:
        """An empty document (`---` alone, or `null`)."""
        return self.keys is None and self.value is None


class _LocatingComposer(Composer):
    def __init__(self, loader: Any = None) -> None:
        super().__init__(loader=loader)
        # Redefining an anchor is valid YAML (the later one wins); a library must not warn.
        self.warn_double_anchors = False

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.parser.check_event(AliasEvent):
            mark = self.parser.peek_event().start_mark
            return AliasUse(super().compose_node(parent, index), mark.line + 1, mark.column + 1)
        return super().compose_node(parent, index)


class _Abandon(Exception):
    """Ends the conversion of a document that cannot be loaded safely."""


def parse_documents(
    text: str, report: Report, substitute: Substitute, *, libyaml: bool = True
) -> list[Node]:
    """The non-empty documents of `text`. Problems go to `report`; a document with a syntax
    error ends the file (the parser cannot resynchronise), earlier documents are kept.
    libyaml composes the text when it can (`yamlcompose`), ruamel.yaml's pure-Python
    parser when it cannot or `libyaml` is False; the results are the same."""
    yaml = YAML(typ="safe", pure=True)
    yaml.Composer = _LocatingComposer
    yaml.max_depth = MAX_DEPTH
    if libyaml and libyaml_available():
        found: list[tuple[int, int, str]] = []
        try:
            documents = _convert_all(
                compose_documents(text, MAX_DEPTH),
                yaml,
                lambda line, column, message: found.append((line, column, message)),
                substitute,
            )
        except DECLINED:
            pass  # what was found so far is dropped: ruamel.yaml reads the text again
        else:
            for problem in found:
                report(*problem)
            return documents
    return _convert_all(_compose_all(yaml, text, report), yaml, report, substitute)


def _convert_all(
    roots: Iterable[Any], yaml: YAML, report: Report, substitute: Substitute
) -> list[Node]:
    documents: list[Node] = []
    for count, root in enumerate(roots, 1):
        if count > MAX_DOCUMENTS:
            report(
                root.start_mark.line + 1,
                1,
                f"more than {MAX_DOCUMENTS:,} YAML documents in one file; the rest is not "
                "read: split it into several files",
            )
            break
        converter = _Converter(_scalar_constructor(yaml), report, substitute)
        try:
            node = converter.convert(root, 1)
        except _Abandon:
            continue
        if not node.is_empty:
            documents.append(node)
    return documents


def _scalar_constructor(yaml: YAML) -> Callable[[Any], Any]:
    constructor = yaml.constructor

    def construct(item: Any) -> Any:
        try:
            return constructor.construct_object(item, deep=True)
        finally:
            # ruamel remembers every node it built, for aliases; `_Converter` shares
            # aliased values itself, and forgetting them keeps memory flat.
            constructor.constructed_objects.pop(item, None)
            constructor.recursive_objects.pop(item, None)

    return construct


def _compose_all(yaml: YAML, text: str, report: Report) -> Iterator[Any]:
    documents = yaml.compose_all(text)
    while True:
        try:
            root = next(documents)
        except StopIteration:
            return
        except MarkedYAMLError as exc:
            report(*_syntax_problem(exc, text))
            return
        except ReaderError as exc:  # a character YAML does not allow (NUL, other controls)
            line = text.count("\n", 0, exc.position) + 1
            column = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
            report(line, column, f"a character YAML does not allow: #x{exc.character:04x}")
            return
        # No other error can come: reading text, ruamel.yaml raises only these two (its
        # plain `YAMLError`s are for dumping), and `max_depth` stops the composer's
        # recursion at MAX_DEPTH levels, long before Python's limit.
        yield root


def _syntax_problem(exc: MarkedYAMLError, text: str) -> tuple[int, int, str]:
    mark = exc.problem_mark or exc.context_mark
    line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
    problem = str(exc.problem or exc.context or "syntax error").strip()
    if "maximum depth" in problem:
        return line, column, f"invalid YAML: nested deeper than {MAX_DEPTH} levels"
    lines = text.splitlines()
    source = lines[line - 1] if line <= len(lines) else ""  # (a mark may be past the end)
    if "'\\t'" in problem or "\t" in source[: len(source) - len(source.lstrip())]:
        return line, column, "invalid YAML: a tab in the indentation; YAML indents with spaces"
    message = f"invalid YAML: {problem}"
    if exc.context and exc.problem and exc.context_mark and exc.context_mark is not mark:
        where = f"line {exc.context_mark.line + 1}, column {exc.context_mark.column + 1}"
        message += f" ({exc.context} at {where})"
    return line, column, message


class _Converter:
    def __init__(self, construct: Callable[..., Any], report: Report, sub: Substitute) -> None:
        self._construct = construct
        self._report = report
        self._substitute = sub
        # Anchored items only (an alias can reach nothing else), each kept alive by its
        # entry so that its id is never reused by another item.
        self._done: dict[int, tuple[Any, Node]] = {}
        self._open: set[int] = set()
        self._through_aliases = 0

    def convert(self, item: Any, depth: int) -> Node:
        if isinstance(item, AliasUse):
            return self._alias(item, depth)
        anchored = getattr(item, "anchor", None) is not None
        if anchored:
            if id(item) in self._done:
                return self._done[id(item)][1]
            self._open.add(id(item))
        here = Node(None, item.start_mark.line + 1, item.start_mark.column + 1)
        tag = _tag(item)
        if isinstance(item, MappingNode):
            self._check_tag(here, tag, _MAP)
            self._mapping(item, here, depth)
        elif isinstance(item, SequenceNode):
            self._check_tag(here, tag, _SEQ)
            here.value = [self.convert(child, depth + 1) for child in _released(item.value)]
            self._measure(here, here.value)
        else:
            here.raw = str(item.value)
            here.value = self._scalar(item, here, tag)
        if anchored:
            self._open.discard(id(item))
            self._done[id(item)] = (item, here)
        return here

    def _alias(self, use: AliasUse, depth: int) -> Node:
        if id(use.node) in self._open:
            self._report(use.line, use.column, "a recursive alias cannot be loaded")
            return Node(None, use.line, use.column)
        node = self.convert(use.node, depth)
        self._through_aliases += node.size
        if self._through_aliases > ALIAS_NODE_LIMIT:
            self._report(
                use.line,
                use.column,
                f"aliases expand to more than {ALIAS_NODE_LIMIT:,} nodes (an alias bomb?); "
                "the document is not loaded",
            )
            raise _Abandon
        if depth + node.depth > MAX_DEPTH + 1:
            self._report(use.line, use.column, f"aliases nest deeper than {MAX_DEPTH} levels")
            return Node(None, use.line, use.column)
        # The value is shared, but the alias is where this use of it is written: a problem
        # with the whole value (a duplicate entry, a missing field) is reported there.
        return Node(node.value, use.line, use.column, node.keys, node.raw, node.size, node.depth)

    def _check_tag(self, here: Node, tag: str, expected: str) -> None:
        if tag != expected:
            self._report(here.line, here.column, f"unsupported YAML tag '{_short(tag)}'")

    def _scalar(self, item: Any, here: Node, tag: str) -> Any:
        if tag == _STR:  # the common case: skip the constructor
            value: Any = str(item.value)
        else:
            try:
                value = self._construct(item)
            except YAMLError as exc:  # an unknown tag
                problem = str(getattr(exc, "problem", None) or exc).splitlines()[0]
                self._report(here.line, here.column, f"cannot read this value: {problem}")
                return None
            except (ValueError, LookupError, TypeError, ArithmeticError) as exc:  # `!!bool maybe`
                if tag == _TIMESTAMP and isinstance(exc, ValueError):
                    # Looks like a date but is none (2025-02-30): text, for the field to judge.
                    return str(item.value)
                self._report(here.line, here.column, f"cannot read this value as {_short(tag)}")
                return None
        if isinstance(value, str):
            value, problems = self._substitute(value)
            for problem in problems:
                self._report(here.line, here.column, problem)
        return value

    def _mapping(self, item: Any, out: Node, depth: int) -> None:
        out.value, out.keys = {}, {}
        merges: list[Node] = []
        for key_item, value_item in _released(item.value):
            if not isinstance(key_item, AliasUse) and _tag(key_item) == _MERGE:
                merged = self.convert(value_item, depth + 1)
                line, column = key_item.start_mark.line + 1, key_item.start_mark.column + 1
                merges.append(_at_key_if_empty(merged, value_item, line, column))
                continue
            key = self._key(key_item)
            if key is None:
                continue
            first = out.keys.get(str(key.value))
            if first is not None:
                self._report(
                    key.line,
                    key.column,
                    f"duplicate key '{key.value}' (first at line {first.line}, "
                    f"column {first.column})",
                )
                continue
            out.keys[key.value] = key
            value = self.convert(value_item, depth + 1)
            out.value[key.value] = _at_key_if_empty(value, value_item, key.line, key.column)
        for merged in merges:
            for source in merged.value if isinstance(merged.value, list) else [merged]:
                if source.keys is None:
                    self._report(
                        source.line, source.column, "'<<' must name a mapping or a list of them"
                    )
                    continue
                for name, value in source.value.items():
                    # Explicit keys win over merged ones, earlier merges over later ones.
                    if name not in out.value:
                        out.keys[name] = source.keys[name]
                        out.value[name] = value
        self._measure(out, out.value.values())

    def _key(self, key_item: Any) -> Node | None:
        if isinstance(key_item, AliasUse):  # `*name: value`
            line, column, key_item = key_item.line, key_item.column, key_item.node
        else:
            line, column = key_item.start_mark.line + 1, key_item.start_mark.column + 1
        if not isinstance(key_item, ScalarNode):
            self._report(line, column, "a mapping key must be a plain value, not a collection")
            return None
        return Node(str(key_item.value), line, column, raw=str(key_item.value))

    @staticmethod
    def _measure(node: Node, children: Any) -> None:
        size, depth = 1, 0
        for child in children:
            size += child.size
            depth = max(depth, child.depth)
        node.size, node.depth = size, depth + 1


def _tag(item: Any) -> str:
    tag = item.ctag  # str from libyaml's composer, `Tag` from ruamel's
    return tag if type(tag) is str else str(getattr(item.tag, "value", item.tag))


def _released(items: Iterable[Any]) -> Iterable[Any]:
    """Each of `items`, dropped from a list as it is taken: the composed tree is freed
    while the `Node` tree grows, so the two are never both whole in memory. (An anchored
    item is converted once and kept by `_Converter`, so nothing needs it again.) libyaml's
    composer gives an iterator that composes each item as it is taken."""
    if not isinstance(items, list):
        return items
    return _releasing(items)


def _releasing(items: list[Any]) -> Iterator[Any]:
    for index, item in enumerate(items):
        items[index] = None
        yield item


def _short(tag: str) -> str:
    return tag.replace("tag:yaml.org,2002:", "!!")


def _at_key_if_empty(value: Node, item: Any, line: int, column: int) -> Node:
    """`name:` with nothing after it: YAML places the empty value where the next token
    starts (the parsers disagree on where, and it is often the next line); the key is where
    a reader looks."""
    if value.raw == "" and getattr(item, "style", "") is None:
        return Node(value.value, line, column, raw="")
    return value
