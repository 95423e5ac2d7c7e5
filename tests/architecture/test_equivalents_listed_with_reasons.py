"""The mutants no test can kill are listed in one place, `tools/mutation-equivalents.txt`,
each with the reason a reader can check (docs/mutation-testing.md): no line of the package
is kept from mutmut with `pragma: no mutate`, and each listed line is a line of code in a
module that exists."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).parents[2]
LISTED = ROOT / "tools" / "mutation-equivalents.txt"


def listed() -> list[tuple[str, int, str]]:
    found = []
    for line in LISTED.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            where, _, reason = line.partition("  ")
            module, _, number = where.rpartition(":")
            found.append((module, int(number), reason.strip()))
    return found


def test_no_line_of_the_package_is_kept_from_mutation_by_a_pragma() -> None:
    kept = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "reconciler").rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "pragma: no mutate" in line
    ]
    assert kept == []


def test_each_equivalent_names_a_line_of_code_and_a_reason() -> None:
    entries = listed()
    assert entries
    for module, number, reason in entries:
        source = (ROOT / module).read_text(encoding="utf-8").splitlines()
        assert 0 < number <= len(source), (module, number)
        code = source[number - 1].strip()
        assert code and not code.startswith("#"), (module, number, code)
        assert len(reason.split()) >= 5, (module, number, reason)
