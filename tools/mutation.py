"""Mutation testing with mutmut (configured in pyproject.toml, `[tool.mutmut]`) for the
modules that match the globs given, or the configured ones (`only_mutate`: the modules that
decide what is written) when none is given; then a summary per module: killed, survived,
equivalent (a survivor whose line is listed in tools/mutation-equivalents.txt), timeout,
suspicious, no tests.

    python tools/mutation.py                                  # the configured modules
    python tools/mutation.py 'reconciler/*'                   # every module
    python tools/mutation.py 'reconciler/planning/*'          # one package
    python tools/mutation.py reconciler/plans/addresses.py --tests tests/planning
    python tools/mutation.py --summary-only 'reconciler/*'    # the last results, no run
    python tools/mutation.py --summary-only --sample 10 --seed 7   # 10 a module, at random

mutmut keeps its work in `mutants/`: a mutant whose function has not changed since it was
judged is not run again (a survivor is). Exit status 1 when a survivor is not listed as
equivalent.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import sys
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parents[1]
EQUIVALENTS = ROOT / "tools" / "mutation-equivalents.txt"
MUTANTS = Path("mutants")
COLUMNS = ("killed", "survived", "equivalent", "timeout", "suspicious", "no tests", "other")
# mutmut's statuses counted as killed; the ones that judge nothing about the tests (not run
# yet, interrupted, skipped) are counted as "other".
KILLED = {"killed", "caught by type check", "segfault"}
T = TypeVar("T")
# Survivors and mutants no test calls are judged again on every run: a test written since
# may kill them, and mutmut itself would keep their verdict while their function is as it was.
# Not a survivor on a line listed as equivalent: nothing can kill it while its function is
# unchanged (a change of the function judges it again), and each costs all its tests.
AGAIN = {0, 33}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("globs", nargs="*", help="module paths or globs (default: only_mutate)")
    parser.add_argument("--tests", nargs="+", help="only these tests (default: the configured)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="mutants at once")
    parser.add_argument("--summary-only", action="store_true", help="report the last results")
    parser.add_argument("--equivalents", type=Path, default=EQUIVALENTS)
    parser.add_argument(
        "--sample",
        type=int,
        metavar="N",
        help="count only N judged mutants a module, drawn at random with --seed (a sample's score)",
    )
    parser.add_argument("--seed", type=int, default=0, help="the draw of --sample")
    args = parser.parse_args(argv)
    equivalents = read_equivalents(args.equivalents)
    os.chdir(ROOT)  # mutmut reads pyproject.toml and writes mutants/ in the working directory
    from mutmut.__main__ import cli
    from mutmut.configuration import config

    settings = config()
    if args.globs:
        settings.only_mutate = args.globs
    if args.tests:
        settings.pytest_add_cli_args_test_selection = args.tests
    if not args.summary_only:
        _prepare(args.globs, args.tests, equivalents)
        cli(["run", "--max-children", str(args.jobs)], standalone_mode=False)
    return summary(equivalents, (args.sample, args.seed) if args.sample else None)


def _prepare(
    globs: list[str], tests: list[str] | None, equivalents: Mapping[tuple[str, int], str]
) -> None:
    """Readies mutants/ for mutmut, whose cache would otherwise keep wrong verdicts.

    - mutmut measures coverage on its copy of a module before mutating it again, so the
      copy of each chosen module is put back to the source first (with the source's time
      stamp, which makes mutmut mutate it again, keeping the verdicts of its unchanged
      functions).
    - It numbers a function's mutants over its covered lines only: when coverage changes,
      a number names another mutant. Each verdict kept is checked against its mutant's
      diff (`_checked`), and one whose diff changed is judged again, as are survivors.
    - It forgets which tests call the functions it did not mutate: when the choice of
      modules or tests changes, that record is emptied, so mutmut makes it again."""
    import mutmut.__main__
    from mutmut.__main__ import FileMutationResult
    from mutmut.utils.file_utils import walk_mutatable_files

    for path in walk_mutatable_files():
        if (MUTANTS / path).is_file():
            shutil.copy2(path, MUTANTS / path)
    make = mutmut.__main__.create_mutants_for_file

    def create_mutants_for_file(filename: Path, output_path: Path) -> FileMutationResult:
        return _checked(filename, make(filename, output_path), equivalents)

    mutmut.__main__.create_mutants_for_file = create_mutants_for_file
    choice, chosen = MUTANTS / "chosen.json", json.dumps({"globs": globs, "tests": tests})
    stats = MUTANTS / "mutmut-stats.json"
    if stats.is_file() and (not choice.is_file() or choice.read_text() != chosen):
        record = json.loads(stats.read_text())
        record.update(tests_by_mangled_function_name={}, duration_by_test={})
        stats.write_text(json.dumps(record))
    MUTANTS.mkdir(exist_ok=True)
    choice.write_text(chosen)


def _checked(path: Path, made: T, equivalents: Mapping[tuple[str, int], str]) -> T:
    """Forgets the verdict of each mutant of `path` whose diff is not the one judged, and
    of each survivor (but those on a line listed as equivalent) and mutant without tests."""
    from mutmut.mutation.data import SourceFileMutationData
    from mutmut.mutation.diff_apply import get_diff_for_mutant

    data = SourceFileMutationData(path=path)
    data.load()
    record = MUTANTS / f"{path}.diffs"
    judged = json.loads(record.read_text()) if record.is_file() else {}
    texts = {name: get_diff_for_mutant(name, path=path) for name in data.exit_code_by_key}
    diffs = {name: hashlib.sha256(text.encode()).hexdigest() for name, text in texts.items()}
    for name, diff in diffs.items():
        code = data.exit_code_by_key[name]
        listed = code == 0 and (str(path), changed_line(path, texts[name])) in equivalents
        if judged.get(name) != diff or (code in AGAIN and not listed):
            data.exit_code_by_key[name] = None
    data.save()
    record.write_text(json.dumps(diffs))
    return made


def read_equivalents(path: Path) -> dict[tuple[str, int], str]:
    """`module:line  reason` per line (blank lines and `#` comments aside)."""
    found: dict[tuple[str, int], str] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        where, _, reason = line.partition(" ")
        module, _, at = where.rpartition(":")
        if not (module and at.isdigit() and reason.strip()):
            raise SystemExit(f"{path}:{number}: expected `module:line  reason`, got {line!r}")
        found[(module, int(at))] = reason.strip()
    return found


def summary(equivalents: dict[tuple[str, int], str], sample: tuple[int, int] | None = None) -> int:
    """Prints the counts per module and every survivor not listed, with its diff; 1 if any.
    With `sample` (N, seed), each module counts N of its judged mutants drawn at random."""
    from mutmut.mutation.data import SourceFileMutationData
    from mutmut.mutation.diff_apply import get_diff_for_mutant
    from mutmut.stats import status_by_exit_code
    from mutmut.utils.file_utils import walk_mutatable_files

    rows: dict[str, Counter[str]] = {}
    survivors: list[tuple[str, str]] = []
    used: set[tuple[str, int]] = set()
    for path in sorted(walk_mutatable_files()):
        data = SourceFileMutationData(path=path)
        data.load()
        count = rows.setdefault(str(path), Counter())
        verdicts = sorted(data.exit_code_by_key.items())
        if sample:
            judged = [(name, code) for name, code in verdicts if code is not None]
            draw = random.Random(f"{sample[1]}:{path}")
            verdicts = sorted(draw.sample(judged, min(sample[0], len(judged))))
        for name, code in verdicts:
            status = status_by_exit_code[code]
            if status == "survived":
                diff = get_diff_for_mutant(name, path=path)
                line = changed_line(path, diff)
                if (str(path), line) in equivalents:
                    status = "equivalent"
                    used.add((str(path), line))
                else:
                    survivors.append((f"{path}:{line}  {name}", diff))
            column = "killed" if status in KILLED else status
            count[column if column in COLUMNS else "other"] += 1
    rows = {module: count for module, count in rows.items() if count}
    if not rows:
        print("no verdicts in mutants/ for these modules: run them first")
        return 1
    print_table(rows)
    for where, diff in survivors:
        print(f"\nsurvived: {where}")
        print("\n".join("    " + line for line in diff.splitlines()[2:]))
    for module, line in sorted(set(equivalents) - used):
        if module in rows:
            print(f"\nno survivor at {module}:{line} (listed as equivalent): remove the line")
    return 1 if survivors else 0


def print_table(rows: dict[str, Counter[str]]) -> None:
    width = max([len(module) for module in rows] + [len("total")])
    print(f"\n{'module':<{width}}  " + "  ".join(f"{c:>10}" for c in COLUMNS))
    total: Counter[str] = Counter()
    for module, count in rows.items():
        total.update(count)
        print(f"{module:<{width}}  " + "  ".join(f"{count[c]:>10}" for c in COLUMNS))
    print(f"{'total':<{width}}  " + "  ".join(f"{total[c]:>10}" for c in COLUMNS))


def changed_line(path: Path, diff: str) -> int:
    """The line of `path` that the mutant changes: the first line its diff removes, found
    after the same context lines (the diff holds the function alone, not the file); after
    fewer of them when the source changed since (0 when the line is gone)."""
    lines = diff.splitlines()[2:]
    first = next(i for i, line in enumerate(lines) if line.startswith("-"))
    context = [line[1:].strip() for line in lines[1:first]]
    source = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
    for kept in range(len(context), -1, -1):
        wanted = [*context[len(context) - kept :], lines[first][1:].strip()]
        for index in range(len(source) - len(wanted) + 1):
            if source[index : index + len(wanted)] == wanted:
                return index + len(wanted)
    return 0


if __name__ == "__main__":
    sys.exit(main())
