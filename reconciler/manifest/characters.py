"""Characters that have no place in a name: control characters (NUL, ESC, a line break,
DEL ...) and invisible ones (a zero-width space, a soft hyphen, a direction mark, a
Hangul filler ...). The helpdesk stores them as written, so `Acme<U+200B>Corp` becomes a
second company that looks like `Acme Corp`, and a name with an escape sequence rewrites a
reviewer's terminal.

`character_problems(desired)` finds them, offline, for `validate` (and so `plan`/`apply`):
- a key, or a name that refers to another kind's key (a user's company): a control or an
  invisible character is an error;
- any other name field (`first_name`, `last_name`, an employee's `*name` field): a control
  character is an error (an invisible one may be meant, as in a name written with a
  zero-width joiner).
Pure: a function of the desired state.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from reconciler.kinds.employees import Employee
from reconciler.kinds.table import key_field
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.models import Kind
from reconciler.manifest.references import Path, entry_keys, keyed_entries, named_references

# Invisible, yet not of category Cf (format): fillers and selectors that render as nothing.
_INVISIBLE = {0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D, 0x180F, 0x3164}
_INVISIBLE |= {0xFFA0, *range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)}

Problem = tuple[Kind, str, Path, str]  # (kind, key, path, message)


def first_bad(text: str, invisible: bool) -> str | None:
    """How the first control (or, with `invisible`, invisible) character of `text` is
    described, or None when it has none."""
    if text.isascii() and text.isprintable():
        return None  # the common case: nothing to look at
    for position, char in enumerate(text, start=1):
        category = unicodedata.category(char)
        hidden = category in ("Cf", "Zl", "Zp") or ord(char) in _INVISIBLE
        if category == "Cc" or (invisible and hidden):
            what = "a control" if category == "Cc" else "an invisible"
            name = unicodedata.name(char, "")
            shown = f"U+{ord(char):04X}" + (f" {name}" if name else "")
            return f"{what} character ({shown}) at position {position}"
    return None


def character_problems(desired: DesiredState) -> list[Problem]:
    """The problems of the module docstring, each located by (kind, key, path)."""
    found: list[Problem] = []
    for kind in Kind:
        for key in entry_keys(desired, kind):
            bad = first_bad(key, invisible=True)
            if bad is not None:
                found.append((kind, key, (), f"the {kind.value} key {key!r} holds {bad}: "
                              "remove it (a key must be written as it reads)"))  # fmt: skip
    for kind, key, path, target, name in named_references(desired):
        bad = first_bad(name, invisible=True)
        if bad is not None and path[0] != key_field(kind, desired.settings.employee_key):
            found.append((kind, key, path, f"the {target.value} name {name!r} holds {bad}: "
                          "remove it"))  # fmt: skip
    for kind, key, field, value in _name_fields(desired):
        bad = first_bad(value, invisible=False)
        if bad is not None:
            found.append((kind, key, (field,), f"{field} {value!r} holds {bad}: remove it"))
    return found


def _name_fields(desired: DesiredState) -> Iterable[tuple[Kind, str, str, str]]:
    """(kind, entry key, field, value) of each name field that is not the key."""
    for kind in Kind:
        key_name = key_field(kind, desired.settings.employee_key)
        for key, entry in keyed_entries(desired, kind):
            if isinstance(entry, Employee):
                values = dict(entry.fields)
            else:
                values = {name: getattr(entry, name) for name in type(entry).model_fields}
            for field, value in values.items():
                if field != key_name and field.lower().endswith("name") and isinstance(value, str):
                    yield kind, key, field, value
