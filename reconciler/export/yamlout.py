"""Writing manifests as YAML text (ruamel.yaml), so that loading them gives back exactly
the values written:

- A string that YAML would read as something else is quoted: by YAML 1.2 (what the
  loader reads: `"0012"`, `"2027-01-31"`, `"true"`, `"+4930123"`) and by YAML 1.1 too
  (`'on'`, `'yes'`), so that other tools read the files the same way; and one that starts
  with an indicator (`?`, `-`, `&`, ...) or holds a flow indicator (`,[]{}`).
- `${` in a string is written `$${`: the loader replaces `${NAME}` with a variable.
- A multi-line string is a `|` block; a string with a carriage return, another line break
  YAML would turn into `\\n`, or a control character is double-quoted (with escapes).
- Lists of short names are written on one line (`[a, b]`); null as `null`; dates as
  dates; lines are never folded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from io import StringIO
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.nodes import ScalarNode
from ruamel.yaml.representer import RoundTripRepresenter
from ruamel.yaml.resolver import VersionedResolver
from ruamel.yaml.scalarstring import (
    DoubleQuotedScalarString,
    LiteralScalarString,
    SingleQuotedScalarString,
)

_STR = "tag:yaml.org,2002:str"
_YAML11 = VersionedResolver(version=(1, 1))
# Line breaks YAML normalises to "\n" inside a block (or that cannot appear in one).
_UNBLOCKABLE = ("\r", "\x85", "\u2028", "\u2029")
_FLOW_WIDTH = 80  # a list of scalars longer than this is written one item a line
# A plain scalar starting with one of these, or holding a flow indicator, can read back as
# something else in a flow list (ruamel writes `[?0]`, which reads as a mapping): quote it.
_INDICATORS = "?:-,[]{}#&*!|>'\"%@`"
_FLOW_INDICATORS = ",[]{}"


class _Representer(RoundTripRepresenter):
    """Writes None as `null` (the round-trip representer writes nothing). A class of its
    own: `add_representer` changes the class it is called on, and called through a YAML
    instance's representer it changed ruamel's for the whole process, so that every YAML
    written after an export (a test's, a library user's) had `null` where it had nothing."""


_Representer.add_representer(
    type(None), lambda rep, _: rep.represent_scalar("tag:yaml.org,2002:null", "null")
)


def _yaml() -> YAML:
    yaml = YAML()
    yaml.Representer = _Representer
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.width = 1_000_000  # never fold a line: a folded text is harder to edit
    return yaml


def escape(text: str) -> str:
    """Protects `${` from the loader's variable substitution."""
    return text.replace("${", "$${")


def scalar(value: Any, *, key: bool = False) -> Any:
    """A scalar as ruamel should write it (see the module's docstring). Mapping keys are
    not substituted by the loader, so `${` in a key is written as it is."""
    if not isinstance(value, str):
        return value
    text = value if key else escape(value)
    if any(c in _UNBLOCKABLE or (not c.isprintable() and c not in "\n\t") for c in text):
        # Only a double-quoted string keeps these: elsewhere YAML folds or refuses them.
        return DoubleQuotedScalarString(text)
    if "\n" in text:
        return LiteralScalarString(text)
    if text and _YAML11.resolve(ScalarNode, text, (True, False)) != _STR:
        return SingleQuotedScalarString(text)
    if text and (text[0] in _INDICATORS or any(c in _FLOW_INDICATORS for c in text)):
        return SingleQuotedScalarString(text)
    return text


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool | date)


def node(value: Any) -> Any:
    """Plain data (dicts in the order to write, lists, scalars) as ruamel's types; what
    is already one of them (an `entries_node`) is kept as it is."""
    if isinstance(value, CommentedMap | CommentedSeq):
        return value
    if isinstance(value, Mapping):
        out = CommentedMap()
        for key, item in value.items():
            out[scalar(str(key), key=True)] = node(item)
        if list(out) == ["option_id"]:
            out.fa.set_flow_style()  # a dropdown value: `Tier: {option_id: 7}`
        return out
    if isinstance(value, Sequence) and not isinstance(value, str):
        seq = CommentedSeq(node(item) for item in value)
        short = all(_is_scalar(i) and "\n" not in str(i) for i in value)
        if short and len(", ".join(str(i) for i in value)) <= _FLOW_WIDTH:
            seq.fa.set_flow_style()
        return seq
    return scalar(value)


def entries_node(entries: Sequence[Mapping[str, Any]]) -> CommentedSeq:
    """A kind's list of entries; entries of more than a few fields are set apart by a
    blank line, as one writes them by hand."""
    seq = CommentedSeq(node(entry) for entry in entries)
    if any(len(entry) > 3 for entry in entries):
        for index in range(1, len(entries)):
            seq.yaml_set_comment_before_after_key(index, before="\n")
    return seq


def dump(document: Mapping[str, Any], header: Sequence[str], trailer: str = "") -> str:
    """The text of one manifest file: `header` as comment lines, the document (its
    values already `node`s or plain data), then `trailer` (raw text, e.g. comments)."""
    stream = StringIO()
    stream.write(dump_header(header))
    _yaml().dump(document if isinstance(document, CommentedMap) else node(document), stream)
    return stream.getvalue() + trailer


def dump_header(lines: Sequence[str]) -> str:
    return "".join(f"# {line}\n" if line else "#\n" for line in lines)


def commented_entries(entries: Sequence[Mapping[str, Any]]) -> str:
    """Entries written as the items of a top-level list, then turned into comments (for
    entries that cannot be written as they are, e.g. a rule whose state the service does
    not say): removing the `# ` of each line makes them items again."""
    if not entries:
        return ""
    stream = StringIO()
    _yaml().dump({"list": [node(e) for e in entries]}, stream)
    lines = stream.getvalue().splitlines()[1:]
    return "".join(f"# {line}\n" for line in lines)
