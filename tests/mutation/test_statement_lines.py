"""A mutant inside a statement that spans lines (a string of a long `__all__`, of a tuple
of message lines, an argument of a call written over several lines) is judged by the
tests that ran the statement: coverage.py records such a statement under its first line
only, so the mutant's own line has no test of its own (it was counted "no tests")."""

from __future__ import annotations

from pathlib import Path

from tests.mutation.contexts import IMPORT
from tests.mutation.mutants import mutants_of
from tests.mutation.workers import Selection

SOURCE = b'''"""Doc."""
from __future__ import annotations

__all__ = [
    "first",
    "second",
]


@decorate(
    "name",
    help="text",
)
def first(count: int) -> list[str]:
    lines = [
        "one",
        "two",
    ]
    if (
        count > 1
    ):
        return lines
    return []
'''


def test_a_mutant_on_a_later_line_of_a_statement_is_judged_by_its_first_line() -> None:
    found = {m.line: m for m in mutants_of(Path("m.py"), SOURCE) if m.what == "string changed"}
    assert [found[line].statement_line for line in (6, 11, 12, 17)] == [4, 10, 10, 15]
    lines = {4: {IMPORT}, 10: {IMPORT}, 15: {"t::a"}, 19: {"t::b"}, 22: {"t::b"}}
    selection = Selection({Path("m.py"): lines}, {"t::a": 1.0, "t::b": 1.0, "u::x": 1.0})
    assert selection.tests_for(found[17]) == ["t::a"]
    assert selection.tests_for(found[6]) == ["t::a", "t::b", "u::x"]  # a top-level line
    [compare] = [m for m in mutants_of(Path("m.py"), SOURCE) if m.line == 20 and "`<=`" in m.what]
    assert compare.statement_line == 19  # the `if`'s header, not its body
    assert selection.tests_for(compare) == ["t::b"]
