"""A constant inside a literal list or tuple written over several lines (an `__all__`) is
folded into its statement when compiled: no test ever runs its own line, only the
statement's first. Its mutant is run against the tests of that line, not counted as
"no tests"."""

from __future__ import annotations

from pathlib import Path

from tests.mutation.contexts import IMPORT
from tests.mutation.mutants import mutants_of
from tests.mutation.workers import Selection

SOURCE = b'''"""Doc."""
from __future__ import annotations

__all__ = [
    "one",
    "two",
]


def one(names: list[str]) -> int:
    return len(
        names,
    )
'''


def test_a_folded_constant_is_judged_by_the_tests_of_its_statement() -> None:
    found = mutants_of(Path("m.py"), SOURCE)
    two = next(m for m in found if m.line == 6)
    assert (two.what, two.statement_line) == ("string changed", 4)
    lines = {4: {IMPORT, "t::names"}, 11: {"t::one"}}
    selection = Selection({Path("m.py"): lines}, {"t::names": 1.0, "t::one": 1.0})
    assert selection.tests_for(two)[0] == "t::names"
    # A line that is run keeps its own tests, not its statement's.
    returned = next(m for m in found if m.line == 11)
    assert selection.tests_for(returned) == ["t::one"]
