"""The nesting limit reached through aliases, at its boundary: a value whose aliases nest
exactly 64 levels deep loads, one level more is refused at the alias that goes too deep.
An empty list or mapping is one level (it nests nothing), the case where counting its
depth from 1 instead of 0 would refuse a document one level early."""

from __future__ import annotations

from typing import Any

import pytest

from reconciler.errors import ManifestError
from reconciler.manifest import load_manifest_text
from reconciler.manifest.yamltree import MAX_DEPTH


def chain(leaf: str, aliases: int) -> str:
    """An employee whose open field `a0` is `leaf` and each `aN` a list of `a(N-1)`: `aN`
    holds N+1 levels when `leaf` is empty, and starts at level 5 of the document (the
    top mapping, `workspace`, `employees`, the employee, then the field's value)."""
    lines = "".join(f"      a{i}: &a{i} [*a{i - 1}]\n" for i in range(1, aliases + 1))
    return f"workspace:\n  employees:\n    - email: a@b.c\n      a0: &a0 {leaf}\n" + lines


def wrapped(value: Any, lists: int) -> Any:
    for _ in range(lists):
        value = [value]
    return value


@pytest.mark.parametrize(("leaf", "empty"), [("[]", []), ("{}", {})], ids=["list", "mapping"])
def test_aliases_of_an_empty_value_nest_to_the_limit_and_no_further(leaf: str, empty: Any) -> None:
    at_limit = MAX_DEPTH - 5  # a59: levels 5 to 64
    desired = load_manifest_text(chain(leaf, at_limit), "chain.yaml")
    workspace = desired.manifest.workspace
    assert workspace is not None
    [employee] = workspace.employees
    assert employee.model_dump()[f"a{at_limit}"] == wrapped(empty, at_limit)

    with pytest.raises(ManifestError) as caught:
        load_manifest_text(chain(leaf, at_limit + 1), "chain.yaml")
    # The alias `*a59` in the last line's list, where a60 would reach 65 levels.
    assert caught.value.problems == [
        f"chain.yaml:{4 + at_limit + 1}:18: aliases nest deeper than {MAX_DEPTH} levels"
    ]


def test_a_syntax_error_ruamel_gives_no_place_for_is_reported_at_the_first_character() -> None:
    # ruamel's MarkedYAMLError may carry neither a problem nor a context mark: the message
    # still names a place a reader can go to, the file's first line and column.
    from ruamel.yaml.error import MarkedYAMLError

    from reconciler.manifest.yamltree import _syntax_problem

    assert _syntax_problem(MarkedYAMLError(), "a: b\n") == (1, 1, "invalid YAML: syntax error")
    assert _syntax_problem(MarkedYAMLError(problem="bad"), "") == (1, 1, "invalid YAML: bad")
